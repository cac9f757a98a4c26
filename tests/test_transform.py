"""Seed cases of every LC on hand-made seeds: exact texts, expectations, editable spans, negation edge
cases, fillers drawn per seed, determinism."""

from __future__ import annotations

import pytest

from autocheck.records import TestCase
from autocheck.requirements import load_capabilities
from autocheck.sources.transform import seed_text, transform

LC = {c.id: c for c in load_capabilities()}


def ex(i: int, text: str, label: str):
    from autocheck.records import Example

    return Example(f"t:{i}", text, label, "toy")


def texts(cap: str, seeds, pool=(), seed: int = 0) -> list[str]:
    return [c.text for c in transform(LC[cap], seeds, list(pool), seed)]


def spans_text(case: TestCase) -> str:
    return "".join(case.text[a:b] for a, b in case.editable)


def test_lc1_lc2_keep_the_sentence():
    (case,) = transform(LC["LC1"], [ex(1, "The film runs ninety minutes.", "neutral")], [], 0)
    assert (case.text, case.expected, case.label, case.editable) == (
        "The film runs ninety minutes.",
        "neutral",
        "neutral",
        ((0, 29),),
    )
    assert (case.kind, case.test_type, case.provenance["template"]) == ("seed", "MFT", "identity")
    cases = list(
        transform(LC["LC2"], [ex(1, "A dull film.", "negative"), ex(2, "A fine film.", "positive")], [], 0)
    )
    assert [(c.text, c.expected) for c in cases] == [
        ("A dull film.", "negative"),
        ("A fine film.", "positive"),
    ]


def test_lc3_present_prevails():
    positive = list(transform(LC["LC3"], [ex(1, "It gets old quickly.", "positive")], [], 0))
    assert len(positive) == 18 and {c.expected for c in positive} == {"negative"}
    assert (
        positive[0].text
        == 'Previously, I used to like it saying that "It gets old quickly", but now I don\'t like it.'
    )
    assert (
        positive[-1].text
        == 'I liked it much as to say that "It gets old quickly", on the other hand now I hate it.'
    )
    negative = list(transform(LC["LC3"], [ex(2, "It gets old quickly.", "negative")], [], 0))
    assert len(negative) == 9 and {c.expected for c in negative} == {"positive"}
    assert 'Last time, I didn\'t like it saying that "It gets old quickly", but now I like it.' in [
        c.text for c in negative
    ]
    assert {spans_text(c) for c in positive + negative} == {"It gets old quickly"}
    assert positive[0].provenance["slots"] == {
        "past": "Previously, I used to like it saying that",
        "but": "but",
        "current": "now I don't like it.",
    }


@pytest.mark.parametrize(
    ("seed", "negated"),
    [
        ("This is a dull film.", "This is not a dull film."),
        ("These are tired jokes.", "These are not tired jokes."),
        ("That is, sadly, a bore.", "That is not, sadly, a bore."),
    ],
)
def test_lc4_negates_after_the_demonstrative_copula(seed, negated):
    (case,) = transform(LC["LC4"], [ex(1, seed, "negative")], [], 0)
    assert case.text == negated and case.expected == ("neutral", "positive")
    assert spans_text(case) == seed == seed_text(case)
    assert " not" not in spans_text(case)  # the inserted word is template, not seed


@pytest.mark.parametrize(
    "seed",
    [
        "This is not a new idea.",  # would become "This is not not ..."
        "This is nothing but a bore.",  # would become "This is not nothing but ..."
        "This is never funny.",
        "This island is dull.",  # no word boundary after "is"
        "Sadly, this is dull.",  # not at the start
        "It is a dull film.",
    ],
)
def test_lc4_lc5_never_double_negate_or_match_inside_words(seed):
    assert texts("LC4", [ex(1, seed, "negative")]) == []
    assert texts("LC5", [ex(1, seed, "neutral")]) == []


def test_lc5_negated_neutral_stays_neutral():
    (case,) = transform(LC["LC5"], [ex(1, "Those are the facts.", "neutral")], [], 0)
    assert (case.text, case.expected) == ("Those are not the facts.", "neutral")


def test_lc6_negation_at_the_end():
    cases = list(transform(LC["LC6"], [ex(1, "Make like the title and dodge this one.", "negative")], [], 0))
    assert [c.text for c in cases] == [
        'I agreed that "Make like the title and dodge this one", but it wasn\'t',
        'I agreed that "Make like the title and dodge this one", but I didn\'t',
        'I thought that "Make like the title and dodge this one", but it wasn\'t',
        'I thought that "Make like the title and dodge this one", but I didn\'t',
    ]
    assert {c.expected for c in cases} == {("neutral", "positive")}
    assert [spans_text(c) for c in cases] == ["Make like the title and dodge this one"] * 4


NEUTRAL = [
    ex(100 + i, f"The film runs {n} minutes.", "neutral") for i, n in enumerate("abcdefghijklmnopqrst")
]
LONG_NEUTRAL = ex(99, " ".join(["word"] * 25) + ".", "neutral")


def test_lc7_neutral_filler_in_the_middle_drawn_per_seed():
    seeds = [ex(i, f"A fine film number {i}.", "positive") for i in range(1, 11)]
    pool = [*seeds, *NEUTRAL, LONG_NEUTRAL]
    cases = list(transform(LC["LC7"], seeds, pool, 0))
    assert len(cases) == 10 * 9 and {c.expected for c in cases} == {"negative"}
    first = cases[0]
    filler = first.provenance["slots"]["filler"]
    assert first.text == f'I wouldn\'t say, given "{filler[:-1]}", A fine film number 1.'
    assert spans_text(first) == "A fine film number 1." == seed_text(first)
    fillers_per_seed = {}
    for c in cases:
        fillers_per_seed.setdefault(c.provenance["example_id"], set()).add(c.provenance["filler_id"])
    assert all(len(f) == 3 for f in fillers_per_seed.values())
    assert len({frozenset(f) for f in fillers_per_seed.values()}) > 1  # not the same three for every seed
    assert LONG_NEUTRAL.id not in set().union(*fillers_per_seed.values())  # fillers are < 20 tokens
    # a neutral search result is only a filler: it makes no case
    assert texts("LC7", NEUTRAL[:1], pool) == []


def test_lc8_opposite_polarity_fillers_never_the_seed_itself():
    positives = [ex(i, f"A fine film number {i}.", "positive") for i in range(1, 6)]
    negatives = [ex(i, f"A dull film number {i}.", "negative") for i in range(6, 11)]
    cases = list(transform(LC["LC8"], positives + negatives, positives + negatives, 3))
    assert len(cases) == 10 * 12
    for c in cases:
        filler_label = "negative" if c.label == "positive" else "positive"
        assert c.provenance["slots"]["filler"].startswith(
            "A dull" if filler_label == "negative" else "A fine"
        )
        assert c.expected == c.label
    c = cases[0]
    filler = c.provenance["slots"]["filler"][:-1]
    assert c.text == f'Some people think that "{filler}", but I think that "A fine film number 1"'
    assert spans_text(c) == "A fine film number 1"


def test_lc9_lc10_questions_and_the_lc10_expectation():
    seeds = [ex(1, "A fine film.", "positive"), ex(2, "Is it any good?", "negative")]
    lc9 = list(transform(LC["LC9"], seeds, seeds, 0))
    assert [(c.text, c.expected) for c in lc9] == [
        ('Do I think that "A fine film"? yes', "positive"),
        ('Do I agree that "A fine film"? yes', "positive"),
        ('Do I think that "Is it any good?"? yes', "negative"),
        ('Do I agree that "Is it any good?"? yes', "negative"),
    ]
    lc10 = list(transform(LC["LC10"], seeds, seeds, 0))
    assert [(c.text, c.expected) for c in lc10][1:3] == [
        ('Do I agree that "A fine film"? no', "negative"),
        ('Do I think that "Is it any good?"? no', ("neutral", "positive")),  # not strict positive
    ]


def test_quoting_is_consistent():
    cases = texts("LC9", [ex(1, 'A "comedy" that never ends...', "negative"), ex(2, "Wow!", "positive")])
    assert cases[0] == "Do I think that \"A 'comedy' that never ends...\"? yes"
    assert cases[2] == 'Do I think that "Wow!"? yes'


def test_same_inputs_and_seed_give_identical_cases_and_other_seeds_other_fillers():
    seeds = [ex(i, f"A fine film number {i}.", "positive") for i in range(1, 6)]
    pool = [*seeds, *NEUTRAL]
    run = [c.to_json() for c in transform(LC["LC7"], seeds, pool, 1)]
    assert run == [c.to_json() for c in transform(LC["LC7"], seeds, pool[::-1], 1)]  # pool order irrelevant
    other = [c.to_json() for c in transform(LC["LC7"], seeds, pool, 2)]
    assert [c["text"] for c in run] != [c["text"] for c in other]
    assert len({c["id"] for c in run}) == len(run) and all(c["id"].startswith("LC7-") for c in run)
    case = TestCase.from_json(run[0])
    assert case.provenance == {
        "dataset": "toy",
        "example_id": "t:1",
        "template": "negated-neutral-middle",
        "slots": {"prefix": "I wouldn't say,", "filler": case.provenance["slots"]["filler"]},
        "filler_id": case.provenance["filler_id"],
    }


def test_variant_cap_samples_deterministically():
    seed = [ex(1, "It gets old quickly.", "positive")]
    capped = [c.text for c in transform(LC["LC3"], seed, [], 5, max_variants=4)]
    assert len(capped) == 4 and capped == [c.text for c in transform(LC["LC3"], seed, [], 5, max_variants=4)]
    assert set(capped) < set(texts("LC3", seed))


def test_seed_text_follows_insertions_inside_the_spans():
    (case,) = transform(LC["LC4"], [ex(1, "This is a dull film.", "negative")], [], 0)
    assert seed_text(case, "This is not a dull old film.") == "This is a dull old film."
    assert (
        seed_text(case, "This notable is not a notable dull film.") == "This notable is a notable dull film."
    )
    (quoted, *_) = transform(LC["LC9"], [ex(1, "A fine film.", "positive")], [], 0)
    assert seed_text(quoted, 'Do I think that "A fine French film"? yes') == "A fine French film"
    with pytest.raises(ValueError, match="not the case text"):
        seed_text(quoted, 'Do I really think that "A fine film"? yes')


def test_compat_shares_fillers_and_restores_the_original_lc10_expectation():
    seeds = [ex(i, f"A fine film number {i}.", "positive") for i in range(1, 4)]
    cases = list(transform(LC["LC7"], seeds, [*seeds, *NEUTRAL], 3, compat=True))
    fillers: dict[str, set[str]] = {}
    for case in cases:
        fillers.setdefault(case.provenance["example_id"], set()).add(case.provenance["filler_id"])
    assert len(fillers) == 3 and len({frozenset(f) for f in fillers.values()}) == 1  # same for every seed
    negative = [ex(50, "A dull film.", "negative")]
    assert {c.expected for c in transform(LC["LC10"], negative, [], 0, compat=True)} == {"positive"}
    assert {c.expected for c in transform(LC["LC10"], negative, [], 0)} == {("neutral", "positive")}
