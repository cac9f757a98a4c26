"""Files, identities, the content cache and resource lookup."""

from __future__ import annotations

import pytest

from autocheck.cache import Cache
from autocheck.resources import ResourceMissing, nltk_resource
from autocheck.store import InputError, JsonlWriter, content_hash, prepare_output_dir, read_jsonl, rng_for


def test_jsonl_round_trip_and_errors_name_file_and_line(tmp_path):
    path = tmp_path / "x.jsonl"
    with JsonlWriter(path) as writer:
        writer.write_all([{"b": 1, "a": "é"}, {"c": [1, 2]}])
    assert path.read_text(encoding="utf-8") == '{"a":"é","b":1}\n{"c":[1,2]}\n'  # canonical bytes
    assert list(read_jsonl(path)) == [{"a": "é", "b": 1}, {"c": [1, 2]}]
    path.write_text('{"a": 1}\n{oops\n')
    with pytest.raises(InputError, match=r"x\.jsonl:2: not valid JSON"):
        list(read_jsonl(path))


def test_random_generators_depend_on_seed_and_record_only():
    assert rng_for(1, "LC4/a").integers(1 << 30) == rng_for(1, "LC4/a").integers(1 << 30)
    assert rng_for(1, "LC4/a").integers(1 << 30) != rng_for(2, "LC4/a").integers(1 << 30)
    assert content_hash("a", "bc") != content_hash("ab", "c")


def test_output_directories_are_never_clobbered(tmp_path):
    out = tmp_path / "out"
    prepare_output_dir(out)
    (out / "mine.txt").write_text("x")
    with pytest.raises(InputError, match="pass overwrite=True to replace"):
        prepare_output_dir(out)
    assert prepare_output_dir(out, resume=True) == out and (out / "mine.txt").exists()
    with pytest.raises(InputError, match=r"did not write \(mine\.txt\)"):  # not autocheck's: never removed
        prepare_output_dir(out, overwrite=True)
    assert (out / "mine.txt").exists()
    prepare_output_dir(out, overwrite=True, files=("*.txt",))  # a name the command writes is replaced
    assert not (out / "mine.txt").exists()


def test_cache_stores_json_by_key_and_can_be_switched_off(tmp_path, monkeypatch):
    cache = Cache("things", tmp_path)
    cache.put_many({"k1": [1, "a"], "k2": {"x": 0.5}})
    assert Cache("things", tmp_path).get_many(["k1", "k2", "k3"]) == {"k1": [1, "a"], "k2": {"x": 0.5}}
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    off = Cache("things")
    off.put_many({"k": 1})
    assert not off.enabled and off.get_many(["k"]) == {}


def test_nltk_data_set_after_import_is_found(tmp_path, monkeypatch):
    (tmp_path / "corpora" / "autocheck_probe").mkdir(parents=True)
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    assert nltk_resource("corpora/autocheck_probe", "autocheck_probe").startswith(str(tmp_path))
    monkeypatch.setenv("AUTOCHECK_OFFLINE", "1")
    with pytest.raises(ResourceMissing, match="python -m nltk.downloader no_such_package"):
        nltk_resource("corpora/no_such_corpus", "no_such_package")


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_writes_honour_the_umask(tmp_path, umask):
    import os
    import stat

    from autocheck.store import JsonlWriter, atomic_write_json, atomic_write_text

    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "report.html", "<p>")
        atomic_write_json(tmp_path / "manifest.json", {"a": 1})
        with JsonlWriter(tmp_path / "cases.jsonl") as writer:
            writer.write({"a": 1})
    finally:
        os.umask(old)
    for name in ("report.html", "manifest.json", "cases.jsonl"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
    assert not list(tmp_path.glob(".*.tmp"))


def _open_and_put(directory: str, i: int) -> None:
    cache = Cache("race", directory)
    cache.put_many({f"k{i}": i})
    cache.close()


def test_processes_that_open_a_new_cache_at_once_all_get_it(tmp_path):
    """Workers set up the same new cache file together; switching it to WAL used to fail one of them with
    "database is locked" about one time in six."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(8) as pool:
        for trial in range(30):
            directory = tmp_path / str(trial)
            pool.starmap(_open_and_put, [(str(directory), i) for i in range(8)])
            assert len(Cache("race", directory).get_many(f"k{i}" for i in range(8))) == 8
