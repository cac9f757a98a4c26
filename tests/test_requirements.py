"""Capability specifications: the ten sentiment LCs as data, schema and semantic errors with JSON paths."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from autocheck.requirements import load_capabilities, load_spec
from autocheck.resources import project_file
from autocheck.store import InputError

SPEC = json.loads(project_file("requirements/sentiment.json").read_text(encoding="utf-8"))


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_ten_capabilities_with_original_descriptions_and_ids():
    caps = load_capabilities()
    assert [c.id for c in caps] == [f"LC{i}" for i in range(1, 11)]
    assert [c.capability for c in caps] == ["Vocabulary"] * 2 + ["Temporal"] + ["Negation"] * 4 + ["SRL"] * 3
    assert caps[0].description == "Short sentences with neutral adjectives and nouns"
    assert caps[0].cid == "1221d33" and caps[9].cid == "f75332e"  # the original's md5[:7] ids
    assert {c.test_type for c in caps} == {"MFT"}
    lc = {c.id: c for c in caps}
    assert lc["LC10"].expected_for("negative") == ("neutral", "positive")  # not strict positive
    assert lc["LC10"].expected_for("positive") == "negative"
    assert lc["LC4"].expected_for("negative") == ("neutral", "positive")
    assert lc["LC7"].expected_for("positive") == "negative"
    assert lc["LC1"].transform is None and lc["LC2"].transform is None
    assert lc["LC1"].search[0].length.max == 9  # "< 10"
    assert lc["LC1"].to_json()["cid"] == "1221d33"


def test_only_selects_by_id_or_original_cid_and_rejects_unknown_ids():
    assert [c.id for c in load_capabilities(only=["LC4", "f75332e"])] == ["LC4", "LC10"]
    with pytest.raises(InputError, match=r"unknown capability 'LC11'; valid: LC1, LC2, .*LC10"):
        load_capabilities(only=["LC11"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d["capabilities"][3]["search"][0].__setitem__("length", "<x"),
            r"\$\.capabilities\[3\]\.search\[0\]\.length: must be an object, not \"<x\"",
        ),
        (
            lambda d: d["capabilities"][0].__setitem__("test_type", "TEST"),
            r"\$\.capabilities\[0\]\.test_type: must be one of \"MFT\", \"INV\", \"DIR\", not \"TEST\"",
        ),
        (
            lambda d: d["capabilities"][2].pop("expected"),
            r"\$\.capabilities\[2\]: an MFT capability over dataset seeds needs 'expected'",
        ),
        (
            lambda d: d["capabilities"][4]["search"][0].__setitem__("pattern", "^(This"),
            r"\$\.capabilities\[4\]\.search\[0\]\.pattern: invalid regular expression",
        ),
        (
            lambda d: d["capabilities"][5]["transform"]["templates"][0].__setitem__(
                "format", "{prefix} {seed} {x}"
            ),
            r"\$\.capabilities\[5\]\.transform\.templates\[0\]\.format: unknown field \{x\}",
        ),
        (
            lambda d: d["capabilities"][5]["transform"]["templates"][0].__setitem__(
                "format", "{prefix} {postfix}"
            ),
            r"templates\[0\]\.format: needs \{seed\} exactly 1 time",
        ),
        (
            lambda d: d["capabilities"][8]["search"][0].__setitem__("label", ["positive", "happy"]),
            r"\$\.capabilities\[8\]\.search\[0\]\.label: unknown label\(s\) happy",
        ),
        (
            lambda d: d["capabilities"][2]["transform"]["templates"][0].__setitem__("labels", "neutral"),
            r"templates\[0\]\.labels: no expectation for label\(s\) neutral",
        ),
        (  # a capability's cases come from one source: its search, its templates or a named source
            lambda d: d["capabilities"][0].__setitem__("source", {"name": "lines"}),
            r"\$\.capabilities\[0\]: .* is not valid under any of the given schemas",
        ),
        (lambda d: d["capabilities"][1].__setitem__("id", "LC1"), r"\$\.capabilities\[1\]\.id: duplicate"),
        (lambda d: d.__setitem__("task", "hate"), r"\$\.task: specification is for task 'hate'"),
    ],
)
def test_bad_spec_errors_name_the_file_and_json_path(tmp_path, edit, message):
    data = copy.deepcopy(SPEC)
    edit(data)
    path = write(tmp_path, data)
    with pytest.raises(InputError, match=message) as info:
        load_capabilities(path)
    assert str(info.value).startswith(f"{path}: ")


def test_missing_or_malformed_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_capabilities(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json:1:2: not valid JSON"):
        load_capabilities(bad)


def test_a_new_capability_is_only_json(tmp_path):
    """A user-written capability with its own predicates and template loads and transforms."""
    from autocheck.records import Example
    from autocheck.sources.transform import transform

    data = {
        "task": "sentiment",
        "labels": ["negative", "neutral", "positive"],
        "capabilities": [
            {
                "id": "X1",
                "capability": "Fairness",
                "description": "Sentiment survives a reported-speech frame",
                "test_type": "MFT",
                "search": [
                    {"label": "positive", "include": [{"words": ["Film", "movie"]}], "negated": False}
                ],
                "transform": {
                    "templates": [
                        {
                            "id": "reported",
                            "format": "{who} wrote: {seed}",
                            "slots": {"who": ["My friend", "A critic"]},
                            "seed": {"quote": True},
                        }
                    ]
                },
                "expected": {"positive": "positive"},
            }
        ],
    }
    (cap,) = load_capabilities(write(tmp_path, data))
    assert cap.search[0].include[0].words == {"film", "movie"}
    cases = list(transform(cap, [Example("d:1", "A fine film.", "positive", "d")], [], 0))
    assert [c.text for c in cases] == ['My friend wrote: "A fine film"', 'A critic wrote: "A fine film"']


def test_spec_that_is_not_utf8_is_a_clear_error(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(SPEC, ensure_ascii=False).replace("LC1", "LC1 é").encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.json:1: the capability specification is not UTF-8"):
        load_capabilities(path)


@pytest.mark.parametrize("depth", [70, 5000, 200_000])
def test_deeply_nested_spec_is_a_clear_error(tmp_path, depth):
    path = tmp_path / "deep.json"
    nested = "[" * depth + "]" * depth
    path.write_text(
        '{"task": "sentiment", "labels": ["a"], "capabilities": ' + nested + "}", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"deep\.json: .*nested") as info:
        load_capabilities(path)
    assert "\n" not in str(info.value)


def test_length_range_min_above_max_names_the_json_path(tmp_path):
    data = copy.deepcopy(SPEC)
    data["capabilities"][0]["search"][0]["length"] = {"min": 9, "max": 3}
    path = write(tmp_path, data)
    with pytest.raises(
        InputError, match=r"\$\.capabilities\[0\]\.search\[0\]\.length: min 9 is greater than max 3"
    ):
        load_capabilities(path)


def test_every_schema_error_of_a_file_is_reported_at_once(tmp_path):
    data = copy.deepcopy(SPEC)
    data["capabilities"][0]["id"] = 5
    data["capabilities"][2]["test_type"] = ["MFT"]
    data["capabilities"][3]["search"][0]["length"] = {"min": 2, "max": 1}
    del data["capabilities"][1]["description"]
    path = write(tmp_path, data)
    with pytest.raises(InputError) as info:
        load_capabilities(path)
    lines = str(info.value).splitlines()
    assert len(lines) == 4, lines
    assert all(line.startswith(f"{path}: $.capabilities[") for line in lines)
    assert lines[0] == f"{path}: $.capabilities[0].id: must be a text, not 5"
    assert lines[1] == f"{path}: $.capabilities[1]: field 'description' missing"
    assert lines[2].startswith(f"{path}: $.capabilities[2].test_type: ")
    assert lines[3] == f"{path}: $.capabilities[3].search[0].length: min 2 is greater than max 1"


def test_schema_errors_are_capped(tmp_path):
    from autocheck.requirements import MAX_ERRORS

    data = copy.deepcopy(SPEC)
    extra = [copy.deepcopy(data["capabilities"][0]) for _ in range(MAX_ERRORS + 5)]
    for i, capability in enumerate(extra):
        capability["id"] = i
    data["capabilities"] = extra
    with pytest.raises(InputError) as info:
        load_capabilities(write(tmp_path, data))
    lines = str(info.value).splitlines()
    assert len(lines) == MAX_ERRORS + 1 and lines[-1].endswith("... and 5 more error(s)")
    assert "$.capabilities[2].id" in lines[2] and "$.capabilities[10].id" in lines[10]  # file order


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", "../requirements/nli", ".hidden", "a b"])
def test_a_task_is_a_name_never_a_path(tmp_path, capsys, monkeypatch, name):
    """--task and a spec's task field name a shipped spec; a path there is refused before anything is read."""
    from autocheck.cli import main
    from autocheck.requirements import task_spec

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("{}")
    with pytest.raises(InputError, match="not a name"):
        task_spec(name)
    assert main(["run", str(tmp_path), "--task", name, "--model", "m", "--out", str(tmp_path / "o")]) == 2
    assert f"task {name!r}: not a name" in capsys.readouterr().err
    spec = tmp_path / "spec.json"
    shipped = json.loads(Path(load_spec().path).read_text())
    spec.write_text(json.dumps({"task": name, "capabilities": shipped["capabilities"][:1]}))
    with pytest.raises(InputError, match="no task definition"):
        load_spec(spec)
