"""Fuzz targets: bytes -> a file -> the loader. ``InputError`` is the loaders' clean refusal; anything else
escaping a target is a bug (the fuzzer reports it as a crash, the corpus replay test as a failure).

Used by ``fuzz/run.py`` (atheris, coverage-guided) and by ``tests/test_fuzz.py`` (replays the kept corpus
without atheris).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from autocheck.requirements import load_capabilities
from autocheck.sources.datasets import DatasetStats, load_examples
from autocheck.store import InputError

_WORK = Path(tempfile.mkdtemp(prefix="autocheck-fuzz-"))


def _file(name: str, data: bytes) -> Path:
    path = _WORK / name
    path.write_bytes(data)
    return path


def spec(data: bytes) -> None:
    path = _file("spec.json", data)
    try:
        load_capabilities(path, task="sentiment")
    except InputError as e:
        assert str(e).startswith(str(path)), e


def _dataset(name: str) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        path = _file(name, data)
        stats = DatasetStats()
        try:
            examples = list(load_examples(str(path), stats=stats))
        except InputError as e:
            assert str(e).startswith(str(path)), e
            return
        assert stats.read == stats.kept + sum(stats.skipped.values()) and stats.kept == len(examples)

    target.__name__ = name
    return target


TARGETS: dict[str, Callable[[bytes], None]] = {
    "spec": spec,
    "csv": _dataset("data.csv"),
    "tsv": _dataset("data.tsv"),
    "jsonl": _dataset("data.jsonl"),
    "trees": _dataset("trees.txt"),
}
