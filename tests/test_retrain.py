from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from autocheck.export import export_suite
from autocheck.report.compare import compare_runs
from autocheck.retrain import read_sst2, retrain
from autocheck.store import InputError
from tests.test_export import make_suite

transformers = pytest.importorskip("transformers")


@pytest.fixture
def tiny_model(tmp_path: Path) -> Path:
    """A 1-layer BERT over the words of the test suite, saved like any HF checkpoint."""
    torch.manual_seed(0)
    words = ["lc2", "lc4", "lc5", "seed", "variant", "good", "bad", "film", "."] + [str(k) for k in range(60)]
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    tokenizer = transformers.BertTokenizer(str(vocab))
    config = transformers.BertConfig(
        vocab_size=5 + len(words),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        id2label={0: "negative", 1: "positive"},
        label2id={"negative": 0, "positive": 1},
    )
    model_dir = tmp_path / "tiny"
    transformers.BertForSequenceClassification(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return model_dir


def test_retrain_tiny_model(tiny_model, tmp_path):
    torch.set_num_threads(1)
    export_suite(make_suite(tmp_path / "suite"), tmp_path / "data")
    dev = tmp_path / "dev.tsv"
    dev.write_text("sentence\tlabel\ngood film .\t1\nbad film .\t0\n")
    results = retrain(
        str(tiny_model),
        tmp_path / "data",
        tmp_path / "out",
        lr=1e-3,
        eval_sst2=str(dev),
        max_steps=12,
        suite=tmp_path / "suite",
    )
    assert results["steps"] == 12
    losses = results["losses"]
    assert sum(losses[-4:]) / 4 < sum(losses[:4]) / 4  # it learns
    assert set(results["before"]) == {"sst2_dev_accuracy", "test_accuracy", "test_per_capability"}
    assert set(results["after"]["test_per_capability"]) == {"LC2", "LC4"}  # LC5 (neutral) is not exported
    saved = json.loads((tmp_path / "out" / "retrain_results.json").read_text())
    assert saved["after"] == results["after"]
    assert "| LC4 |" in (tmp_path / "out" / "retrain_results.md").read_text()
    # the suite run before and after, linked by autocheck compare
    compared = compare_runs(tmp_path / "out" / "run-before", tmp_path / "out" / "run-after")
    flips = compared["pairs"][0]["flips"]
    assert saved["compare"]["pass_to_fail"] == sum(f["flip"] == "pass→fail" for f in flips)
    pair = compared["pairs"][0]
    assert (pair["model_a"], pair["model_b"]) == (str(tiny_model), str(tmp_path / "out" / "model"))
    assert compared["same_suite"] and compared["cases"]["shared"] == 558
    assert (tmp_path / "out" / "compare.html").is_file()
    assert "autocheck compare" in (tmp_path / "out" / "retrain_results.md").read_text()
    reloaded = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "out" / "model")
    assert reloaded.config.id2label == {0: "negative", 1: "positive"}
    with pytest.raises(InputError, match="not empty"):
        retrain(str(tiny_model), tmp_path / "data", tmp_path / "out", max_steps=1)


def test_read_sst2(tmp_path, shared_data):
    texts, labels = read_sst2(shared_data / "datasets/sst/SST-2/dev.tsv")
    assert len(texts) == len(labels) == 872
    assert set(labels) == {"negative", "positive"}
