"""transformers' module index served from the cache (autocheck/import_index.py): the same index as
transformers builds, built again when a file changes, and never in the way of an import."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autocheck.cache import Cache
from autocheck.import_index import cached, fingerprint


def package(root: Path) -> Path:
    (root / "models" / "bert").mkdir(parents=True)
    (root / "models" / "__init__.py").write_text("")
    (root / "models" / "bert" / "modeling_bert.py").write_text('__all__ = ["BertModel"]\n')
    (root / "indexer.py").write_text("# the indexing code\n")
    return root


def counting_build(calls: list[str]):
    def build(module_path, prefix=None):
        calls.append(str(module_path))
        names = {"BertModel"} | ({"Extra"} if (Path(module_path) / "bert" / "extra.py").exists() else set())
        return {frozenset({"torch"}): {f"{prefix or ''}bert.modeling_bert": names}}

    return build


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """A package, a cache, and ``define_import_structure`` over them that counts what it builds."""
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "cache"))
    root = package(tmp_path / "pkg")
    calls: list[str] = []
    return root, calls, cached(counting_build(calls), str(root / "indexer.py"))


def test_built_once_then_read_until_a_file_changes(indexed):
    root, calls, define = indexed
    first = define(root / "models")
    assert define(root / "models") == first and define(str(root / "models" / "__init__.py")) == first
    assert len(calls) == 1  # a file of the folder names the folder, as transformers' own __init__ passes it
    assert define(root / "models", "models.") != first and len(calls) == 2  # the prefix is part of the key

    (root / "models" / "bert" / "extra.py").write_text("x = 1\n")  # a file added
    assert define(root / "models") == {frozenset({"torch"}): {"bert.modeling_bert": {"BertModel", "Extra"}}}
    assert len(calls) == 3
    modeling = root / "models" / "bert" / "modeling_bert.py"
    os.utime(modeling, ns=(1, 1))  # a file changed (its time)
    define(root / "models")
    modeling.write_text('__all__ = ["BertModel", "Other"]\n')  # and its size
    define(root / "models")
    (root / "indexer.py").write_text("# the indexing code, changed\n")  # transformers' own code
    define(root / "models")
    assert len(calls) == 6
    define(root / "models")
    assert len(calls) == 6


def test_a_damaged_entry_is_built_again_and_replaced(indexed, tmp_path):
    root, calls, define = indexed
    expected = define(root / "models")
    with sqlite3.connect(tmp_path / "cache" / "imports.sqlite") as db:
        db.execute("UPDATE kv SET value = ?", (json.dumps({"not": "an index"}),))
    assert define(root / "models") == expected and len(calls) == 2
    assert define(root / "models") == expected and len(calls) == 2


def test_caching_off_or_unusable_builds_as_transformers_does(indexed, tmp_path, monkeypatch):
    root, calls, define = indexed
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    define(root / "models")
    define(root / "models")
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(blocker / "cache"))  # cannot be made
    define(root / "models")
    assert len(calls) == 3


def test_fingerprint_sees_paths_sizes_times_and_folders(tmp_path):
    root = package(tmp_path / "pkg")
    code = str(root / "indexer.py")
    seen = {fingerprint(str(root / "models"), code)}
    (root / "models" / "empty").mkdir()
    seen.add(fingerprint(str(root / "models"), code))
    (root / "models" / "bert" / "modeling_bert.py").rename(root / "models" / "bert" / "modeling_bort.py")
    seen.add(fingerprint(str(root / "models"), code))
    (root / "models" / "__pycache__").mkdir()  # bytecode does not count
    (root / "models" / "__pycache__" / "x.pyc").write_bytes(b"0")
    assert fingerprint(str(root / "models"), code) in seen and len(seen) == 3


INDEX_CHECK = """
import sys
from autocheck.import_index import index_transformers_imports
index_transformers_imports()
import transformers
from transformers import AutoConfig, AutoTokenizer
import transformers.models.bert
from transformers.utils import import_utils
assert not any(type(f).__name__ == "_IndexHook" for f in sys.meta_path)  # gone once used
define = import_utils.define_import_structure
assert define.__wrapped__ is not define
models = transformers.models.__file__
if sys.argv[1:] == ["compare"]:
    for args in ((models, None), (models, "models"), (transformers.models.bert.__file__, None)):
        assert define(*args) == define.__wrapped__(*args), args  # the very index transformers builds
print("Probe" in dir(transformers.models))
"""


def test_transformers_imports_with_the_same_index_served_from_the_cache(tmp_path):
    pytest.importorskip("transformers")
    env = {**os.environ, "AUTOCHECK_CACHE": str(tmp_path / "cache")}
    for _ in range(2):  # built and stored, then read
        ran = subprocess.run(
            [sys.executable, "-c", INDEX_CHECK, "compare"], env=env, capture_output=True, text=True
        )
        assert ran.returncode == 0, ran.stderr
    stored = Cache("imports", tmp_path / "cache")
    keys = [key for (key,) in stored._db.execute("SELECT key FROM kv")]  # type: ignore[union-attr]
    assert len(keys) >= 3, keys  # the package's models, transformers.models, its bert
    # a name planted in the stored index shows the next process reads it and does not read the files
    models_key = next(k for k in keys if k.split("\0")[0].endswith("models") and k.split("\0")[1] == "None")
    index = stored.get(models_key)
    index[0][1]["probe"] = ["Probe"]
    stored.put_many({models_key: index})
    stored.close()
    ran = subprocess.run([sys.executable, "-c", INDEX_CHECK], env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split()[-1] == "True"


def test_off_leaves_the_import_system_alone(tmp_path):
    pytest.importorskip("transformers")
    code = INDEX_CHECK.split("import transformers\n")[0] + "print(len(sys.meta_path))\n"
    counts = [
        subprocess.run(
            [sys.executable, "-c", code.replace("index_transformers_imports()", line)],
            env={**os.environ, "AUTOCHECK_CACHE": "off"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout  # fmt: skip
        for line in ("index_transformers_imports()", "pass")
    ]
    assert counts[0] == counts[1]
