"""``--overwrite`` removes only what autocheck wrote (the names each output declares and its manifest
lists), refuses a directory that holds anything else (naming it), and never touches other files; every
file a command writes, the report's PNG plots included, obeys the refusal."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from test_cli import KEYWORD_MODEL, suite  # noqa: F401

from autocheck.cli import main
from autocheck.store import InputError, prepare_output_dir

USER_FILES = {"setup.py": "from setuptools import setup\n", "README.md": "# mine\n"}
LEXICON = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"


def _user_files(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in USER_FILES.items():
        (folder / name).write_text(text)


def _assert_user_files_kept(folder: Path) -> None:
    for name, text in USER_FILES.items():
        assert (folder / name).read_text() == text, name


def _refused(capsys, folder: Path) -> str:
    err = capsys.readouterr().err.rsplit("\r", 1)[-1]  # after the progress bars of earlier commands
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "holds files autocheck did not write (README.md, setup.py)" in err, err
    _assert_user_files_kept(folder)
    return err


def _model(tmp_path: Path) -> str:
    path = tmp_path / "keyword_model.py"
    path.write_text(KEYWORD_MODEL)
    return f"{path}:predict"


def test_run_out_dot_overwrite_keeps_the_projects_files(suite, tmp_path, capsys, monkeypatch):  # noqa: F811
    project = tmp_path / "project"
    _user_files(project)
    monkeypatch.chdir(project)
    run = ["run", str(suite), "--model", _model(tmp_path), "--out", "."]
    assert main([*run, "--overwrite"]) == 2
    _refused(capsys, project)
    assert sorted(os.listdir(project)) == ["README.md", "setup.py"]  # nothing written either


def test_overwrite_replaces_an_earlier_run_and_only_it(suite, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "results"
    run = ["run", str(suite), "--model", _model(tmp_path), "--out", str(out)]
    assert main(run) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["files"] == {"predictions": "predictions.jsonl"}  # what the run wrote, beside results
    (out / "predictions.jsonl").write_text("stale\n")
    assert main([*run, "--overwrite"]) == 0
    assert (out / "predictions.jsonl").read_text() != "stale\n"
    assert sorted(os.listdir(out)) == ["manifest.json", "predictions.jsonl", "results.json"]

    _user_files(out)  # a user's files beside an earlier run: nothing at all is removed
    assert main([*run, "--overwrite"]) == 2
    _refused(capsys, out)
    assert (out / "results.json").exists() and (out / "predictions.jsonl").exists()


def test_a_file_the_manifest_lists_is_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text(json.dumps({"files": {"extra": "extra.jsonl"}}))
    (out / "extra.jsonl").write_text("x")
    (out / ".results.json.1234.tmp").write_text("half")  # an atomic write killed before its rename
    prepare_output_dir(out, overwrite=True, files=("predictions.jsonl",), manifest="results.json")
    assert os.listdir(out) == []
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"did not write \(notes\.txt\)"):
        prepare_output_dir(out, overwrite=True, files=("predictions.jsonl",), manifest="results.json")
    (out / "results.json").write_text(json.dumps({"files": ["*", "*.txt", "notes.txt/"]}))
    with pytest.raises(InputError, match=r"did not write \(notes\.txt\)"):  # listed names are not patterns
        prepare_output_dir(out, overwrite=True, files=("predictions.jsonl",), manifest="results.json")
    assert (out / "notes.txt").read_text() == "mine"


def test_export_overwrite_keeps_other_files(suite, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "export"
    export = ["export", str(suite), "--out", str(out), "--split", "1:0:0"]
    assert main(export) == 0
    summary = json.loads((out / "export_summary.json").read_text())
    assert summary["files"] == ["train.jsonl", "validation.jsonl", "test.jsonl", "export_summary.json"]
    assert main([*export, "--format", "csv", "--overwrite"]) == 0  # another format replaces it
    assert sorted(os.listdir(out)) == ["export_summary.json", "test.csv", "train.csv", "validation.csv"]
    _user_files(out)
    assert main([*export, "--overwrite"]) == 2
    _refused(capsys, out)
    assert (out / "train.csv").exists()


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "reviews.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([("text", "label"), ("This is a bad movie.", "negative")])
    return path


def test_seeds_overwrite_replaces_its_suite_only(tmp_path, capsys):
    out = tmp_path / "suite"
    seeds = ["seeds", "--dataset", str(_dataset(tmp_path)), "--lexicon", str(LEXICON), "--out", str(out)]
    assert main([*seeds, "--capability", "LC4"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == {"cases": "cases.jsonl", "timings": "timings.json"}
    assert main([*seeds, "--capability", "LC4", "--overwrite"]) == 0
    _user_files(out)
    assert main([*seeds, "--overwrite"]) == 2
    _refused(capsys, out)
    assert (out / "cases.jsonl").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["seeds", "--dataset", "missing.csv"],
        ["generate", "--dataset", "missing.csv"],
        ["perturb", "missing.csv", "--perturbation", "typos"],
        ["checklist", "missing.json"],
        ["retrain", "--model", "missing", "--data", "missing"],
        ["demo"],
    ],
    ids=lambda c: c[0],
)
def test_every_command_refuses_a_folder_of_user_files(tmp_path, capsys, monkeypatch, command):
    """The refusal comes before any work: the inputs named here do not even exist."""
    project = tmp_path / "project"
    _user_files(project)
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--out", str(project), "--overwrite"]) == 2
    _refused(capsys, project)
    assert sorted(os.listdir(project)) == ["README.md", "setup.py"]


def test_report_refuses_to_replace_a_plot(tmp_path, capsys):
    png = tmp_path / "x-failure-rates.png"
    png.write_bytes(b"mine")
    assert main(["report", str(tmp_path / "results"), "--html", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert "x-failure-rates.png: file exists" in err and "--overwrite" in err
    assert png.read_bytes() == b"mine" and not (tmp_path / "x.html").exists()
    assert main(["report", str(tmp_path / "results"), "--html", str(tmp_path / "x.html"), "--no-plots"]) == 2
    assert "results" in capsys.readouterr().err  # with no plots the PNG is not in the way: the results are


def test_run_junit_refuses_to_replace_a_file(suite, tmp_path, capsys):  # noqa: F811
    junit = tmp_path / "junit.xml"
    junit.write_text("mine")
    run = [
        "run",
        str(suite),
        "--model",
        _model(tmp_path),
        "--out",
        str(tmp_path / "r"),
        "--junit",
        str(junit),
    ]
    assert main(run) == 2
    assert "junit.xml: file exists" in capsys.readouterr().err
    assert junit.read_text() == "mine" and not (tmp_path / "r").exists()
