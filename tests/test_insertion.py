"""Where an inserted word goes and how it is spaced (``records.MaskedTemplate.render``, fix *spacing*)."""

from __future__ import annotations

import pytest

from autocheck.records import MaskedTemplate, Parse, insertable
from autocheck.tagging import tokenize


def template(text: str, *masks: tuple[int, str]) -> MaskedTemplate:
    tokens = tokenize(text)
    return MaskedTemplate(
        "t", "c", Parse(text, tokens.words, tokens.offsets, ("(S)",)), masks, "NP", (), (), 1.0
    )


def index_of(text: str, token: str, nth: int = 0) -> int:
    return [i for i, w in enumerate(tokenize(text).words) if w == token][nth]


@pytest.mark.parametrize(
    "text, before, expected",
    [
        # after an opener the word joins the opener and keeps its own space before the next token
        ("a film (which is good).", "which", "a film (WORD which is good)."),
        ('I said "this is good" today', "this", 'I said "WORD this is good" today'),
        ('"It is good"? yes', "It", '"WORD It is good"? yes'),
        ("a film [which is good].", "which", "a film [WORD which is good]."),
        # before a token attached to its left neighbour the word goes in with a space before it
        ("a film (which is good).", ")", "a film (which is good WORD)."),
        ('I said "this is good" today', '"', 'I said "this is good WORD" today'),
        ("it is good.", ".", "it is good WORD."),
        ("it is good, really", ",", "it is good WORD, really"),
        ("it did n't work", "n't", "it did WORD n't work"),
        # ordinary boundaries and the text's edges
        ("it is good", "is", "it WORD is good"),
        ("it is good", "it", "WORD it is good"),
    ],
)
def test_inserted_word_is_spaced_from_both_neighbours(text, before, expected):
    t = template(text, (index_of(text, before, 1 if before == '"' else 0), "RB"))
    new, (start,) = t.render(["WORD"])
    assert new == expected
    assert new[start : start + 4] == "WORD"
    assert new[:start] + new[start + 5 :] == text or new[: start - 1] + new[start + 4 :] == text


def test_after_the_last_token_and_two_words_at_one_boundary():
    assert template("it is good", (3, "RB")).render(["WORD"]) == ("it is good WORD", (11,))
    text = "a film (which is good)."
    t = template(text, (index_of(text, "which"), "RB"), (index_of(text, "which"), "JJ"))
    assert t.render(["A", "B"])[0] == "a film (A B which is good)."


def test_no_word_between_a_currency_sign_and_its_amount():
    text = "It costs $5 and it is worth it"
    tokens = tokenize(text)
    parse = Parse(text, tokens.words, tokens.offsets, ("(S)",))
    assert not insertable(parse, index_of(text, "5"))
    assert insertable(parse, index_of(text, "$"))
    with pytest.raises(ValueError, match="cannot insert"):
        template(text, (index_of(text, "5"), "JJ")).render(["z"])


def test_lower_cases_the_first_letter_of_the_given_tokens():
    text = "Even in this film it works."
    new, starts = template(text, (0, "RB")).render(["Really"], lower=[0])
    assert new == "Really even in this film it works." and starts == (0,)
