"""Reference PCFG: label stripping, trace removal, ML probabilities, JSON round trip, real PTB sample."""

from __future__ import annotations

import json

import pytest
from nltk import Tree

from autocheck.expand.grammar import Grammar, build_grammar, clean_tree, load_grammar, strip_label
from autocheck.store import InputError

MRG = """\
( (S (NP-SBJ-1 (DT The) (NN company)) (VP (VBD said) (SBAR (-NONE- 0) (S (NP-SBJ (-NONE- *T*-1))
    (VP (VBD rose))))) (. .)) )
( (S (NP-SBJ (PRP It)) (VP (VBD fell) (PP-TMP=2 (IN in) (NP (NNP May)))) (. .)) )
( (NP-HLN (NP (DT The) (NN company)) (PRN (-LRB- -LRB-) (NP (NNP Acme)) (-RRB- -RRB-))) )
"""


@pytest.mark.parametrize(
    ("label", "stripped"),
    [("NP-SBJ-1", "NP"), ("S-TPC-2", "S"), ("PP-TMP=3", "PP"), ("NP=2", "NP"), ("PRP$", "PRP$")]
    + [("-NONE-", "-NONE-"), ("-LRB-", "-LRB-"), ("-RRB-", "-RRB-"), ("ADVP|PRT", "ADVP|PRT")],
)
def test_strip_label(label, stripped):
    assert strip_label(label) == stripped


def test_clean_tree_removes_traces_and_the_constituents_they_empty():
    tree = Tree.fromstring(
        "(S (NP-SBJ-1 (-NONE- *)) (VP (VBD said) (SBAR (-NONE- 0) (S (NP-SBJ (-NONE- *T*-1)))))"
        " (ADVP-TMP (RB now)) (. .))"
    )
    assert str(clean_tree(tree)) == "(S (VP (VBD said)) (ADVP (RB now)) (. .))"
    assert clean_tree(Tree.fromstring("(NP-SBJ (-NONE- *))")) is None


@pytest.fixture
def tiny_treebank(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "wsj_9999.mrg").write_text(MRG)
    (tmp_path / "notes.txt").write_text("not a tree file")
    return tmp_path


def test_build_from_ptb_directory(tiny_treebank):
    g = build_grammar(str(tiny_treebank))
    assert g.provenance["trees"] == 3 and g.provenance["files"] == 1
    assert len(g.provenance["source_sha256"]) == 64
    # S -> NP VP . twice; SBAR and the subject-less embedded S: S -> VP (the trace is gone, not '')
    assert g.rules["S"] == [(("NP", "VP", "."), 2 / 3), (("VP",), 1 / 3)]
    assert g.prob("VP", ("VBD", "SBAR")) == pytest.approx(1 / 3)
    assert g.prob("SBAR", ("S",)) == 1.0
    assert g.prob("PP", ("IN", "NP")) == 1.0  # PP-TMP=2 stripped
    assert g.prob("PRN", ("-LRB-", "NP", "-RRB-")) == 1.0  # bracket tags kept whole
    assert g.prob("NP", ("DT", "NN")) == pytest.approx(2 / 6)
    # lexical rules are kept apart from phrase rules but answer prob() all the same
    assert "NN" not in g.rules and g.lexical["NN"] == [("company", 1.0)]
    assert g.prob("VBD", ("said",)) == pytest.approx(1 / 3)
    assert g.prob("-LRB-", ("-LRB-",)) == 1.0
    assert all("-NONE-" not in rhs and "" not in rhs for rows in g.rules.values() for rhs, _ in rows)
    assert g.root_prob("S") == pytest.approx(2 / 3) and g.root_prob("NP") == pytest.approx(1 / 3)
    assert g.prob("NP", ("NN",)) == 0.0 and g.root_prob("VP") == 0.0
    assert g.unseen_prob("S") == pytest.approx(1 / 4) and g.unseen_prob() == pytest.approx(1 / 4)


def test_missing_treebank_directory_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        build_grammar(str(tmp_path / "nope"))
    with pytest.raises(InputError, match="no .mrg files"):
        build_grammar(str(tmp_path))


def test_json_round_trip_and_checksum(tiny_treebank, tmp_path):
    g = build_grammar(str(tiny_treebank))
    path = tmp_path / "g.json"
    g.save(path)
    loaded = load_grammar(path)
    assert loaded.rules == g.rules and loaded.lexical == g.lexical
    assert loaded.root_counts == g.root_counts and loaded.provenance == g.provenance
    assert loaded.to_json() == g.to_json()
    data = json.loads(path.read_text())
    data["rules"]["S"][0][1] += 1  # tamper with a count
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="sha256"):
        load_grammar(path)
    path.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(InputError, match="not an autocheck grammar"):
        load_grammar(path)


def test_a_grammar_file_is_built_once_until_its_bytes_change(tiny_treebank, tmp_path):
    path = tmp_path / "g.json"
    built = build_grammar(str(tiny_treebank))
    built.save(path)
    first = load_grammar(path)
    assert load_grammar(path) is first  # the expander, the noun dictionary and forked workers share it
    roots = {**built.root_counts, "S": built.root_counts["S"] + 1}
    Grammar(built.counts, built.lexical_counts, roots, built.provenance).save(path)
    changed = load_grammar(path)
    assert changed is not first and changed.root_counts == roots


def test_probabilities_sum_to_one_per_lhs(tiny_treebank):
    g = build_grammar(str(tiny_treebank))
    for lhs, rows in g.rules.items():
        assert sum(p for _, p in rows) == pytest.approx(1.0), lhs
    assert isinstance(g, Grammar)


@pytest.fixture(scope="module")
def sample_grammar(shared_data):
    return build_grammar("nltk")


def test_real_sample_grammar_counts(sample_grammar):
    g = sample_grammar
    assert g.provenance["trees"] == 3914 and g.provenance["files"] == 199
    # The original's grammar (traces kept as ''): 76 LHS keys, 16,802 rules (~12,956 lexical), 1,624 NP RHS.
    # Without traces: no '' key and 72 LHS; NP -> '' (the original's top NP rule) is gone and subject-less
    # rules appear instead (S -> RB VP . from "(S (RB Then) (NP-SBJ (-NONE- *)) (VP ...) (.))").
    assert (len(g.rules), len(g.lexical)) == (27, 45)
    assert sum(len(r) for r in g.rules.values()) == 3755
    assert sum(len(r) for r in g.lexical.values()) == 13341
    assert (len(g.rules["NP"]), len(g.rules["S"])) == (1611, 397)
    assert "" not in g.rules and "-NONE-" not in g.lexical
    assert g.prob("S", ("RB", "VP", ".")) > 0 and g.prob("S", ("RB", "NP", "VP", ".")) == 0
    assert g.rules["NP"][:2] == [
        (("NP", "PP"), pytest.approx(0.11238, abs=1e-5)),
        (("DT", "NN"), pytest.approx(0.09219, abs=1e-5)),
    ]
    assert g.root_counts["S"] == 3545 and len(g.root_counts) == 9


def test_shipped_grammar_is_the_sample_grammar(sample_grammar):
    shipped = load_grammar("ptb_sample")
    assert shipped.to_json() == sample_grammar.to_json()
