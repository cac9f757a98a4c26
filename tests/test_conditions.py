"""Template conditions of any depth: nested attributes are evaluated, anything unreadable is a clean error."""

from __future__ import annotations

import pytest
from test_templates import NLI_HEADER, build

from autocheck.store import InputError

CITIES = [
    {"value": "Paris", "country": {"name": "France", "iso2": "FR", "eu": {"since": 1957}}},
    {"value": "Madrid", "country": {"name": "Spain", "iso2": "ES", "eu": {"since": 1986}}},
    {"value": "Oslo", "country": {"name": "Norway", "iso2": "NO"}},
]


def _cases(tmp_path, where):
    template = {
        "id": "t",
        "premise": "{name} lives in {city}.",
        "hypothesis": "{name} moved.",
        "label": "neutral",
    }
    return build(
        tmp_path,
        {
            "id": "C",
            "templates": [{**template, "where": where}],
            "lexicons": {"name": ["Ann"], "city": CITIES},
        },
        header=NLI_HEADER,
    )


def test_nested_attributes_are_evaluated(tmp_path):
    cases = _cases(tmp_path, ['city.country.iso2 != "FR"'])
    assert sorted(c.provenance["slots"]["city"] for c in cases) == ["Madrid", "Oslo"]
    cases = _cases(tmp_path, ["city.country.iso2 != 'NO' and city.country.eu.since > 1960"])
    assert [c.provenance["slots"]["city"] for c in cases] == ["Madrid"]


def test_a_missing_nested_attribute_is_a_clean_error(tmp_path):
    with pytest.raises(InputError, match=r"no attribute 'city\.country\.eu'"):
        _cases(tmp_path, ["city.country.eu.since > 1960"])  # Oslo's country has no 'eu'


@pytest.mark.parametrize(
    "where,message",
    [
        ('"FR".lower == city', "an attribute must follow a placeholder name"),
        ("not " * 100_000 + "city", "nested too deeply"),
        ("(" * 1000 + "city" + ")" * 1000, "nested too deeply|too many nested"),
    ],
)
def test_unreadable_conditions_are_refused(tmp_path, where, message):
    with pytest.raises(InputError, match=message):
        _cases(tmp_path, [where])
