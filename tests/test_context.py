"""The context check: an inserted function word next to another must form a pair the treebank has."""

from __future__ import annotations

import json

import pytest

from autocheck.expand.context import FunctionPairs, build_function_pairs, function_pairs, load_function_pairs
from autocheck.expand.fill import validate
from autocheck.expand.validate import FillStats
from autocheck.records import MaskedTemplate, Parse, TestCase
from autocheck.tagging import tokenize

PAIRS = function_pairs(
    [
        [("It", "PRP"), ("failed", "VBD"), ("because", "IN"), ("of", "IN"), ("neglect", "NN")],
        [("out", "IN"), ("of", "IN"), ("the", "DT"), ("film", "NN"), ("and", "CC"), ("in", "IN")],
        [("a", "DT"), ("quest", "NN"), ("for", "IN"), ("truth", "NN")],
    ],
    "hand-made",
)


def test_allows_only_attested_function_word_pairs():
    assert PAIRS.words == {"because", "of", "out", "the", "and", "in", "a", "for"}
    assert PAIRS.allows("IN", "failed", "because", "of")  # "because of" is attested
    assert not PAIRS.allows("IN", "failed", "in", "of")  # "in of" is not
    assert not PAIRS.allows("CC", "and", "and", "the")
    assert PAIRS.allows("IN", "quest", "in", "truth")  # content-word neighbours are not judged
    assert PAIRS.allows("RB", "in", "really", "of")  # only function-word insertions are checked
    assert PAIRS.allows("DT", None, "the", None)


def test_validation_rejects_unattested_pairs_and_counts_them():
    text = "it failed of neglect ."
    tokens = tokenize(text)
    template = MaskedTemplate(
        "t", "c1", Parse(text, tokens.words, tokens.offsets, ("(S)",)), ((2, "IN"),), "PP", (), (), 1.0
    )
    case = TestCase(
        id="c1", capability="LC1", kind="seed", inputs=text, expected="neutral", test_type="MFT",
        label="neutral", editable=((0, len(text)),),
    )  # fmt: skip
    stats = FillStats()
    fills = [(("in",), -1.0), (("because",), -2.0)]
    out = validate(
        [template], [fills], {"c1": case}, _Neutral(), lambda c, t: True, stats=stats, context=PAIRS
    )
    assert [c.text for c in out] == ["it failed because of neglect ."]
    assert stats.rejected["context"] == 1
    # without the check the first fill is kept
    out = validate([template], [fills], {"c1": case}, _Neutral(), lambda c, t: True)
    assert [c.text for c in out] == ["it failed in of neglect ."]


class _Neutral:
    def is_neutral(self, word: str, pos: str | None) -> bool:
        return True


def test_file_round_trip_and_checksum(tmp_path):
    path = tmp_path / "pairs.json"
    PAIRS.save(path)
    assert load_function_pairs(path) == PAIRS
    data = json.loads(path.read_text())
    data["pairs"].append(["in", "of"])
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="checksum"):
        load_function_pairs(path)
    with pytest.raises(ValueError, match="not an autocheck-function-pairs"):
        FunctionPairs.from_json({"words": []})


@pytest.mark.shared_data
def test_shipped_pairs_are_the_nltk_treebank_sample(shared_data):
    shipped = load_function_pairs("ptb_sample")
    assert shipped == build_function_pairs("nltk")
    assert ("out", "of") in shipped.pairs and ("because", "of") in shipped.pairs
    assert ("in", "of") not in shipped.pairs and ("and", "but") not in shipped.pairs
