"""Tokenisation with offsets, sentence splitting and in-context tagging."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from autocheck.tagging import coarse_pos, is_single_token, pos_tag_from, pos_tag_sents, tokenize, words


@pytest.fixture(autouse=True)
def _tagger_data(shared_data):
    """The tagger and sentence splitter are NLTK data files (the shared copy here)."""


def test_offsets_point_at_the_words():
    text = 'I thought that "This is not a good movie, isn\'t it?", but it was not. Mr. Smith agreed.'
    tokens = tokenize(text)
    assert all(text[a:b] == w for w, (a, b) in zip(tokens.words, tokens.offsets))
    assert tokens.words[tokens.words.index("is") + 1 : tokens.words.index("is") + 3] == ("not", "a")
    assert ("is", "n't") == tokens.words[11:13]


def test_a_quoted_question_does_not_end_the_template_sentence():
    tokens = tokenize('Do I think that "Is it good?", no. Then "It gets old quickly.", but now I like it.')
    sentences = [tokens.words[a:b] for a, b in tokens.sentences]
    assert sentences[0] == ("Do", "I", "think", "that", '"', "Is", "it", "good", "?", '"', ",", "no", ".")
    assert sentences[1][:6] == ("Then", '"', "It", "gets", "old", "quickly")
    assert sentences[1][6] == "."  # a period before a closing quote is its own token


def test_abbreviations_keep_their_period():
    assert words("Mr. Smith liked it.") == ["Mr.", "Smith", "liked", "it", "."]


def test_tags_in_context_and_coarse_classes():
    (tags,) = pos_tag_sents([words("I like this film .")])
    (other,) = pos_tag_sents([words("It looks like a film .")])
    assert tags[1].startswith("VB") and other[2] == "IN"  # "like": a verb, then a preposition
    assert [coarse_pos(t) for t in ("JJR", "NNS", "VBD", "RB", "IN")] == ["adj", "noun", "verb", "adv", None]
    (quoted,) = pos_tag_sents([words('He said "fine" .')])
    assert quoted[2] == "``" and quoted[4] == "''"


def test_retagging_around_insertions_equals_tagging_the_whole_sentence():
    rng = random.Random(0)
    seed = words(
        "The noble tradition of men in drag hits an all-time low in Sorority Boys, whose makers believe it."
    )
    (seed_tags,) = pos_tag_sents([seed])
    inserted = ["very", "really", "the", "old", "film", "quickly", "two", "runs", "know", "not"]
    for _ in range(200):
        at = rng.randint(0, len(seed))
        new_words = rng.sample(inserted, rng.randint(1, 3))
        sentence = seed[:at] + new_words + seed[at:]
        start = max(0, at - 2)
        (expected,) = pos_tag_sents([sentence])
        assert (
            pos_tag_from(sentence, seed_tags[:start], at + len(new_words))
            == expected[start : at + len(new_words)]
        )


def test_single_tokens():
    assert is_single_token("film") and not is_single_token("cannot") and not is_single_token("gonna")


_TOKENIZER_PIECES = (
    "can", "Can", "NOT", "not", "n't", "'s", "'ll", "'re", "D'ye", "more'n", "'tis", "'twas", "gonna",
    "wanna", "gimme", "GOTTA", "lemme", "Cannot", '"', "''",
    "``", "(", ")", "[", "]", "{", "}", "<", ">", "--", "...", ".", ",", ";", ":", "?", "!", "&", "%", "$",
    "#", "@", "'", "\u017f", "\u212a", "\x1c", "\u0085", "\u00a0", "\u2028", "\u180e", "\u200b", "\u0301",
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(
    parts=st.lists(
        st.tuples(
            st.sampled_from(_TOKENIZER_PIECES) | st.text(max_size=4),
            st.sampled_from(("", " ", "\t", "\n", "\x1c", "\u00a0", "\u3000")),
        ),
        max_size=14,
    )
)
@example(parts=[("can", ""), (".", "\x1c")])  # \x1c: whitespace to Python's re, not to NLTK's engine
def test_word_tokenizer_is_nltks(parts):
    """The Treebank patterns on the standard re engine split every text as NLTK's guarded engine does."""
    from nltk.tokenize import TreebankWordTokenizer

    from autocheck.tagging import _word_tokenizer

    text = "".join(piece + sep for piece, sep in parts)
    spans = _word_tokenizer(text).span_tokenize(text)
    assert list(spans) == list(TreebankWordTokenizer().span_tokenize(text))


@pytest.mark.parametrize(
    "text",
    [
        '"Gimme that," she said: lemme see... I cannot go -- gonna, gotta, wanna stay!',
        "D'ye know? 'Tis more'n a film; 'twas 5% & $3 @ #1, he's sayin' (ok) [x] {y} <z> they'll.",
        "``Quoted'' and \"plain\" text, I'd GIMME it, DON'T ask 'em.",
        "It was this--not that, and the list:",
    ],
)
def test_guarded_tokenizer_patterns_split_as_nltks(text):
    """Texts where a wrong needle changes the spans, for all but three guarded patterns (hypothesis rarely
    writes them); on these texts a later pattern redoes the work of the three quote patterns left."""
    from nltk.tokenize import TreebankWordTokenizer

    from autocheck.tagging import _word_tokenizer

    spans = _word_tokenizer(text).span_tokenize(text)
    assert list(spans) == list(TreebankWordTokenizer().span_tokenize(text))


def test_every_tokenizer_pattern_has_needles():
    """A pattern without needles still runs, on every sentence: tokenising slows."""
    from nltk.tokenize import TreebankWordTokenizer as nltk

    from autocheck.tagging import _TOKENIZER_NEEDLES

    steps = [p for p, _ in (*nltk.STARTING_QUOTES, *nltk.PUNCTUATION, nltk.PARENS_BRACKETS)]
    steps += [p for p, _ in (nltk.DOUBLE_DASHES, *nltk.ENDING_QUOTES)]
    steps += [*nltk.CONTRACTIONS2, *nltk.CONTRACTIONS3]
    assert {p.pattern.removeprefix("(?i)") for p in steps} == set(_TOKENIZER_NEEDLES)
