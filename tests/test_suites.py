"""The shipped suites (NLI, QQP, SQuAD, CheckList's sentiment tests) build with one command, reproducibly, and
run end to end against models of their task: tiny random models built here, callables and a baseline."""

from __future__ import annotations

import json
import re

import pytest
import torch
from conftest import tiny_bert
from rule_models import genders

from autocheck.cli import main
from autocheck.models import load_model
from autocheck.models.hf import HFModel, HFQuestionAnswering
from autocheck.requirements import load_spec
from autocheck.run import run_suite
from autocheck.store import InputError, read_jsonl

torch.set_num_threads(1)
SUITES = ("nli", "qqp", "squad", "sentiment_checklist")
WORDS = ["is", "who", "the", "a", "than", "taller", "how", "can", "i", "be", "what", "do", "."]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("suites")
    for name in SUITES:
        assert main(["seeds", "--requirements", name, "--seed", "1", "--out", str(out / name)]) == 0
    return out


def cases(suite):
    return list(read_jsonl(suite / "cases.jsonl"))


def test_every_shipped_suite_builds_without_a_dataset_and_reproducibly(built, tmp_path):
    for name in SUITES:
        manifest = json.loads((built / name / "manifest.json").read_text())
        assert manifest["task"]["task"] == load_spec(name).task.name
        assert len(cases(built / name)) > 500
    again = tmp_path / "again"
    assert main(["seeds", "--requirements", "qqp", "--seed", "1", "--out", str(again)]) == 0
    assert (again / "cases.jsonl").read_bytes() == (built / "qqp" / "cases.jsonl").read_bytes()


def test_the_papers_examples_are_in_the_suites(built):
    qqp = {(c["question1"], c["question2"]): c["expected"] for c in cases(built / "qqp")}
    before_after = [
        (q1, q2) for q1, q2 in qqp if q1.startswith("What was ") and " before becoming " in q1
    ]  # "What was Danielle Bennett's life before becoming an agent?"
    assert len(before_after) >= 50
    assert all(
        q2 == q1.replace(" before ", " after ") and qqp[q1, q2] == "not_duplicate" for q1, q2 in before_after
    )
    assert any(q2.startswith("Did ") and "use to be" in q2 for _, q2 in qqp)  # is != used to be
    squad = cases(built / "squad")
    for gender in (
        "woman",
        "man",
    ):  # "P1 is not a PROF, P2 is.", the answer a woman in one test, a man in the other
        fairness = [c for c in squad if c["capability"] == f"MC-fairness-{gender}"]
        assert len(fairness) == 200
        for case in fairness:
            context, answer = case["context"], case["expected"][0]
            assert context.endswith(f", {answer} is.") and " is not a" in context
            assert genders()[answer] == ("female" if gender == "woman" else "male")
    sentiment = {c["text"]: c["expected"] for c in cases(built / "sentiment_checklist")}
    assert sentiment["The flight was not good."] == "negative"
    assert sentiment["Do I think the food was great? No."] == "negative"
    nli = [c for c in cases(built / "nli") if c["capability"] == "NLI-time"]
    for c in nli:  # YEAR1 < YEAR2 decides the label, in every case
        years = [int(w) for w in c["premise"].rstrip(".").split() if w.isdigit()]
        assert c["expected"] == ("entailment" if years[0] < years[1] else "contradiction")


def test_nli_word_overlap_baseline_fails_antonyms_and_negation(built, tmp_path):
    task = load_spec("nli").task
    model = load_model("autocheck.baselines:word_overlap_nli", task)
    results = run_suite(built / "nli", [model], tmp_path / "run")["models"][model.name]["capabilities"]
    assert results["NLI-antonym"]["failure_rate"] == 1.0
    assert results["NLI-negation"]["failure_rate"] >= 0.6
    assert results["NLI-and"]["failure_rate"] == 0.0


def test_qqp_suite_runs_a_pair_classifier_and_a_symmetric_callable(built, tmp_path):
    task = load_spec("qqp").task
    path = tiny_bert(tmp_path / "qqp-bert", "ForSequenceClassification", WORDS, {0: "LABEL_0", 1: "LABEL_1"})
    model = load_model(path, task, device="cpu")
    assert isinstance(model, HFModel) and model.labels == ("not_duplicate", "duplicate")
    first = model.predict_proba([("Who is taller?", "How can I be?")])
    swapped = model.predict_proba([("How can I be?", "Who is taller?")])
    assert first.shape == (1, 2) and abs(first - swapped).max() > 1e-3  # both questions reach the model

    symmetric = tmp_path / "same.py"
    symmetric.write_text(
        "def f(records):\n"
        "    same = [set(r['question1'].split()) == set(r['question2'].split()) for r in records]\n"
        "    return [[0.1, 0.9] if s else [0.9, 0.1] for s in same]\n"
    )
    results = run_suite(built / "qqp", [model, load_model(f"{symmetric}:f", task)], tmp_path / "run")
    same = results["models"][f"{symmetric}:f"]["capabilities"]
    assert same["QQP-symmetry"]["failure_rate"] == 0.0  # a symmetric model passes the symmetry test
    assert same["QQP-used-to"]["failure_rate"] == 0.0 and same["QQP-active-passive"]["failure_rate"] == 0.5
    assert results["models"][path]["capabilities"]["QQP-names"]["all"]["applicable"] == 200


def test_squad_suite_runs_a_question_answering_model_and_a_callable(built, tmp_path):
    task = load_spec("squad").task
    model = load_model(tiny_bert(tmp_path / "qa-bert", "ForQuestionAnswering", WORDS), task, device="cpu")
    assert isinstance(model, HFQuestionAnswering)
    results = run_suite(built / "squad", [model], tmp_path / "run")
    rows = list(read_jsonl(tmp_path / "run" / "predictions.jsonl"))
    by_case = {c["id"]: c for c in cases(built / "squad")}
    assert all(r["answer"] in by_case[r["case"]]["context"] for r in rows)  # a span of the context
    assert set(results["models"][model.name]["capabilities"]) == {
        c.id for c in load_spec("squad").capabilities
    }

    first_name = tmp_path / "first.py"
    first_name.write_text(
        "def f(records):\n    return [r['context'].split()[0].strip(',.') for r in records]\n"
    )
    answers = run_suite(built / "squad", [load_model(f"{first_name}:f", task)], tmp_path / "run2")
    caps = answers["models"][f"{first_name}:f"]["capabilities"]
    for gender in ("woman", "man"):  # always the first name: "P1 is not a PROF, P2 is."
        assert caps[f"MC-fairness-{gender}"]["failure_rate"] == 1.0
    assert caps["MC-agent-object"]["failure_rate"] == 0.5  # right for the agent, wrong for the object
    assert caps["MC-typos"]["failure_rate"] == 0.0  # the question's typos do not matter to it


def test_a_pair_task_exports_and_retrains(built, tmp_path):
    from autocheck.export import export_suite
    from autocheck.retrain import retrain

    model = tiny_bert(tmp_path / "qqp-bert", "ForSequenceClassification", WORDS, {0: "LABEL_0", 1: "LABEL_1"})
    summary = export_suite(built / "qqp", tmp_path / "export", seed=1)
    assert summary["label_space"] == ["not_duplicate", "duplicate"] and summary["inputs"] == [
        "question1",
        "question2",
    ]
    results = retrain(model, tmp_path / "export", tmp_path / "retrained", max_steps=2, batch_size=4)
    assert results["before"]["test_per_capability"] and results["after"]["test_accuracy"] >= 0
    squad = export_suite(built / "squad", tmp_path / "squad-export")
    assert squad["output"] == "span"
    with pytest.raises(InputError, match="question-answering export"):
        retrain(model, tmp_path / "squad-export", tmp_path / "nope")


def test_people_are_never_called_it(built):
    """A template's "it" refers back to its thing; no thing of the sentiment suite is a person."""
    from autocheck.languages.lexicons import load_lexicon

    people = {e.value for e in load_lexicon("profession")} | {"crew", "staff", "pilot", "people"}
    refers = re.compile(r"\b[Tt]he (\w+) (?:was|would be)\b[^.?]*\bit (?:is|was)\b")
    checked = 0
    for case in cases(built / "sentiment_checklist"):
        for noun in refers.findall(case["text"]):
            checked += 1
            assert noun not in people, case["text"]
    assert checked >= 500
