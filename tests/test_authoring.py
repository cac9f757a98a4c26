"""Authoring from the command line: masked-LM suggestions, {mask} in templates, perturbing a dataset; QA
expectations; CheckList's QQP and SQuAD suites imported into suites of their task."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import tiny_bert

from autocheck import expect
from autocheck.author.suggest import suggest
from autocheck.author.templates import template_cases
from autocheck.cli import main
from autocheck.expand.mlm import MaskedLM
from autocheck.outputs.span import squad_normalize
from autocheck.requirements import load_spec
from autocheck.sources.checklist import convert_checklist
from autocheck.sources.lexicon import load_lexicon
from autocheck.store import InputError, read_jsonl
from autocheck.suite import iter_cases

torch.set_num_threads(1)
VOCAB = ["the", "flight", "food", "was", "i", "really", "like", "love", "hate", "good", "bad", "great", "."]


@pytest.fixture(scope="module")
def tiny_mlm_dir(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("mlm"), "ForMaskedLM", VOCAB)


@pytest.fixture(scope="module")
def tiny_mlm(tiny_mlm_dir):
    return MaskedLM.from_pretrained(tiny_mlm_dir, device="cpu")


def test_suggest_command_prints_a_ranked_table(tiny_mlm_dir, capsys):
    args = ["suggest", "The food was {mask}.", "--mlm", str(tiny_mlm_dir), "-n", "4", "--lexicon", "none"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if "The food was " in line and "{mask}" not in line]
    assert len(rows) == 4 and rows[0].split("│")[1].strip() == "1"
    assert main(["suggest", "No mask.", "--mlm", str(tiny_mlm_dir), "--lexicon", "none"]) == 2


def test_suggestions_are_ranked_whole_words_with_pos_and_polarity(tiny_mlm, tmp_path):
    lexicon_file = tmp_path / "lexicon.tsv"
    lexicon_file.write_text(
        "good\tpositive\ngreat\tpositive\nlove\tpositive\nbad\tnegative\nhate\tnegative\n"
    )
    rows = suggest("I really {mask} the flight.", tiny_mlm, 5, lexicon=load_lexicon(str(lexicon_file)))
    assert len(rows) == 5
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)
    assert all(r.words[0] in VOCAB and r.text == f"I really {r.words[0]} the flight." for r in rows)
    assert all(len(r.tags) == 1 and r.tags[0].isupper() for r in rows)
    polar = {r.words[0]: r.polarity[0] for r in rows}
    assert all(polar[w] == {"good": "positive", "hate": "negative"}.get(w, polar[w]) for w in polar)
    with pytest.raises(InputError, match="no \\{mask\\}"):
        suggest("No mask here.", tiny_mlm)


def test_mask_placeholders_are_filled_by_the_masked_lm(tiny_mlm, tmp_path):
    spec = {
        "task": "sentiment",
        "capabilities": [
            {
                "id": "M",
                "capability": "Vocabulary",
                "description": "masked",
                "test_type": "MFT",
                "mask": {"top": 3},
                "templates": [{"id": "t", "text": "The {thing} was {mask}.", "label": "positive"}],
                "lexicons": {"thing": ["food", "flight"]},
            }
        ],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    loaded = load_spec(path)
    cases = list(template_cases(loaded.capabilities[0], loaded.task, 0).cases(mlm=tiny_mlm))
    assert len(cases) == 2 * 3  # the three best words for each filling
    for case in cases:
        prefix, word = case.text[:-1].rsplit(" ", 1)
        assert prefix in ("The food was", "The flight was") and word in VOCAB


def test_perturb_a_dataset_without_labels_into_an_inv_suite(tmp_path):
    data = tmp_path / "texts.csv"
    data.write_text("text\nMary loved the flight.\nIt was late.\nJohn hated the food.\n")
    out = tmp_path / "suite"
    assert (
        main(["perturb", str(data), "--perturbation", "change_names", "--out", str(out), "--seed", "3"]) == 0
    )
    cases = list(read_jsonl(out / "cases.jsonl"))
    seeds = [c for c in cases if c["kind"] == "seed"]
    assert [c["text"] for c in seeds] == [
        "Mary loved the flight.",
        "John hated the food.",
    ]  # no name: left out
    for seed in seeds:
        (changed,) = [c for c in cases if c["seed_id"] == seed["id"]]
        assert changed["test_type"] == "INV" and changed["text"] != seed["text"]
        assert changed["text"].split()[1:] == seed["text"].split()[1:]
        assert changed["provenance"]["perturbation"]["perturbation"] == "change_names"
    again = tmp_path / "again"
    assert (
        main(["perturb", str(data), "--perturbation", "change_names", "--out", str(again), "--seed", "3"])
        == 0
    )
    assert (again / "cases.jsonl").read_bytes() == (out / "cases.jsonl").read_bytes()
    assert main(["perturb", str(data), "--perturbation", "nope", "--out", str(tmp_path / "x")]) == 2


def test_dir_suite_from_the_command_line_reads_the_task_score(tmp_path):
    data = tmp_path / "texts.csv"
    data.write_text("text\nThe flight was fine.\n")
    out = tmp_path / "suite"
    args = ["perturb", str(data), "--perturbation", "append_phrase", "--option", 'phrases=["You are lame."]']
    assert main([*args, "--direction", "down", "--out", str(out)]) == 0
    perturbed = [c for c in read_jsonl(out / "cases.jsonl") if c["kind"] == "perturbation"]
    assert perturbed[0]["text"] == "The flight was fine. You are lame."
    expected = {"direction": "down", "tolerance": 0.1, "score": {"plus": "positive", "minus": "negative"}}
    assert perturbed[0]["expected"] == expected


def test_question_answering_expectations_use_squads_normalisation():
    task = load_spec("squad").task
    assert squad_normalize("The  Eiffel Tower!") == "eiffel tower"
    assert expect.mft_outcome(task, ("Paris", "the city of Paris"), "paris.") == expect.PASS
    assert expect.mft_outcome(task, ("Paris",), "Lyon") == expect.FAIL
    assert expect.inv_outcome(task, None, "an apple", None, "Apple") == expect.PASS
    assert expect.inv_outcome(task, None, "apple", None, "pear") == expect.FAIL


def test_checklist_qqp_and_squad_suites_convert_to_their_tasks(tmp_path):
    qqp = [
        {
            "name": "Synonyms",
            "type": "MFT",
            "capability": "Vocabulary",
            "data": [["How can I be happy?", "How can I be glad?"]],
            "labels": 1,
        },
        {
            "name": "Symmetry",
            "type": "INV",
            "capability": "Logic",
            "data": [[["a?", "b?"], ["b?", "a?"]]],
            "labels": None,
        },
    ]
    path = tmp_path / "qqp.tests.json"
    path.write_text(json.dumps(qqp))
    counts = convert_checklist(path, tmp_path / "qqp")
    assert counts == {"tests": 2, "cases": 3, "seeds": 2, "perturbations": 1}
    cases = {c.id: c for c in iter_cases(tmp_path / "qqp" / "cases.jsonl")}
    assert cases["synonyms:0"].inputs == {
        "question1": "How can I be happy?",
        "question2": "How can I be glad?",
    }
    assert cases["synonyms:0"].expected == "duplicate"
    assert cases["symmetry:0.1"].inputs["question1"] == "b?" and cases["symmetry:0.1"].kind == "perturbation"
    squad = [
        {
            "name": "Comparisons",
            "type": "MFT",
            "data": [["Ann is taller than Bo.", "Who is shorter?"]],
            "labels": ["Bo"],
        }
    ]
    path = tmp_path / "squad.tests.json"
    path.write_text(json.dumps(squad))
    convert_checklist(path, tmp_path / "squad")
    manifest = json.loads((tmp_path / "squad" / "manifest.json").read_text())
    assert manifest["task"]["output"] == "span"
    (case,) = iter_cases(tmp_path / "squad" / "cases.jsonl")
    assert (
        case.inputs == {"context": "Ann is taller than Bo.", "question": "Who is shorter?"}
        and case.expected == "Bo"
    )


def test_an_out_of_memory_masked_lm_batch_is_computed_in_halves(tiny_mlm, monkeypatch, caplog):
    texts = [f"The {w} was [MASK]." for w in ("food", "flight", "crew", "seat")]
    expected = tiny_mlm.suggest_texts(texts, beam_size=4, top_n=3)
    real = type(tiny_mlm)._forward
    sizes = []

    def small_memory(self, ids, *args):
        sizes.append(len(ids))
        if len(ids) > 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return real(self, ids, *args)

    monkeypatch.setattr(type(tiny_mlm), "_forward", small_memory)
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # compute again, not from the suggestion cache
    with caplog.at_level("WARNING"):
        again = tiny_mlm.suggest_texts(texts, beam_size=4, top_n=3)
    assert [[w for w, _ in s] for s in again] == [[w for w, _ in s] for s in expected]
    assert sizes[0] == 4 and sizes.count(1) == 4
    assert "out of memory on 4 rows; computing them in halves" in caplog.text
