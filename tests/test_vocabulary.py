"""Constrained fill vocabulary: only words validation could keep, and the same first valid fill."""

from __future__ import annotations

import pytest
import torch
from conftest import require
from test_fill import Lexicon, always, seed, template, tiny_bert, tiny_bert_dir  # noqa: F401

from autocheck.expand.fill import fill, validate
from autocheck.expand.mlm import MaskedLM
from autocheck.expand.validate import FillStats
from autocheck.expand.vocabulary import TagDictionary, VocabularyFilter
from autocheck.sources.lexicon import NEGATIONS
from autocheck.tagging import is_single_token, proper_noun, tagger_dictionary

torch.set_num_threads(1)


def vocabulary_filter(mlm: MaskedLM, lexicon, lexical=None, known_only=False) -> VocabularyFilter:
    return VocabularyFilter(
        mlm.words,
        TagDictionary(lexical or {}, tagger_dictionary()),
        lexicon,
        proper_noun=proper_noun,
        single_token=is_single_token,
        known_only=known_only,
        identity=mlm.identity,
    )


def test_filter_admits_only_neutral_words_of_the_tag():
    words = {0: "old", 1: "not", 2: "the", 3: "good", 4: "film", 5: "zzyzx", 6: "cannot"}
    lexicon = Lexicon(polar={"good"})
    lexical = {"JJ": {"old": 3, "good": 2}, "NN": {"film": 4, "old": 1}}
    vocabulary = VocabularyFilter(
        words, TagDictionary(lexical, {"the": "DT"}), lexicon,
        proper_noun=lambda w: False, single_token=is_single_token,
    )  # fmt: skip
    assert [words[i] for i in vocabulary.allowed("JJ")] == ["old", "zzyzx"]  # unknown words stay
    assert [words[i] for i in vocabulary.allowed("NN")] == ["old", "film", "zzyzx"]
    assert [words[i] for i in vocabulary.allowed("DT")] == ["the", "zzyzx"]
    strict = VocabularyFilter(
        words, TagDictionary(lexical, {"the": "DT"}), lexicon,
        proper_noun=lambda w: False, single_token=is_single_token, known_only=True,
    )  # fmt: skip
    assert [words[i] for i in strict.allowed("JJ")] == ["old"]
    assert "not" in NEGATIONS and all(words[i] != "not" for i in strict.allowed("RB"))


def test_constrained_search_proposes_no_word_validation_rejects_for_itself(tiny_bert):  # noqa: F811
    lexicon = Lexicon(polar={"old", "great"})
    vocabulary = vocabulary_filter(tiny_bert, lexicon)
    text = "this is a movie ."
    templates = [template(text, [(3, "JJ")]), template(text, [(3, "JJ"), (3, "JJ")], tid="t2")]
    unconstrained = tiny_bert.suggest(templates, beam_size=5, top_n=10)
    assert any(w in ("old", "great") for fills in unconstrained for words, _ in fills for w in words)
    constrained = tiny_bert.suggest(templates, beam_size=5, top_n=10, vocabulary=vocabulary)
    tagdict = tagger_dictionary()
    proposed = [(w, t.tags[n]) for t, fills in zip(templates, constrained) for words, _ in fills
                for n, w in enumerate(words)]  # fmt: skip
    assert proposed
    for word, tag in proposed:
        assert lexicon.is_neutral(word, "adj") and word not in NEGATIONS and is_single_token(word)
        assert tagdict.get(word, tag) == tag  # a word the tagger always tags otherwise is never proposed
    stats = FillStats()
    validate(templates, constrained, {"c1": seed(text)}, lexicon, always, fills_per_mask=None, stats=stats)
    assert stats.rejected["polarity"] == 0


def test_constrained_search_finds_the_same_first_valid_fill(tiny_bert):  # noqa: F811
    lexicon = Lexicon(polar={"old"})  # the top suggestion is rejected: the first valid fill is further down
    vocabulary = vocabulary_filter(tiny_bert, lexicon)
    text = "this is a movie ."
    cases = {"c1": seed(text)}
    t = [template(text, [(3, "JJ")])]
    plain = list(fill(t, cases, tiny_bert, lexicon, always, beam_size=5, top_n=20))
    constrained = list(
        fill(t, cases, tiny_bert, lexicon, always, beam_size=5, top_n=20, vocabulary=vocabulary)
    )
    assert plain and [c.text for c in constrained] == [c.text for c in plain]


@pytest.mark.shared_data
def test_same_first_valid_fill_on_real_seeds(shared_data):
    """On real seeds, the stand-in masked LM and the PTB-sample lexicon: wherever the unconstrained
    search's first valid fill of a single-mask template is a word the filter admits, the constrained
    search finds that same fill (it only skips words validation would reject)."""
    from autocheck.expand.expansion import Differentiator
    from autocheck.expand.grammar import load_grammar
    from autocheck.expand.parsing import Parser
    from autocheck.sources.lexicon import load_lexicon

    data = shared_data
    mlm = MaskedLM.from_pretrained(require(data / "models/mini-bert-mlm"), device="cpu")
    parser = Parser(str(require(data / "models/benepar_ptbsample_charlstm")))
    grammar = load_grammar("ptb_sample")
    lexicon = load_lexicon("opinion")
    texts = [
        "The film is a charming and often affecting journey .",
        "It 's a bad sign when you 're rooting for the film to end .",
        "A warm , funny , engaging film .",
        "The plot is nothing but boilerplate clichés from start to finish .",
    ]
    cases = {f"c{i}": seed(text, case_id=f"c{i}") for i, text in enumerate(texts)}
    differentiator = Differentiator(grammar)
    templates = [
        t
        for i, parse in enumerate(parser.parse(texts))
        for t in differentiator.differentiate(f"c{i}", parse, top_k=10)
        if len(t.masks) == 1
    ]
    vocabulary = VocabularyFilter(
        mlm.words, TagDictionary(grammar.lexical_counts, tagger_dictionary()), lexicon,
        proper_noun=proper_noun, single_token=is_single_token, identity=mlm.identity,
    )  # fmt: skip
    compared = 0
    for t in templates:
        plain = list(fill([t], cases, mlm, lexicon, always, beam_size=20, top_n=60, fills_per_mask=1))
        if not plain:
            continue
        word = plain[0].provenance["inserted"][0]["word"].lower()
        if not vocabulary.admits(word, t.tags[0]):
            continue
        one = {"beam_size": 20, "top_n": 60, "fills_per_mask": 1}
        constrained = list(fill([t], cases, mlm, lexicon, always, vocabulary=vocabulary, **one))
        assert [c.text for c in constrained] == [c.text for c in plain], t.id
        compared += 1
    assert compared >= 5


def test_allowed_words_are_cached_by_the_filters_fingerprint(tiny_bert):  # noqa: F811
    class Described(Lexicon):  # a lexicon that says what it holds can be cached
        def describe(self):
            return {"polar": sorted(self.polar)}

    first = vocabulary_filter(tiny_bert, Described({"good"}))
    allowed = first.allowed("JJ")
    assert "old" in {tiny_bert.words[i] for i in allowed}
    second = vocabulary_filter(tiny_bert, Described({"good"}))
    assert second.allowed("JJ") == allowed and second.lexicon.calls == []  # from the cache: no lookup
    other = vocabulary_filter(tiny_bert, Described({"good", "old"}))  # another lexicon: computed again
    assert other.allowed("JJ") == [i for i in allowed if tiny_bert.words[i] != "old"]
    undescribed = vocabulary_filter(tiny_bert, Lexicon({"good"}))
    assert undescribed.allowed("JJ") == allowed and undescribed.lexicon.calls  # never cached


def test_other_nltk_data_misses_the_allowed_words_cache(tiny_bert, monkeypatch):  # noqa: F811
    """The lexicon reads words' lemmas off WordNet: another WordNet (or tagger) computes them again."""
    from autocheck.expand import vocabulary

    class Described(Lexicon):
        def describe(self):
            return {"polar": sorted(self.polar)}

    vocabulary_filter(tiny_bert, Described({"good"})).allowed("JJ")
    monkeypatch.setattr(vocabulary, "nltk_data_identity", lambda: "another WordNet")
    again = vocabulary_filter(tiny_bert, Described({"good"}))
    again.allowed("JJ")
    assert again.lexicon.calls  # looked up, not read from the cache
