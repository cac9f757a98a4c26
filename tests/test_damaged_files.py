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
        ("expected", [["neutral"]], "field 'expected' must be a label, a list of labels, a number or an"),
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
