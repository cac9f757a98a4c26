"""Identities of what a stage's output depends on, computed without loading any model (or torch)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from ..store import content_hash, file_sha256


def model_identity(name_or_dir: str | Path, config: Any = None) -> str:
    """What suggestions depend on: the model name plus a checksum of its files when it is local
    (a hub id also gets the resolved commit when transformers recorded one)."""
    path = Path(name_or_dir)
    if path.is_dir():
        return _directory_identity(str(path.resolve()))
    commit = getattr(config, "_commit_hash", None)
    return f"{name_or_dir}@{commit}" if commit else str(name_or_dir)


@lru_cache(maxsize=8)
def _directory_identity(directory: str) -> str:
    path = Path(directory)
    files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix != ".md")
    digest = content_hash(*(f"{p.name}:{file_sha256(p)}" for p in files))
    return f"{path.name}@{digest}"
