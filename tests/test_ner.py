"""Named-entity recognition: entity spans, the CoNLL reader, the NER model forms and the shipped suite."""

from __future__ import annotations

import pytest

from autocheck.entities import carry, compare, decode_tags, parse_markup, shown, tags_of


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
