"""Files and identities: JSON Lines, atomic writes, content hashes, per-record RNGs, manifests."""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np


class InputError(ValueError):
    """Bad user input; the message names the file and the line or field.

    ``str(error)`` is the message for Python callers (options spelled as keywords, ``overwrite=True``);
    ``error.cli`` is the same message for the command line (``--overwrite``), which the CLI prints.
    """

    def __init__(self, message: str, cli: str | None = None):
        super().__init__(message)
        self.cli = message if cli is None else cli

    @classmethod
    def hint(cls, template: str, **options: str | tuple[str, str]) -> InputError:
        """An error whose ``template`` names options as ``{name}`` placeholders, each given as a keyword
        argument spelling (``resume="resume=True"``, ``column="text_column=NAME"``): the API message says
        ``resume=True``, the CLI one ``--resume`` (``--text-column NAME``). Where the flag is not the
        keyword's spelling, give both: ``(api, cli)``."""
        api, cli = template, template
        for name, spelling in options.items():
            keyword, flag = spelling if isinstance(spelling, tuple) else (spelling, cli_flag(spelling))
            api, cli = api.replace(f"{{{name}}}", keyword), cli.replace(f"{{{name}}}", flag)
        return cls(api, cli)


def cli_flag(keyword: str) -> str:
    """``overwrite=True`` -> ``--overwrite``; ``text_column=NAME`` -> ``--text-column NAME``."""
    name, _, value = keyword.partition("=")
    flag = "--" + name.replace("_", "-")
    return flag if value in ("", "True") else f"{flag} {value}"


def content_hash(*parts: str, length: int = 16) -> str:
    """A short, stable hex digest of the given strings (order matters)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()[:length]


def canonical(value: Any) -> Any:
    """A JSON-able form of a spec object that is the same in every process (sets sorted, patterns as
    their source), for content hashes."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return [type(value).__name__, {f.name: canonical(getattr(value, f.name)) for f in fields}]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=dumps)
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, re.Pattern):
        return ["re", value.pattern, value.flags]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A checksum of the package's Python sources: a cached result (a chunk's expansions, a dataset search)
    is reused only by the code that computed it."""
    root = Path(__file__).resolve().parent
    return content_hash(*(f"{p.relative_to(root)}:{file_sha256(p)}" for p in sorted(root.rglob("*.py"))))


def rng_for(seed: int, key: str) -> np.random.Generator:
    """The random generator of one record: derived from (global seed, record id), never global state,
    so results do not depend on processing order or chunking."""
    return np.random.default_rng([seed, int(content_hash(key, length=15), 16)])


def dumps(obj: Any) -> str:
    """Canonical one-line JSON (sorted keys, UTF-8), so equal records give equal bytes."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _not_a_number(name: str) -> None:
    """NaN and Infinity, which Python writes and reads but JSON does not have: no count, rate or probability
    autocheck reads back may be one."""
    raise json.JSONDecodeError(f"{name} is not a JSON number", name, 0)


def read_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the objects of a JSON Lines file; a malformed line is an error naming file and line."""
    return (obj for _, obj in numbered_jsonl(path))


def numbered_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each object of a JSON Lines file; a malformed line, a non-UTF-8 byte or a
    missing file is an error naming file (and line)."""
    if not Path(path).is_file():
        raise InputError(f"{path}: not found")
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line.decode("utf-8"), parse_constant=_not_a_number)
            except UnicodeDecodeError:
                raise InputError(f"{path}:{lineno}: not UTF-8 text; save the file as UTF-8") from None
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
            except RecursionError:
                raise InputError(f"{path}:{lineno}: nested too deeply to read") from None
            if not isinstance(obj, dict):
                raise InputError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, obj


class JsonlWriter:
    """Append records to a JSON Lines file, one per line; ``offset`` is the byte size written so far."""

    def __init__(self, path: str | Path, append: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab" if append else "wb")

    def write(self, obj: Any) -> None:
        self._file.write((dumps(obj) + "\n").encode("utf-8"))

    def write_all(self, objs: Iterable[Any]) -> None:
        for obj in objs:
            self.write(obj)

    def flush(self) -> int:
        self._file.flush()
        os.fsync(self._file.fileno())
        return self._file.tell()

    @property
    def offset(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write via a temporary file and rename, so readers never see a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; output gets the permissions open() would give
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_output_file(path: str | Path, *, overwrite: bool = False) -> Path:
    """Refuse to replace an existing file (or to write over a directory) unless ``overwrite``."""
    out = Path(path)
    if out.is_dir() or out.name in ("", ".", ".."):
        raise InputError(f"{out}: is a directory; give a file name")
    if out.exists() and not overwrite:
        raise InputError.hint(
            f"{out}: file exists; pass {{overwrite}} to replace it", overwrite="overwrite=True"
        )
    return out


def atomic_write_json(path: str | Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2) + "\n")


def load_json(path: str | Path, what: str = "JSON file") -> Any:
    """Parse a JSON file; a missing, unreadable, non-UTF-8, malformed or absurdly nested file is an
    ``InputError`` naming the file (and line:column where JSON can say)."""
    return parse_json(read_input(path, what), path, what)


def read_input(path: str | Path, what: str) -> bytes:
    """A file's bytes; a missing or unreadable one is an ``InputError`` naming it."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read the {what} ({e.strerror or e})") from None


def parse_json(raw: bytes, path: str | Path, what: str = "JSON file") -> Any:
    """``load_json`` of bytes already read from ``path`` (named in its errors)."""
    try:
        text = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: the {what} is not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
            "save it as UTF-8"
        ) from None
    try:
        return json.loads(text, parse_constant=_not_a_number)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg})") from None
    except RecursionError:
        raise InputError(f"{path}: the {what} is nested too deeply to read") from None


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def environment() -> dict[str, Any]:
    """What a manifest records about the software that made a run."""
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(
            ["autocheck", "numpy", "nltk", "torch", "transformers", "benepar", "spacy", "datasets"]
        ),
    }


def manifest_files(path: str | Path) -> list[str]:
    """The names an output's manifest lists under ``files`` (a list of names, or a mapping of role to
    name); none when the manifest is absent or unreadable, so nothing is taken for autocheck's by mistake."""
    try:
        listed = json.loads(Path(path).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError, RecursionError):
        return []
    names = listed.values() if isinstance(listed, dict) else listed if isinstance(listed, list) else ()
    return [name for name in names if isinstance(name, str)]


def own_entries(out: Path, files: Iterable[str], manifest: str | None = None) -> tuple[list[Path], list[str]]:
    """Split the entries of the directory ``out`` into those autocheck wrote (matching ``files``: names or
    glob patterns, a trailing ``/`` for a folder; the names ``manifest`` lists; the manifest itself; a
    temporary file an interrupted atomic write left) and the names of all others."""
    patterns = [*files, ".*.tmp"]
    listed = {manifest, *manifest_files(out / manifest)} if manifest else set()  # names, never patterns
    own, foreign = [], []
    for child in sorted(out.iterdir()):
        name = child.name + ("/" if child.is_dir() and not child.is_symlink() else "")
        if name in listed or any(fnmatch.fnmatchcase(name, p) for p in patterns):
            own.append(child)
        else:
            foreign.append(name)
    return own, foreign


def foreign_error(out: Path, foreign: Sequence[str]) -> InputError:
    shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
    return InputError(
        f"{out}: holds files autocheck did not write ({shown}); refusing to replace anything there: "
        "choose an empty or new directory"
    )


def prepare_output_dir(
    path: str | Path,
    *,
    resume: bool | None = None,
    overwrite: bool = False,
    files: Iterable[str] = (),
    manifest: str | None = None,
) -> Path:
    """Create an output directory; refuse to reuse a non-empty one unless resuming or overwriting.

    ``resume=None`` (the default) means the caller cannot resume, so the refusal does not offer it.
    ``files`` are what the command writes there (names or glob patterns, a trailing ``/`` for a folder) and
    ``manifest`` the file that lists what an earlier run wrote (its ``files``): ``overwrite`` removes exactly
    those, and refuses a directory that holds anything else, naming it; nothing else is ever touched.
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory")
    if out.exists() and any(out.iterdir()) and not (resume or overwrite):
        if resume is None:
            raise InputError.hint(
                f"{out}: directory is not empty; pass {{overwrite}} to replace its files",
                overwrite="overwrite=True",
            )
        raise InputError.hint(
            f"{out}: directory is not empty; "
            "pass {resume} to continue that run or {overwrite} to replace it",
            resume="resume=True",
            overwrite="overwrite=True",
        )
    if resume and out.is_dir():
        for stale in out.glob(".*.tmp"):  # an atomic write killed before its rename (see atomic_write_text)
            stale.unlink(missing_ok=True)
    elif overwrite and out.is_dir():
        own, foreign = own_entries(out, files, manifest)
        if foreign:
            raise foreign_error(out, foreign)
        for child in own:
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    return out
