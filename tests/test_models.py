"""Model adapters, the three-way reading of binary models, and the prediction cache."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from autocheck.export import BINARY
from autocheck.models import default_task, load_model
from autocheck.models.callables import CallableModel
from autocheck.models.files import FilePredictions
from autocheck.models.hf import HFModel
from autocheck.resources import ResourceMissing
from autocheck.store import InputError

SENTIMENT = default_task()


def read_binary(p):
    """A binary model's P(positive) ``p`` read as the three sentiment labels: (probabilities, labels)."""
    p = np.asarray(p, dtype=float)
    return SENTIMENT.read(BINARY, np.column_stack([1 - p, p]))


def three_way(p):
    return read_binary(p)[0]


def three_way_labels(p):
    return read_binary(p)[1]


def sentiment_probs(labels, probs):
    return SENTIMENT.read(labels, probs)


def sentiment_labels(names, where):
    return SENTIMENT.model_labels(names, where)


torch.set_num_threads(1)

WORDS = ["good", "bad", "movie", "not", "the", "is", "great", "awful", "plot", "a"]


def make_bert(directory, id2label: dict[int, str], seed: int = 0):
    """A tiny random BertForSequenceClassification with its own WordPiece vocabulary, in ``directory``."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    vocab = directory / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "."]) + "\n")
    BertTokenizerFast(vocab_file=str(vocab)).save_pretrained(directory)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=16, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=32, id2label=id2label, label2id={v: k for k, v in id2label.items()},
    )  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(directory)
    return directory


def test_three_way_band_edges_follow_checklist():
    eps = 1e-12
    p = np.array([0.0, 1 / 3, 1 / 3 + eps, 0.4, 0.5, 0.6, 2 / 3 - eps, 2 / 3, 1.0])
    assert three_way_labels(p) == [
        "negative", "negative", "neutral", "neutral", "neutral", "neutral", "neutral", "positive", "positive",
    ]  # fmt: skip
    probs = three_way(p)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    np.testing.assert_allclose(probs[1], [2 / 3, 0, 1 / 3])  # on the edge: the pole formula (1 - p, 0, p)
    np.testing.assert_allclose(probs[7], [1 / 3, 0, 2 / 3])
    np.testing.assert_allclose(probs[3], [0.3, 0.7, 0.0])  # neutral = 1 - 3|p - 0.5|, rest to the nearer pole
    np.testing.assert_allclose(probs[4], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(probs[5], [0.0, 0.7, 0.3])
    assert probs[2, 1] > 0.5 and probs[6, 1] > 0.5  # just inside the band neutral wins


def test_sentiment_probs_reorders_three_class_and_reads_binary_three_way():
    probs, labels = sentiment_probs(("positive", "negative"), np.array([[0.5, 0.5], [0.9, 0.1]]))
    assert labels == ["neutral", "positive"]
    probs, labels = sentiment_probs(("positive", "neutral", "negative"), np.array([[0.1, 0.2, 0.7]]))
    np.testing.assert_allclose(probs, [[0.7, 0.2, 0.1]])
    assert labels == ["negative"]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["LABEL_0", "LABEL_1"], ("negative", "positive")),
        (["NEGATIVE", "POSITIVE"], ("negative", "positive")),
        (["POSITIVE", "NEGATIVE"], ("positive", "negative")),
        (["negative", "neutral", "positive"], ("negative", "neutral", "positive")),
        (["LABEL_0", "LABEL_1", "LABEL_2"], ("negative", "neutral", "positive")),
        (["neg", "neu", "pos"], ("negative", "neutral", "positive")),
    ],
)
def test_sentiment_labels(names, expected):
    assert sentiment_labels(names, "m") == expected


@pytest.mark.parametrize(
    "names", [["joy", "anger"], ["LABEL_0", "LABEL_1", "LABEL_2", "LABEL_3"], ["pos", "pos"]]
)
def test_unmappable_labels_are_a_clear_error(names):
    with pytest.raises(InputError, match="cannot read labels"):
        sentiment_labels(names, "model x")


def test_hf_model_from_directory_predicts_and_caches(tmp_path, monkeypatch):
    directory = make_bert(tmp_path / "bert", {0: "POSITIVE", 1: "NEGATIVE"})
    model = load_model(str(directory), batch_size=2, device="cpu")
    assert isinstance(model, HFModel)
    assert model.labels == ("positive", "negative")
    assert model.identity.startswith("hf:bert#")
    texts = ["the movie is good .", "bad plot", "the movie is good .", "a " * 100]  # long text truncates
    probs = model.predict_proba(texts)
    assert probs.shape == (4, 2)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(probs[0], probs[2])

    def no_weights(*args, **kwargs):
        raise AssertionError("the weights were loaded")

    monkeypatch.setattr(transformers.AutoModelForSequenceClassification, "from_pretrained", no_weights)
    again = load_model(str(directory), device="cpu")  # a new process would load it the same way
    np.testing.assert_allclose(again.predict_proba(texts), probs)  # every text from the prediction cache
    assert again.labels == ("positive", "negative")  # read from the config alone


def test_hf_weights_that_cannot_load_stop_the_run_on_the_first_batch(tmp_path):
    directory = make_bert(tmp_path / "bert", {0: "negative", 1: "positive"})
    (directory / "model.safetensors").write_bytes(b"not a checkpoint")
    model = load_model(str(directory), device="cpu")  # the config is fine
    with pytest.raises(ResourceMissing, match="directory '.*bert' could not be loaded"):
        model.predict_proba(["good"])  # not recorded as a failed input and the run going on


def test_hf_identity_changes_with_weights(tmp_path):
    a = load_model(str(make_bert(tmp_path / "a", {0: "negative", 1: "positive"}, seed=0)), device="cpu")
    b = load_model(str(make_bert(tmp_path / "b", {0: "negative", 1: "positive"}, seed=1)), device="cpu")
    assert a.identity.split("#")[1] != b.identity.split("#")[1]


def test_hf_three_class_generic_labels(tmp_path):
    model = load_model(
        str(make_bert(tmp_path / "m", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})), device="cpu"
    )
    assert model.labels == ("negative", "neutral", "positive")
    assert model.predict_proba(["good"]).shape == (1, 3)


def test_hf_unmappable_labels(tmp_path):
    with pytest.raises(InputError, match="joy"):
        load_model(str(make_bert(tmp_path / "m", {0: "joy", 1: "anger"})), device="cpu")


def test_missing_hf_model_is_resource_missing():
    with pytest.raises(ResourceMissing, match="no-such-org/no-such-model") as e:
        load_model("no-such-org/no-such-model")
    assert "\n" not in str(e.value)


def test_callable_from_file_with_declared_labels(tmp_path):
    source = tmp_path / "mymodel.py"
    source.write_text(
        "CALLS = []\n"
        "def predict(texts):\n"
        "    CALLS.append(list(texts))\n"
        "    return [[0.9, 0.1] if 'bad' in t else [0.2, 0.8] for t in texts]\n"
        "predict.labels = ['NEGATIVE', 'POSITIVE']\n"
        "predict.version = '1'\n"
    )
    model = load_model(f"{source}:predict", batch_size=2)
    assert isinstance(model, CallableModel) and model.labels == ("negative", "positive")
    probs = model.predict_proba(["bad", "good", "bad", "fine"])
    np.testing.assert_allclose(probs, [[0.9, 0.1], [0.2, 0.8], [0.9, 0.1], [0.2, 0.8]])
    calls = model.fn.__globals__["CALLS"]
    assert sorted(t for batch in calls for t in batch) == ["bad", "fine", "good"]  # each distinct text once
    assert all(len(batch) <= 2 for batch in calls)
    model.predict_proba(["good", "bad"])
    assert len(calls) == 2  # cached (a declared version): no new call


def test_callable_module_function_default_three_classes(tmp_path, monkeypatch):
    (tmp_path / "three_class_model.py").write_text(
        "def f(texts):\n    return [[0.1, 0.7, 0.2] for _ in texts]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    model = load_model("three_class_model:f")
    assert model.predict_proba(["x"]).shape == (1, 3)
    assert model.labels == ("negative", "neutral", "positive")
    assert model.identity.startswith("callable:three_class_model:f#")


def test_callable_bad_spec_and_bad_shape(tmp_path):
    with pytest.raises(InputError, match="no function or model 'nope'"):
        load_model("json:nope")
    model = CallableModel("bad", lambda texts: [[1.0, 0.0, 0.0, 0.0] for _ in texts], SENTIMENT)
    with pytest.raises(InputError, match="4 probability columns"):
        model.predict_proba(["x"])


@pytest.mark.parametrize(
    "lines",
    [["0 0.9 0.1", "1 0.2 0.8", "1 0.4 0.6"], ["0.9 0.1", "0.2 0.8", "0.4 0.6"]],
    ids=["label+probs", "probs"],
)
def test_file_predictions_in_case_or_distinct_text_order(tmp_path, lines):
    path = tmp_path / "preds.txt"
    path.write_text("\n".join(lines) + "\n")
    model = load_model(f"file:{path}")
    assert isinstance(model, FilePredictions) and model.labels == ("negative", "positive")
    inputs = [("a",), ("b",), ("c",)]
    model.align(inputs, [0, 1, 2])
    np.testing.assert_allclose(model.predict_proba(["c", "a"]), [[0.4, 0.6], [0.9, 0.1]])
    model.align(inputs, [0, 1, 0, 2])  # 3 lines for 4 cases: one line per distinct input
    np.testing.assert_allclose(model.predict_proba(["b"]), [[0.2, 0.8]])
    with pytest.raises(InputError, match="3 predictions, but the suite has 2 cases and 2 distinct inputs"):
        model.align(inputs[:2], [0, 1])


def test_file_predictions_three_class_and_bad_line(tmp_path):
    path = tmp_path / "preds.txt"
    path.write_text("2 0.1 0.2 0.7\n")
    assert load_model(f"file:{path}").labels == ("negative", "neutral", "positive")
    path.write_text("0.1 0.2\n0.5 0.5\n")
    with pytest.raises(InputError, match=r"preds.txt:1: expected"):
        load_model(f"file:{path}")


def test_callable_without_declared_labels_reads_cached_answers(tmp_path, monkeypatch):
    (tmp_path / "undeclared.py").write_text("def f(texts):\n    return [[0.3, 0.7] for _ in texts]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = load_model("undeclared:f", version="1").predict([("a",), ("b",)])
    again = load_model("undeclared:f", version="1")  # a new process: every answer comes from the cache
    outputs = again.predict([("a",), ("b",)])
    assert outputs.cached == 2
    assert again.labels == ("negative", "positive")
    np.testing.assert_allclose(outputs.probs, first.probs)
