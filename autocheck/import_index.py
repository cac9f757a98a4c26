"""transformers' index of its own modules, built once per installation instead of at every import.

transformers 5 finds what each of its modules exports by reading its source files
(``utils.import_utils.define_import_structure``): about 3,300 files, read twice (for the package and for
``transformers.models``), about 1 CPU-s of every process that loads a masked LM, a tokenizer or benepar,
which imports transformers too (docs/speed.md). The index depends on those files only, so it is kept in
the cache (namespace ``imports``) under a key of every file's path, size and modification time (the rule
Python's own bytecode cache uses) and of the indexing code's own file: a changed, added or removed file
builds it again. Done by hand since transformers has no switch for it: its ``__init__`` calls the
function as soon as it has imported it, so the function is wrapped by an import hook on the module that
defines it, the one point between the two. Anything unexpected (another transformers, an unusable cache)
leaves transformers to build its index itself, as without autocheck.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import logging
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from contextlib import closing
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from .cache import Cache, cache_dir, stat_key
from .store import content_hash

log = logging.getLogger(__name__)

INDEXING_MODULE = "transformers.utils.import_utils"


def fingerprint(root: str, code: str) -> str:
    """A hash of the path, size and modification time of every file under ``root`` (but bytecode), the
    path of every folder, and the same of the indexing code's file ``code``."""
    parts = [stat_key(code, os.stat(code))]
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name == "__pycache__":
                    continue
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                    parts.append(f"{entry.path}/")
                else:
                    parts.append(stat_key(entry.path, entry.stat()))
    return content_hash(*parts)


def _to_json(index: dict[frozenset[str], dict[str, set[str]]]) -> list[Any]:
    return [[sorted(backends), {module: sorted(names) for module, names in modules.items()}]
            for backends, modules in index.items()]  # fmt: skip


def _from_json(value: Any) -> dict[frozenset[str], dict[str, set[str]]]:
    """The index stored by ``_to_json``; a ValueError if the value is not one."""
    if not isinstance(value, list):
        raise ValueError("not a list")
    index = {}
    for backends, modules in value:
        if not isinstance(modules, dict) or not all(isinstance(n, list) for n in modules.values()):
            raise ValueError("not a map of modules to names")
        index[frozenset(backends)] = {module: set(names) for module, names in modules.items()}
    return index


def cached(build: Callable[..., Any], code: str) -> Callable[..., Any]:
    """``define_import_structure`` (``build``) looked up in the cache first, and stored there once built.
    The cache is opened at each call (a few per process), never one process's connection in another's
    fork."""

    def define_import_structure(module_path: Any, prefix: str | None = None) -> Any:
        try:
            path = os.path.abspath(module_path)
            root = os.path.dirname(path) if os.path.isfile(path) else path
            key = f"{root}\0{prefix}\0{fingerprint(root, code)}"
            cache = Cache("imports")
        except (OSError, ValueError, sqlite3.Error) as error:  # never worse than without the cache
            log.debug("transformers' module index not cached: %s", error)
            return build(module_path, prefix)
        with closing(cache):
            try:
                found = cache.get(key)
                if found is not None:
                    return _from_json(found)
            except (ValueError, TypeError, sqlite3.Error) as error:  # built again below, and stored
                log.debug("transformers' module index not read from the cache: %s", error)
            index = build(module_path, prefix)
            try:
                cache.put_many({key: _to_json(index)})
            except sqlite3.Error as error:
                log.debug("transformers' module index not stored: %s", error)
            return index

    define_import_structure.__wrapped__ = build  # type: ignore[attr-defined]
    return define_import_structure


class _IndexHook(importlib.abc.MetaPathFinder):
    """Finds ``transformers.utils.import_utils`` as Python would and, once it has run, wraps its
    ``define_import_structure`` with the cache; then leaves ``sys.meta_path``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != INDEXING_MODULE:
            return None
        if self in sys.meta_path:  # once: what comes next finds the module the usual way
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader if spec is not None else None
        if spec is None or spec.origin is None or not hasattr(loader, "exec_module"):
            return spec
        run_module = loader.exec_module  # type: ignore[union-attr]
        code = spec.origin

        def exec_module(module: ModuleType) -> None:
            run_module(module)
            build = getattr(module, "define_import_structure", None)
            if callable(build):
                module.define_import_structure = cached(build, code)  # type: ignore[attr-defined]

        loader.exec_module = exec_module  # type: ignore[union-attr,method-assign]
        return spec


def index_transformers_imports() -> None:
    """Serve transformers' module index from the cache in this process, if transformers is installed,
    not yet imported, and caching is on (``AUTOCHECK_CACHE``). For the CLI's processes; a program that
    imports autocheck keeps its import system as it was unless it calls this itself."""
    if "transformers" in sys.modules or cache_dir() is None:
        return
    if any(isinstance(finder, _IndexHook) for finder in sys.meta_path):
        return
    if importlib.util.find_spec("transformers") is not None:
        sys.meta_path.insert(0, _IndexHook())
