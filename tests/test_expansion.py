"""Production differentiation on hand-made trees and grammars (plus the real sample grammar)."""

from __future__ import annotations

import pytest
from nltk import Tree

from autocheck.expand.expansion import Differentiator, differentiate, embeddings, placements
from autocheck.expand.grammar import Grammar, load_grammar
from autocheck.records import Parse
from autocheck.tagging import tokenize


def parse_of(text: str, *trees: str) -> Parse:
    tokens = tokenize(text)
    assert [w for t in trees for w in Tree.fromstring(t).leaves()] == list(tokens.words)
    return Parse(text, tokens.words, tokens.offsets, trees)


def grammar(rules: dict[str, dict[tuple[str, ...], int]], roots: dict[str, int] | None = None) -> Grammar:
    return Grammar(rules, {}, roots or {"S": 1}, {"source": "hand-made"})


def rendered(templates) -> list[str]:
    """Each template's text with its masks written as ``[TAG]``."""
    return [t.render([f"[{tag}]" for tag in t.tags])[0] for t in templates]


def test_paper_figure_4_or_both():
    seed = parse_of("Or both.", "(FRAG (CC Or) (NP (DT both)) (. .))")
    g = grammar({"NP": {("DT",): 2, ("DT", "NNS"): 1}, "FRAG": {("CC", "NP", "."): 1}}, {"FRAG": 1})
    [template] = differentiate("seed-1", seed, g)
    assert (template.lhs, template.rhs_from, template.rhs_to) == ("NP", ("DT",), ("DT", "NNS"))
    assert template.masks == ((2, "NNS"),)
    assert template.render(["[MASK]"]) == ("Or both [MASK].", (8,))
    assert template.score == pytest.approx(1 / 3)  # P(NP -> DT NNS) x P(FRAG -> CC NP .) x P(FRAG)


def test_a_parser_s_top_wrapper_is_not_the_seed_s_root():
    """benepar's and the treebank's TOP/ROOT around the sentence's root is read through (grammar.read_tree):
    the root's own probability and its productions count, as for the bare tree."""
    g = grammar({"NP": {("DT",): 2, ("DT", "NNS"): 1}, "FRAG": {("CC", "NP", "."): 1}}, {"FRAG": 1})
    bare = differentiate("s", parse_of("Or both.", "(FRAG (CC Or) (NP (DT both)) (. .))"), g)
    wrapped = differentiate("s", parse_of("Or both.", "(TOP (ROOT (FRAG (CC Or) (NP (DT both)) (. .))))"), g)
    assert [(t.masks, t.score) for t in wrapped] == [(t.masks, t.score) for t in bare] != []


def test_embeddings_are_true_subsequences_with_repeated_symbols():
    assert list(embeddings(("NN", "NN"), ("DT", "NN", "NN"))) == [(1, 2)]
    assert list(embeddings(("DT", "NN"), ("NN", "DT", "NN"))) == [(1, 2)]  # first-occurrence test missed it
    assert list(embeddings(("NN",), ("NN", "CC", "NN"))) == [(0,), (2,)]
    assert list(embeddings(("NN", "NN"), ("NN", "DT"))) == []
    # NN into NN CC NN: "dog [CC] [NN]" or "[NN] [CC] dog", leftmost embedding first
    assert placements(("NN",), ("NN", "CC", "NN"), frozenset({"CC", "NN"})) == (
        ((1, "CC"), (1, "NN")),
        ((0, "NN"), (0, "CC")),
    )


def test_repeated_seed_symbols_match():
    seed = parse_of("Movie night", "(NP (NN Movie) (NN night))")
    g = grammar({"NP": {("NN", "NN"): 1, ("DT", "NN", "NN"): 1}}, {"NP": 1})
    assert rendered(differentiate("c", seed, g)) == ["[DT] Movie night"]


def test_every_distinct_embedding_gives_its_own_template():
    seed = parse_of("the dog", "(NP (DT the) (NN dog))")
    g = grammar({"NP": {("DT", "NN"): 1, ("DT", "NN", "NN"): 1}}, {"NP": 1})
    templates = differentiate("c", seed, g)
    assert sorted(rendered(templates)) == ["the [NN] dog", "the dog [NN]"]
    assert {t.score for t in templates} == {0.5}
    assert len({t.id for t in templates}) == 2


def test_added_symbols_must_be_word_level_tags():
    seed = parse_of("It works.", "(S (NP (PRP It)) (VP (VBZ works)) (. .))")
    g = grammar({"S": {("NP", "VP", "."): 1, ("NP", "NP", "VP", "."): 5, ("NP", "VP", ",", "."): 5}})
    assert differentiate("c", seed, g) == []  # the original allowed the phrase-level {mask:NP}


# P(S)=3/4; S -> NP VP: 3/4; VP -> VBD ADJP: 1/2; ADJP -> RB JJ: 1/4; NP -> DT JJ NN: 1/5; S -> NP VP RB: 1/4
PRODUCTS = {
    "S": {("NP", "VP"): 3, ("NP", "VP", "RB"): 1},
    "VP": {("VBD", "ADJP"): 1, ("VBD",): 1},
    "ADJP": {("JJ",): 3, ("RB", "JJ"): 1},
    "NP": {("DT", "NN"): 4, ("DT", "JJ", "NN"): 1},
}
FILM = "(S (NP (DT The) (NN film)) (VP (VBD was) (ADJP (JJ good))))"


def test_score_multiplies_parent_productions_and_root():
    seed = parse_of("The film was good", FILM)
    templates = differentiate("c", seed, grammar(PRODUCTS, {"S": 3, "FRAG": 1}))
    by_rule = {(t.lhs, t.rhs_to): t for t in templates}
    assert by_rule["S", ("NP", "VP", "RB")].score == pytest.approx(1 / 4 * 3 / 4, rel=1e-12)
    assert by_rule["NP", ("DT", "JJ", "NN")].score == pytest.approx(1 / 5 * 3 / 4 * 3 / 4, rel=1e-12)
    assert by_rule["ADJP", ("RB", "JJ")].score == pytest.approx(1 / 4 * 1 / 2 * 3 / 4 * 3 / 4, rel=1e-12)
    assert [t.score for t in templates] == sorted((t.score for t in templates), reverse=True)
    assert rendered(templates) == [
        "The film was good [RB]",
        "The [JJ] film was good",
        "The film was [RB] good",
    ]


def test_unseen_parent_production_and_root_get_the_unseen_probability():
    seed = parse_of("The film was good", FILM.replace("(S ", "(SINV "))
    rules = {**PRODUCTS, "SINV": {("VP", "NP"): 2}}
    g = grammar(rules, {"S": 3})
    [adjp] = [t for t in differentiate("c", seed, g) if t.lhs == "ADJP"]
    # SINV -> NP VP unseen: 1 / (count(SINV) + 1); root SINV unseen: 1 / (trees + 1)
    assert adjp.score == pytest.approx(1 / 4 * 1 / 2 * 1 / 3 * 1 / 4, rel=1e-12)


def test_top_k_by_score_with_deterministic_ties():
    seed = parse_of("good", "(ADJP (JJ good))")
    g = grammar(
        {"ADJP": {("JJ",): 4, ("RB", "JJ"): 3, ("RBR", "JJ"): 2, ("JJ", "CC", "JJ"): 2, ("JJ", "JJ"): 1}}
    )
    top2 = differentiate("c", seed, g, top_k=2)
    assert list(dict.fromkeys(t.rhs_to for t in top2)) == [("RB", "JJ"), ("JJ", "CC", "JJ")]
    assert rendered(top2) == ["[RB] good", "[JJ] [CC] good", "good [CC] [JJ]"]
    assert [t.rhs_to for t in differentiate("c", seed, g, top_k=1)] == [("RB", "JJ")]
    longer = [t.rhs_to for t in differentiate("c", seed, g, max_added=1)]
    assert ("JJ", "CC", "JJ") not in longer and ("RBR", "JJ") in longer


def film_grammar() -> Grammar:
    """A reference grammar for "The film was good" whose most probable rule (ADJP -> RB JJ) sits under an
    improbable parent (VP -> VBD ADJP)."""
    return grammar(
        {
            "S": {("NP", "VP"): 3, ("NP", "VP", "RB"): 1},
            "NP": {("DT", "NN"): 1, ("DT", "JJ", "NN"): 1},
            "VP": {("VBD", "ADJP"): 1, ("VBD",): 9},
            "ADJP": {("JJ",): 1, ("RB", "JJ"): 3},
        }
    )


def test_top_k_is_per_seed_and_the_parent_term_decides_what_is_kept():
    """Algorithm 1 ranks all of a seed's candidate expansions together by P(rule) x P(ancestors) x P(root):
    the candidate with the most probable rule (ADJP -> RB JJ, 3/4) sits under an improbable VP -> VBD ADJP
    (1/10), so with the parent term it falls out of the seed's top 2; ranked by P(rule) alone, or kept per
    production (--compat), it stays."""
    seed = parse_of("The film was good", FILM)
    differ = Differentiator(film_grammar())
    by_rule_alone = sorted(
        ((c.prob, lhs) for lhs, rhs in [("S", ("NP", "VP")), ("NP", ("DT", "NN")), ("ADJP", ("JJ",))]
         for c in differ.candidates(lhs, rhs)),
        reverse=True,
    )  # fmt: skip
    assert [lhs for _, lhs in by_rule_alone[:2]] == ["ADJP", "NP"]
    top2 = differ.differentiate("c", seed, top_k=2)
    assert [(t.lhs, t.score) for t in top2] == [
        ("NP", pytest.approx(1 / 2 * 3 / 4)),
        ("S", pytest.approx(1 / 4)),
    ]
    assert rendered(top2) == ["The [JJ] film was good", "The film was good [RB]"]
    per_production = differ.differentiate("c", seed, top_k=2, per_production=True)
    assert [t.lhs for t in per_production] == ["NP", "S", "ADJP"]
    assert [t.lhs for t in differ.differentiate("c", seed, top_k=1)] == ["NP"]


def test_placements_that_can_never_be_valid_give_way_to_the_next_ranked():
    """A seed whose best placements break its requirement (here: nothing may go before "film") still
    gets its top k, from the candidates ranked after them; the check sees every placement it drops."""
    seed = parse_of("The film was good", FILM)
    differ = Differentiator(film_grammar())
    asked = []

    def not_before_film(masks):
        asked.append(masks)
        return all(index != 1 for index, _ in masks)

    top2 = differ.differentiate("c", seed, top_k=2, usable=not_before_film)
    assert rendered(top2) == ["The film was good [RB]", "The film was [RB] good"]
    assert ((1, "JJ"),) in asked
    assert rendered(differ.differentiate("c", seed, top_k=2)) == [
        "The [JJ] film was good",
        "The film was good [RB]",
    ]
    # the top k of every production (--top-k-per production) skips them the same way
    per_production = differ.differentiate("c", seed, top_k=1, per_production=True, usable=not_before_film)
    assert rendered(per_production) == ["The film was good [RB]", "The film was [RB] good"]


def test_top_k_counts_only_candidates_with_an_allowed_position():
    seed = parse_of("It didn't work.", "(S (NP (PRP It)) (VP (VBD did) (RB n't) (VP (VB work))) (. .))")
    g = grammar({"VP": {("VBD", "RB", "VP"): 1, ("VBD", "RB", "RB", "VP"): 1, ("MD", "VBD", "RB", "VP"): 1}})
    templates = differentiate("c", seed, g, top_k=5)
    # RB could go before or after "n't"; before it would split the written word "didn't"
    assert rendered(templates) == ["It [MD] didn't work.", "It didn't [RB] work."]
    assert all(index != 2 for t in templates for index, _ in t.masks)


def test_token_boundaries_before_period_and_after_last_token():
    g = grammar({"NP": {("DT",): 1, ("DT", "NNS"): 1}, "FRAG": {("CC", "NP"): 1}})
    no_period = parse_of("Or both", "(FRAG (CC Or) (NP (DT both)))")
    assert rendered(differentiate("c", no_period, g)) == ["Or both [NNS]"]


def test_every_occurrence_is_differentiated_at_its_own_position():
    seed = parse_of("the dog saw the cat", "(S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (DT the) (NN cat))))")
    g = grammar({"NP": {("DT", "NN"): 3, ("DT", "JJ", "NN"): 1}})
    assert rendered(differentiate("c", seed, g)) == [
        "the [JJ] dog saw the cat",
        "the dog saw the [JJ] cat",
    ]


def test_identical_masks_keep_the_best_score():
    seed = parse_of("the dog ran", "(S (NP (DT the) (NN dog)) (VP (VBD ran)))")
    g = grammar({"S": {("NP", "VP"): 3, ("NP", "RB", "VP"): 1}, "VP": {("VBD",): 1, ("RB", "VBD"): 1}})
    [template] = differentiate("c", seed, g)
    assert template.masks == ((2, "RB"),)
    assert (template.lhs, template.score) == ("VP", pytest.approx(1 / 2 * 3 / 4))


def test_insertions_only_inside_editable_spans():
    text = "I said the film was good."
    seed = parse_of(
        text,
        "(S (NP (PRP I)) (VP (VBD said) (SBAR (S (NP (DT the) (NN film)) (VP (VBD was) (ADJP (JJ good))))))"
        " (. .))",
    )
    g = grammar(
        {
            "S": {("NP", "VP", "."): 2, ("CC", "NP", "VP", "."): 1, ("NP", "VP"): 2, ("NP", "VP", "RB"): 1},
            "NP": {("PRP",): 1, ("PRP", "CC", "PRP"): 1, ("DT", "NN"): 1, ("DT", "JJ", "NN"): 1},
            "VP": {("VBD", "SBAR"): 1, ("VBD", "RB", "SBAR"): 1, ("VBD", "ADJP"): 1},
            "ADJP": {("JJ",): 1, ("RB", "JJ"): 1},
        }
    )
    assert len(differentiate("c", seed, g, top_k=10)) == 7  # everything, with the whole text editable
    start = text.index("the film")
    span = (start, start + len("the film was good"))
    templates = differentiate("c", seed, g, editable=(span,))
    assert sorted(rendered(templates)) == [
        "I said the [JJ] film was good.",
        "I said the film was [RB] good.",
    ]
    for t in templates:
        for index, _ in t.masks:  # both neighbouring tokens inside the seed span
            assert span[0] <= seed.offsets[index - 1][0] and seed.offsets[index][1] <= span[1]


def test_ids_are_stable_and_depend_on_the_case():
    seed = parse_of("The film was good", FILM)
    g = Differentiator(grammar(PRODUCTS))
    first = [t.id for t in g.differentiate("a", seed)]
    assert first == [t.id for t in g.differentiate("a", seed)]
    assert set(first).isdisjoint(t.id for t in g.differentiate("b", seed))


def test_tree_leaves_must_match_the_tokens():
    seed = parse_of("Or both.", "(FRAG (CC Or) (NP (DT both)) (. .))")
    broken = Parse(seed.text, seed.tokens, seed.offsets, ("(FRAG (CC Or) (NP (DT both)))",))
    with pytest.raises(ValueError, match="leaves"):
        differentiate("c", broken, grammar({"NP": {("DT",): 1}}))


def test_multi_sentence_parse_uses_global_token_indices():
    seed = parse_of("Or both. The dog", "(FRAG (CC Or) (NP (DT both)) (. .))", "(NP (DT The) (NN dog))")
    g = grammar({"NP": {("DT",): 1, ("DT", "NNS"): 1, ("DT", "NN"): 2, ("DT", "JJ", "NN"): 1}})
    assert sorted(rendered(differentiate("c", seed, g, top_k=1, per_production=True))) == [
        "Or both [NN]. The dog",
        "Or both. The [JJ] dog",
    ]


@pytest.fixture(scope="module")
def sample(shared_data):
    return Differentiator(load_grammar("ptb_sample"))


def test_real_grammar_top5_matches_the_original_fixtures(sample):
    def top5(lhs, rhs):
        return [" ".join(c.rhs) for c in sample.candidates(lhs, rhs)[:5]]

    # The original's ranking: same candidates and order; the original broke the RBR JJ / JJ CC JJ tie
    # (both 0.0209) the other way, here ties go by RHS.
    assert top5("NP", ("DT",)) == ["DT NN", "DT JJ NN", "DT NNS", "DT NN NN", "DT NNP"]
    assert top5("ADJP", ("JJ",)) == ["RB JJ", "JJ CC JJ", "RBR JJ", "RBS JJ", "JJ JJ"]
    probs = [c.prob for c in sample.candidates("NP", ("DT",))[:5]]
    assert probs == sorted(probs, reverse=True) and probs[0] == pytest.approx(0.0922, abs=1e-4)
    # S -> NP VP .: the original's NP NP VP . (phrase-level mask) and RB NP VP . (a trace subject) are gone
    assert top5("S", ("NP", "VP", ".")) == ["CC NP VP .", "NP DT VP .", "IN NP VP .", "NP RB VP ."]
    assert sample.candidates("NP", ("NN", "NN"))[0].rhs == ("DT", "NN", "NN")  # repeated symbols match


def test_the_insertions_predicate_is_asked_once_per_production_and_placement():
    """A production that recurs seed after seed asks ``insertable`` about its placements once: the
    templates are those of asking every time."""
    seed = parse_of("The film was good", FILM)
    asked = []

    def no_adverb(lhs, rhs, where):
        asked.append((lhs, rhs, where))
        return all(tag != "RB" for _, tag in where)

    differ = Differentiator(film_grammar())
    first = differ.differentiate("c", seed, top_k=5, insertable=no_adverb)
    once = len(asked)
    again = differ.differentiate("c", seed, top_k=5, insertable=no_adverb)
    assert len(asked) == once and rendered(again) == rendered(first) == ["The [JJ] film was good"]
    assert rendered(Differentiator(film_grammar()).differentiate("c", seed, top_k=5)) != rendered(first)


def test_adjective_sites_grade_each_accepted_ungraded_adjective_beyond_the_top_k():
    """``adjective_sites`` gives every adjective the predicate accepts its ``ADJP -> RB JJ`` site, whether
    the seed's top k held it or not; not a noun, an adjective an adverb grades already, or one outside the
    editable span."""
    text = "A dull film was really dull and good."
    seed = parse_of(
        text,
        "(S (NP (DT A) (JJ dull) (NN film)) (VP (VBD was) (ADJP (ADJP (RB really) (JJ dull)) (CC and)"
        " (ADJP (JJ good)))) (. .))",
    )
    differ = Differentiator(film_grammar())
    assert not any(t.masks == ((1, "RB"),) for t in differ.differentiate("c", seed, top_k=1))
    carries = {"dull", "good", "film"}.__contains__
    sites = differ.adjective_sites("c", seed, carries)
    assert rendered(sites) == [
        "A [RB] dull film was really dull and good.",
        "A dull film was really dull and [RB] good.",
    ]
    assert {(t.lhs, t.rhs_from, t.rhs_to, t.score) for t in sites} == {("ADJP", ("JJ",), ("RB", "JJ"), 3 / 4)}
    assert rendered(differ.adjective_sites("c", seed, {"good"}.__contains__)) == [
        "A dull film was really dull and [RB] good."
    ]
    start = text.index("was")
    assert rendered(differ.adjective_sites("c", seed, carries, editable=((0, start - 1),))) == [
        "A [RB] dull film was really dull and good."
    ]
    assert differ.adjective_sites("c", seed, carries, usable=lambda masks: masks[0][0] != 1) == sites[1:]
