"""Expectations on hand-made predictions, the runner's counts and files, and a real stand-in model."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from autocheck import expect
from autocheck.expect import FAIL, NA, PASS
from autocheck.export import BINARY
from autocheck.models import CallableModel, default_task, load_model
from autocheck.outputs import kind_of
from autocheck.records import TestCase
from autocheck.run import run_suite
from autocheck.store import InputError, read_jsonl

torch.set_num_threads(1)
T = default_task()


def mft_outcome(expected, label):
    return expect.mft_outcome(T, expected, label)


def inv_outcome(orig_probs, orig_label, probs, label):
    return expect.inv_outcome(T, orig_probs, orig_label, probs, label)


def dir_outcome(expected, orig_probs, orig_label, probs):
    return kind_of(T).dir(T, expected, orig_probs, orig_label, probs, T.labels[int(np.argmax(probs))])


def test_mft_label_and_allowed_set():
    assert mft_outcome("positive", "positive") == PASS
    assert mft_outcome("positive", "neutral") == FAIL
    assert mft_outcome(("neutral", "positive"), "neutral") == PASS
    assert mft_outcome(("neutral", "positive"), "negative") == FAIL


def test_inv_fails_only_when_label_changes_and_probability_moves_more_than_0_1():
    seed = np.array([0.40, 0.05, 0.55])  # positive
    assert inv_outcome(seed, "positive", np.array([0.49, 0.05, 0.46]), "negative") == PASS  # moved 0.09
    assert inv_outcome(seed, "positive", np.array([0.51, 0.05, 0.44]), "negative") == FAIL  # moved 0.11
    assert inv_outcome(seed, "positive", np.array([0.0, 0.0, 1.0]), "positive") == PASS  # same label


def test_dir_monotonic_with_tolerance_and_not_applicable_at_the_limit():
    up = {"label": "positive", "direction": "up", "tolerance": 0.1}
    down = {"label": "positive", "direction": "down", "tolerance": 0.1}
    seed = np.array([0.5, 0.0, 0.5])
    assert dir_outcome(up, seed, "positive", np.array([0.59, 0.0, 0.41])) == PASS  # down 0.09 <= tolerance
    assert dir_outcome(up, seed, "positive", np.array([0.61, 0.0, 0.39])) == FAIL
    assert dir_outcome(down, seed, "positive", np.array([0.41, 0.0, 0.59])) == PASS
    assert dir_outcome(down, seed, "positive", np.array([0.39, 0.0, 0.61])) == FAIL
    # The test cannot fail: for up, P(label) is already <= tolerance; for down, >= 1 - tolerance.
    assert dir_outcome(up, np.array([0.95, 0.0, 0.05]), "negative", np.array([1.0, 0, 0])) == NA
    assert dir_outcome(down, np.array([0.05, 0.0, 0.95]), "positive", np.array([0, 0, 1.0])) == NA
    # label None follows the seed's prediction; a neutral seed is not applicable.
    follow = {"label": None, "direction": "up", "tolerance": 0.1}
    assert dir_outcome(follow, np.array([0.7, 0.0, 0.3]), "negative", np.array([0.5, 0.0, 0.5])) == FAIL
    assert dir_outcome(follow, np.array([0.1, 0.8, 0.1]), "neutral", np.array([0.1, 0.1, 0.8])) == NA


# Hand-made three-class predictions, looked up by text.
TABLE = {
    "s1": [0.05, 0.05, 0.90],  # positive, expected positive: pass
    "s1 e1": [0.80, 0.10, 0.10],  # negative: MFT fail, INV fail  -> pass_to_fail
    "s1 e2": [0.05, 0.10, 0.85],  # positive: pass -> pass_to_pass
    "s2": [0.40, 0.05, 0.55],  # positive, expected negative or neutral: fail
    "s2 e1": [0.49, 0.05, 0.46],  # negative: MFT pass, INV pass (moved 0.09) -> fail_to_pass
    "s2 e2": [0.51, 0.05, 0.44],  # negative: MFT pass, INV fail (moved 0.11)  -> fail_to_pass
    "s2 e3": [0.10, 0.05, 0.85],  # positive: fail -> fail_to_fail
    "d0": [0.05, 0.05, 0.90],
    "d0 up": [0.02, 0.02, 0.96],  # DIR up on positive: pass
    "d1": [0.95, 0.00, 0.05],
    "d1 up": [0.99, 0.00, 0.01],  # P(positive) 0.05 <= tolerance: cannot fail, not applicable
    "i0": [0.40, 0.05, 0.55],
    "i0 a": [0.51, 0.05, 0.44],  # INV fail
}


def table_model(calls: list[list[str]]) -> CallableModel:
    def predict(texts):
        calls.append(list(texts))
        return [TABLE[t] for t in texts]

    predict.labels = ["negative", "neutral", "positive"]
    return CallableModel("table", predict)


def case(id, cap, text, expected, test_type="MFT", seed_id=None):
    kind = "expansion" if seed_id else "seed"
    return TestCase(id, cap, kind, text, expected, test_type, "", seed_id).to_json()


def write_suite(directory, cases):
    directory.mkdir()
    (directory / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (directory / "manifest.json").write_text(json.dumps({"kind": "suite", "note": "hand-made"}))
    return directory


@pytest.fixture
def suite(tmp_path):
    up = {"label": "positive", "direction": "up", "tolerance": 0.1}
    not_pos = ["negative", "neutral"]
    return write_suite(
        tmp_path / "suite",
        [
            case("e1", "LC1", "s1 e1", "positive", seed_id="s1"),  # an expansion before its seed is fine
            case("s1", "LC1", "s1", "positive"),
            case("e2", "LC1", "s1 e2", "positive", seed_id="s1"),
            case("s2", "LC1", "s2", not_pos),
            case("f1", "LC1", "s2 e1", not_pos, seed_id="s2"),
            case("f2", "LC1", "s2 e2", not_pos, seed_id="s2"),
            case("f3", "LC1", "s2 e3", not_pos, seed_id="s2"),
            case("dup", "LC1", "s1", "positive"),  # same text again: predicted once
            case("d0", "DIRCAP", "d0", up, "DIR"),
            case("d0.1", "DIRCAP", "d0 up", up, "DIR", "d0"),
            case("d1", "DIRCAP", "d1", up, "DIR"),
            case("d1.1", "DIRCAP", "d1 up", up, "DIR", "d1"),
            case("i0", "INVCAP", "i0", None, "INV"),
            case("i0.1", "INVCAP", "i0 a", None, "INV", "i0"),
        ],
    )


def test_run_suite_counts_and_files(suite, tmp_path):
    calls: list[list[str]] = []
    results = run_suite(suite, [table_model(calls)], tmp_path / "out")
    assert sorted(t for batch in calls for t in batch) == sorted(TABLE)  # each distinct text once

    lc1 = results["models"]["table"]["capabilities"]["LC1"]
    assert lc1["test_type"] == "MFT"
    assert lc1["seeds"] == {
        "cases": 3,
        "applicable": 3,
        "failures": 1,
        "failure_rate": round(1 / 3, 6),
        "errors": 0,
    }
    assert lc1["expansions"] == {"cases": 5, "applicable": 5, "failures": 2, "failure_rate": 0.4, "errors": 0}
    assert lc1["all"]["failures"] == 3 and lc1["failure_rate"] == 0.375
    assert lc1["transitions"] == {"pass_to_fail": 1, "fail_to_pass": 2, "pass_to_pass": 1, "fail_to_fail": 1}
    # INV of each seed with its expansions: s1 (e1 flips, moves 0.8) fails; s2 (f2 moves 0.11) fails.
    assert lc1["inv"] == {"groups": 2, "failures": 2, "failure_rate": 1.0, "pairs": 5, "pair_failures": 2}

    dircap = results["models"]["table"]["capabilities"]["DIRCAP"]
    assert dircap["test_type"] == "DIR"
    assert dircap["expansions"] == {
        "cases": 2,
        "applicable": 1,
        "failures": 0,
        "failure_rate": 0.0,
        "errors": 0,
    }
    assert dircap["groups"]["applicable"] == 1 and dircap["failure_rate"] == 0.0

    invcap = results["models"]["table"]["capabilities"]["INVCAP"]
    assert invcap["seeds"]["applicable"] == 0  # the original is no test by itself
    assert invcap["failure_rate"] == 1.0

    rows = list(read_jsonl(tmp_path / "out" / "predictions.jsonl"))
    assert len(rows) == 14
    e1 = next(r for r in rows if r["case"] == "e1")
    assert e1 | {"probs": None} == {
        "case": "e1", "capability": "LC1", "kind": "expansion", "seed": "s1", "model": "table",
        "probs": None, "label": "negative", "outcome": "fail", "inv": "fail",
    }  # fmt: skip
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["models"] == results["models"]
    assert saved["suite"]["manifest"]["note"] == "hand-made" and "python" in saved["environment"]


def test_run_suite_binary_model_uses_the_neutral_band(tmp_path):
    model = CallableModel("band", lambda texts: [[1 - float(t), float(t)] for t in texts])
    p_edges = ["0.3333333333333333", "0.33333334", "0.5", "0.66666666", "0.6666666666666666"]
    suite = write_suite(tmp_path / "s", [case(f"c{i}", "N", t, "neutral") for i, t in enumerate(p_edges)])
    run_suite(suite, [model], tmp_path / "out")
    labels = [r["label"] for r in read_jsonl(tmp_path / "out" / "predictions.jsonl")]
    assert labels == ["negative", "neutral", "neutral", "neutral", "positive"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "x"}', "cases.jsonl:2: not a test case"),
        ("{not json", "cases.jsonl:2: not valid JSON"),
        (json.dumps(case("x", "C", "t", "happy")), "cases.jsonl:2: MFT field 'expected'"),
        (json.dumps(case("x", "C", "t", {"direction": "sideways"}, "DIR")), "cases.jsonl:2: DIR field"),
        (json.dumps(case("x", "C", "t", "positive", seed_id="missing")), "unknown seed 'missing'"),
    ],
)
def test_bad_suite_lines_name_file_and_line(tmp_path, line, message):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "cases.jsonl").write_text(json.dumps(case("ok", "C", "s1", "positive")) + "\n" + line + "\n")
    with pytest.raises(InputError, match=message):
        run_suite(suite, [table_model([])], tmp_path / "out")


def test_file_predictions_through_the_runner(suite, tmp_path):
    texts = [json.loads(line)["text"] for line in (suite / "cases.jsonl").read_text().splitlines()]
    (tmp_path / "p.txt").write_text("".join(" ".join(map(str, TABLE[t])) + "\n" for t in texts))
    via_file = run_suite(suite, [load_model(f"file:{tmp_path / 'p.txt'}")], tmp_path / "a")
    in_process = run_suite(suite, [table_model([])], tmp_path / "b")
    assert (
        next(iter(via_file["models"].values()))["capabilities"]
        == in_process["models"]["table"]["capabilities"]
    )


@pytest.mark.shared_data
def test_stand_in_model_on_a_hand_written_suite(shared_data, tmp_path):
    model = load_model(str(shared_data / "models" / "mini-bert-sst2"), device="cpu")
    not_negative = ["neutral", "positive"]
    suite = write_suite(
        tmp_path / "s",
        [
            case("p1", "LC2", "This movie is wonderful and moving.", "positive"),
            case("p1.1", "LC2", "This new movie is wonderful and moving.", "positive", seed_id="p1"),
            case("n1", "LC2", "The plot is dull and the acting is awful.", "negative"),
            case("n1.1", "LC2", "The plot is dull and the acting is truly awful.", "negative", seed_id="n1"),
            case("g1", "LC4", "This is not a terrible film.", not_negative),
            case("g2", "LC4", "The movie was not bad at all.", not_negative),
            case("g3", "LC4", "That is not an awful idea.", not_negative),
        ],
    )
    results = run_suite(suite, [model], tmp_path / "out")
    caps = results["models"][model.name]["capabilities"]
    assert caps["LC2"]["failure_rate"] == 0.0  # plain sentiment is what the stand-in learned
    assert caps["LC4"]["failure_rate"] >= 2 / 3  # negated negatives mostly read as negative
    assert caps["LC2"]["transitions"]["pass_to_pass"] == 2


def test_dir_on_the_task_score_counts_a_move_into_the_neutral_band_the_right_way():
    """CheckList's "add positive phrases": P(positive) - P(negative) must not fall by more than 0.1. A binary
    model moving from P(positive) 0.2 to 0.5 lands in the neutral band, where P(positive) reads 0: the
    score rises (pass), though P(positive) alone fell (the old reading failed it)."""
    before, after = T.read(BINARY, np.array([[0.8, 0.2], [0.5, 0.5]]))[0]
    score_up = {"score": {"plus": "positive", "minus": "negative"}, "direction": "up", "tolerance": 0.1}
    assert kind_of(T).dir(T, score_up, before, "negative", after, "neutral") == PASS
    label_up = {"label": "positive", "direction": "up", "tolerance": 0.1}
    assert kind_of(T).dir(T, label_up, before, "negative", after, "neutral") == FAIL
    worse = T.read(BINARY, np.array([[0.95, 0.05]]))[0][0]
    assert kind_of(T).dir(T, score_up, before, "negative", worse, "negative") == FAIL  # -0.6 -> -0.9
    target = {"target": ["neutral", "positive"]}
    assert kind_of(T).dir(T, target, before, "negative", after, "neutral") == PASS
    assert kind_of(T).dir(T, target, before, "negative", worse, "negative") == FAIL


def test_a_model_that_raises_on_one_input_fails_that_input_alone(suite, tmp_path):
    """The batch is retried in halves (what an out-of-memory batch needs too); the input the model cannot
    take is recorded as an error, every other case is run, and a rerun gives the same results."""
    calls = []

    def fragile(texts):
        calls.append(len(texts))
        if "s2 e3" in texts:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return [TABLE[t] for t in texts]

    fragile.labels = ["negative", "neutral", "positive"]
    results = run_suite(suite, [CallableModel("fragile", fragile, batch_size=8)], tmp_path / "run")
    lc = results["models"]["fragile"]["capabilities"]["LC1"]
    assert lc["expansions"]["errors"] == 1 and results["models"]["fragile"]["errors"] == 1
    rows = {r["case"]: r for r in read_jsonl(tmp_path / "run" / "predictions.jsonl")}
    assert rows["f3"]["outcome"] == "error" and "CUDA out of memory" in rows["f3"]["error"]
    assert rows["f2"]["outcome"] == "pass" and rows["s2"]["outcome"] == "fail"
    assert calls[0] > 1 and 1 in calls  # halved down to the one input that raises
    again = run_suite(suite, [CallableModel("fragile", fragile, batch_size=8)], tmp_path / "run2")
    assert again["models"]["fragile"]["capabilities"] == results["models"]["fragile"]["capabilities"]
