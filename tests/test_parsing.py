"""Seed parsing with the stand-in benepar model: every sentence, token offsets, failures, cache."""

from __future__ import annotations

import csv
import importlib.abc
import sys
from pathlib import Path

import pytest
import torch
from conftest import require
from nltk import Tree

from autocheck.expand import parsing
from autocheck.expand.expansion import Differentiator
from autocheck.expand.grammar import load_grammar
from autocheck.expand.parsing import Parser, _escape, _tree_string, locate_model, model_checksum
from autocheck.records import insertable
from autocheck.resources import ResourceMissing
from autocheck.tagging import tokenize

torch.set_num_threads(1)


def test_missing_models_are_one_line_errors(tmp_path):
    with pytest.raises(ResourceMissing, match="benepar.download"):
        locate_model("benepar_no_such_model")  # conftest sets AUTOCHECK_OFFLINE=1
    with pytest.raises(ResourceMissing, match="not found"):
        locate_model(str(tmp_path / "no" / "model"))


def test_model_checksum_follows_file_contents(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    before = model_checksum(model)
    (model / "config.json").write_text('{"changed": 1}')
    model_checksum.cache_clear()
    assert model_checksum(model) != before


def test_parser_batches_group_similar_lengths_within_a_chart_cell_budget():
    lengths = [5, 100, 6, 30, 5, 31, 99]
    budget = 3 * 32**2
    out = parsing.batches(lengths, 3, budget)
    assert out == [[0, 4, 2], [3, 5], [6], [1]]  # shortest first; long sentences alone
    for batch in out[:2]:
        assert len(batch) * (max(lengths[i] for i in batch) + 1) ** 2 <= budget
    assert parsing.batches(lengths, 64, 10**9) == [[0, 4, 2, 3, 5, 6, 1]]
    assert parsing.batches([], 64, budget) == []


def test_tree_string_drops_top_and_escapes_brackets():
    assert _escape("(") == "-LRB-" and _escape(":-)") == ":--RRB-"
    assert (
        _tree_string(Tree.fromstring("(TOP (S (NP (PRP I)) (VP (VBD ran))))"))
        == "(S (NP (PRP I)) (VP (VBD ran)))"
    )
    assert (
        _tree_string(Tree.fromstring("(TOP (NP (DT a)) (VP (VBD ran)))"))
        == "(FRAG (NP (DT a)) (VP (VBD ran)))"
    )


@pytest.fixture(scope="module")
def parser(shared_data):
    return Parser(str(require(shared_data / "models" / "benepar_ptbsample_charlstm")))


@pytest.fixture(scope="module")
def sst(shared_data) -> list[str]:
    path = require(shared_data / "datasets" / "sst" / "derived_sentence_labels" / "SSTB_dev.csv")
    with open(path, encoding="utf-8") as f:
        return [row["sentence"] for row in csv.DictReader(f)]


def leaves_match(parse) -> bool:
    leaves = [leaf for tree in parse.trees for leaf in Tree.fromstring(tree).leaves()]
    return leaves == [_escape(token) for token in parse.tokens]


def test_parses_real_sentences_every_sentence_and_survives_a_bad_one(parser, sst):
    single = sst[:3]
    multi = next(s for s in sst if len(tokenize(s).sentences) > 1 and len(s.split()) < 40)
    too_long = " ".join(w for s in sst[:60] for w in s.split() if w not in {".", "!", "?"})
    assert len(too_long.split()) > 510
    quoted = 'He said "great" (really).'
    texts = [*single, multi, too_long, quoted, single[0]]
    results = parser.parse(texts)

    assert results[4] is None  # the over-long sentence fails alone; the batch goes on
    assert parser.stats.reasons["too_long"] == 1 and parser.stats.failed == 1
    assert parser.stats.parsed == 5  # the repeated text is parsed once
    for text, parse in zip(texts, results):
        if parse is None:
            continue
        assert parse.text == text and leaves_match(parse)
        assert all(text[a:b] == token for token, (a, b) in zip(parse.tokens, parse.offsets))
        assert all(not tree.startswith("(TOP") for tree in parse.trees)
    assert len(results[3].trees) == len(tokenize(multi).sentences) > 1  # the original parsed only the first
    assert results[6] == results[0]
    # a plain " goes to the model as itself (how benepar was trained) and comes back tagged `` / ''
    tags = Tree.fromstring(results[5].trees[0]).pos()
    assert ('"', "``") in tags and ('"', "''") in tags and ("-LRB-", "-LRB-") in tags


def test_cache_avoids_reparsing(parser, sst, monkeypatch):
    texts = sst[3:6]
    first = parser.parse(texts)

    def no_model(*args):
        raise AssertionError("parsed again despite the cache")

    monkeypatch.setattr(parsing.Parser, "_parse_sentences", no_model)
    cached_before = parser.stats.cached
    assert parser.parse(texts) == first
    assert parser.stats.cached == cached_before + 3


def test_real_parses_differentiate_at_insertable_boundaries(parser, sst):
    differ = Differentiator(load_grammar("ptb_sample"))
    texts = [*sst[6:9], "It didn't work, but the cast is great."]
    for i, parse in enumerate(parser.parse(texts)):
        templates = differ.differentiate(f"case-{i}", parse)
        assert templates
        for t in templates:
            assert all(insertable(parse, index) for index, _ in t.masks)
            text, starts = t.render(["X"] * len(t.masks))
            assert len(text) == len(parse.text) + 2 * len(t.masks)
            assert all(text[s] == "X" for s in starts)


class _NoSpacy(importlib.abc.MetaPathFinder):
    """Refuses spaCy (benepar's spaCy plugin goes without it) and notes each attempt."""

    def __init__(self):
        self.asked: list[str] = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "spacy":
            self.asked.append(name)
            raise ImportError(f"spacy refused ({name})")
        return None


def test_benepar_is_imported_without_spacy_and_whole_for_a_user(shared_data, monkeypatch):
    """benepar's __init__ imports spaCy for its spaCy plugin (about a CPU-second); the parser needs its
    NLTK plugin only. A user's ``benepar.X`` still gets the whole package."""
    for name in [m for m in sys.modules if m.split(".")[0] in ("benepar", "spacy")]:
        monkeypatch.delitem(sys.modules, name)
    no_spacy = _NoSpacy()
    monkeypatch.setattr(sys, "meta_path", [no_spacy, *sys.meta_path])
    parsing.benepar_nltk.cache_clear()
    parsing._load_benepar.cache_clear()
    try:
        parser = Parser(str(require(shared_data / "models" / "benepar_ptbsample_charlstm")))
        assert parser.parse(["A fine film."])[0] is not None  # loaded and parsed
        assert no_spacy.asked == []
        import benepar

        assert benepar.BeneparComponent.__name__ == "BeneparComponent"  # the rest of __init__, on demand
        assert no_spacy.asked
    finally:
        parsing.benepar_nltk.cache_clear()
        parsing._load_benepar.cache_clear()


def test_the_pos_tagger_is_nltks_own_model_loaded_without_its_slow_walk():
    """``tagging._tagger`` parses the tagger's JSON itself (NLTK's loader takes 0.2-0.4 CPU-s more): the
    weights, tag dictionary and classes must be NLTK's, so every tag is."""
    from nltk.tag import PerceptronTagger

    from autocheck.tagging import _tagger, pos_tag_sents

    ours, nltks = _tagger(), PerceptronTagger()
    assert ours.model.weights == nltks.model.weights and ours.tagdict == nltks.tagdict
    assert ours.classes == ours.model.classes == nltks.classes
    sentences = [["The", "film", "is", "rather", "long", "."], ["I", "'d", "watch", "it", "again", "!"]]
    assert pos_tag_sents(sentences) == [[t for _, t in nltks.tag(s)] for s in sentences]


def test_a_pos_tagger_model_with_an_infinite_weight_is_a_clear_error(tmp_path, monkeypatch):
    """NLTK rejects a model whose weights are not finite; so does autocheck, whose own parse would read
    1e999 as infinity."""
    import shutil

    import nltk

    from autocheck import tagging
    from autocheck.store import InputError

    shipped = Path(nltk.data.find(tagging.TAGGER))
    model = tmp_path / tagging.TAGGER
    shutil.copytree(shipped, model)
    model.chmod(0o755)
    weights = model / "averaged_perceptron_tagger_eng.weights.json"
    weights.chmod(0o644)
    weights.write_text('{"bias": {"NN": 1e999}}')
    monkeypatch.setenv("NLTK_DATA", "")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    tagging._tagger.cache_clear()
    try:
        with pytest.raises(InputError, match="not a table of finite numbers"):
            tagging._tagger()
    finally:
        tagging._tagger.cache_clear()
