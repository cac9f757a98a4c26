"""The hate-speech task: HateCheck seeds through expansion, a run against a bag-of-words model trained here on
HateCheck's own cases, report and export; HateXplain's file format."""

from __future__ import annotations

import json

import pytest
from conftest import require

from autocheck.cli import main
from autocheck.expand.words import identity_terms
from autocheck.export import load_export
from autocheck.sources.datasets import DatasetStats, load_examples
from autocheck.sources.lexicon import load_lexicon
from autocheck.store import read_jsonl

BAG_OF_WORDS = """
import csv, math, re
from collections import Counter

ROWS = list(csv.DictReader(open({data!r}, encoding="utf-8")))
COUNTS = {{"hateful": Counter(), "non-hateful": Counter()}}
for row in ROWS[::2]:  # train on every other case
    COUNTS[row["label_gold"]].update(re.findall(r"[a-z']+", row["test_case"].lower()))
TOTAL = {{label: sum(c.values()) + len(c) for label, c in COUNTS.items()}}

def predict(texts):
    out = []
    for text in texts:
        score = 0.0
        for word in re.findall(r"[a-z']+", text.lower()):
            score += math.log((COUNTS["hateful"][word] + 1) / TOTAL["hateful"])
            score -= math.log((COUNTS["non-hateful"][word] + 1) / TOTAL["non-hateful"])
        p = 1 / (1 + math.exp(-max(-30.0, min(30.0, score))))
        out.append([1 - p, p])
    return out

predict.labels = ["non-hateful", "hateful"]
"""


@pytest.mark.shared_data
def test_hate_speech_runs_end_to_end_on_hatecheck(shared_data, tmp_path):
    data = require(shared_data / "datasets/hatecheck/test_suite_cases.csv")
    parser = require(shared_data / "models/benepar_ptbsample_charlstm")
    mlm = require(shared_data / "models/mini-bert-mlm")
    (tmp_path / "bow.py").write_text(BAG_OF_WORDS.format(data=str(data)))
    suite, runs = tmp_path / "suite", tmp_path / "runs"
    generate = ["generate", "--task", "hate_speech", "--dataset", str(data), "--out", str(suite)]
    generate += ["--parser", str(parser), "--mlm", str(mlm), "--max-seeds", "3"]
    generate += ["--max-variants", "1", "--seed", "1"]
    for capability in ("HS1", "HS3", "HS4", "HS8"):
        generate += ["--capability", capability]
    assert main(generate) == 0
    cases = list(read_jsonl(suite / "cases.jsonl"))
    kinds = {(c["capability"], c["kind"]) for c in cases}
    assert ("HS1", "expansion") in kinds and ("HS8", "perturbation") in kinds
    hs4 = next(c for c in cases if c["capability"] == "HS4" and c["kind"] == "seed")
    assert (
        hs4["text"].startswith(('Statements like "', "You should stop saying"))
        and hs4["expected"] == "non-hateful"
    )
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["task"]["labels"] == ["non-hateful", "hateful"]
    # inserted words were validated with the task's own lexicon: no identity term, slur or hateful word
    assert manifest["resources"]["lexicon"]["name"] == "hate_speech"
    lexicon = load_lexicon(manifest["resources"]["lexicon"]["source"])
    inserted = [i["word"] for c in cases if c["kind"] == "expansion" for i in c["provenance"]["inserted"]]
    assert inserted and all(lexicon.is_neutral(word.lower(), None) for word in inserted)
    assert not {word.lower() for word in inserted} & identity_terms()  # "black [white] people" (issue #35)

    assert main(["run", str(suite), "--model", f"{tmp_path / 'bow.py'}:predict", "--out", str(runs)]) == 0
    results = json.loads((runs / "results.json").read_text())
    capabilities = next(iter(results["models"].values()))["capabilities"]
    assert set(capabilities) == {"HS1", "HS3", "HS4", "HS8"}
    # quoting hate to denounce it still reads as hate: counter-speech is the bag of words' weak spot
    rates = {name: capabilities[name]["failure_rate"] for name in ("HS1", "HS3", "HS4")}
    assert rates["HS4"] > 3 * max(rates["HS1"], rates["HS3"]), rates

    assert main(["report", str(runs), "--html", str(tmp_path / "report.html")]) == 0
    page = (tmp_path / "report.html").read_text()
    assert "Counter-speech — Counter-speech quoting hate is not hateful" in page
    assert "predicted (non-hateful / hateful)" in page
    assert main(["export", str(suite), "--out", str(tmp_path / "export")]) == 0
    summary, splits = load_export(tmp_path / "export")
    assert summary["label_space"] == ["non-hateful", "hateful"]
    assert sum(summary["totals"].values()) == sum(1 for c in cases if c["test_type"] == "MFT")


def test_hatexplain_posts_take_the_annotators_majority(tmp_path):
    posts = {
        "1": {
            "post_tokens": ["i", "hate", "them"],
            "annotators": [{"label": "hatespeech"}] * 2 + [{"label": "normal"}],
        },
        "2": {
            "post_tokens": ["nice", "day"],
            "annotators": [{"label": "normal"}, {"label": "offensive"}, {"label": "normal"}],
        },
        "3": {
            "post_tokens": ["hmm"],
            "annotators": [{"label": "hatespeech"}, {"label": "offensive"}, {"label": "normal"}],
        },
    }
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(posts))
    stats = DatasetStats()
    examples = list(load_examples(str(path), stats=stats))
    assert [(e.id, e.text, e.label) for e in examples] == [
        ("hatexplain:1", "i hate them", "hateful"),
        ("hatexplain:2", "nice day", "non-hateful"),  # offensive counts as not hateful, as ALiCT did
    ]
    assert stats.skipped == {"undecided": 1}


def test_the_task_validates_expansions_with_its_own_lexicon_unless_lexicon_names_another():
    from autocheck.doctor import check
    from autocheck.requirements import load_spec

    hate, sentiment = load_spec(None, "hate_speech").task, load_spec(None, "sentiment").task
    own = hate.polarity_lexicon(None)
    assert own.endswith("data/lexicons/hate_speech.tsv")
    assert hate.polarity_lexicon("opinion") == "opinion"
    # naming the default lexicon is naming it too, not leaving --lexicon out
    assert hate.polarity_lexicon("sentiwordnet") == "sentiwordnet"
    assert sentiment.polarity_lexicon(None) == "sentiwordnet"
    # the pre-flight checks the lexicon generate will load
    names = [row.name for row in check("hate_speech", command="generate")]
    assert f"lexicon: {own}" in names and "lexicon: sentiwordnet" not in names
    lexicon = load_lexicon(own)
    # an identity term changes the target, a slur or a hateful word adds hate, support takes it away
    for word in ("women", "muslims", "immigrants", "jews", "vermin", "disgusting", "love", "respect"):
        assert not lexicon.is_neutral(word, None), word
    for word in ("really", "film", "people", "today", "bad"):  # sentiment words are no concern here
        assert lexicon.is_neutral(word, None), word
