"""autocheck compare: two hand-made runs of one suite with known flips, suites that differ, the page."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from browser import Browser, find_chromium
from report_data import MANIFEST, other, toy, write_suite

from autocheck.cli import main
from autocheck.report.compare import compare_runs, format_comparison, write_comparison_html
from autocheck.run import run_suite


@pytest.fixture
def runs(tmp_path):
    suite = write_suite(tmp_path / "suite")
    before = run_suite(suite, [toy()], tmp_path / "before")
    after = run_suite(suite, [other()], tmp_path / "after")
    return tmp_path / "before", tmp_path / "after", before, after


def test_known_flips_and_rate_changes(runs):
    a, b, before, after = runs
    result = compare_runs(a, b)
    assert result["same_suite"] and result["cases"] == {"shared": 12, "only_a": 0, "only_b": 0}
    (pair,) = result["pairs"]
    assert (pair["model_a"], pair["model_b"]) == ("toy", "other")  # one model each: matched by position
    flips = {(f["case"], f["flip"]) for f in pair["flips"]}
    assert flips == {("n1", "pass→fail"), ("s3.1", "fail→pass")}
    caps = pair["capabilities"]
    for cap, c in caps.items():  # recomputed from predictions: equal to each run's own headline rate
        assert c["a"]["failure_rate"] == before["models"]["toy"]["capabilities"][cap]["failure_rate"]
        assert c["b"]["failure_rate"] == after["models"]["other"]["capabilities"][cap]["failure_rate"]
    assert caps["LC4"]["change"] == 0.5 and caps["LC4"]["pass_to_fail"] == 1
    assert caps["LC2"]["change"] == pytest.approx(-1 / 6, abs=1e-6) and caps["LC2"]["fail_to_pass"] == 1
    assert caps["ROB"]["change"] == 0 and caps["ROB"]["test_type"] == "INV"
    low, high = caps["LC4"]["interval"]
    assert low < 0 < high and low > -1 and high <= 1  # 1/2 vs 2/2: too few cases to tell
    table = format_comparison(result)
    assert max(map(len, table.splitlines())) <= 100
    assert "flipped cases: 1 pass→fail, 1 fail→pass" in table


def test_models_matched_by_name_and_refused_when_none_match(tmp_path):
    suite = write_suite(tmp_path / "suite")
    run_suite(suite, [toy(), other()], tmp_path / "a")
    run_suite(suite, [other(), toy()], tmp_path / "b")
    result = compare_runs(tmp_path / "a", tmp_path / "b")
    assert [(p["model_a"], p["model_b"]) for p in result["pairs"]] == [("other", "other"), ("toy", "toy")]
    assert all(not p["flips"] for p in result["pairs"])
    run_suite(suite, [other("x"), other("y")], tmp_path / "c")
    with pytest.raises(ValueError, match="no model in common by name"):
        compare_runs(tmp_path / "a", tmp_path / "c")


def test_different_suites_compared_on_shared_ids_or_refused(tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    run_suite(suite, [toy()], tmp_path / "a")
    smaller = write_suite(tmp_path / "smaller", {**MANIFEST, "fingerprint": "another"})
    lines = (smaller / "cases.jsonl").read_text().splitlines()
    (smaller / "cases.jsonl").write_text("\n".join(line for line in lines if '"LC4"' in line) + "\n")
    run_suite(smaller, [other()], tmp_path / "b")
    result = compare_runs(tmp_path / "a", tmp_path / "b")
    assert not result["same_suite"] and result["cases"] == {"shared": 2, "only_a": 10, "only_b": 0}
    assert list(result["pairs"][0]["capabilities"]) == ["LC4"]
    assert "compared on 2 shared case ids (10 only in A, 0 only in B)" in format_comparison(result)

    unrelated = tmp_path / "unrelated"
    unrelated.mkdir()
    (unrelated / "cases.jsonl").write_text(
        json.dumps({"id": "u1", "capability": "LC9", "kind": "seed", "text": "meh", "expected": "positive",
                    "test_type": "MFT", "label": "positive"}) + "\n"
    )  # fmt: skip
    run_suite(unrelated, [other()], tmp_path / "u")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "u")]) == 2
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("autocheck: ")]
    assert "no case id in common" in line and str(tmp_path / "u") in line and "Traceback" not in err


def test_compare_cli_json_html_and_bad_input(runs, tmp_path, capsys):
    a, b, *_ = runs
    html = tmp_path / "cmp.html"
    assert main(["compare", str(a), str(b), "--json", "--html", str(html)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["interval"].startswith("Newcombe")
    page = html.read_text()
    rows = re.findall(r"<tr data-capability='([^']*)' data-flip='([^']*)'", page)
    assert sorted(rows) == [("LC2", "fail→pass"), ("LC4", "pass→fail")]
    assert "a <mark>truly</mark> lovely film" in page and page.count("<script") == 1
    assert main(["compare", str(a), str(b), "--html", str(html)]) == 2  # an existing page is kept
    assert "file exists" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--html", str(html), "--overwrite"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(tmp_path / "nothing")]) == 2
    assert "not a results directory" in capsys.readouterr().err
    (b / "predictions.jsonl").write_text('{"model": "other"}\n')
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "predictions.jsonl:1: field 'capability' missing" in err and "Traceback" not in err


def test_max_cases_caps_flipped_rows(runs, tmp_path):
    a, b, *_ = runs
    result = compare_runs(a, b)
    result["pairs"][0]["flips"] *= 3  # three of each
    page = write_comparison_html(result, tmp_path / "cmp.html", max_cases=2).read_text()
    assert len(re.findall(r"<tr data-capability=", page)) == 4
    assert "LC2 fail→pass (other): showing 2 of 3" in page


@pytest.mark.browser
def test_compare_page_filters_in_headless_chromium(runs, tmp_path):
    executable = find_chromium()
    if executable is None:
        pytest.skip("no headless browser: chromium not installed (apt-get install -y chromium)")
    a, b, *_ = runs
    page = write_comparison_html(compare_runs(a, b), tmp_path / "cmp.html")
    browser = Browser(executable, tmp_path / "profile")
    try:
        browser.open(page.as_uri())
        browser.evaluate(
            "var s = document.querySelector('select[name=flip]'); s.value = 'pass→fail';"
            "s.dispatchEvent(new Event('change', {bubbles: true}))"
        )
        visible = browser.evaluate(
            "Array.from(document.querySelectorAll('#flipped tbody tr'))"
            ".filter(r => r.getClientRects().length)"
            ".map(r => r.cells[7].textContent)"
        )
        assert visible == ["n1"]
        out = Path(os.environ.get("AUTOCHECK_ARTIFACTS", tmp_path))  # docs/ for the README
        out.mkdir(parents=True, exist_ok=True)
        browser.evaluate("document.querySelector('form.filters').reset()")
        browser.evaluate("document.querySelector('form.filters').dispatchEvent(new Event('input'))")
        assert browser.screenshot(out / "compare.png", max_height=1200).stat().st_size > 10_000
    finally:
        browser.close()
