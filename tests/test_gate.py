"""Verdicts that never pass untested cases: errors counted next to failures, a failed prediction costing
only the cases that need it, the gate (exit status) on dead endpoints, flaky servers and garbage models,
and the Markdown summary for a pull request."""

from __future__ import annotations

import json
import logging
import re
import socket
from pathlib import Path

import pytest
import xmlschema
from json_endpoint import JsonEndpoint

from autocheck.cli import main
from autocheck.models import load_model
from autocheck.models.callables import CallableModel
from autocheck.records import TestCase
from autocheck.results import NO_SOURCE
from autocheck.run import run_suite
from autocheck.store import read_jsonl

SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))
LABELS = ["negative", "neutral", "positive"]
POS, NEG = [0.05, 0.05, 0.90], [0.90, 0.05, 0.05]
FLAKY = '{"error": "flaky"}'
UP = {"score": {"plus": "positive", "minus": "negative"}, "direction": "up", "tolerance": 0.1}


def case(id, cap, kind, text, expected, test_type, seed=None):
    return TestCase(id, cap, kind, text, expected, test_type, "", seed).to_json()


CASES = [
    # MFT: a seed and its expansions (each judged on its own prediction)
    case("m0", "M", "seed", "good m0", "positive", "MFT"),
    case("m0.1", "M", "expansion", "good m0 x", "positive", "MFT", "m0"),
    case("m0.2", "M", "expansion", "bad m0 y", "positive", "MFT", "m0"),
    case("m1", "M", "seed", "good m1", "positive", "MFT"),
    case("m1.1", "M", "expansion", "good m1 x", "positive", "MFT", "m1"),
    # INV: an original and its perturbations (judged against the original)
    case("i0", "I", "seed", "good i0", None, "INV"),
    case("i0.1", "I", "perturbation", "good i0 x", None, "INV", "i0"),
    case("i0.2", "I", "perturbation", "bad i0 y", None, "INV", "i0"),
    case("i1", "I", "seed", "good i1", None, "INV"),
    case("i1.1", "I", "perturbation", "good i1 x", None, "INV", "i1"),
    # DIR
    case("d0", "D", "seed", "bad d0", UP, "DIR"),
    case("d0.1", "D", "perturbation", "good d0 x", UP, "DIR", "d0"),
]


def answer(text: str) -> list[float]:
    return NEG if text.startswith("bad") else POS


@pytest.fixture
def suite(tmp_path) -> Path:
    directory = tmp_path / "suite"
    directory.mkdir()
    (directory / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    (directory / "manifest.json").write_text(json.dumps({"kind": "suite"}))
    return directory


def raising_on(bad: set[str]) -> CallableModel:
    def predict(texts):
        if bad & set(texts):
            raise RuntimeError("cannot read this input")
        return [answer(t) for t in texts]

    predict.labels = LABELS
    return CallableModel("picky", predict, batch_size=4)


def outcomes(out: Path) -> dict[str, dict]:
    return {row["case"]: row for row in read_jsonl(out / "predictions.jsonl")}


# ------------------------------------------------------------------------- a failed prediction's cost


def test_a_failed_source_costs_only_the_cases_that_need_it(suite, tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    results = run_suite(suite, [raising_on({"good m0", "good i0"})], tmp_path / "out")
    rows = outcomes(tmp_path / "out")
    # MFT expansions of a seed without a prediction keep their own results
    assert rows["m0"]["outcome"] == "error"
    assert rows["m0.1"]["outcome"] == "pass" and rows["m0.2"]["outcome"] == "fail"
    # INV perturbations of an original without a prediction: not applicable, for that reason, not errors
    assert rows["i0"]["outcome"] == "error"
    for c in ("i0.1", "i0.2"):
        assert rows[c]["outcome"] == "n/a" and rows[c]["reason"] == NO_SOURCE and "error" not in rows[c]
    assert rows["i1.1"]["outcome"] == "pass"

    model = results["models"]["picky"]
    m, i = model["capabilities"]["M"], model["capabilities"]["I"]
    assert m["all"] == {"cases": 5, "applicable": 4, "failures": 1, "failure_rate": 0.25, "errors": 1}
    assert m["error_rate"] == 0.2  # 1 of the 5 cases that should have been judged
    assert i["perturbations"]["no_source"] == 2 and i["perturbations"]["errors"] == 0
    assert i["seeds"]["errors"] == 1
    # the group of i0 was not tested: an error, not a pass; i1's group passes
    assert i["groups"] == {"cases": 2, "applicable": 1, "failures": 0, "failure_rate": 0.0, "errors": 1}
    assert model["overall"]["errors"] == 2 and model["errors"] == 2

    # every count equals what the log names: 2 inputs without a prediction, 2 error cases, 2 n/a cases
    logged = re.search(r"no prediction for (\d+) of \d+ inputs", caplog.text)
    counted = re.search(r"(\d+) cases are errors .*; (\d+) INV/DIR cases are not applicable", caplog.text)
    assert logged and counted, caplog.text
    errors = sum(
        c[p]["errors"]
        for c in model["capabilities"].values()
        for p in ("seeds", "expansions", "perturbations")
    )
    no_source = sum(
        c[p].get("no_source", 0)
        for c in model["capabilities"].values()
        for p in ("seeds", "expansions", "perturbations")
    )
    assert errors == int(logged[1]) == int(counted[1]) == 2
    assert no_source == int(counted[2]) == 2
    assert [r["case"] for r in rows.values() if r["outcome"] == "error"] == ["m0", "i0"]


def test_a_healthy_run_has_zero_errors_and_no_reasons(suite, tmp_path):
    results = run_suite(suite, [raising_on(set())], tmp_path / "out")
    model = results["models"]["picky"]
    assert model["errors"] == 0 and model["overall"]["errors"] == 0 and "first_error" not in model
    assert all("reason" not in row for row in outcomes(tmp_path / "out").values())
    assert model["capabilities"]["M"]["error_rate"] == 0.0


# ------------------------------------------------------------------------------------ real servers


class Endpoint(JsonEndpoint):
    """autocheck's HTTP protocol on 127.0.0.1; inputs containing a word of ``fail_on`` get HTTP 500."""

    def __init__(self, fail_on: tuple[str, ...] = ()):
        def reply(body: dict) -> tuple[int, dict]:
            texts = [x["text"] for x in body["inputs"]]
            if any(word in t for t in texts for word in fail_on):
                return 500, json.loads(FLAKY)
            return 200, {"predictions": [{"probs": dict(zip(LABELS, answer(t)))} for t in texts]}

        super().__init__(reply)


@pytest.fixture
def endpoint():
    started: list[Endpoint] = []

    def start(fail_on=()):
        started.append(Endpoint(fail_on))
        return started[-1]

    yield start
    for e in started:
        e.stop()


def dead_url() -> str:
    """A port on 127.0.0.1 with nothing listening."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/predict"


def test_a_flaky_server_costs_only_the_cases_that_need_it(suite, tmp_path, endpoint, caplog):
    caplog.set_level(logging.WARNING)
    server = endpoint(fail_on=("m0", "i0"))  # every input of the m0 and i0 groups fails
    model = load_model(server.url, batch_size=1, retries=0, timeout=5.0)
    results = run_suite(suite, [model], tmp_path / "out", batch_size=1)
    rows = outcomes(tmp_path / "out")
    failed = {r["case"] for r in rows.values() if r["outcome"] == "error"}
    assert failed == {"m0", "m0.1", "m0.2", "i0", "i0.1", "i0.2"}  # their own inputs got no answer
    assert rows["m1.1"]["outcome"] == "pass" and rows["d0.1"]["outcome"] == "pass"
    summary = results["models"][server.url]
    logged = re.search(r"no prediction for (\d+) of \d+ inputs", caplog.text)
    assert summary["errors"] == int(logged[1]) == 6
    assert summary["overall"]["errors"] == 4  # headline: M's 3 cases, and I's group of i0
    assert "HTTP 500" in summary["first_error"]


def junit_verdict(path: Path) -> tuple[bool, dict]:
    """(whether the JUnit file fails, its root attributes), after validating it against the schema."""
    SCHEMA.validate(str(path))
    text = path.read_text()
    return ("<failure" in text or "<error" in text), SCHEMA.to_dict(str(path))


def test_a_dead_endpoint_fails_the_run_with_errors_and_a_junit_error(suite, tmp_path, capsys):
    url, out, junit = dead_url(), tmp_path / "out", tmp_path / "junit.xml"
    argv = ["run", str(suite), "--model", url, "--out", str(out), "--retries", "0", "--timeout", "2"]
    code = main([*argv, "--fail-above", "0.2", "--junit", str(junit)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    results = json.loads((out / "results.json").read_text())
    model = results["models"][url]
    assert model["errors"] == results["suite"]["inputs"] == 12
    assert model["overall"] == {
        "failures": 0,
        "applicable": 0,
        "failure_rate": None,
        "errors": model["overall"]["errors"],
        "error_rate": 1.0,
    }
    assert all(c["error_rate"] in (1.0, None) for c in model["capabilities"].values())
    fails, xml = junit_verdict(junit)
    assert fails and 1 <= xml["@errors"] <= xml["@tests"] and xml["@failures"] == 0  # one count per case
    assert f"{url}: no prediction for any of the 12 inputs (first error: {url}: " in err

    # even without a gate: one line, non-zero
    code = main([*argv[:-4], "--out", str(tmp_path / "again")])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("autocheck:")]
    assert code == 1 and len(lines) == 1 and "no prediction for any of the 12 inputs" in lines[0]


def test_a_callable_returning_garbage_for_every_input_fails_the_run(suite, tmp_path, capsys):
    # label strings are an answer (read as CheckList reads pred_only files); no label of the task is not
    (tmp_path / "garbage.py").write_text("def predict(texts):\n    return ['banana' for _ in texts]\n")
    code = main(
        ["run", str(suite), "--model", f"{tmp_path / 'garbage.py'}:predict", "--out", str(tmp_path / "o")]
    )
    captured = capsys.readouterr()
    assert code != 0 and "Traceback" not in captured.err
    assert [line for line in captured.err.splitlines() if line.startswith("autocheck")]


def test_max_errors_is_the_error_budget_of_the_gate(suite, tmp_path, endpoint, capsys):
    server = endpoint(fail_on=("m1",))  # 2 of 5 M cases fail: error rate 40% in M, 2 of 11 overall
    run = ["run", str(suite), "--model", server.url, "--batch-size", "1", "--retries", "0"]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0  # no gate: some errors, the run goes on
    assert main([*run, "--out", str(tmp_path / "b"), "--fail-above", "1"]) == 1  # gate on: max errors 0
    assert (
        "M error rate 40.0% above --max-errors 0.0% (2 of 5 cases without a prediction)"
        in capsys.readouterr().err
    )
    assert main([*run, "--out", str(tmp_path / "c"), "--fail-above", "1", "--max-errors", "0.3"]) == 1
    assert main([*run, "--out", str(tmp_path / "d"), "--fail-above", "1", "--max-errors", "0.4"]) == 0
    assert main([*run, "--out", str(tmp_path / "e"), "--max-errors", "1.5"]) == 2  # a bad rate: input error


# ------------------------------------------------------------------------------------------ Markdown


def test_markdown_for_a_pull_request(suite, tmp_path, endpoint):
    server = endpoint(fail_on=("i1",))  # the group of i1 gets no prediction; i0's group fails (a flip)
    out, md = tmp_path / "out", tmp_path / "summary.md"
    main(["run", str(suite), "--model", server.url, "--out", str(out), "--batch-size", "1", "--retries", "0"])
    argv = ["report", str(out), "--markdown", str(md), "--fail-above", "M=0.5", "--max-failures", "2"]
    assert main(argv) == 0
    text = md.read_text()
    assert text.startswith("### autocheck: sentiment (12 cases): FAIL")
    assert "| capability | type | failure rate | errors | limit | verdict |" in text
    assert "| M | MFT | 20.0% (1/5) | 0 | 50.0% | pass |" in text
    assert "| I | INV | 100.0% (1/1) | 1 (50.0%) | 0.0% | **fail** |" in text
    assert "| D | DIR | 0.0% (0/1) | 0 | 0.0% | pass |" in text
    assert "| **overall** | | 28.6% (2/7) | 1 (12.5%) | – | **fail** |" in text
    assert "- I error rate 50.0% above --max-errors 0.0% (1 of 2 cases without a prediction)" in text
    # up to --max-failures failing cases of each failing capability, with the input and what came back
    assert "<details><summary>I: failing cases</summary>" in text
    examples = [line for line in text.splitlines() if line.startswith("- `")]
    assert examples == [
        "- `bad i0 y`: predicted negative (fail, i0.2)",
        f"- `good i1`: no prediction: {server.url}: HTTP 500 {FLAKY} (after 1 attempt) (error, i1)",
    ]

    # an MFT failure is listed with what was expected; without --fail-above any failure fails
    assert main([*argv[:4], "--max-errors", "1", "--max-failures", "1", "--overwrite"]) == 0
    text = md.read_text()
    assert "| M | MFT | 20.0% (1/5) | 0 | 0.0% | **fail** |" in text
    assert "- `bad m0 y`: expected positive; predicted negative (fail, m0.2)" in text
    assert "I error rate" not in text


# -------------------------------------------------------------------------- a run that tested nothing


def test_a_run_report_and_compare_that_tested_nothing_fail(suite, tmp_path, capsys):
    """A label-only model on DIR tests only: nothing applies, so the gate fails in the exit status, the
    JUnit file and the Markdown, and so do report and compare on that run; results without any model too."""
    dir_only = tmp_path / "dir-only"
    dir_only.mkdir()
    (dir_only / "cases.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in CASES if c["capability"] == "D")
    )
    (tmp_path / "labels.py").write_text(
        "def predict(texts):\n    return ['negative' if t.startswith('bad') else 'positive' for t in texts]\n"
    )
    out, junit, md = tmp_path / "out", tmp_path / "junit.xml", tmp_path / "summary.md"
    model = f"{tmp_path / 'labels.py'}:predict"
    argv = [
        "run",
        str(dir_only),
        "--model",
        model,
        "--out",
        str(out),
        "--fail-above",
        "0.5",
        "--junit",
        str(junit),
    ]
    assert main(argv) == 1
    assert "none of its 2 cases was applicable, so nothing was tested" in capsys.readouterr().err
    assert junit_verdict(junit)[0]
    assert main(["report", str(out), "--markdown", str(md), "--fail-above", "0.5"]) == 1
    assert md.read_text().startswith("### autocheck: sentiment (2 cases): FAIL")
    assert "nothing was tested" in capsys.readouterr().err
    assert main(["compare", str(out), str(out)]) == 1
    assert f"autocheck: {out}: {model}: none of its 2 cases" in capsys.readouterr().err

    results = json.loads((out / "results.json").read_text())
    results["models"] = {}
    (out / "results.json").write_text(json.dumps(results))
    assert main(["report", str(out), "--markdown", str(md), "--overwrite", "--fail-above", "0.5"]) == 1
    assert "(no model): the results hold no model" in capsys.readouterr().err
    assert "FAIL" in md.read_text().splitlines()[0]


def test_markdown_cannot_carry_links_images_html_or_mentions_from_a_case(suite, tmp_path):
    from autocheck.ci import Gate, markdown_summary
    from autocheck.markdown import md_text

    hostile = "[click](javascript:alert(1)) ![x](http://t/p.png) <img src=x onerror=alert(1)> @alice #12"
    cell = md_text(hostile)
    for active in ("[click](", "![x](", "<img", "@alice", "#12"):
        assert active not in cell, active
    assert cell.replace("\\", "").replace("\u200b", "") == hostile.replace("<", "&lt;").replace(">", "&gt;")

    results = run_suite(suite, [raising_on(set())], tmp_path / "out")
    row = {"case": "@bob [x](y)", "outcome": "fail", "label": "negative", "case_record": {"text": hostile}}
    text = markdown_summary(results, Gate.from_options(None, None, junit=True), {("picky", "M"): [row]})
    assert f"- `{hostile}`: " in text  # inside a code span: shown as written, nothing rendered
    assert "@bob" not in text and "[x](y)" not in text and text.count("<img") == 1


# ------------------------------------------------------------------------ nothing left out silently


def test_a_perturbation_that_changes_nothing_is_announced_and_recorded(tmp_path, caplog):
    data = tmp_path / "plain.csv"
    data.write_text("text\nGood.\nFine film.\n")
    out = tmp_path / "suite"
    assert main(["perturb", str(data), "--perturbation", "contractions", "--out", str(out)]) == 0
    why = "the perturbation 'contractions' changes none of its 2 source texts"
    assert f"contractions: no test case written: {why}" in caplog.text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["empty"] == {"contractions": why} and manifest["counts"]["contractions"]["seeds"] == 2


def test_a_capability_without_cases_has_a_row_saying_why(suite, tmp_path):
    from autocheck.ci import Gate, markdown_summary
    from autocheck.report import format_table

    why = "none of the 40 dataset rows satisfies its search"
    (suite / "manifest.json").write_text(json.dumps({"kind": "suite", "empty": {"LC5": why}}))
    results = run_suite(suite, [raising_on(set())], tmp_path / "out")
    assert f"LC5: no test case: {why}" in format_table(results)
    assert f"| LC5 | | – (0/0) | | | no test case: {why} |" in markdown_summary(results, Gate())
    from autocheck.report.html import write_html

    page = write_html(tmp_path / "out", tmp_path / "report.html", plots=False).read_text()
    assert f"<li>LC5: {why}</li>" in page
