"""``autocheck cache``: what each cache holds, and clearing one or all of them without touching anything
else in the folder."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO, SHARED_DATA, require

from autocheck.cache import NAMESPACES, Cache
from autocheck.cli import main
from autocheck.store import InputError


def test_every_cache_the_package_opens_is_one_the_command_knows():
    opened = set()
    for path in (REPO / "autocheck").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Cache":
                name = node.args[0] if node.args else None
                opened.add(name.value if isinstance(name, ast.Constant) else ast.unparse(name))
    opened.discard("NAMESPACE")  # sources/search_cache.py's constant, "search"
    assert opened and opened <= NAMESPACES.keys()


def test_it_lists_each_cache_and_clears_only_those_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    with Cache("chunks") as cache:
        cache.put_many({"a": 1, "b": 2})
    with Cache("parses") as cache:
        cache.put_many({"c": 3})
    mine = tmp_path / "notes.sqlite"  # a file of the user's in the same folder
    mine.write_text("keep me")

    assert main(["cache"]) == 0
    listed = capsys.readouterr().out
    assert "chunks" in listed and "parses" in listed and "search" not in listed

    assert main(["cache", "--clear", "chunks"]) == 0
    assert "cleared chunks" in capsys.readouterr().out
    assert not list(tmp_path.glob("chunks.sqlite*")) and list(tmp_path.glob("parses.sqlite*"))

    assert main(["cache", "--clear"]) == 0
    assert "cleared parses" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]
    assert mine.read_text() == "keep me"


def test_an_unknown_cache_is_an_error_naming_the_known_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    assert main(["cache", "--clear", "chunk"]) == 2
    assert "--clear chunk: no such cache; the caches: search, chunks" in capsys.readouterr().err


def test_with_caching_off_it_says_so(monkeypatch, capsys):
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    assert main(["cache", "--clear"]) == 0
    assert "caching is off" in capsys.readouterr().out


def test_a_cache_folder_that_cannot_be_made_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(blocker / "cache"))  # under a file: no folder can be made
    with pytest.raises(InputError, match=r"cache folder cannot be used .*set AUTOCHECK_CACHE to a folder"):
        Cache("chunks")


def test_seeds_with_an_unusable_cache_folder_says_which_setting_to_change(tmp_path, monkeypatch, capsys):
    require(SHARED_DATA / "nltk_data" / "corpora")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(blocker / "cache"))
    argv = ["seeds", "--dataset", str(REPO / "data/demo/reviews.csv"), "--label-map", "0=negative,1=positive"]
    argv += ["--lexicon", "opinion", "--max-seeds", "2", "--out", str(tmp_path / "suite")]
    assert main(argv) == 2
    assert "set AUTOCHECK_CACHE to a folder autocheck may write, or to off" in capsys.readouterr().err
