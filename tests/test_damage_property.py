"""A property test: damage any file autocheck reads back (a field retyped or removed, the file cut short, a
line repeated as it is or with another value) and run every command that reads it. Each ends with an exit
status and, for bad input, one error line: never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gate import CASES

from autocheck.cli import main
from autocheck.models import default_task

MODEL = """
labels = ["negative", "neutral", "positive"]


def predict(texts):
    return [[0.9, 0.05, 0.05] if t.startswith("bad") else [0.05, 0.05, 0.9] for t in texts]
"""

# the files, relative to the base folder, with the commands that read them
SUITE_FILES = ("suite/cases.jsonl", "suite/manifest.json")
RUN_FILES = ("run/results.json", "run/predictions.jsonl")
PREDICTION_FILE = "predictions-file.jsonl"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A suite of MFT, INV and DIR cases with a full manifest, a run of it, and a ``file:`` predictions
    file of its inputs."""
    root = tmp_path_factory.mktemp("damage")
    (root / "suite").mkdir()
    (root / "suite/cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    capabilities = {c: {"name": c, "capability": "Vocabulary", "description": "toy"} for c in "MID"}
    manifest = {"kind": "suite", "task": default_task().to_json(), "capabilities": capabilities}
    (root / "suite/manifest.json").write_text(json.dumps(manifest))
    (root / "model.py").write_text(MODEL)
    assert (
        main(
            [
                "run",
                str(root / "suite"),
                "--model",
                f"{root / 'model.py'}:predict",
                "--out",
                str(root / "run"),
            ]
        )
        == 0
    )
    probs = {"bad": [0.9, 0.05, 0.05], "good": [0.05, 0.05, 0.9]}
    lines = [{"text": c["text"], "probs": probs[c["text"].split()[0]]} for c in CASES]
    (root / PREDICTION_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root


def commands(root: Path, out: Path, damaged: str) -> list[list[str]]:
    suite, run = str(root / "suite"), str(root / "run")
    model = f"{root / 'model.py'}:predict"
    reading_run = [
        ["report", run],
        ["report", run, "--json"],
        ["report", run, "--html", str(out / "page.html"), "--no-plots", "--markdown", str(out / "pr.md")],
        ["compare", run, run, "--markdown", str(out / "compare.md")],
        ["explain", run],
    ]
    if damaged == PREDICTION_FILE:
        return [["run", suite, "--model", f"file:{root / PREDICTION_FILE}", "--out", str(out / "r")]]
    if damaged in RUN_FILES:
        return reading_run
    return [
        [
            "run",
            suite,
            "--model",
            model,
            "--out",
            str(out / "r"),
            "--fail-above",
            "0.5",
            "--junit",
            str(out / "j.xml"),
        ],
        ["export", suite, "--out", str(out / "e")],
        *reading_run,  # they read the run's suite too
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=4,
)


def _retype(data: st.DataObject, record: dict) -> None:
    """Give one field (at any depth) another value, or remove it."""
    target = record
    while True:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        if not keys:
            return
        key = data.draw(st.sampled_from(keys))
        if isinstance(target[key], (dict, list)) and target[key] and data.draw(st.booleans()):
            target = target[key]
            continue
        if isinstance(target, dict) and data.draw(st.booleans()):
            del target[key]
        else:
            target[key] = data.draw(json_values)
        return


def damage(data: st.DataObject, path: Path) -> None:
    text = path.read_text()
    how = data.draw(st.sampled_from(["retype", "truncate", "repeat", "repeat changed"]))
    if how == "truncate":
        path.write_text(text[: data.draw(st.integers(0, len(text) - 1))])
        return
    if path.suffix == ".json":
        record = json.loads(text)
        _retype(data, record)
        path.write_text(json.dumps(record))
        return
    lines = text.splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    record = json.loads(lines[i])
    if how == "retype":
        _retype(data, record)
        lines[i] = json.dumps(record)
    elif how == "repeat":
        lines.insert(data.draw(st.integers(0, len(lines))), lines[i])
    else:
        _retype(data, record)
        lines.insert(data.draw(st.integers(0, len(lines))), json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), name=st.sampled_from([*SUITE_FILES, *RUN_FILES, PREDICTION_FILE]))
def test_damaged_files_never_give_a_traceback(base, tmp_path, capsys, data, name):
    path = base / name
    original = path.read_bytes()
    out = tmp_path / f"out-{data.draw(st.integers(0, 10**9))}"
    try:
        damage(data, path)
        for argv in commands(base, out, name):
            status = main(argv)  # an exception escaping main is the traceback a user would see
            err = capsys.readouterr().err
            assert status in (0, 1, 2), (argv, status)
            if status == 2:
                assert [line for line in err.splitlines() if line.startswith("autocheck: error: ")], err
    finally:
        path.write_bytes(original)
        shutil.rmtree(out, ignore_errors=True)
