"""--insertions modifiers: one adjective before a noun phrase's nouns, or one adverb in a clause, verb or
adjective phrase; quantifiers and ordinals rejected by the determinative check."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from test_expansion import grammar, parse_of, rendered
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck.expand.expansion import Differentiator
from autocheck.expand.insertions import DETERMINATIVES, INSERTABLE, Determinatives, one_modifier


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((1, "JJ"),)),  # a [new] film
        ("NP", ("DT", "JJ", "NN"), ((2, "JJ"),)),  # a good [little] idea
        ("NP", ("NP", "NN"), ((1, "JJ"),)),  # Famuyiwa's [own] emergence
        ("VP", ("VBZ", "ADJP"), ((1, "RB"),)),  # is [really] amusing
        ("S", ("NP", "VP"), ((1, "RB"),)),  # It [also] is a bad sign
        ("ADJP", ("JJ",), ((0, "RB"),)),  # [very] light
    ],
)
def test_modifiers_keep_an_adjunct_where_its_phrase_takes_it(lhs, rhs, placement):
    assert one_modifier(lhs, rhs, placement)


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((0, "JJ"),)),  # [sure] a movie: before the determiner
        ("NP", ("DT", "NN", "NN"), ((2, "JJ"),)),  # the film [new] process: after a noun
        ("NP", ("DT",), ((1, "JJ"),)),  # those [other] who: no noun to modify
        ("NP", ("DT", "NN"), ((1, "JJS"),)),  # a [largest] cheat: a superlative
        ("NP", ("DT", "NN"), ((1, "NN"),)),  # The [horror] movie: a noun
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "JJ"))),  # two words
        ("PP", ("IN", "NP"), ((0, "RB"),)),  # lives [directly] of quiet desperation
        ("ADVP", ("RB",), ((0, "RB"),)),  # too [far] savvy
        ("PP", ("IN", "NP"), ((0, "JJ"),)),  # an adjective outside a noun phrase
        ("NP", ("DT", "NN"), ((1, "DT"),)),  # a function word
    ],
)
def test_modifiers_reject_what_is_no_adjunct_or_out_of_place(lhs, rhs, placement):
    assert not one_modifier(lhs, rhs, placement)


def test_a_seed_gets_its_top_k_from_modifier_productions_when_better_ranked_ones_insert_nouns():
    seed = parse_of("The film was good", "(S (NP (DT The) (NN film)) (VP (VBD was) (ADJP (JJ good))))")
    g = grammar(
        {
            "NP": {("DT", "NN"): 1, ("DT", "NN", "NN"): 8, ("DT", "JJ", "NN"): 2},
            "VP": {("VBD", "ADJP"): 1, ("VBD", "RB", "ADJP"): 1},
            "S": {("NP", "VP"): 1},
            "ADJP": {("JJ",): 1},
        }
    )
    differ = Differentiator(g)
    nouns = ["The [NN] film was good", "The film [NN] was good"]  # the best production, two placements
    assert rendered(differ.differentiate("c", seed, top_k=1)) == nouns
    modifiers = differ.differentiate("c", seed, top_k=2, insertable=INSERTABLE["modifiers"])
    assert rendered(modifiers) == ["The film was [RB] good", "The [JJ] film was good"]


def test_the_determinative_check_rejects_quantifiers_and_ordinals():
    candidates = [SimpleNamespace(words=(w,)) for w in ("few", "Such", "first", "new", "little", "own")]
    assert Determinatives().passes(candidates) == [False, False, False, True, True, True]  # type: ignore[arg-type]
    assert {"few", "many", "much", "such", "other", "first", "last"} <= DETERMINATIVES


def test_generation_inserts_one_modifier_by_default_and_any_tag_on_request(stand_in_config, tmp_path):  # noqa: F811
    from dataclasses import replace

    from autocheck import generate as generation
    from autocheck.expand.insertions import CONTENT_TAGS

    def inserted(out):
        cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
        return [c["provenance"]["inserted"] for c in cases if c["kind"] == "expansion"]

    result = generation.generate(stand_in_config, tmp_path / "modifiers")
    found = inserted(tmp_path / "modifiers")
    assert found and all(len(words) == 1 and words[0]["tag"] in ("JJ", "RB") for words in found)
    assert not any(words[0]["word"].lower() in DETERMINATIVES for words in found)
    manifest = json.loads((tmp_path / "modifiers" / "manifest.json").read_text())
    assert manifest["settings"]["insertions"] == "modifiers"
    assert sum(c.expansions for c in result.counts.values()) == len(found)
    generation.generate(replace(stand_in_config, insertions="content"), tmp_path / "content")
    generation.generate(replace(stand_in_config, insertions="any"), tmp_path / "any")
    content = {w["tag"] for words in inserted(tmp_path / "content") for w in words}
    every = {w["tag"] for words in inserted(tmp_path / "any") for w in words}
    assert content <= CONTENT_TAGS
    assert every - CONTENT_TAGS  # the rule is what kept them out
    assert any(len(words) > 1 for words in inserted(tmp_path / "any"))
