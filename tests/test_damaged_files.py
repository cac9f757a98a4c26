"""Every results or suite file is checked as it is read: a damaged field (a string where a number belongs,
a list where a label belongs) is one error naming the file and the field, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import KEYWORD_MODEL, suite  # noqa: F401

from autocheck.cli import main

MODEL_KEY = "models.{model}.capabilities.LC4"


@pytest.fixture
def results(suite, tmp_path) -> Path:  # noqa: F811
    (tmp_path / "keyword_model.py").write_text(KEYWORD_MODEL)
    out = tmp_path / "results"
    assert (
        main(["run", str(suite), "--model", f"{tmp_path / 'keyword_model.py'}:predict", "--out", str(out)])
        == 0
    )
    return out


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("all.failures", "2", 'LC4.all.failures\' must be a whole number of at least 0, not "2"'),
        ("all.applicable", None, "LC4.all.applicable' must be a whole number"),
        ("seeds.failures", -1, "LC4.seeds.failures' must be a whole number"),
        ("expansions.failure_rate", "0.5", "LC4.expansions.failure_rate' must be a rate between 0 and 1"),
        ("groups", "x", "LC4.groups' must be an object of counts"),
        ("transitions", [], "LC4.transitions' must be an object of counts"),
        ("all.failures", 9, "LC4.all' must be counts with failures <= applicable <= cases"),
        ("failure_rate", 1.5, "LC4.failure_rate' must be a rate between 0 and 1"),
    ],
)
@pytest.mark.parametrize("command", [[], ["--json"], ["--html", "page.html"], ["compare"]])
def test_results_with_wrong_types_name_file_and_field(
    results, tmp_path, capsys, monkeypatch, field, value, message, command
):
    monkeypatch.chdir(tmp_path)  # where --html page.html would go
    path = results / "results.json"
    data = json.loads(path.read_text())
    (table,) = (model["capabilities"]["LC4"] for model in data["models"].values())
    *parents, key = field.split(".")
    for name in parents:
        table = table[name]
    table[key] = value
    path.write_text(json.dumps(data))
    argv = (
        ["compare", str(results), str(results)]
        if command == ["compare"]
        else ["report", str(results), *command]
    )
    assert main(argv) == 2
    error = _one_error(capsys)
    assert f"{path}: field 'models." in error and message in error, error


@pytest.mark.parametrize(
    "field,value,message",
    [
        (("task",), {"task": "t", "inputs": None, "labels": ["a", "b"]}, "field 'task' is not a task header"),
        (("task", "labels"), [None, "b"], "field 'task' is not a task header"),
        (("task", "binary", "band"), [], "field 'task' is not a task header"),
    ],
)
@pytest.mark.parametrize("command", ["run", "export", "metrics"])
def test_a_damaged_manifest_names_file_and_field(suite, tmp_path, capsys, field, value, message, command):  # noqa: F811
    from autocheck.models import default_task

    manifest = {"kind": "suite", "task": default_task().to_json()}
    target = manifest
    for name in field[:-1]:
        target = target[name]
    target[field[-1]] = value
    (suite / "manifest.json").write_text(json.dumps(manifest))
    assert main(_command(command, suite, tmp_path)) == 2
    error = _one_error(capsys)
    assert f"{suite / 'manifest.json'}: {message}" in error, error


def _command(command: str, suite: Path, tmp_path: Path) -> list[str]:  # noqa: F811
    (tmp_path / "keyword_model.py").write_text(KEYWORD_MODEL)
    return {
        "run": [
            "run",
            str(suite),
            "--model",
            f"{tmp_path / 'keyword_model.py'}:predict",
            "--out",
            str(tmp_path / "o"),
        ],
        "export": ["export", str(suite), "--out", str(tmp_path / "e")],
        "metrics": ["metrics", str(suite), "--sample-sizes", "2", "--trials", "1"],
    }[command]


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("capability", None, "field 'capability' must be a text"),
        ("capability", ["LC4"], "field 'capability' must be a text"),
        ("editable", "x", "field 'editable' must be a list of [start, end] pairs"),
        ("editable", [[0, "7"]], "field 'editable' must be a list of [start, end] pairs"),
        ("expected", [["neutral"]], "field 'expected' must be a label, a list of labels or an object"),
        ("expected", {}, "field 'expected' of a MFT case cannot be an object"),
        ("test_type", "x", "field 'test_type' must be MFT, INV or DIR"),
        ("provenance", "x", "field 'provenance' must be an object"),
    ],
)
@pytest.mark.parametrize("command", ["run", "export", "metrics"])
def test_a_damaged_case_names_file_line_and_field(suite, tmp_path, capsys, field, value, message, command):  # noqa: F811
    path = suite / "cases.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    record[field] = value
    lines[1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    assert main(_command(command, suite, tmp_path)) == 2
    error = _one_error(capsys)
    assert f"{path}:2: " in error and message in error, error


# ------------------------------------------------------------------- one schema per file, repeats


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize(
    "field,value,message",
    [
        (
            "outcome",
            ["fail"],
            'field \'outcome\' must be one of "pass", "fail", "n/a", "error", not ["fail"]',
        ),
        ("probs", "0.9", "field 'probs' must be a list, not \"0.9\""),
        ("probs", [None, 1], "field 'probs.0' must be a number, not null"),
        ("model", None, "field 'model' must be a text, not null"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [["report", "--html", "page.html"], ["report", "--markdown", "pr.md"], ["compare"], ["explain"]],
)
def test_a_damaged_prediction_row_names_file_line_and_field(
    results, tmp_path, capsys, monkeypatch, field, value, message, command
):
    monkeypatch.chdir(tmp_path)
    path = results / "predictions.jsonl"
    rows = _lines(path)
    rows[1][field] = value
    _write(path, rows)
    argv = [command[0], str(results), *([str(results)] if command[0] == "compare" else command[1:])]
    assert main(argv) == 2
    assert f"{path}:2: {message}" in _one_error(capsys)


def test_repeated_lines_conflicting_are_an_error_and_identical_are_counted(results, tmp_path, capsys, caplog):
    path = results / "predictions.jsonl"
    rows = _lines(path)
    _write(path, [*rows, rows[0]])
    assert main(["report", str(results), "--markdown", str(tmp_path / "a.md")]) == 0
    assert f"{path}: 1 identical repeated line(s) skipped" in caplog.text
    _write(path, [*rows, {**rows[0], "outcome": "fail" if rows[0]["outcome"] != "fail" else "pass"}])
    assert main(["compare", str(results), str(results)]) == 2
    assert (
        f"{path}:{len(rows) + 1}: prediction {(rows[0]['model'], rows[0]['case'])!r} again, "
        "with other values than on line 1" in _one_error(capsys)
    )

    _write(path, rows)
    cases = Path(json.loads((results / "results.json").read_text())["suite"]["dir"]) / "cases.jsonl"
    records = _lines(cases)
    _write(cases, [*records, {**records[0], "text": "Another text."}])
    assert main(["report", str(results), "--markdown", str(tmp_path / "b.md")]) == 2
    assert (
        f"{cases}:{len(records) + 1}: test case 's0' again, with other values than on line 1"
        in _one_error(capsys)
    )


def test_a_predictions_file_naming_an_input_twice_with_other_answers_is_an_error(
    suite,  # noqa: F811
    tmp_path,
    capsys,
    caplog,
):
    texts = [case["text"] for case in _lines(suite / "cases.jsonl")]
    predictions = tmp_path / "answers.jsonl"
    out = ["--out", str(tmp_path / "o"), "--overwrite"]
    lines = [{"text": t, "probs": [0.2, 0.8]} for t in texts]
    _write(predictions, [*lines, lines[0]])
    assert main(["run", str(suite), "--model", f"file:{predictions}", *out]) == 0
    assert f"{predictions}: 1 identical repeated line(s) skipped" in caplog.text
    _write(predictions, [*lines, {"text": texts[0], "probs": [0.9, 0.1]}])
    assert main(["run", str(suite), "--model", f"file:{predictions}", *out]) == 2
    assert (
        f"{predictions}:{len(lines) + 1}: input ({texts[0]!r},) again, with another answer than on line 1"
        in _one_error(capsys)
    )


def test_a_suite_manifest_of_the_wrong_shape_fails_before_the_run(suite, tmp_path, capsys):  # noqa: F811
    (suite / "manifest.json").write_text(json.dumps({"kind": "suite", "capabilities": ["LC4"]}))
    assert main(_command("run", suite, tmp_path)) == 2
    assert f"{suite / 'manifest.json'}: field 'capabilities' must be an object, not [\"LC4\"]" in _one_error(
        capsys
    )
    assert not (tmp_path / "o" / "results.json").exists()


def test_nan_is_not_a_number_autocheck_reads_back(results, capsys):
    path = results / "results.json"
    path.write_text(path.read_text().replace('"failure_rate": 0.5', '"failure_rate": NaN', 1))
    assert main(["report", str(results)]) == 2
    assert "not valid JSON (NaN is not a JSON number)" in _one_error(capsys)


def test_a_run_of_a_suite_without_a_manifest_reads_back(suite, tmp_path):  # noqa: F811
    (suite / "manifest.json").unlink()  # cases written by hand: results.json records its manifest as null
    assert main(_command("run", suite, tmp_path)) == 0
    assert main(["report", str(tmp_path / "o"), "--json"]) == 0


@pytest.mark.parametrize(
    "state,message",
    [
        ([], "must be an object, not []"),
        (
            {"fingerprint": "x", "chunks": "1", "offset": 0, "counts": {}, "rejected": {}},
            "field 'chunks' must be",
        ),
        (
            {"fingerprint": "x", "chunks": 1, "offset": 0, "counts": {"LC4": {"nope": 1}}, "rejected": {}},
            "field 'counts.LC4'",
        ),
    ],
)
def test_a_damaged_resume_state_names_file_and_field(tmp_path, capsys, state, message):
    out = tmp_path / "suite"
    out.mkdir()
    (out / "state.json").write_text(json.dumps(state))
    data = tmp_path / "d.csv"
    data.write_text("text,label\nThis is not a bad film.,positive\n")
    argv = ["seeds", "--dataset", str(data), "--capability", "LC4", "--out", str(out), "--resume"]
    assert main(argv) == 2
    error = _one_error(capsys)
    assert f"{out / 'state.json'}: " in error and message in error, error
