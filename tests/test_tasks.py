"""Tasks as data: a task the code has never seen runs from its spec file alone, end to end; label reading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autocheck.cli import main
from autocheck.export import load_export
from autocheck.requirements import load_spec
from autocheck.store import InputError, read_jsonl

TOPICS = ["sports", "politics", "science"]

SPEC = {
    "task": "topic_pair",
    "description": "The topic of a headline and its first sentence",
    "inputs": ["headline", "body"],
    "labels": TOPICS,
    "label_aliases": {"sports": ["SPORT"], "science": ["sci"]},
    "capabilities": [
        {
            "id": "T1",
            "capability": "Vocabulary",
            "description": "A sports word in the body is sports",
            "test_type": "MFT",
            "search": [{"field": "body", "include": [{"words": ["match", "goal"]}], "label": "sports"}],
            "expected": {"sports": "sports"},
        },
        {
            "id": "T2",
            "capability": "Taxonomy",
            "description": "A written science pair",
            "test_type": "MFT",
            "templates": [
                {
                    "id": "lab",
                    "headline": "{thing} studied",
                    "body": "Scientists measured the {thing} in {year}.",
                    "label": "science",
                    "where": ["year > 2015"],
                    "lexicons": {"thing": ["comet", "virus"]},
                }
            ],
        },
    ],
}

ROWS = [
    ("Late goal", "A goal in the last minute won the match.", "sports"),
    ("Vote today", "The parliament votes on the budget.", "politics"),
    ("Cup final", "The match ended in a draw.", "sports"),
    ("New probe", "A probe reached the comet.", "science"),
]

MODEL = """
def predict(records):
    out = []
    for r in records:
        text = (r["headline"] + " " + r["body"]).lower()
        if "goal" in text:
            out.append([0.1, 0.1, 0.8])  # a bug on purpose: "goal" reads as science
        elif "match" in text:
            out.append([0.8, 0.1, 0.1])
        elif "comet" in text:
            out.append([0.1, 0.1, 0.8])
        else:
            out.append([0.2, 0.6, 0.2])
    return out
predict.labels = ["SPORT", "politics", "sci"]
"""


def write_spec(tmp_path):
    path = tmp_path / "topic_pair.json"
    path.write_text(json.dumps(SPEC))
    return path


def test_an_unseen_pair_task_runs_from_its_spec_alone(tmp_path):
    spec = write_spec(tmp_path)
    data = tmp_path / "news.csv"
    data.write_text("headline,body,label\n" + "".join(f'"{h}","{b}",{label}\n' for h, b, label in ROWS))
    model = tmp_path / "topics.py"
    model.write_text(MODEL)
    suite, runs = tmp_path / "suite", tmp_path / "runs"

    assert main(["seeds", "--requirements", str(spec), "--dataset", str(data), "--out", str(suite)]) == 0
    cases = list(read_jsonl(suite / "cases.jsonl"))
    t1 = [c for c in cases if c["capability"] == "T1"]
    assert [(c["headline"], c["expected"]) for c in t1] == [("Late goal", "sports"), ("Cup final", "sports")]
    t2 = [c for c in cases if c["capability"] == "T2"]
    assert len(t2) == 2 * 5  # two things x the years 2016..2020
    assert all(int(c["body"].split()[-1].rstrip(".")) > 2015 for c in t2)
    assert all("text" not in c for c in cases)
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["task"]["inputs"] == ["headline", "body"]
    assert manifest["capabilities"]["T2"]["description"] == "A written science pair"

    assert main(["run", str(suite), "--model", f"{model}:predict", "--out", str(runs)]) == 0
    results = json.loads((runs / "results.json").read_text())
    caps = results["models"][f"{model}:predict"]["capabilities"]
    assert caps["T1"]["all"]["failures"] == 1  # the "goal" headline
    assert caps["T2"]["failure_rate"] == 0.5  # "virus" reads as politics
    rows = [r for r in read_jsonl(runs / "predictions.jsonl") if r["case"] == t1[0]["id"]]
    assert rows[0]["label"] == "science" and len(rows[0]["probs"]) == 3

    assert main(["report", str(runs), "--html", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "<b>headline:</b> Late goal<br><b>body:</b> A goal in the last minute won the match." in page
    assert "predicted (sports / politics / science)" in page

    assert main(["export", str(suite), "--out", str(tmp_path / "export")]) == 0
    summary, splits = load_export(tmp_path / "export")
    assert summary["label_space"] == TOPICS and summary["inputs"] == ["headline", "body"]
    row = next(r for part in splits.values() for r in part)
    assert {"headline", "body"} <= set(row) and row["label_name"] in TOPICS


def test_threshold_exit_status_junit_and_markdown(tmp_path):
    spec = write_spec(tmp_path)
    data = tmp_path / "news.csv"
    data.write_text("headline,body,label\n" + "".join(f'"{h}","{b}",{label}\n' for h, b, label in ROWS))
    (tmp_path / "topics.py").write_text(MODEL)
    suite = tmp_path / "suite"
    main(["seeds", "--requirements", str(spec), "--dataset", str(data), "--out", str(suite)])
    model = f"{tmp_path / 'topics.py'}:predict"
    run = ["run", str(suite), "--model", model]
    assert main([*run, "--out", str(tmp_path / "a"), "--fail-above", "0.6"]) == 0  # worst rate is 0.5
    junit = tmp_path / "junit.xml"
    assert main([*run, "--out", str(tmp_path / "b"), "--fail-above", "T2=0.4", "--junit", str(junit)]) == 1
    xml = junit.read_text()
    # JUnit: a capability without a threshold of its own (or an overall one) fails on any failure
    assert 'tests="2" failures="2"' in xml and "T2 (MFT)" in xml and "failure rate 50.0% above 40.0%" in xml
    assert "failure rate 50.0% above 0.0%" in xml
    assert main([*run, "--out", str(tmp_path / "c"), "--fail-above", "T9=0.1"]) == 1  # no silent pass
    assert main([*run, "--out", str(tmp_path / "d"), "--fail-above", "1.5"]) == 2
    md = tmp_path / "summary.md"
    assert main(["report", str(tmp_path / "a"), "--markdown", str(md)]) == 0
    assert "| T2 | MFT | 50.0% (5/10) |" in md.read_text() and "| T1 | MFT | 50.0% (1/2) |" in md.read_text()


def test_task_header_errors_name_the_file(tmp_path):
    bad = dict(SPEC, label_aliases={"weather": ["rain"]})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputError, match=r"bad.json: \$.label_aliases: 'weather' is not one of the labels"):
        load_spec(path)
    path.write_text(json.dumps({**SPEC, "task": "unknown_task", "labels": None}))
    with pytest.raises(InputError, match=r"bad.json"):
        load_spec(path)
    path.write_text(json.dumps({**SPEC, "output": "summary"}))  # no such output kind (no plug-in adds it)
    with pytest.raises(
        InputError, match=r"bad.json: \$.output: no output kind named 'summary' \(known: entities, label"
    ):
        load_spec(path)
    no_header = {"task": "brand_new", "capabilities": SPEC["capabilities"]}
    path.write_text(json.dumps(no_header))
    with pytest.raises(InputError, match="no task definition"):
        load_spec(path)


def test_reading_model_labels_by_alias_order_and_band(tmp_path):
    task = load_spec(None, "sentiment").task
    assert task.model_labels(["LABEL_0", "LABEL_1"], "m") == ("negative", "positive")
    assert task.model_labels(["POS", "Neg"], "m") == ("positive", "negative")
    probs, labels = task.read(("negative", "positive"), np.array([[0.5, 0.5], [0.1, 0.9]]))
    assert labels == ["neutral", "positive"]  # sentiment's band, declared in its spec
    np.testing.assert_allclose(probs[0], [0, 1, 0])
    topic = load_spec(write_spec(tmp_path)).task
    assert topic.binary is None
    with pytest.raises(InputError, match="cannot read labels"):
        topic.model_labels(["LABEL_0", "LABEL_1", "LABEL_2"], "m")  # no label_order declared
    probs, labels = topic.read(("sports", "science"), np.array([[0.3, 0.7]]))  # fewer labels: zero column
    assert labels == ["science"]
    np.testing.assert_allclose(probs, [[0.3, 0.0, 0.7]])


@pytest.mark.parametrize("output", ["span", "entities"])
def test_a_kind_without_directions_takes_no_dir_and_an_inv_expects_nothing(output):
    """The span and entities kinds share what a kind without directions says of INV and DIR."""
    from autocheck.outputs import OUTPUT_KINDS
    from autocheck.requirements import default_task

    kind, task = OUTPUT_KINDS.get(output), default_task()
    assert kind.check_expected(task, "INV", None) is None
    assert kind.check_expected(task, "INV", "x") == "null expected"
    assert kind.check_expected(task, "DIR", {"direction": "up"}) == "DIR tests need a classification task"
    assert kind.check_expected(task, "ABC", None) == "test_type must be MFT, INV or DIR"
    with pytest.raises(InputError, match="DIR tests need a classification task"):
        kind.dir(task, {}, np.zeros(1), None, np.zeros(1), None)
