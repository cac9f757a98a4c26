"""Search predicates (tagged in context), union and order, the expansion re-check, seed selection, and
the whole SST through all ten capabilities."""

from __future__ import annotations

import json
import logging
import time

import pytest

from autocheck.records import Example
from autocheck.requirements import load_capabilities
from autocheck.sources import search as search_module
from autocheck.sources.search import NEGATIONS, analyze, satisfies, search, select, tag

log = logging.getLogger(__name__)


class TinyLexicon:
    """The lexicon interface over a few entries: (word, pos or None for any) -> polarity; other words of
    a content class are neutral, as with a word-list lexicon."""

    name = "tiny"

    def __init__(self, entries: dict[tuple[str, str | None], str]):
        self.entries = entries

    def polarity(self, word: str, pos: str | None) -> str | None:
        return self.entries.get((word, pos), self.entries.get((word, None), "neutral"))

    def is_neutral(self, word: str, pos: str | None) -> bool:
        return self.polarity(word, pos) == "neutral"

    def describe(self) -> dict:
        return {"name": self.name}


LEXICON = TinyLexicon(
    {
        ("like", "verb"): "positive",
        ("good", None): "positive",
        ("great", None): "positive",
        ("dull", None): "negative",
        ("bore", None): "negative",
    }
)


@pytest.fixture(autouse=True)
def _tagger(shared_data):
    """Tagging needs the NLTK perceptron tagger from the shared nltk_data."""


def capability(tmp_path, *groups: dict, expected=None):
    data = {
        "task": "sentiment",
        "labels": ["negative", "neutral", "positive"],
        "capabilities": [
            {
                "id": "T",
                "capability": "Test",
                "description": "test",
                "test_type": "MFT",
                "search": list(groups),
                "expected": expected
                or {"negative": "negative", "neutral": "neutral", "positive": "positive"},
            }
        ],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_capabilities(path)[0]


def examples(*texts: str, label: str = "positive") -> list[Example]:
    return [Example(f"t:{i}", text, label, "t") for i, text in enumerate(texts, 1)]


def found(tmp_path, texts, *groups, label="positive") -> list[str]:
    cap = capability(tmp_path, *groups)
    return [e.text for e in search(analyze(examples(*texts, label=label)), cap, LEXICON)]


def test_analyze_tokenises_and_tag_tags_once_in_context():
    a, b = analyze(examples("I like this film.", "A film like this is dull."))
    assert a.tokens == ("I", "like", "this", "film", ".") and a.words == {"i", "like", "this", "film", "."}
    assert a.length == 4 and not a.negated and a.pos is None
    tag([a, b])
    assert a.pos[1] == "verb" and a.pos[3] == "noun"
    assert b.pos[2] is None  # "like" as a preposition has no content class
    tagged = a.pos
    tag([a])
    assert a.pos is tagged


def test_length_bounds_do_not_count_a_final_period(tmp_path):
    texts = ["It is fun.", "It is very fun.", "Fun", "It is fun !"]
    assert found(tmp_path, texts, {"length": {"max": 3}}) == ["It is fun.", "Fun"]
    assert found(tmp_path, texts, {"length": {"min": 2, "max": 4}}) == [
        "It is fun.",
        "It is very fun.",
        "It is fun !",
    ]


def test_label_one_or_several(tmp_path):
    cap = capability(tmp_path, {"label": ["negative", "neutral"]})
    data = [Example("t:1", "A.", "positive", "t"), Example("t:2", "B.", "neutral", "t")]
    data.append(Example("t:3", "C.", "negative", "t"))
    assert [e.id for e in search(analyze(data), cap, LEXICON)] == ["t:2", "t:3"]


def test_word_classes_are_decided_by_pos_in_context(tmp_path):
    texts = ["I like this film.", "A film like this one."]
    assert found(tmp_path, texts, {"include": [{"polarity": "positive", "pos": "verb"}]}) == [
        "I like this film."
    ]
    assert found(tmp_path, texts, {"exclude": [{"polarity": "positive"}]}) == ["A film like this one."]
    # both conditions of an include list must hold (AND), any class of an entry suffices (OR)
    both = {
        "include": [
            {"polarity": "neutral", "pos": "noun"},
            {"polarity": ["positive", "negative"], "pos": "adj"},
        ]
    }
    assert found(tmp_path, ["A good film.", "A film.", "Good."], both) == ["A good film."]


def test_literal_words_are_case_insensitive_tokens(tmp_path):
    texts = ["Spielberg is back.", "A spielbergian film.", "A film."]
    assert found(tmp_path, texts, {"include": [{"words": ["spielberg"]}]}) == ["Spielberg is back."]
    assert found(tmp_path, texts, {"exclude": [{"words": ["SPIELBERG", "film"]}]}) == []


def test_pattern_is_a_word_bounded_regex(tmp_path):
    texts = ["This is fine.", "This island is fine.", "Those are fine.", "And this is fine."]
    group = {"pattern": "^(?:This|That|These|Those) (?:is|are)\\b"}
    assert found(tmp_path, texts, group) == ["This is fine.", "Those are fine."]


def test_negated_predicate(tmp_path):
    texts = [
        "This is good.",
        "This is not good.",
        "This is nothing but a bore.",
        "It cannot work.",
        "No way.",
    ]
    texts += ["It is hardly good.", "A film without heart.", "It isn't good."]
    assert found(tmp_path, texts, {"negated": False}) == ["This is good."]
    assert len(found(tmp_path, texts, {"negated": True})) == len(texts) - 1
    assert {"not", "n't", "nothing", "never", "no", "without", "nor", "neither", "cannot"} <= NEGATIONS


def test_groups_are_or_ed_deduplicated_and_in_id_order(tmp_path):
    cap = capability(tmp_path, {"include": [{"words": ["a"]}]}, {"include": [{"words": ["b"]}]})
    data = [
        Example(f"t:{i}", text, "positive", "t") for i, text in [(10, "a b"), (2, "b"), (1, "c"), (3, "a")]
    ]
    expected = ["t:2", "t:3", "t:10"]
    assert [e.id for e in search(analyze(data), cap, LEXICON)] == expected
    assert [e.id for e in search(analyze(data[::-1]), cap, LEXICON)] == expected


def test_word_classes_need_a_lexicon(tmp_path):
    cap = capability(tmp_path, {"include": [{"polarity": "positive"}]})
    with pytest.raises(ValueError, match="needs a lexicon"):
        search(analyze(examples("Good.")), cap)


def test_satisfies_rechecks_the_search_predicates_of_an_expansion():
    lc1, lc2 = load_capabilities(only=["LC1", "LC2"])
    assert satisfies(lc1, "The old film runs ninety minutes.", "neutral", LEXICON)
    assert not satisfies(lc1, "The great old film runs ninety minutes.", "neutral", LEXICON)  # polar adj
    assert not satisfies(lc1, "The old film runs ninety minutes in a small town.", "neutral", LEXICON)  # long
    assert not satisfies(lc1, "The old film runs ninety minutes.", "positive", LEXICON)  # label
    assert satisfies(lc2, "A good film.", "positive", LEXICON)
    assert not satisfies(lc2, "A good film I like.", "positive", LEXICON)  # positive verb excluded


@pytest.mark.parametrize(
    "text, lc4",
    [
        ("This is a bad movie.", True),
        ("This is a dull film that few will remember.", True),  # a relative clause: inside the predicate
        ("This is a bad movie, but the cast is good.", False),  # "not" would negate the first clause only
        ("This is a bad movie; the cast is good.", False),
        ("This is a bad movie -- the cast is good.", False),
        ("This is a bad movie: the cast is good.", False),
        ("This is a bad movie, though the cast is good.", False),
        ("This is a bad movie. The cast is good.", False),
        ("This is a bad movie ... overlong.", False),
        ("This is not a good movie.", False),  # already negated
    ],
)
def test_negation_lcs_take_only_what_the_negation_governs(text, lc4):
    """LC4/LC5 insert "not" after "This is": a continuation clause would keep its own sentiment, so the
    expected label would be doubtful; LC6's template negates the seed, so a negated seed is not taken."""
    lc4_cap, lc5_cap, lc6_cap = load_capabilities(only=["LC4", "LC5", "LC6"])
    assert satisfies(lc4_cap, text, "negative", LEXICON) is lc4
    assert satisfies(lc5_cap, text, "neutral", LEXICON) is lc4
    assert satisfies(lc6_cap, "This is a bad movie, but the cast is good.", "negative", LEXICON)
    assert not satisfies(lc6_cap, "It is not a good movie.", "negative", LEXICON)
    assert not satisfies(lc6_cap, "I never liked it.", "negative", LEXICON)


def test_satisfies_decides_a_failed_label_or_pattern_without_tokenising(monkeypatch):
    """The expansion stage asks this of thousands of placements per seed (most LC4 insertions break its
    "This is" pattern); those are answered from the raw text."""
    lc4, lc9 = load_capabilities(only=["LC4", "LC9"])
    monkeypatch.setattr(search_module, "tokenize", None)  # tokenising would raise
    assert not satisfies(lc4, "This thing is a bad movie.", "negative", LEXICON)  # the pattern fails
    assert not satisfies(lc4, "This is a bad movie.", "positive", LEXICON)  # the label fails
    with pytest.raises(TypeError):
        satisfies(lc9, "A good film.", "positive", LEXICON)  # label and pattern pass: tokenised


def test_select_is_deterministic_and_independent_of_input_order():
    data = [Example(f"t:{i}", "x", "positive", "t") for i in range(50)]
    first = select(data, 10, 7, "LC1")
    assert first == select(data[::-1], 10, 7, "LC1")
    assert [e.id for e in first] == sorted((e.id for e in first), key=lambda i: int(i[2:]))
    assert len(first) == 10 and first != select(data, 10, 8, "LC1") and first != select(data, 10, 7, "LC2")
    assert [e.id for e in select(data[::-1], None, 7, "LC1")] == [f"t:{i}" for i in range(50)]


@pytest.mark.shared_data
def test_every_capability_gets_seeds_from_the_whole_sst(shared_data):
    """The real SST table with the opinion lexicon: every LC1-LC10 finds seeds, and all ten searches
    over the 11,855 sentences take seconds (timing is logged, not asserted)."""
    datasets = pytest.importorskip("autocheck.sources.datasets")
    lexicon_module = pytest.importorskip("autocheck.sources.lexicon")
    from autocheck.sources.transform import transform

    source = shared_data / "datasets" / "sst" / "derived_sentence_labels"
    if not source.is_dir():
        pytest.skip(f"missing resource: {source}")
    data = list(datasets.load_examples(str(source)))
    assert len(data) == 11855
    lexicon = lexicon_module.load_lexicon("opinion")
    start = time.perf_counter()
    analyzed = analyze(data)
    counts = {}
    for cap in load_capabilities():
        found = search(analyzed, cap, lexicon)
        seeds = {c.provenance["example_id"] for c in transform(cap, select(found, 200, 0, cap.id), data, 0)}
        counts[cap.id] = (len(found), len(seeds))
    log.info(
        "SST seeds per LC (found, with cases among 200 selected): %s in %.1f s",
        counts,
        time.perf_counter() - start,
    )
    assert all(with_cases > 0 for _, with_cases in counts.values()), counts
