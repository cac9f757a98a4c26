"""Checks on the inserted words (expand/words.py): dictionary words, no identity terms, polarity items only
where licensed; and the spread of a suite over words (validate.select)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from test_fill import Lexicon, always, seed, template

from autocheck.expand.validate import Spread, select, standard_checks
from autocheck.expand.words import Articles, Dictionary, IdentityTerms, PolarityItems, article_for


def candidate(tokens: str, tags: str, before: int, words: tuple[str, ...], mask_tags: tuple[str, ...]):
    """What the word checks read of a ``validate.Candidate``: words inserted before token ``before`` of a
    one-sentence seed (tokens split on spaces, tagged ``tags``)."""
    seed_tokens = tuple(tokens.split())
    masks = tuple((before, tag) for tag in mask_tags)
    t = SimpleNamespace(masks=masks, tags=mask_tags, parse=SimpleNamespace(tokens=seed_tokens))
    return SimpleNamespace(template=t, words=words, seed_tags=[(0, len(seed_tokens), tags.split())])


@pytest.mark.parametrize(
    ("word", "tag", "keeps"),
    [
        ("new", "JJ", True),
        ("really", "RB", True),
        ("s", "JJ", False),  # a tokenizer's piece the tagger called an adjective
        ("billy", "JJ", False),  # a name
        ("because", "RB", False),  # a conjunction
        ("else", "RB", False),
        ("Quickly", "RB", True),  # looked up lower-cased
        ("thing", "NN", True),  # other tags are the tagger's alone
    ],
)
def test_the_dictionary_check(word, tag, keeps):
    c = candidate("It is a film", "PRP VBZ DT NN", 3, (word,), (tag,))
    assert Dictionary().passes([c]) == [keeps]  # type: ignore[list-item]


def test_the_dictionary_check_leaves_verbs_alone_where_participles_are_verbs():
    c = candidate(
        "It is here", "PRP VBZ RB", 2, ("saying",), ("VBG",)
    )  # It is [saying] here (--insertions any)
    assert Dictionary().passes([c]) == [True]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("word", "keeps"),
    [("american", False), ("American", False), ("white", False), ("Muslim", False), ("gay", False),
     ("disabled", False), ("women", False), ("european", False), ("Scandinavian", False), ("roma", False),
     ("new", True), ("moving", True), ("western", True)],
)  # fmt: skip
def test_identity_terms_are_never_inserted(word, keeps):
    c = candidate("They are people", "PRP VBP NNS", 2, (word,), ("JJ",))
    assert IdentityTerms().passes([c]) == [keeps]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("tokens", "tags", "before", "keeps"),
    [
        ("I got it", "PRP VBD PRP", 1, False),  # I [ever] got it
        ("I did n't get it", "PRP VBD RB VB PRP", 3, True),  # under a negation
        ("the best film I saw", "DT JJS NN PRP VBD", 4, True),  # after a superlative
        ("Did you see it ?", "VBD PRP VB PRP .", 2, True),  # a question
        ("I saw it . I did not", "PRP VBD PRP . PRP VBD RB", 1, False),  # the negation is in another sentence
        ("not the kind that lets", "RB DT NN WDT VBZ", 4, False),  # the kind that [ever] lets: another clause
        ("not in order to avoid it", "RB IN NN TO VB PRP", 3, False),  # in order [ever] to avoid
    ],
)
def test_polarity_items_need_a_licence(tokens, tags, before, keeps):
    c = candidate(tokens, tags, before, ("ever",), ("RB",))
    if ". " in tokens:  # two sentences
        c.seed_tags = [(0, 4, tags.split()[:4]), (4, 7, tags.split()[4:])]
    assert PolarityItems().passes([c]) == [keeps]  # type: ignore[list-item]


def test_polarity_items_check_leaves_other_words_alone():
    assert PolarityItems().passes([candidate("I got it", "PRP VBD PRP", 1, ("also",), ("RB",))]) == [True]  # type: ignore[list-item]


def test_spread_prefers_words_not_kept_yet_and_falls_back_to_a_repeat():
    text, other, third = "this is a movie .", "that is a film .", "here is a show ."
    templates = [
        template(text, [(3, "JJ")], case_id="c1", tid="a"),
        template(other, [(3, "JJ")], case_id="c2", tid="b"),
        template(third, [(3, "JJ")], case_id="c3", tid="c"),
    ]
    seeds = [seed(text, case_id="c1"), seed(other, case_id="c2"), seed(third, case_id="c3")]
    fills = [
        [(("old",), -1.0), (("new",), -2.0)],
        [(("old",), -1.0), (("new",), -2.0)],  # a new word and a repeat: the new word alone
        [(("old",), -1.0)],  # nothing but a repeat: taken after all
    ]

    def run(spread):
        kept_texts: dict[str, set[str]] = {}
        checks = standard_checks(Lexicon(), always, kept_texts)
        kept = select(templates, fills, seeds, checks, [1, 2, 1], kept_texts, spread=spread)
        return [[c.words for c, _ in fills_kept] for fills_kept in kept]

    assert run(None) == [[("old",)], [("old",), ("new",)], [("old",)]]
    used: Counter[str] = Counter()
    assert run(used) == [[("old",)], [("new",)], [("old",)]]
    assert used == Counter({"old": 2, "new": 1})


def test_a_capped_spread_takes_the_least_repeated_fill_and_none_at_the_cap():
    texts = [f"this is a movie {n} ." for n in range(4)]
    templates = [template(t, [(3, "JJ")], case_id=f"c{n}", tid=str(n)) for n, t in enumerate(texts)]
    seeds = [seed(t, case_id=f"c{n}") for n, t in enumerate(texts)]
    fills = [
        [(("old",), -1.0)],
        [(("new",), -1.0)],
        [(("old",), -1.0)],  # nothing but a repeat
        [(("old",), -1.0), (("new",), -2.0)],  # two repeats, "old" the best but the more repeated
    ]

    def run(cap):
        kept_texts: dict[str, set[str]] = {}
        checks = standard_checks(Lexicon(), always, kept_texts)
        kept = select(templates, fills, seeds, checks, [1] * 4, kept_texts, spread=Spread(cap))
        return [[c.words for c, _ in fills_kept] for fills_kept in kept]

    assert run(None) == [[("old",)], [("new",)], [("old",)], [("old",)]]  # uncapped: the best repeat
    # a word may fill as many as the cap's share of the kept expansions: "old" 2 of 2, then the less
    # repeated "new" (2 of 3)
    assert run(1.0) == [[("old",)], [("new",)], [("old",)], [("new",)]]
    assert run(0.1) == [[("old",)], [("new",)], [], []]


def test_the_spread_does_not_count_a_coordinator():
    """Round 8: "and" frames a coordinated adjective ("painful [and] [simple]"); counted, it capped every
    coordination of a fill call after the first."""
    texts = [f"it is painful {n} ." for n in range(2)]
    templates = [
        template(t, [(3, "CC"), (3, "JJ")], case_id=f"c{n}", tid=str(n)) for n, t in enumerate(texts)
    ]
    seeds = [seed(t, case_id=f"c{n}") for n, t in enumerate(texts)]
    fills = [[(("and", "simple"), -1.0)], [(("and", "subtle"), -1.0)]]
    kept_texts: dict[str, set[str]] = {}
    checks = standard_checks(Lexicon(), always, kept_texts)
    spread = Spread(0.01)
    kept = select(templates, fills, seeds, checks, [1, 1], kept_texts, spread=spread)
    assert [[c.words for c, _ in fills_kept] for fills_kept in kept] == [
        [("and", "simple")],
        [("and", "subtle")],
    ]
    assert spread == Counter({"simple": 1, "subtle": 1})
    uncapped: Counter[str] = Counter()  # other modes count every word, "but" and "or" being choices there
    fresh: dict[str, set[str]] = {}
    select(templates, fills, seeds, standard_checks(Lexicon(), always, fresh), [1, 1], fresh, spread=uncapped)
    assert uncapped["and"] == 2


@pytest.mark.parametrize(
    ("article", "word", "keeps"),
    [("a", "new", True), ("an", "old", True), ("an", "going", False), ("a", "old", False),
     ("an", "very", False), ("a", "useful", True), ("an", "honest", True), ("a", "one-sided", True)],
)  # fmt: skip
def test_a_word_inserted_after_an_article_agrees_with_it(article, word, keeps):
    c = candidate(f"It is {article} film", "PRP VBZ DT NN", 3, (word,), ("JJ",))
    assert Articles().passes([c]) == [keeps]  # type: ignore[list-item]


def test_the_article_check_reads_only_the_first_word_after_the_article():
    c = candidate("It is an film", "PRP VBZ DT NN", 3, ("very", "old"), ("RB", "JJ"))  # an [very] [old]
    assert Articles().passes([c]) == [False]  # type: ignore[list-item]
    assert article_for("Old") == "an"
