"""A persistent content-addressed cache for expensive results (parses, masked-LM suggestions, predictions).

SQLite file per namespace under ``$AUTOCHECK_CACHE`` (default ``~/.cache/autocheck``); values are JSON.
Keys should be content hashes that include everything the value depends on (model id and checksum,
settings, input text). ``AUTOCHECK_CACHE=off`` disables caching.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .store import InputError, file_sha256

# Every namespace autocheck writes, with what it holds (``autocheck cache`` lists and clears them).
NAMESPACES = {
    "search": "dataset searches: the seeds, fillers and counts",
    "chunks": "expansions of chunks of seed cases",
    "parses": "parses of seed sentences",
    "suggestions": "masked-LM fills of templates",
    "vocabulary": "the words each mask tag may be filled with",
    "lexicons": "polarity lexicons built from their files (SentiWordNet's fixed rule)",
    "fluency": "masked-LM fluency scores of fills",
    "predictions": "models' answers to inputs",
    "checksums": "checksums of model files, by path, size and time",
    "imports": "transformers' index of its modules, by its files' paths, sizes and times",
}


def cache_dir() -> Path | None:
    value = os.environ.get("AUTOCHECK_CACHE", "")
    if value.lower() in {"off", "0", "none", "false"}:
        return None
    return Path(value) if value else Path.home() / ".cache" / "autocheck"


_TIMEOUT = 60.0  # seconds a process waits for another's lock on the same cache file


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to ``path`` in WAL mode with the ``kv`` table. Processes that set up the same new file
    at once (the workers of ``generate --workers N`` do) can deadlock on switching it to WAL, which SQLite
    reports at once as "database is locked", without waiting its busy timeout: the loser tries again."""
    db = sqlite3.connect(path, timeout=_TIMEOUT)
    deadline = time.monotonic() + _TIMEOUT
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            return db
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                db.close()
                raise
            time.sleep(0.01)


class Cache:
    """``get_many``/``put_many`` over one namespace; a disabled cache stores nothing."""

    def __init__(self, namespace: str, directory: str | Path | None = None):
        directory = Path(directory) if directory is not None else cache_dir()
        self._db: sqlite3.Connection | None = None
        if directory is None:
            return
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self._db = _connect(directory / f"{namespace}.sqlite")
        except (OSError, sqlite3.OperationalError) as error:
            if "locked" in str(error):  # another process held it past the timeout: not the folder
                raise
            reason = getattr(error, "strerror", None) or str(error)
            raise InputError(
                f"{directory}: the cache folder cannot be used ({reason}); set AUTOCHECK_CACHE to a folder "
                "autocheck may write, or to off"
            ) from None

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        if self._db is None:
            return {}
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        for start in range(0, len(keys), 500):  # SQLite limits bound parameters per statement
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, value in self._db.execute(f"SELECT key, value FROM kv WHERE key IN ({marks})", chunk):
                found[key] = json.loads(value)
        return found

    def put_many(self, items: Mapping[str, Any]) -> None:
        if self._db is None or not items:
            return
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)",
                [(k, json.dumps(v, ensure_ascii=False)) for k, v in items.items()],
            )

    def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or None."""
        return self.get_many([key]).get(key)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stat_key(path: str, stat: os.stat_result) -> str:
    """A file as a cache key sees it: its path, size and modification time."""
    return f"{path}\x1f{stat.st_size}\x1f{stat.st_mtime_ns}"


def file_checksum(path: str | Path) -> str:
    """The SHA-256 of a file, remembered in the ``checksums`` namespace by (resolved path, size, mtime): a
    large weights file is read in full once, and again whenever its size or modification time changes."""
    path = Path(path).resolve()
    key = stat_key(str(path), path.stat())
    with Cache("checksums") as cache:
        known = cache.get(key)
        if isinstance(known, str):
            return known
        digest = file_sha256(path)
        cache.put_many({key: digest})
        return digest


def _files(directory: Path, namespace: str) -> list[Path]:
    """The files of one namespace: its SQLite database and the write-ahead log and index beside it."""
    paths = (directory / f"{namespace}.sqlite{suffix}" for suffix in ("", "-wal", "-shm"))
    return [p for p in paths if p.is_file()]


def usage(directory: Path) -> list[tuple[str, int, int]]:
    """(namespace, entries, bytes on disk) of every namespace with a database in ``directory``."""
    found = []
    for namespace in NAMESPACES:
        files = _files(directory, namespace)
        if (directory / f"{namespace}.sqlite") in files:  # (connecting would make a missing one)
            db = sqlite3.connect(directory / f"{namespace}.sqlite", timeout=_TIMEOUT)
            try:
                (entries,) = db.execute("SELECT count(*) FROM kv").fetchone()
            except sqlite3.OperationalError:  # no kv table yet
                entries = 0
            finally:
                db.close()
            found.append((namespace, entries, sum(p.stat().st_size for p in files)))
    return found


def clear(directory: Path, namespaces: Iterable[str]) -> dict[str, int]:
    """Delete the databases of ``namespaces`` in ``directory`` (nothing else there); the bytes each freed."""
    freed = {}
    for namespace in namespaces:
        files = _files(directory, namespace)
        if files:
            freed[namespace] = sum(p.stat().st_size for p in files)
            for path in files:
                path.unlink()
    return freed
