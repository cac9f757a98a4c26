"""autocheck compare: two hand-made runs of one suite with known flips, suites that differ, the page."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from browser import Browser, find_chromium
from report_data import MANIFEST, keyword_model, other, toy, write_suite

from autocheck.cli import main
from autocheck.records import TestCase
from autocheck.report.compare import (
    compare_runs,
    comparison_markdown,
    format_comparison,
    mcnemar_exact,
    paired_interval,
    write_comparison_html,
)
from autocheck.run import run_suite
from autocheck.stats import newcombe


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
    assert [f["case"] for f in pair["flips"]] == ["n1", "s3.1"]  # pass→fail first, not by capability
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
    assert rows == [("LC4", "pass→fail"), ("LC2", "fail→pass")]  # what got worse first, not by case id
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
    assert (
        "predictions.jsonl:1: fields 'case', 'capability', 'outcome' missing" in err
        and "Traceback" not in err
    )


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


# ---------------------------------------------------------------------------------------------------------
# The regression gate: two runs of callable models over a small suite whose flips are known

GATE_MANIFEST = {
    "fingerprint": "gate-1",
    "capabilities": {
        "LC1": {
            "capability": "Vocabulary",
            "description": "neutral nouns keep it positive",
            "test_type": "MFT",
        },
        "LC2": {"capability": "Taxonomy", "description": "a few cases", "test_type": "MFT"},
        "LC3": {"capability": "Robustness", "description": "what got better", "test_type": "MFT"},
    },
}


def gate_cases() -> list[TestCase]:
    texts = {
        # new fails the 10 "plot" cases (pass→fail); both fail the 2 "bad" ones
        "LC1": [f"the plot of film {i} works" for i in range(10)]
        + [f"film {i} works" for i in range(10, 18)]
        + [f"bad film {i}" for i in (18, 19)],
        "LC2": ["a dull story 0", "a dull story 1", "a story 2"],  # 2 pass→fail: +66.7 points, p = 0.5
        "LC3": [f"a weak scene {i}" for i in range(4)] + ["a scene 4"],  # 4 fail→pass
    }
    return [
        TestCase(f"{cap.lower()}-{i}", cap, "seed", text, "positive", "MFT", "positive")
        for cap, items in texts.items()
        for i, text in enumerate(items)
    ]


@pytest.fixture
def gate_runs(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in gate_cases()))
    (suite / "manifest.json").write_text(json.dumps(GATE_MANIFEST))
    run_suite(suite, [keyword_model("base", ("bad", "weak"))], tmp_path / "base")
    run_suite(suite, [keyword_model("new", ("bad", "plot", "dull"))], tmp_path / "new")
    return tmp_path / "base", tmp_path / "new"


def test_mcnemar_exact_p_values():
    assert mcnemar_exact(10, 0) == 2 / 2**10
    assert mcnemar_exact(1, 9) == mcnemar_exact(9, 1) == 2 * (1 + 10) / 2**10  # binomial(10, 1/2) tail
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(2, 0) == 0.5
    assert 0 < mcnemar_exact(5000, 5300) < 0.01  # exact integers: no underflow on large counts


def test_paired_interval_is_newcombe_with_the_pairs_correlation():
    # phi = 0 (ad = bc): the paired interval is the independent one
    assert paired_interval(2, 2, 8, 8) == pytest.approx(newcombe((4, 20), (10, 20)))
    # a positive cross product up to n/2 (here 2·2 − 1·1 = 3 ≤ 6/2) counts as none, Newcombe's correction
    assert paired_interval(2, 1, 1, 2) == pytest.approx(newcombe((3, 6), (3, 6)))
    # the same margins, positively correlated pairs: narrower, and it excludes 0
    paired, independent = paired_interval(2, 0, 10, 8), newcombe((2, 20), (12, 20))
    assert paired[1] - paired[0] < independent[1] - independent[0] and paired[0] > 0
    assert paired[0] < 0.5 < paired[1]
    low, high = paired_interval(0, 0, 20, 0)  # every pair flipped: inside [-1, 1]
    assert 0 < low < high <= 1
    low, high = paired_interval(3, 0, 0, 7)  # nothing flipped: 0 inside
    assert low <= 0 <= high
    assert paired_interval(0, 0, 0, 0) is None


def test_paired_statistics_of_two_runs(gate_runs):
    result = compare_runs(*gate_runs)
    caps = result["pairs"][0]["capabilities"]
    lc1 = caps["LC1"]
    assert (lc1["a"]["failures"], lc1["b"]["failures"], lc1["a"]["applicable"]) == (2, 12, 20)
    assert lc1["paired"] | {"interval": None} == {
        "unit": "case",
        "units": 20,
        "unpaired": 0,
        "fail_both": 2,
        "pass_to_fail": 10,
        "fail_to_pass": 0,
        "pass_both": 8,
        "change": 0.5,
        "interval": None,
        "p_value": 2 / 2**10,
    }
    assert lc1["change"] == 0.5 and lc1["p_value"] == 2 / 2**10 and lc1["interval"][0] > 0
    assert caps["LC2"]["p_value"] == 0.5 and caps["LC2"]["change"] == pytest.approx(2 / 3, abs=1e-6)
    assert caps["LC3"]["p_value"] == 0.125 and caps["LC3"]["change"] == -0.8
    flips = result["pairs"][0]["flips"]
    assert [f["flip"] for f in flips] == ["pass→fail"] * 12 + ["fail→pass"] * 4  # what got worse first
    assert result["names"] == {"LC1": "Vocabulary", "LC2": "Taxonomy", "LC3": "Robustness"}
    assert "p→f" in format_comparison(result) and "0.0020" in format_comparison(result)


def test_fail_on_regression_exit_status(gate_runs, capsys):
    base, new = map(str, gate_runs)
    assert main(["compare", base, new, "--fail-on-regression", "5"]) == 1  # LC1: +50 points, p = 0.002
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("autocheck: ")]
    assert "LC1 failure rate 10.0% → 60.0% (+50.0 points over 20 paired cases" in line
    assert "10 pass→fail vs 0 fail→pass, McNemar p = 0.0020" in line and "allowed: +5 points" in line
    # LC2 rose 66.7 points, but 2 of 3 cases is not evidence; LC1's 50 is within 60
    assert main(["compare", base, new, "--fail-on-regression", "60"]) == 0
    assert main(["compare", base, new, "--fail-on-regression", "LC2=5"]) == 0  # LC1 not gated
    assert main(["compare", base, new, "--fail-on-regression", "LC1=49.9"]) == 1
    assert main(["compare", base, new, "--fail-on-regression", "5", "--fail-on-regression", "LC1=55"]) == 0
    assert main(["compare", base, new, "--fail-on-regression", "5", "--alpha", "0.001"]) == 0
    assert main(["compare", new, base, "--fail-on-regression", "0"]) == 0  # reversed: LC3 +80 on 4 flips
    capsys.readouterr()
    assert main(["compare", base, new, "--fail-on-regression", "LC9=5"]) == 2
    assert "no capability 'LC9' in the compared runs (LC1, LC2, LC3)" in capsys.readouterr().err
    assert main(["compare", base, new, "--fail-on-regression", "five"]) == 2
    assert "--fail-on-regression 'five': expected POINTS or CAPABILITY=POINTS" in capsys.readouterr().err
    assert main(["compare", base, new, "--fail-on-regression", "5", "--alpha", "5"]) == 2


def test_markdown_for_a_pull_request(gate_runs, tmp_path, capsys):
    base, new = map(str, gate_runs)
    md = tmp_path / "cmp.md"
    assert main(["compare", base, new, "--fail-on-regression", "5", "--markdown", str(md)]) == 1
    text = md.read_text()
    assert "**Regression gate: failed** (1 regression)" in text
    row = next(line for line in text.splitlines() if line.startswith("| LC1 Vocabulary |"))
    assert "| 10.0% (2/20) | 60.0% (12/20) | **+50.0** ❌ |" in row and "| 0.0020 | 10 | 0 |" in row
    lc2 = next(line for line in text.splitlines() if line.startswith("| LC2 Taxonomy |"))
    assert "| +66.7 |" in lc2 and "| 0.500 |" in lc2  # not bold: not significant
    worse, better = text.index("pass→fail flips (first 10 of 12):"), text.index("fail→pass flips:")
    assert worse < better
    first = text[worse:].splitlines()[4]  # the regressed capability's flips come first, with their input
    said = "| positive (0.10 / 0.00 / 0.90) | negative (0.90 / 0.00 / 0.10) |"
    assert first == "| LC1 | the plot of film 0 works " + said
    assert "| LC3 | a weak scene 0 |" in text[better:]
    assert main(["compare", base, new, "--markdown", str(md)]) == 2  # an existing file is kept
    assert "file exists" in capsys.readouterr().err
    assert (
        main(["compare", base, new, "--fail-on-regression", "60", "--markdown", str(md), "--overwrite"]) == 0
    )
    assert "**Regression gate: passed**" in md.read_text()
    assert "| LC1 Vocabulary |" in md.read_text()


def test_markdown_escapes_what_a_comment_would_render(runs):
    a, b, *_ = runs
    text = comparison_markdown(compare_runs(a, b))
    assert "<script>" not in text and "Regression gate" not in text  # no rule: no verdict


def test_markdown_lists_significant_rises_first_without_a_gate(gate_runs):
    text = comparison_markdown(compare_runs(*gate_runs), max_flips=12)
    worse = text[text.index("pass→fail flips") :]
    assert worse.index("| LC1 | the plot of film 0 works") < worse.index("| LC2 | a dull story 0")


def test_cases_without_a_prediction_in_the_new_run_fail_the_gate(gate_runs, capsys):
    base, new = gate_runs
    rows = [json.loads(line) for line in (new / "predictions.jsonl").read_text().splitlines()]
    for row in rows:  # the endpoint failed on two LC2 cases the base run answered
        if row["case"] in ("lc2-0", "lc2-2"):
            row.update(outcome="error", error="ConnectionError: refused")
            del row["probs"], row["label"]
    (new / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = compare_runs(base, new)
    lc2 = result["pairs"][0]["capabilities"]["LC2"]
    assert lc2["to_error"] == 2 and lc2["paired"]["units"] == 1 and lc2["paired"]["unpaired"] == 2
    assert "2 cases answered in A have no prediction in B" in format_comparison(result)
    assert main(["compare", str(base), str(new), "--fail-on-regression", "LC2=90"]) == 1
    err = capsys.readouterr().err
    assert "new: LC2: 2 cases with an answer in the base run have no prediction in the new one" in err
    assert main(["compare", str(base), str(new), "--fail-on-regression", "LC3=90"]) == 0  # LC2 not gated
    text = comparison_markdown(result, rules={"LC2": 90.0})
    assert "| 0.0% (0/3) | 100.0% (1/1); 2 new errors |" in text and "(1 regression)" in text


def test_the_compare_page_leads_with_the_gate_verdict(gate_runs, tmp_path):
    """The page opens with what the gate decided (as the pull-request comment does), before any table."""
    result = compare_runs(*gate_runs)
    page = write_comparison_html(result, tmp_path / "cmp.html", rules={"*": 5.0}).read_text()
    verdict = page.index("<b>Regression gate: failed</b> (1 regression)")
    assert verdict < page.index("<table") and "LC1 failure rate 10.0% → 60.0% (+50.0 points" in page
    passed = write_comparison_html(result, tmp_path / "ok.html", rules={"*": 60.0}).read_text()
    assert "<div class='verdict ok' id=gate><p><b>Regression gate: passed</b>" in passed
    ungated = write_comparison_html(result, tmp_path / "none.html").read_text()
    assert "<b>No regression gate</b> (--fail-on-regression; 1 significant rise(s) at p &lt; 0.05)" in ungated
    assert ungated.index("No regression gate") < ungated.index("<table")
    # the page's significance is the comparison's --alpha, as the Markdown's is: LC1's p = 0.002
    assert "<td data-sort='0.5'><b>+50.0</b></td>" in ungated
    strict = write_comparison_html(result, tmp_path / "strict.html", alpha=0.001).read_text()
    assert "bold where p &lt; 0.001" in strict and "<td data-sort='0.5'>+50.0</td>" in strict


def test_the_compare_page_says_first_when_a_run_tested_nothing(gate_runs, tmp_path):
    """A new run whose model answered nothing: the page opens with it, above the gate's verdict, as the
    Markdown does; each line names the run and the model."""
    from autocheck.models import CallableModel

    def broken(texts):
        raise RuntimeError("endpoint down <b>")

    base, _ = gate_runs
    run_suite(tmp_path / "suite", [CallableModel("new", broken)], tmp_path / "dead")
    result = compare_runs(base, tmp_path / "dead")
    page = write_comparison_html(result, tmp_path / "cmp.html", rules={"*": 5.0}).read_text()
    block = page.index("<b>Nothing tested: failed</b>")
    assert block < page.index("id=gate") < page.index("<table")
    assert f"{tmp_path / 'dead'}: new: no prediction for any of the" in page and "down &lt;b&gt;" in page
    assert "**Nothing tested: failed**" in comparison_markdown(result, rules={"*": 5.0})
