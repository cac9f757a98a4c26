from __future__ import annotations

import math
import random

import pytest
from conftest import require
from nltk import Tree

from autocheck.metrics import (
    format_metrics,
    production_rules,
    rule_coverage,
    sample_trials,
    self_bleu,
    self_bleu_nltk,
    suite_metrics,
    tokenize,
)
from autocheck.records import Parse
from tests.test_export import make_suite


def test_self_bleu_matches_nltk_on_sst2_sample(shared_data):
    lines = require(shared_data / "datasets/sst/SST-2/dev.tsv").read_text(encoding="utf-8").splitlines()[1:]
    sentences = tokenize(random.Random(0).sample([line.split("\t")[0] for line in lines], 80))
    assert abs(self_bleu(sentences) - self_bleu_nltk(sentences)) < 1e-9


@pytest.mark.parametrize(
    "sentences",
    [
        [["the", "film", "is", "good"]] * 3,  # identical sentences: Self-BLEU 1
        [["good"], ["bad"], ["a", "b"], [], ["good"], ["bad", "film"]],  # short, empty and repeated
        [["a", "a", "a", "b"], ["a", "a", "b"], ["a", "b", "b", "b", "b"], ["c"] * 7],  # clipping, lengths
        [["x", "y"], ["x", "y", "z", "w"], ["y", "x", "z"]],  # length ties go to the shorter reference
    ],
)
def test_self_bleu_edge_cases_match_nltk(sentences):
    assert abs(self_bleu(sentences) - self_bleu_nltk(sentences)) < 1e-9


def test_self_bleu_limits():
    assert self_bleu([["the", "film", "is", "good"]] * 3) == pytest.approx(1.0)
    assert math.isnan(self_bleu([["only", "one"]]))
    assert self_bleu([["a", "b"], ["c", "d"]]) == 0.0


def test_production_rules_on_hand_made_trees():
    tree = "(S (NP (PRP I)) (VP (VBD liked) (NP (DT the) (NN film))) (. .))"
    assert production_rules(tree) == {"S->NP VP .", "NP->PRP", "VP->VBD NP", "NP->DT NN"}
    assert production_rules(f"(TOP {tree})") == production_rules(Tree.fromstring(tree))
    other = "(S (NP (DT The) (NN film)) (VP (VBD bored) (NP (PRP me)) (ADVP (RB today))) (. .))"
    assert rule_coverage([tree, other]) == 6  # new: VP->VBD NP ADVP, ADVP->RB
    assert rule_coverage([tree, other, "(FRAG (ADJP (JJ great)) (. !))"]) == 8
    assert rule_coverage([]) == 0


class WordCountParser:
    """A stand-in parser whose trees depend on the word count, enough to test the bookkeeping."""

    def parse(self, texts):
        out = []
        for text in texts:
            words = text.split()
            leaves = " ".join(f"(W{min(k, 3)} {w})" for k, w in enumerate(words))
            out.append(Parse(text, tuple(words), (), (f"(S{len(words)} {leaves})",)))
        return out


def test_suite_metrics_deterministic_and_expansions_help(tmp_path):
    suite = make_suite(tmp_path / "suite")
    metrics = suite_metrics(suite, sample_sizes=(10, 40, 100), trials=3, seed=1, parser=WordCountParser())
    assert metrics == suite_metrics(
        suite, sample_sizes=(10, 40, 100), trials=3, seed=1, parser=WordCountParser()
    )
    assert set(metrics) == {"LC2", "LC4", "LC5"}
    lc2 = metrics["LC2"]
    assert lc2["ALiCT"][100]["n"] == 60  # only 60 seeds: all of them
    assert lc2["ALiCT"][10]["n"] == 10
    # Expansions are longer sentences with other parses: more rules than the seeds alone.
    assert lc2["ALiCT+EXP"][40]["rule_coverage"] > lc2["ALiCT"][40]["rule_coverage"]
    assert 0 < lc2["ALiCT"][40]["self_bleu"] <= 1
    assert "rule_coverage" not in suite_metrics(suite, sample_sizes=(10,), trials=1)["LC2"]["ALiCT"][10]
    table = format_metrics(metrics)
    assert f"| LC2 | ALiCT+EXP | 40 | 40 | {lc2['ALiCT+EXP'][40]['self_bleu']:.3f} |" in table
    assert len(table.splitlines()) == 2 + 3 * 2 * 3


def test_sample_trials_picks_one_member_per_seed():
    groups = {f"s{k}": [f"s{k} e{e}" for e in range(3)] for k in range(20)}
    plain = sample_trials(groups, 8, 2, 0, "LC1", False)
    expanded = sample_trials(groups, 8, 2, 0, "LC1", True)
    assert [len(s) for s in plain] == [8, 8] and plain[0] != plain[1]
    for seeds, picked in zip(plain, expanded):  # the same seeds, each replaced by one of its group
        assert [p.split()[0] for p in picked] == seeds


def test_sample_sizes_stop_at_the_suite_size(tmp_path):
    """Every size beyond a capability's 60 seeds sampled all 60: the same row again and again."""
    suite = make_suite(tmp_path / "suite")
    metrics = suite_metrics(suite, sample_sizes=(200, 10, 60, 100, 10), trials=1)
    assert list(metrics["LC2"]["ALiCT"]) == [10, 60]  # increasing, distinct, up to the first taking all
    assert metrics["LC2"]["ALiCT"][60]["n"] == 60
    assert list(suite_metrics(suite, sample_sizes=(100, 200), trials=1)["LC2"]["ALiCT"]) == [100]
    assert len(format_metrics(metrics).splitlines()) == 2 + 3 * 2 * 2
