"""Terminal table, report --json and the self-contained HTML report (plots, every count, failing cases),
also driven in a headless Chromium: filtering, sorting, and the page with JavaScript disabled."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from browser import artifacts
from conftest import require
from report_data import EXPANDED, other, toy, write_suite

from autocheck.cli import main
from autocheck.report import format_table, highlighted, write_html
from autocheck.run import run_suite
from autocheck.sources.checklist import convert_checklist
from autocheck.stats import newcombe, wilson

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def run_dir(tmp_path):
    suite = write_suite(tmp_path / "suite")
    run_suite(suite, [toy(), other()], tmp_path / "run")
    return tmp_path / "run"


def test_format_table_fits_100_columns_one_block_per_model(tmp_path):
    cl_tests = [
        {"name": "simple negations: not negative", "type": "MFT", "data": ["not bad", "x"], "labels": None}
    ]
    (tmp_path / "cl.json").write_text(json.dumps(cl_tests))
    convert_checklist(tmp_path / "cl.json", tmp_path / "cl_suite")
    checklist = run_suite(tmp_path / "cl_suite", [toy()], tmp_path / "cl_run")
    long_name = "/models/" + "a-very-long-model-directory-name" * 4
    suite = write_suite(tmp_path / "suite2")
    results = run_suite(suite, [toy(), other(), other(long_name)], tmp_path / "run3")
    long_cap = "LC2-" + "with-a-very-long-capability-identifier" * 3
    for model in results["models"].values():
        model["capabilities"][long_cap] = model["capabilities"]["LC2"]
    table = format_table(results, checklist)
    lines = table.splitlines()
    assert max(map(len, lines)) <= 100
    assert sum(line.startswith("capability ") for line in lines) == 3  # one block per model
    assert lines[0].startswith("toy: ")
    assert any(line.startswith("LC2-with-a-very-long") and "…" in line for line in lines)
    lc2 = next(line for line in lines if line.startswith("LC2"))
    # type, rate, interval, failed/applicable, seeds, derived, p→f, f→p, errors, CheckList
    assert lc2.split()[2:] == ["MFT", "66.7%", "30–90%", "4/6", "66.7%", "66.7%", "1", "1", "0"]
    lc4 = next(line for line in lines if line.startswith("LC4"))
    assert lc4.split()[-1] == "50.0%"  # the mapped CheckList test: "not bad" read negative, "x" positive
    assert "[LC4]" in format_table(checklist)


def test_wilson_and_newcombe_match_published_examples():
    low, high = wilson(81, 263)  # Newcombe (1998), single proportion, example: 0.2553 to 0.3662
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = newcombe((48, 80), (56, 70))  # Newcombe (1998), difference 0.2: 0.0524 to 0.3339
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    assert wilson(0, 0) is None and newcombe((0, 0), (1, 2)) is None


def test_report_json_prints_the_summary(run_dir, capsys):
    assert main(["report", str(run_dir), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["capabilities"]["LC4"]["expectation"] == "negative → neutral or positive"
    assert summary["capabilities"]["ROB"]["group"] == "Robustness"
    lc2 = summary["models"]["toy"]["capabilities"]["LC2"]
    assert lc2["transitions"]["fail_to_pass"] == 1 and lc2["transitions"]["pass_to_fail"] == 1
    assert lc2["all"]["failures"] == 4 and lc2["interval"] == [
        pytest.approx(0.299993, abs=1e-4),
        pytest.approx(0.903238, abs=1e-4),
    ]
    assert summary["models"]["toy"]["overall"]["failures"] == 6


def test_bad_results_dir_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text('{"models": {"m": {"capabilities": [1]}}}')
    assert main(["report", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(tmp_path / "run" / "results.json") in err
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "missing: not a results directory" in capsys.readouterr().err


def test_highlighted_escapes_and_marks():
    html = highlighted(
        EXPANDED, [{"word": "really", "offset": EXPANDED.index("really")}, {"word": "no", "offset": 0}]
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<mark>really</mark>" in html and html.count("<mark>") == 1  # a wrong offset is not marked


def test_write_html_is_self_contained_escaped_and_shows_every_count(run_dir, tmp_path):
    results = json.loads((run_dir / "results.json").read_text())
    results["models"]["other"]["capabilities"]["LC4"]["seeds"]["errors"] = 3  # as a remote model's would be
    (run_dir / "results.json").write_text(json.dumps(results))
    page = write_html(run_dir, tmp_path / "report.html").read_text()
    assert page.count("<script") == 1  # the page's own; every dataset text is escaped
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; <mark>really</mark> fine" in page
    assert "Positive sentences &lt;b&gt;stay&lt;/b&gt; positive" in page  # manifest text, escaped too
    assert "<link" not in page and not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert page.count("<svg") == 2 and "<?xml" not in page
    for png in ("report-failure-rates.png", "report-seed-vs-expansion.png"):
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"
    assert "negative → neutral or positive" in page and "perturbation typos" in page
    assert "<th>fail→pass</th>" in page and "3 errors" in page
    # toy LC2: pass→fail 1, fail→pass 1, pass→pass 0, fail→fail 1
    assert "<td>1</td><td>1</td><td>0</td><td>1</td>" in page
    rows = re.findall(r"<tr data-capability='([^']*)' data-model='([^']*)'", page)
    assert len(rows) == 14  # toy: s1 s1.1 s3.1 s4 s4.1 (INV vs seed) n2 r2~1; other: s3.1 passes, n1 fails
    assert ("ROB", "toy") in rows and ("LC4", "other") in rows
    # probabilities named by the task's labels, as in the notebook display
    assert "<span class=muted>negative 0.90 · neutral 0.00 · positive 0.10</span>" in page


def test_max_failures_caps_rows_with_a_note(run_dir, tmp_path):
    page = write_html(run_dir, tmp_path / "r.html", max_failures=1, plots=False).read_text()
    assert len(re.findall(r"<tr data-capability=", page)) == 6  # 3 capabilities × 2 models
    assert "LC2 × toy: showing 1 of 5 failing cases" in page and "<svg" not in page
    everything = write_html(run_dir, tmp_path / "all.html", max_failures=0, plots=False).read_text()
    assert "showing" not in everything and len(re.findall(r"<tr data-capability=", everything)) == 14


VISIBLE_ROWS = """Array.from(document.querySelectorAll('#failures tbody tr'))
  .filter(r => r.getClientRects().length > 0).map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent
  + ' ' + r.cells[8].textContent)"""


@pytest.mark.browser
def test_filter_box_and_sorting_in_headless_chromium(browser, run_dir, tmp_path):
    page = write_html(run_dir, tmp_path / "report.html")
    browser.open(page.as_uri())
    first = "document.querySelector('.verdict .eg').getBoundingClientRect().bottom <= innerHeight"
    assert browser.evaluate(first) is True  # the first failing example is on the first screen
    browser.evaluate("document.getElementById('all-failures').open = true")  # the folded flat table
    assert len(browser.evaluate(VISIBLE_ROWS)) == 14
    assert browser.evaluate("document.querySelector('form.filters').hidden") is False
    browser.evaluate("document.querySelector('form.filters input[name=q]').focus()")
    browser.type_text("FILM")  # case-insensitive text search
    shown = browser.evaluate(VISIBLE_ROWS)
    assert sorted(shown) == sorted(
        ["LC2 toy s3.1", "LC2 toy s4", "LC2 toy s4.1", "LC4 toy n2"]
        + ["LC2 other s4", "LC2 other s4.1", "LC4 other n1", "LC4 other n2"]
    )
    assert browser.evaluate("document.querySelector('.shown').textContent") == "8 of 14 rows shown"
    browser.evaluate(
        "var s = document.querySelector('select[name=model]'); s.value = 'other';"
        "s.dispatchEvent(new Event('change', {bubbles: true}))"
    )
    assert sorted(browser.evaluate(VISIBLE_ROWS)) == [
        "LC2 other s4",
        "LC2 other s4.1",
        "LC4 other n1",
        "LC4 other n2",
    ]
    browser.evaluate(
        "var s = document.querySelector('select[name=kind]'); s.value = 'expansion';"
        "s.dispatchEvent(new Event('change', {bubbles: true}))"
    )
    assert browser.evaluate(VISIBLE_ROWS) == ["LC2 other s4.1"]
    top = browser.evaluate(
        "document.getElementById('failures-heading').getBoundingClientRect().top + scrollY"
    )
    browser.screenshot(artifacts(tmp_path) / "report-filtered.png", max_height=700, top=top)
    browser.evaluate("document.querySelector('form.filters').reset()")
    browser.evaluate("document.querySelector('form.filters').dispatchEvent(new Event('input'))")
    assert len(browser.evaluate(VISIBLE_ROWS)) == 14
    browser.evaluate("document.querySelectorAll('#failures thead th button')[8].click()")  # case id
    ids = [row.split()[-1] for row in browser.evaluate(VISIBLE_ROWS)]
    assert ids == sorted(ids)
    browser.evaluate("document.querySelectorAll('#failures thead th button')[8].click()")
    assert [row.split()[-1] for row in browser.evaluate(VISIBLE_ROWS)] == sorted(ids, reverse=True)
    browser.open(page.as_uri())
    shot = browser.screenshot(artifacts(tmp_path) / "report.png", max_height=2600)
    assert shot.stat().st_size > 10_000


@pytest.mark.browser
def test_report_reads_with_javascript_disabled(browser, run_dir, tmp_path):
    page = write_html(run_dir, tmp_path / "report.html")
    browser.call("Emulation.setScriptExecutionDisabled", value=True)
    browser.open(page.as_uri())
    browser.evaluate("document.getElementById('all-failures').open = true")  # as a click on its summary
    assert len(browser.evaluate(VISIBLE_ROWS)) == 14  # every row, in plain tables
    visible = "s => Array.from(document.querySelectorAll(s)).filter(e => e.getClientRects().length).length"
    assert browser.evaluate(f"({visible})('form.filters')") == 0  # no dead controls
    assert browser.evaluate(f"({visible})('table.matrix td')") > 0
    assert browser.evaluate(f"({visible})('figure svg')") == 2
    assert "JavaScript is off" in browser.evaluate("document.body.innerText")
    assert browser.evaluate("document.querySelectorAll('th button').length") == 0  # the script never ran


@pytest.mark.browser
def test_readme_screenshot_from_a_real_suite(browser, tmp_path):
    """The README's picture: the shipped NLI suite run against the word-overlap baseline (needs NLTK data)."""
    if os.environ.get("AUTOCHECK_ARTIFACTS") is None:
        pytest.skip("only when refreshing the README's screenshots (set AUTOCHECK_ARTIFACTS=docs)")
    assert main(["seeds", "--requirements", "nli", "--max-seeds", "4", "--out", str(tmp_path / "suite")]) == 0
    models = ["autocheck.baselines:word_overlap_nli"]
    assert main(["run", str(tmp_path / "suite"), "--model", models[0], "--out", str(tmp_path / "run")]) == 0
    page = write_html(tmp_path / "run", tmp_path / "report.html", max_failures=20)
    out = artifacts(tmp_path)
    for png in ("failure-rates", "seed-vs-expansion"):
        shutil.copy(tmp_path / f"report-{png}.png", out / f"report-nli-{png}.png")
    browser.open(page.as_uri())
    browser.screenshot(out / "report-nli.png", max_height=2400)


@pytest.mark.browser
def test_readme_screenshots_of_an_explained_run(browser, tmp_path, shared_data):
    """The README's pictures of a report that leads with the answer: CheckList's sentiment suite (four
    capabilities of it) run against the stand-in mini-bert-sst2; the verdict and one drill-down."""
    if os.environ.get("AUTOCHECK_ARTIFACTS") is None:
        pytest.skip("only when refreshing the README's screenshots (set AUTOCHECK_ARTIFACTS=docs)")
    model = str(require(shared_data / "models" / "mini-bert-sst2"))
    suite, run = tmp_path / "suite", tmp_path / "run"
    assert main(["seeds", "--requirements", "sentiment_checklist", "--out", str(suite)]) == 0
    wanted = ("CL-names", "CL-negation", "CL-fairness", "CL-typos")
    cases = suite / "cases.jsonl"
    lines = [line for line in cases.read_text().splitlines(True) if json.loads(line)["capability"] in wanted]
    cases.write_text("".join(lines))
    assert main(["run", str(suite), "--model", model, "--out", str(run)]) == 0
    page = write_html(run, tmp_path / "report.html", max_failures=20)
    out = artifacts(tmp_path)
    browser.open(page.as_uri())
    first = "document.querySelector('.verdict .eg').getBoundingClientRect().bottom <= innerHeight"
    assert browser.evaluate(first) is True
    browser.screenshot(out / "report-explain.png", max_height=900)
    top = browser.evaluate("document.getElementById('cap-CL-names').getBoundingClientRect().top + scrollY")
    browser.evaluate("document.querySelector('#cap-CL-names details')?.setAttribute('open', '')")
    browser.screenshot(out / "report-drilldown.png", max_height=900, top=top)


def test_output_piped_into_a_reader_that_stops_is_not_an_error(run_dir, tmp_path, monkeypatch, capsys):
    sink = open(tmp_path / "sink", "w")  # its descriptor stands in for the closed pipe

    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            return sink.fileno()

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    try:
        assert main(["report", str(run_dir), "--json"]) == 0  # `autocheck report --json | head -1`
    finally:
        sink.close()
    assert "Traceback" not in capsys.readouterr().err


def test_a_perturbations_edits_are_marked_where_they_landed():
    """Typos, names, negations: the words a perturbation changed are marked, at offsets moved by the
    length changes of the edits before them (the recorded offsets are the original's); text escaped."""
    from autocheck.report.html import case_html

    edits = [
        {"field": "text", "start": 7, "end": 9, "from": "Al", "to": "Alexander"},
        {"field": "text", "start": 0, "end": 2, "from": "Jo", "to": "Johnny"},
        {"field": "other", "start": 0, "end": 1, "from": "x", "to": "y"},
    ]
    case = {"text": "Johnny met Alexander at <b>", "provenance": {"perturbation": {"edits": edits}}}
    assert case_html(case, ["text"]) == "<mark>Johnny</mark> met <mark>Alexander</mark> at &lt;b&gt;"
    pair = {"q1": "Is Al here?", "q2": "Is Al back?", "provenance": {"perturbation": {"edits": [
        {"field": "q2", "start": 3, "end": 5, "from": "Bo", "to": "Al"}]}}}  # fmt: skip
    assert case_html(pair, ["q1", "q2"]) == "<b>q1:</b> Is Al here?<br><b>q2:</b> Is <mark>Al</mark> back?"


def test_plot_legends_cover_no_bar():
    """The legend sits above the axes: inside ("lower right") it covered the last capability's bars."""
    from autocheck.report.plots import failure_rate_figure, seed_vs_expansion_figure

    tally = {"cases": 10, "applicable": 10, "failures": 9, "failure_rate": 0.9, "errors": 0}
    caps = {f"LC{i}": {"test_type": "MFT", "failure_rate": 0.9, "all": tally, "seeds": tally,
                       "expansions": tally, "groups": tally} for i in range(1, 11)}  # fmt: skip
    results = {"models": {"model-a": {"capabilities": caps}, "model-b": {"capabilities": caps}}}
    for figure in (failure_rate_figure(results), seed_vs_expansion_figure(results)):
        figure.canvas.draw()  # the layout places the legend
        (axes,) = figure.axes
        legend = figure.legends[0] if figure.legends else axes.get_legend()
        box, plot = legend.get_window_extent(), axes.get_window_extent()
        assert box.y0 >= plot.y1 - 1, (box, plot)  # wholly above the bars' area
