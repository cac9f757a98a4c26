"""The dataset search's result cached by content hash (``sources.search_cache``): a rerun on the same
dataset searches nothing and writes the same bytes; any change to what the search reads searches again."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import SHARED_DATA, require

from autocheck import generate as generate_module
from autocheck.config import GenerateConfig
from autocheck.generate import generate
from autocheck.sources import search_cache
from autocheck.sources.datasets import sst_label
from autocheck.sources.search_cache import search_key, source_digest

SST = SHARED_DATA / "datasets" / "sst" / "derived_sentence_labels"


def _sst_rows(name: str, n: int) -> list[dict]:
    with open(SST / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))[:n]


@pytest.fixture
def dataset(tmp_path) -> Path:
    """600 real SST sentences with their labels, and a column the search keeps as the examples' metadata."""
    require(SST / "SSTB_train.csv")
    require(SHARED_DATA / "nltk_data" / "corpora")
    path = tmp_path / "data" / "sst600.csv"
    path.parent.mkdir()
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label", "annotator"])
        for n, row in enumerate(_sst_rows("SSTB_train.csv", 600)):
            writer.writerow([row["sentence"], sst_label(float(row["values"])), f"a{n % 3}"])
    return path


def _sst_folder(directory: Path, dev_rows: int) -> Path:
    """An SST release folder (``SSTB_*.csv``) of 600 training, ``dev_rows`` development and 10 test rows."""
    directory.mkdir(exist_ok=True)
    for name, n in (("SSTB_train.csv", 600), ("SSTB_dev.csv", dev_rows), ("SSTB_test.csv", 10)):
        rows = _sst_rows(name, n)
        with open(directory / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return directory


def _config(path: Path, **changes) -> GenerateConfig:
    # LC2 searches by word class; LC7 and LC8 draw fillers from the dataset's pools
    settings = {"max_seeds": 4, "seed": 3, **changes}
    return GenerateConfig(
        dataset=str(path), capabilities=["LC2", "LC7", "LC8"], lexicon="opinion", expand=False, **settings
    )


def _searches(monkeypatch) -> list[int]:
    """Counts the searches ``generate`` runs."""
    calls: list[int] = []
    real = generate_module.select_seeds

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(generate_module, "select_seeds", counted)
    return calls


def test_a_rerun_searches_nothing_and_writes_the_same_bytes(tmp_path, dataset, monkeypatch):
    calls = _searches(monkeypatch)
    generate(_config(dataset), tmp_path / "first")
    generate(_config(dataset), tmp_path / "again")
    assert len(calls) == 1
    for name in ("cases.jsonl", "manifest.json"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    generate(_config(dataset), tmp_path / "uncached")
    assert len(calls) == 2
    uncached = (tmp_path / "uncached" / "cases.jsonl").read_bytes()
    assert uncached == (tmp_path / "first" / "cases.jsonl").read_bytes()


@pytest.mark.parametrize(
    "change",
    ["a row's label", "another file in the folder", "max_seeds", "seed", "label_map", "the POS tagger"],
)
def test_anything_the_search_reads_changed_searches_again(tmp_path, dataset, monkeypatch, change):
    calls = _searches(monkeypatch)
    source = _sst_folder(tmp_path / "sst", 20) if change == "another file in the folder" else dataset
    generate(_config(source), tmp_path / "first")
    changes: dict = {}
    if change == "a row's label":
        text = dataset.read_text(encoding="utf-8")
        assert ",negative," in text
        dataset.write_text(text.replace(",negative,", ",positive,", 1), encoding="utf-8")
    elif change == "another file in the folder":  # a folder's key covers every file under it
        _sst_folder(source, 30)
    elif change == "the POS tagger":  # its files, which the search's word classes are read with
        monkeypatch.setattr(search_cache, "nltk_data_identity", lambda: "another tagger")
    elif change == "label_map":
        changes = {"label_map": {"negative": "negative", "positive": "positive", "neutral": "neutral"}}
    else:
        changes = {change: 5}
    generate(_config(source, **changes), tmp_path / "second")
    assert len(calls) == 2


def test_only_local_sources_are_cached(tmp_path, dataset):
    assert source_digest(str(dataset)) is not None
    assert source_digest("stanfordnlp/sst2") is None  # a hub id: nothing pins its content
    key = search_key(str(dataset), {}, [], None, max_seeds=None, seed=1, compat=False)
    assert key is not None
    assert search_key("stanfordnlp/sst2", {}, [], None, max_seeds=None, seed=1, compat=False) is None
