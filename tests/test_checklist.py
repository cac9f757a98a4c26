"""CheckList's released suite → suite directory, and a stand-in model run on it."""

from __future__ import annotations

import gzip
import json
import pickle as pickle_module

import pytest
import torch

from autocheck.models import load_model
from autocheck.resources import ResourceMissing
from autocheck.run import iter_cases, run_suite
from autocheck.sources.checklist import LC_MAP, convert_checklist, load_checklist, slug
from autocheck.store import InputError

torch.set_num_threads(1)


def t(name, kind, data, labels=None):
    return {"name": name, "type": kind, "capability": "C", "data": data, "labels": labels}


TESTS = [
    t("single positive words", "MFT", ["good"], 2),
    t("simple negations: not negative", "MFT", ["This is not bad."]),
    t("Q & A: no", "MFT", ["Good? No", "Bad? No"], [0, 1]),
    t("typos", "INV", [["a good one", "a god one", "a goo one"]]),
    t("intensifiers", "DIR", [["It is good.", "It is very good."]]),
    t("add negative phrases", "DIR", [["Hi", "Hi. You are ugly."]]),
]


def write(tmp_path, tests):
    path = tmp_path / "suite.tests.json"
    path.write_text(json.dumps(tests))
    return path


def test_conversion_maps_expectations(tmp_path):
    counts = convert_checklist(write(tmp_path, TESTS), tmp_path / "out")
    assert counts == {"tests": 6, "cases": 11, "seeds": 7, "perturbations": 4}
    cases = {c.id: c for c in iter_cases(tmp_path / "out" / "cases.jsonl")}
    assert cases["single-positive-words:0"].expected == "positive"
    assert cases["simple-negations-not-negative:0"].expected == ("neutral", "positive")
    assert cases["q-a-no:0"].expected == "negative"
    assert cases["q-a-no:1"].expected == ("neutral", "positive")  # CheckList's allow_for_neutral
    assert cases["typos:0.2"].seed_id == "typos:0" and cases["typos:0.2"].test_type == "INV"
    assert cases["typos:0"].kind == "seed" and cases["typos:0.1"].kind == "perturbation"
    assert cases["intensifiers:0.1"].expected == {"label": None, "direction": "up", "tolerance": 0.1}
    # CheckList's own phrase tests: P(positive) - P(negative) must not go up (issue 10's fix)
    assert cases["add-negative-phrases:0.1"].expected == {
        "score": {"plus": "positive", "minus": "negative"},
        "direction": "down",
        "tolerance": 0.1,
    }
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["source"] == "checklist"
    assert manifest["lc_map"]["LC4"] == "simple-negations-not-negative"
    assert manifest["tests"]["simple-negations-not-negative"]["lc"] == "LC4"


def test_unknown_dir_test_and_bad_labels_are_clear_errors(tmp_path):
    bad_dir = [{"name": "mystery", "type": "DIR", "data": [["a", "b"]], "labels": None}]
    with pytest.raises(InputError, match="no known expectation for DIR test 'mystery'"):
        convert_checklist(write(tmp_path, bad_dir), tmp_path / "out")
    bad_label = [{"name": "x", "type": "MFT", "data": ["a"], "labels": 7}]
    with pytest.raises(InputError, match=r"test \[0\] 'x' data\[0\]: field 'labels'"):
        convert_checklist(write(tmp_path, bad_label), tmp_path / "out")


def test_a_suite_file_that_is_not_there_is_said_so_before_the_pickle_warning(tmp_path):
    # the SQuAD notebook's TestSuite.from_file('/home/marcotcr/tmp/squad_suite.pkl') on another machine
    with pytest.raises(InputError, match=r"squad_suite.pkl: CheckList suite not found"):
        load_checklist(tmp_path / "squad_suite.pkl")


def test_pickle_needs_explicit_trust(tmp_path):
    pickle = tmp_path / "sentiment_suite.pkl"
    pickle.write_bytes(b"not read")
    with pytest.raises(InputError, match="trust_pickle=True"):
        convert_checklist(pickle, tmp_path / "out")
    try:
        import checklist  # noqa: F401
    except ImportError:
        with pytest.raises(ResourceMissing, match="checklist"):
            convert_checklist(pickle, tmp_path / "out", trust_pickle=True)


def test_lc_map_names_real_checklist_tests(shared_data):
    tests = json.loads((shared_data / "checklist" / "sentiment_suite.tests.json").read_text())
    names = {t["name"] for t in tests}
    assert set(LC_MAP.values()) <= names
    assert len({slug(n) for n in names}) == len(names)


@pytest.mark.shared_data
def test_stand_in_model_on_the_checklist_suite(shared_data, tmp_path):
    source = shared_data / "checklist" / "sentiment_suite.tests.json"
    counts = convert_checklist(source, tmp_path / "suite", max_per_test=10)
    assert counts["tests"] == 38
    model = load_model(str(shared_data / "models" / "mini-bert-sst2"), batch_size=64, device="cpu")
    results = run_suite(tmp_path / "suite", [model], tmp_path / "out")
    rates = {cap: c["failure_rate"] for cap, c in results["models"][model.name]["capabilities"].items()}
    print(
        "\n".join(f"{rate if rate is None else f'{100 * rate:5.1f}%'}  {cap}" for cap, rate in rates.items())
    )
    assert rates["simple-negations-not-negative"] >= 0.5  # negation: the stand-in fails often
    assert rates["simple-negations-i-thought-x-was-positive-but-it-was-not-should-be-negative"] >= 0.5
    assert rates["single-positive-words"] <= 0.2 and rates["single-negative-words"] <= 0.2


@pytest.mark.parametrize("name", ["sentiment_suite.json", "suite.bin", "suite.tests.json"])
@pytest.mark.parametrize(
    "content",
    [
        pickle_module.dumps({"tests": ["a"]}, protocol=2),
        pickle_module.dumps({"tests": ["a"]}, protocol=5),
        gzip.compress(b"not read", mtime=0),  # no timestamp: the same test id in every xdist worker
        b"\x00\x01binary\xff",
    ],
)
def test_renamed_pickle_or_binary_is_refused_like_a_pickle(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"runs code when loaded; pass trust_pickle=True only") as info:
        convert_checklist(path, tmp_path / "out")
    assert str(info.value).startswith(f"{path}: content is ")
    assert not (tmp_path / "out" / "cases.jsonl").exists()
