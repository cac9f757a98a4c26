"""Fuzz targets: bytes -> a file -> the loader. ``InputError`` is the loaders' clean refusal; anything else
escaping a target is a bug (the fuzzer reports it as a crash, the corpus replay test as a failure).

Used by ``fuzz/run.py`` (atheris, coverage-guided) and by ``tests/test_fuzz.py`` (replays the kept corpus
without atheris).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autocheck.requirements import load_capabilities
from autocheck.resources import project_file
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


_SPEC = json.loads(project_file("requirements/sentiment.json").read_text(encoding="utf-8"))


def spec_edit(data: bytes) -> None:
    """Structure-aware: the shipped spec with one value replaced. The first bytes walk a path into the
    spec (each byte picks a key or item, 0xff stops); the rest, parsed as JSON, is the new value."""
    cut = data.find(b"\xff")
    steps, rest = (data[:cut], data[cut + 1 :]) if cut >= 0 else (data[:3], data[3:])
    try:
        value = json.loads(rest.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        value = rest.decode("latin-1")
    edited = json.loads(json.dumps(_SPEC))
    node: Any = edited
    for i, step in enumerate(steps):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[step % len(keys)]
        if i == len(steps) - 1 or not isinstance(node[key], dict | list):
            node[key] = value
            break
        node = node[key]
    spec(json.dumps(edited).encode("utf-8"))


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
    "spec_edit": spec_edit,
    "csv": _dataset("data.csv"),
    "tsv": _dataset("data.tsv"),
    "jsonl": _dataset("data.jsonl"),
    "trees": _dataset("trees.txt"),
}
