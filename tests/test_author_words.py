"""Placeholder functions: articles, inflections (inflect, lemminflect) and WordNet relations."""

from __future__ import annotations

import warnings

import pytest

from autocheck.languages.en import words
from autocheck.resources import find_nltk
from autocheck.store import InputError


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("engineer", "an engineer"),
        ("university", "a university"),
        ("hour", "an hour"),
        ("doctor", "a doctor"),
        ("honest person", "an honest person"),
        ("European", "a European"),
        ("FBI agent", "an FBI agent"),
    ],
)
def test_article_by_sound(word, expected):
    assert words.article(word) == expected


def test_article_of_nothing_is_an_error():
    with pytest.raises(InputError):
        words.article("  ")


@pytest.mark.parametrize(
    ("adj", "comp", "sup"),
    [
        ("tall", "taller", "tallest"),
        ("good", "better", "best"),
        ("bad", "worse", "worst"),
        ("happy", "happier", "happiest"),
        ("big", "bigger", "biggest"),
        ("beautiful", "more beautiful", "most beautiful"),
        ("expensive", "more expensive", "most expensive"),
        ("Tall", "Taller", "Tallest"),
    ],
)
def test_comparative_and_superlative(adj, comp, sup):
    assert words.comparative(adj) == comp
    assert words.superlative(adj) == sup


@pytest.mark.parametrize(
    ("noun", "expected"), [("city", "cities"), ("person", "people"), ("child", "children"), ("box", "boxes")]
)
def test_plural(noun, expected):
    assert words.plural(noun) == expected


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("go", "went"), ("like", "liked"), ("stop", "stopped"), ("study", "studied"), ("put", "put")],
)
def test_past(verb, expected):
    assert words.past(verb) == expected


def test_base_form_and_third_person():
    assert [words.base_form(v) for v in ("likes", "went", "has", "Loves")] == ["like", "go", "have", "Love"]
    assert [words.third_person(v) for v in ("like", "go", "have")] == ["likes", "goes", "has"]


@pytest.fixture
def wordnet(shared_data):
    if find_nltk("corpora/wordnet") is None:
        pytest.skip("WordNet not found (set NLTK_DATA to a folder with corpora/wordnet)")


def test_antonyms(wordnet):
    assert "bad" in words.antonyms("good", "adj")
    assert words.antonyms("love", "verb") == ["hate"]
    assert words.antonyms("quickly", "adv") == ["slowly"]
    assert words.antonyms("good", "a") == words.antonyms("good", "adj")


def test_synonyms_are_sorted_single_words_without_the_word(wordnet):
    syn = words.synonyms("happy", "adj")
    assert "glad" in syn
    assert syn == sorted(set(syn))
    assert "happy" not in syn and not any(" " in s or "_" in s for s in syn)
    assert words.synonyms("quit", "verb") == [  # multiword lemmas ("give_up", "step_down") are skipped
        "cease",
        "depart",
        "discontinue",
        "foreswear",
        "relinquish",
        "renounce",
        "resign",
        "stop",
    ]
    big = words.synonyms("big", "adj")
    assert "large" in big and "big" not in big


def test_hypernyms_of_verbs(wordnet):
    hyp = words.hypernyms("walk", "verb")
    assert "travel" in hyp and hyp == sorted(set(hyp)) and "walk" not in hyp


def test_adjectives_have_no_hypernyms(wordnet):
    assert words.hypernyms("good", "adj") == []


def test_unknown_word_has_no_relations(wordnet):
    assert words.antonyms("qwzxv", "adj") == [] and words.synonyms("qwzxv", "verb") == []


def test_missing_part_of_wordnet_gives_empty_lists_and_one_warning(wordnet, monkeypatch):
    """The shared WordNet has no nouns; a missing part warns once and never raises."""
    wn = words._wordnet()
    if next(iter(wn.all_lemma_names(pos="n")), None) is not None:  # a full WordNet: pretend nouns are gone
        monkeypatch.setattr(wn, "all_lemma_names", lambda pos=None, lang="eng": iter(()))
    words._has_pos.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert words.synonyms("movie", "noun") == []
        assert words.hypernyms("dog", "noun") == []
        assert words.antonyms("man", "noun") == []
    words._has_pos.cache_clear()
    noun_warnings = [w for w in caught if "no nouns" in str(w.message)]
    assert len(noun_warnings) == 1


def test_unknown_part_of_speech():
    with pytest.raises(InputError, match="part of speech"):
        words.synonyms("good", "adjective-ish")


def test_no_wordnet_at_all_gives_empty_lists_with_a_warning(monkeypatch):
    from autocheck import resources

    def missing(resource, package):
        raise resources.ResourceMissing(f"NLTK resource '{resource}' not found")

    monkeypatch.setattr(words, "nltk_resource", missing)
    words._wordnet.cache_clear()
    words._has_pos.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="WordNet is not available"):
            assert words.antonyms("good", "adj") == []
    finally:
        words._wordnet.cache_clear()
        words._has_pos.cache_clear()
