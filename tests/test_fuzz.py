"""The fuzzing harness (fuzz/): the corpus the fuzzer found is replayed on every test run (no atheris
needed), and a short coverage-guided smoke run when atheris is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
sys.path.insert(0, str(REPO / "fuzz"))

import targets  # noqa: E402  (fuzz/targets.py)


@pytest.mark.parametrize("name", list(targets.TARGETS))
def test_corpus_replays_without_unexpected_exceptions(name):
    """Every kept input of the target gives a result or a clean InputError (the target asserts that)."""
    inputs = sorted((CORPUS / name).glob("*"))
    assert inputs, f"tests/fuzz_corpus/{name} is empty"
    failures = []
    for path in inputs:
        try:
            targets.TARGETS[name](path.read_bytes())
        except Exception as e:  # collect them all, so one run shows every regression
            failures.append(f"{path.name}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)


def test_fuzz_smoke(tmp_path):
    try:
        import atheris  # noqa: F401
    except ImportError:
        pytest.skip(
            "atheris is not installed (pip install atheris, the 'fuzz' extra); corpus replay still ran"
        )
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "fuzz" / "run.py"),
            "csv",
            "--seconds",
            "3",
            "--max-len",
            "512",
            "--corpus-out",
            str(tmp_path / "new"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done" in run.stderr and "Uncaught Python exception" not in run.stderr
