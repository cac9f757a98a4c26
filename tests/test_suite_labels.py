"""Labels right by construction: every generated case of every shipped suite is read and checked against the
rules its lexicons promise (no gendered title beside a name or pronoun of any gender, no word that is not a
profession, no person called "it"), and the hand-picked antonym pairs are WordNet's direct antonyms, of the
same sense, usable after "is"."""

from __future__ import annotations

import json
import re

import pytest

from autocheck.cli import main
from autocheck.languages.lexicons import load_lexicon
from autocheck.requirements import spec_path
from autocheck.resources import find_nltk
from autocheck.store import read_jsonl

SUITES = ("nli", "qqp", "squad", "sentiment_checklist")
GENDERED = frozenset(
    "salesman foreman cameraman lineman fireman seaman clergyman sportsman postmaster postman airman "
    "handyman barman showman patrolman milkman nurseryman landlord masseur actress maid nun waitress "
    "housewife hostess landlady seamstress stewardess barmaid saleswoman chambermaid sportswoman masseuse "
    "matron".split()
)
NOT_PROFESSIONS = frozenset("ornamental gambler philatelist landowner licensee groom recorder".split())
PEOPLE = {"crew", "staff", "pilot", "people", "man", "woman", "person"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("suites")
    for name in SUITES:
        assert main(["seeds", "--requirements", name, "--seed", "1", "--out", str(out / name)]) == 0
    return {name: list(read_jsonl(out / name / "cases.jsonl")) for name in SUITES}


def texts(case):
    return [
        v
        for k, v in case.items()
        if k in ("text", "premise", "hypothesis", "question1", "question2", "context", "question")
    ]


def test_no_case_has_a_gendered_title_or_a_word_that_is_no_profession(built):
    assert not (GENDERED | NOT_PROFESSIONS) & {e.value for e in load_lexicon("profession")}
    checked = 0
    for name, cases in built.items():
        for case in cases:
            for text in texts(case):
                words = set(re.findall(r"[a-z]+", text.lower()))
                assert not words & (GENDERED | NOT_PROFESSIONS), (name, text)
                checked += 1
    assert checked > 25_000


def test_no_person_is_called_it(built):
    """Wherever a case says "it is/was", what it refers back to is a thing, never a person or a profession."""
    people = PEOPLE | {e.value for e in load_lexicon("profession")}
    refers = re.compile(r"\b[Tt]he (\w+) (?:was|would be|is)\b[^.?]*\bit (?:is|was)\b")
    checked = 0
    for cases in built.values():
        for case in cases:
            for text in texts(case):
                for noun in refers.findall(text):
                    assert noun not in people, text
                    checked += 1
    assert checked >= 1000


@pytest.fixture
def wordnet(shared_data):
    if find_nltk("corpora/wordnet") is None:
        pytest.skip("WordNet not found (set NLTK_DATA to a folder with corpora/wordnet)")
    from nltk.corpus import wordnet

    return wordnet


def antonym_pairs():
    for name in ("nli", "qqp", "squad"):
        for entry in json.loads(spec_path(name).read_text())["lexicons"]["antonym_adj"]:
            yield name, entry["value"], entry["antonym"]


def test_antonym_pairs_are_direct_antonyms_of_one_sense_said_after_is(wordnet):
    """WordNet links antonyms sense by sense; the link must be in the first (most frequent) sense of one of
    the two words, so that rich/lean (fuel mixtures) or quiet/active, linked in rare senses, are refused."""

    def links(a, b):
        senses = [s for s in wordnet.synsets(a) if s.pos() in "as"]
        return [
            (rank, lemma, antonym)
            for rank, synset in enumerate(senses)
            for lemma in synset.lemmas()
            if lemma.name() == a
            for antonym in lemma.antonyms()
            if antonym.name() == b
        ]

    for suite, a, b in antonym_pairs():
        linked = links(a, b) + links(b, a)
        assert linked and min(rank for rank, _, _ in linked) == 0, f"{suite}: {a}/{b}: {linked}"
        # the linked senses can follow "is" ("(a)": only before a noun, like "ornamental")
        assert all(x.syntactic_marker() != "(a)" for _, *pair in linked for x in pair), (suite, a, b)


def test_nli_antonym_cases_use_only_the_curated_pairs(built):
    pairs = {(a, b) for suite, a, b in antonym_pairs() if suite == "nli"}
    pairs |= {(b, a) for a, b in pairs}
    for case in built["nli"]:
        if case["capability"] == "NLI-antonym":
            a, b = (case[f].rstrip(".").split()[-1] for f in ("premise", "hypothesis"))
            assert (a, b) in pairs and case["expected"] == "contradiction", case
