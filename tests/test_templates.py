"""CheckList templates as data: placeholders, lexicons, functions, conditions, labels, sampling, errors."""

from __future__ import annotations

import json

import pytest

from autocheck.author.templates import template_cases
from autocheck.requirements import load_spec
from autocheck.store import InputError

NLI_HEADER = {
    "task": "nli_test",
    "inputs": ["premise", "hypothesis"],
    "labels": ["entailment", "neutral", "contradiction"],
}


def build(tmp_path, capability, header=NLI_HEADER, seed=0, max_cases=100_000, lexicons=None):
    spec = {
        **header,
        "capabilities": [{"capability": "X", "description": "x", "test_type": "MFT", **capability}],
    }
    if lexicons:
        spec["lexicons"] = lexicons
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    loaded = load_spec(path)
    cap = loaded.capabilities[0]
    return list(template_cases(cap, loaded.task, seed, max_cases=max_cases).cases())


def test_the_notes_five_nli_templates_make_the_papers_examples(tmp_path):
    names = ["John", "Mary", "Anna"]
    five = [
        {
            "id": "antonym",
            "premise": "{name} is {adj}.",
            "hypothesis": "{name} is {antonym:adj}.",
            "label": "contradiction",
        },
        {
            "id": "and",
            "premise": "{name} is {adj1} and {adj2}.",
            "hypothesis": "{name} is {adj1}.",
            "label": "entailment",
        },
        {
            "id": "superlative",
            "premise": "Among {name1}, {name2} and {name3} the {superlative:adj} is {name1}.",
            "hypothesis": "{name1} is {comparative:adj} than {name2}.",
            "label": "entailment",
        },
        {
            "id": "time",
            "premise": "{name1} was born in {year1} and {name2} was born in {year2}.",
            "hypothesis": "{name1} was born earlier than {name2}.",
            "where": ["YEAR1 < YEAR2"],
            "label": "entailment",
        },
        {
            "id": "city",
            "premise": "{name} lives in {city}.",
            "hypothesis": "{name} lives in {country}.",
            "where": ["city not in country"],
            "label": "contradiction",
        },
    ]
    lexicons = {
        "name": names,
        "adj": ["tall", "happy"],
        "year": {"range": [1990, 1992]},
        "city": [{"value": "Paris", "country": "France"}, {"value": "Lyon", "country": "France"}],
        "country": ["France", "Spain"],
    }
    cases = build(tmp_path, {"id": "NLI", "templates": five, "lexicons": lexicons})
    pairs = {(c.inputs["premise"], c.inputs["hypothesis"]): c.expected for c in cases}
    assert pairs[("John is tall.", "John is short.")] == "contradiction"
    assert pairs[("Mary is happy.", "Mary is unhappy.")] == "contradiction"
    assert pairs[("Anna is tall and happy.", "Anna is tall.")] == "entailment"
    assert ("Anna is tall and tall.", "Anna is tall.") not in pairs  # numbered placeholders differ
    assert (
        pairs[("Among John, Mary and Anna the tallest is John.", "John is taller than Mary.")] == "entailment"
    )
    assert pairs[("Mary was born in 1990 and John was born in 1992.", "Mary was born earlier than John.")]
    assert pairs[("John lives in Paris.", "John lives in Spain.")] == "contradiction"
    assert ("John lives in Paris.", "John lives in France.") not in pairs  # the condition is enforced
    times = [c for c in cases if c.provenance["template"] == "time"]
    assert len(times) == 3 * 2 * 3  # ordered name pairs x year pairs with year1 < year2
    for c in times:  # conditions and distinctness hold in every case
        slots = c.provenance["slots"]
        assert int(slots["year1"]) < int(slots["year2"]) and slots["name1"] != slots["name2"]


def test_shipped_lexicons_articles_attributes_and_conditional_labels(tmp_path):
    template = {
        "id": "t",
        "premise": "{first_name} is {a:profession} from {city}.",
        "hypothesis": "{first_name} lives in {city.country}.",
        "label": [{"when": "city.country == 'France'", "label": "entailment"}, {"label": "neutral"}],
    }
    cases = build(tmp_path, {"id": "C", "nsamples": 40, "templates": [template]})
    assert len(cases) == 40
    for c in cases:
        article = c.inputs["premise"].split(" is ")[1].split()[0]
        assert article in ("a", "an")
        city_country = c.inputs["hypothesis"].rsplit(" in ", 1)[1].rstrip(".")
        assert c.expected == ("entailment" if city_country == "France" else "neutral")
    engineer = build(
        tmp_path,
        {
            "id": "E",
            "templates": [{**template, "premise": "{a:job}."}],
            "lexicons": {"job": ["engineer"]},
            "nsamples": 1,
        },
    )
    assert engineer[0].inputs["premise"] == "an engineer."


def test_same_seed_same_cases_other_seed_other_sample(tmp_path):
    capability = {
        "id": "S",
        "nsamples": 20,
        "templates": [
            {
                "id": "t",
                "premise": "{first_name1} met {first_name2}.",
                "hypothesis": "{first_name2} met {first_name1}.",
                "label": "entailment",
            }
        ],
    }
    first = [c.to_json() for c in build(tmp_path, capability, seed=1)]
    again = [c.to_json() for c in build(tmp_path, capability, seed=1)]
    other = [c.to_json() for c in build(tmp_path, capability, seed=2)]
    assert first == again and first != other
    assert len({c["id"] for c in first}) == 20


@pytest.mark.parametrize(
    ("capability", "message"),
    [
        (
            {"templates": [{"id": "a", "premise": "{nope} x", "hypothesis": "y", "label": "neutral"}]},
            r"unknown placeholder \{nope\}",
        ),
        (
            {
                "templates": [
                    {"id": "a", "premise": "{shout:first_name}", "hypothesis": "y", "label": "neutral"}
                ]
            },
            "unknown function 'shout'",
        ),
        ({"templates": [{"id": "a", "premise": "x", "label": "neutral"}]}, r"formats for \['premise'\]"),
        (
            {"templates": [{"id": "a", "premise": "{first_name}", "hypothesis": "y", "label": "happy"}]},
            "unknown label",
        ),
        (
            {
                "templates": [
                    {
                        "id": "a",
                        "premise": "{first_name}",
                        "hypothesis": "y",
                        "label": "neutral",
                        "where": ["year > 1"],
                    }
                ]
            },
            "'year' is not a placeholder",
        ),
        (
            {
                "templates": [
                    {
                        "id": "a",
                        "premise": "{first_name}",
                        "hypothesis": "y",
                        "label": "neutral",
                        "where": ["__import__('os')"],
                    }
                ]
            },
            "only comparisons",
        ),
        ({"templates": [{"id": "a", "premise": "{first_name}", "hypothesis": "y"}]}, "needs 'label'"),
    ],
)
def test_template_errors_name_file_capability_and_template(tmp_path, capability, message):
    with pytest.raises(InputError, match=message) as info:
        build(tmp_path, {"id": "BAD", **capability})
    assert "spec.json: $.capabilities[0].templates[0] ('a')" in str(info.value)


def test_unmeetable_conditions_and_huge_products_are_errors_before_any_model(tmp_path):
    never = {
        "id": "t",
        "premise": "{year1}",
        "hypothesis": "{year2}",
        "label": "neutral",
        "where": ["year1 > year2", "year1 < year2"],
    }
    with pytest.raises(InputError, match=r"\('t'\): no filling meets the conditions"):
        build(tmp_path, {"id": "N", "templates": [never]})
    sampled = {**never, "nsamples": 5}
    with pytest.raises(InputError, match=r"\('t'\): no filling met the conditions in"):
        build(tmp_path, {"id": "N", "templates": [{**sampled, "premise": "{first_name1} {year1}"}]})
    huge = {
        "id": "t",
        "premise": "{first_name1} {first_name2}",
        "hypothesis": "{last_name}",
        "label": "neutral",
    }
    with pytest.raises(InputError, match="combinations exceed max_cases=1,000"):
        build(tmp_path, {"id": "H", "templates": [huge]}, max_cases=1000)


def test_one_text_task_and_question_answering_answers(tmp_path):
    sentiment = {"task": "sentiment"}  # the header comes from the shipped spec
    cases = build(
        tmp_path,
        {
            "id": "V",
            "templates": [{"id": "t", "text": "The {thing} was {adj}.", "label": "positive"}],
            "lexicons": {"thing": ["food"], "adj": ["great", "fine"]},
        },
        header=sentiment,
    )
    assert [(c.text, c.expected) for c in cases] == [
        ("The food was great.", "positive"),
        ("The food was fine.", "positive"),
    ]
    qa = {"task": "qa_test", "inputs": ["context", "question"], "output": "span"}
    cases = build(
        tmp_path,
        {
            "id": "Q",
            "templates": [
                {
                    "id": "t",
                    "context": "{name1} is taller than {name2}.",
                    "question": "Who is shorter?",
                    "answer": "{name2}",
                }
            ],
            "lexicons": {"name": ["Ann", "Bo"]},
        },
        header=qa,
    )
    assert [(c.inputs["context"], c.expected) for c in cases] == [
        ("Ann is taller than Bo.", ("Bo",)),
        ("Bo is taller than Ann.", ("Ann",)),
    ]


def test_a_product_smaller_than_nsamples_is_said(tmp_path, caplog):
    capability = {
        "id": "small",
        "nsamples": 100,
        "templates": [
            {"id": "t", "premise": "{x} is here.", "hypothesis": "{x} is here.", "label": "entailment"}
        ],
    }
    with caplog.at_level("WARNING", logger="autocheck.author.templates"):
        cases = build(tmp_path, capability, lexicons={"x": ["Ann", "Bob", "Cy"]})
    assert len(cases) == 3
    assert "only 3 fillings exist, fewer than nsamples=100" in caplog.text and "small" in caplog.text


def test_a_mask_without_a_masked_lm_is_an_error_naming_the_template(tmp_path):
    """Templates take the masked LM from their caller (authoring sits below the expansion): none given."""
    template = {"id": "m", "premise": "A {mask} runs.", "hypothesis": "It moves.", "label": "entailment"}
    with pytest.raises(InputError, match=r"^X: template m has a \{mask\}, and no masked LM was given$"):
        build(tmp_path, {"id": "X", "templates": [template]})
