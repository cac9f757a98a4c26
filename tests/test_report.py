"""Terminal table and the self-contained HTML report, also rendered in a headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from autocheck.models import CallableModel
from autocheck.records import TestCase
from autocheck.report import format_table, highlighted, load_results, write_html
from autocheck.run import run_suite
from autocheck.sources.checklist import convert_checklist

SCRIPT = "<script>alert('x')</script> fine"
EXPANDED = "<script>alert('x')</script> really fine"


def model(name="toy"):
    def predict(texts):
        return [[0.9, 0.1] if "script" in t or "bad" in t else [0.1, 0.9] for t in texts]

    return CallableModel(name, predict)


@pytest.fixture
def run_dir(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    seed = TestCase("s1", "LC2", "seed", SCRIPT, "positive", "MFT", "positive")
    inserted = {"inserted": [{"word": "really", "tag": "RB", "offset": EXPANDED.index("really")}]}
    exp = TestCase("s1.1", "LC2", "expansion", EXPANDED, "positive", "MFT", "positive", "s1", (), inserted)
    ok = TestCase("s2", "LC4", "seed", "not a good film", ("neutral", "positive"), "MFT", "negative")
    (suite / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in (seed, exp, ok)))
    run_suite(suite, [model("toy"), model("other")], tmp_path / "run")
    return tmp_path / "run"


def test_format_table_with_checklist_alongside(run_dir, tmp_path):
    cl_tests = [
        {"name": "simple negations: not negative", "type": "MFT", "data": ["not bad", "x"], "labels": None}
    ]
    (tmp_path / "cl.json").write_text(json.dumps(cl_tests))
    convert_checklist(tmp_path / "cl.json", tmp_path / "cl_suite")
    checklist = run_suite(tmp_path / "cl_suite", [model("toy")], tmp_path / "cl_run")
    table = format_table(load_results(run_dir), checklist)
    lines = table.splitlines()
    assert "toy seeds" in lines[0] and "CheckList" in lines[0]
    lc2 = next(line for line in lines if line.startswith("LC2"))
    assert lc2.split()[1:6] == ["MFT", "100.0%", "100.0%", "100.0%", "0"]
    lc4 = next(line for line in lines if line.startswith("LC4"))
    assert lc4.split()[6] == "50.0%"  # the mapped CheckList test: "not bad" is read negative, "x" positive
    assert "[LC4]" in format_table(checklist)


def test_highlighted_escapes_and_marks():
    html = highlighted(
        EXPANDED, [{"word": "really", "offset": EXPANDED.index("really")}, {"word": "no", "offset": 0}]
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<mark>really</mark>" in html and html.count("<mark>") == 1  # a wrong offset is not marked


def test_write_html_is_self_contained_and_escaped(run_dir, tmp_path):
    page = write_html(run_dir, tmp_path / "report.html").read_text()
    assert "<script" not in page.replace("&lt;script", "")
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; <mark>really</mark> fine" in page
    assert "<svg" in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "<link" not in page and "src=" not in page


@pytest.mark.browser
def test_report_renders_in_headless_chromium(run_dir, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    page = write_html(run_dir, tmp_path / "report.html")
    flags = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000",
    ]  # fmt: skip
    shot = tmp_path / "report.png"
    run = dict(capture_output=True, text=True, timeout=120, check=True)
    subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], **run)
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], **run).stdout
    assert shot.stat().st_size > 10_000
    assert 'class="matrix"' in dom and "LC2" in dom and "100.0%" in dom
    assert "<mark>really</mark>" in dom and "&lt;script&gt;" in dom  # the example, inert
    artifacts = Path(os.environ.get("AUTOCHECK_ARTIFACTS", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    stable = artifacts / "report_screenshot.png"
    if stable != shot:
        shutil.copy(shot, stable)
    print(f"report screenshot: {stable}")
