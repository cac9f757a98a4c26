"""Lexicons that templates fill placeholders from: a language profile's folder of them (English: the ones
shipped in ``data/lexicons/``) and users' own.

A lexicon is a tuple of ``Entry``: the ``value`` that goes into a template and its attributes (a city's
``country``, a first name's ``gender``). Shipped lexicons are JSON files built by
``data/lexicons/build.py`` (see the README there for sources and licences). A user lexicon is a file:

- ``.json``: the shipped format (``{"name", "entries": [...]}``, entries strings or objects with a
  ``value``), or a plain JSON list of strings;
- ``.txt``: one entry per line (blank lines and lines starting with ``#`` are skipped).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..resources import project_file
from ..store import InputError

LEXICON_DIR = "data/lexicons"


@dataclass(frozen=True, slots=True)
class Entry:
    value: str  # what goes into a template
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # {"country": "France"}

    def __str__(self) -> str:
        return self.value

    def __hash__(self) -> int:  # attrs is a read-only mapping (unhashable): hash by value and attribute names
        return hash((self.value, tuple(sorted(self.attrs))))


def shipped_lexicons(folder: Path | None = None) -> list[str]:
    """Names of the lexicons in ``folder`` (a language profile's; default data/lexicons/, English), sorted."""
    return sorted(p.stem for p in (folder or project_file(LEXICON_DIR)).glob("*.json"))


def load_lexicon(name_or_path: str, folder: Path | None = None) -> tuple[Entry, ...]:
    """A lexicon of ``folder`` by name (``"city"``; default folder data/lexicons/, English) or a lexicon file
    (``.json`` or ``.txt``), cached.

    Raises ``InputError`` (one line, naming the lexicon or file) for an unknown name, a missing file or
    a malformed one.
    """
    return _load(str(name_or_path), folder or project_file(LEXICON_DIR))


@lru_cache(maxsize=64)
def _load(name_or_path: str, folder: Path) -> tuple[Entry, ...]:
    path = Path(name_or_path)
    if path.suffix.lower() in (".json", ".txt") or path.parent != Path("."):
        if not path.is_file():
            raise InputError(f"{path}: lexicon file not found")
        return _read_txt(path) if path.suffix.lower() == ".txt" else _read_json(path)
    shipped = folder / f"{name_or_path}.json"
    if not shipped.is_file():
        known = ", ".join(shipped_lexicons(folder)) or f"none (no {folder}/ found)"
        raise InputError(
            f"unknown lexicon '{name_or_path}'; shipped lexicons: {known}; or give a .json/.txt path"
        )
    return _read_json(shipped)


def _read_txt(path: Path) -> tuple[Entry, ...]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason})") from None
    entries = tuple(Entry(s) for s in (line.strip() for line in lines) if s and not s.startswith("#"))
    if not entries:
        raise InputError(f"{path}: lexicon has no entries")
    return entries


def _read_json(path: Path) -> tuple[Entry, ...]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})") from None
    if isinstance(doc, dict):
        if "entries" not in doc:
            raise InputError(f"{path}: a lexicon object needs an 'entries' list")
        raw = doc["entries"]
    else:
        raw = doc
    if not isinstance(raw, list):
        raise InputError(f"{path}: expected a list of entries or an object with an 'entries' list")
    entries = tuple(_entry(path, i, item) for i, item in enumerate(raw))
    if not entries:
        raise InputError(f"{path}: lexicon has no entries")
    return entries


def _entry(path: Path, index: int, item: Any) -> Entry:
    if isinstance(item, str) and item.strip():
        return Entry(item)
    if isinstance(item, dict):
        value = item.get("value")
        if isinstance(value, str) and value.strip():
            attrs = {k: v for k, v in item.items() if k != "value"}
            return Entry(value, MappingProxyType(attrs))
        raise InputError(f"{path}: entry {index} has no non-empty string 'value'")
    raise InputError(f"{path}: entry {index} must be a non-empty string or an object with a 'value'")
