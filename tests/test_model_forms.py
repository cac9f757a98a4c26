"""Which answers a run uses (the prediction cache and what pins it), every Python model form, prediction
files matched by id or text, a model directory without the task's head, and the whole-request deadline.

Models are real: HTTP servers on 127.0.0.1, callables in files, tiny random-weight BERTs built here."""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest
from conftest import tiny_bert
from json_endpoint import JsonEndpoint

from autocheck.cache import file_checksum
from autocheck.cli import main
from autocheck.models import as_model, default_task, load_model
from autocheck.models.base import Model
from autocheck.records import TestCase
from autocheck.run import run_suite
from autocheck.store import InputError, read_jsonl

SENTIMENT = default_task()
WORDS = ["good", "bad", "fine", "great", "awful", "film", "plot", "very", "not"]
UP = {"label": "positive", "direction": "up", "tolerance": 0.1}


def write_suite(directory: Path) -> Path:
    """Eight MFT cases over six distinct inputs, and a DIR pair."""
    cases = [
        TestCase("s1", "LC1", "seed", "good film", "positive", "MFT", ""),
        TestCase("e1", "LC1", "expansion", "very good film", "positive", "MFT", "", "s1"),
        TestCase("e2", "LC1", "expansion", "not good film", "positive", "MFT", "", "s1"),
        TestCase("s2", "LC2", "seed", "bad plot", "negative", "MFT", ""),
        TestCase("e3", "LC2", "expansion", "very bad plot", "negative", "MFT", "", "s2"),
        TestCase("e4", "LC2", "expansion", "fine plot", "negative", "MFT", "", "s2"),
        TestCase("dup", "LC2", "seed", "good film", "positive", "MFT", ""),
        TestCase("d0", "DIR1", "seed", "fine film", UP, "DIR", ""),
        TestCase("d0.1", "DIR1", "expansion", "great film", UP, "DIR", "", "d0"),
    ]
    directory.mkdir()
    (directory / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    (directory / "manifest.json").write_text(json.dumps({"kind": "suite", "task": SENTIMENT.to_json()}))
    return directory


INPUTS = ["good film", "very good film", "not good film", "bad plot", "very bad plot", "fine plot"]
INPUTS += ["fine film", "great film"]


def p_positive(text: str, weight: float = 1.0) -> float:
    """A hand-made binary model: P(positive) from the words."""
    score = sum({"good": 2, "great": 3, "fine": 0.5, "bad": -2, "awful": -3}.get(w, 0) for w in text.split())
    score *= -1 if "not" in text.split() else 1
    return float(1 / (1 + np.exp(-weight * score)))


def rates(results: dict, model: str) -> dict[str, float | None]:
    return {cap: r["failure_rate"] for cap, r in results["models"][model]["capabilities"].items()}


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["models"]


# ------------------------------------------------------------------------------------ endpoints


class Endpoint(JsonEndpoint):
    """An HTTP endpoint of autocheck's protocol on 127.0.0.1; ``answer`` and ``version`` may be swapped
    between runs (a redeployment at the same URL)."""

    def __init__(self, answer, version=None):
        self.answer, self.version = answer, version

        def reply(body: dict) -> tuple[int, dict]:
            out: dict = {"predictions": [self.answer(x["text"]) for x in body["inputs"]]}
            if self.version is not None:
                out["model_version"] = self.version
            return 200, out

        super().__init__(reply)


@pytest.fixture
def endpoint():
    started = []

    def start(answer, version=None):
        started.append(Endpoint(answer, version))
        return started[-1]

    yield start
    for e in started:
        e.stop()


def binary_reply(weight):
    return lambda text: {
        "label": "x",
        "probs": {"negative": 1 - p_positive(text, weight), "positive": p_positive(text, weight)},
    }


def test_an_endpoint_redeployed_at_the_same_url_is_asked_again(endpoint, tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    server = endpoint(binary_reply(1.0))
    run = ["run", str(suite), "--model", server.url, "--batch-size", "3", "--retries", "0"]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0
    first = server.requests
    assert first == 3  # 8 distinct inputs in batches of 3
    server.answer = binary_reply(-1.0)  # another model behind the same URL
    assert main([*run, "--out", str(tmp_path / "b")]) == 0
    assert server.requests == 2 * first  # asked again, nothing served from the cache
    a = {r["case"]: r["label"] for r in read_jsonl(tmp_path / "a" / "predictions.jsonl")}
    b = {r["case"]: r["label"] for r in read_jsonl(tmp_path / "b" / "predictions.jsonl")}
    assert a["s1"] == "positive" and b["s1"] == "negative"  # the new model's answers
    assert manifest(tmp_path / "b")[server.url] == {
        "identity": f"http:{server.url}",
        "inputs": 8,
        "from_cache": 0,
        "reused_across_runs": False,
    }
    assert (
        f"{server.url}: 0 of 8 answers from the prediction cache (kept for this run only)"
        in capsys.readouterr().out
    )


def test_an_endpoint_naming_its_model_version_is_cached_under_it(endpoint, tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    server = endpoint(binary_reply(1.0), version="2024-06-01")
    run = ["run", str(suite), "--model", server.url, "--batch-size", "3", "--retries", "0"]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0
    assert server.requests == 3
    assert main([*run, "--out", str(tmp_path / "b")]) == 0
    assert server.requests == 4  # one batch to learn the version, the other 5 inputs from the cache
    record = manifest(tmp_path / "b")[server.url]
    assert record["from_cache"] == 5 and record["reused_across_runs"]
    assert record["identity"] == f"http:{server.url} version:2024-06-01"
    assert (tmp_path / "a" / "results.json").read_bytes() == (tmp_path / "b" / "results.json").read_bytes()

    server.answer, server.version = binary_reply(-1.0), "2024-07-01"  # redeployed, and says so
    assert main([*run, "--out", str(tmp_path / "c")]) == 0
    assert server.requests == 7 and manifest(tmp_path / "c")[server.url]["from_cache"] == 0
    c = {r["case"]: r["label"] for r in read_jsonl(tmp_path / "c" / "predictions.jsonl")}
    assert c["s1"] == "negative"


def test_a_declared_endpoint_version_asks_nothing_for_cached_inputs(endpoint, tmp_path, caplog):
    suite = write_suite(tmp_path / "suite")
    server = endpoint(binary_reply(1.0))
    run = ["run", str(suite), "--model", server.url, "--model-version", "v1", "--retries", "0"]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0
    assert main([*run, "--out", str(tmp_path / "b")]) == 0
    assert server.requests == 1 and manifest(tmp_path / "b")[server.url]["from_cache"] == 8
    assert main([*run, "--out", str(tmp_path / "c"), "--no-cache"]) == 0
    assert server.requests == 2 and manifest(tmp_path / "c")[server.url]["from_cache"] == 0

    server.version = "v3"  # the endpoint contradicts the declared version: nothing is cached under it
    run[run.index("v1")] = "v2"
    assert main([*run, "--out", str(tmp_path / "d")]) == 0
    assert main([*run, "--out", str(tmp_path / "e")]) == 0
    assert server.requests == 4 and manifest(tmp_path / "e")[server.url]["from_cache"] == 0
    assert "answers as model_version 'v3', not 'v2'" in caplog.text


# ------------------------------------------------------------------------------------ callables

WEIGHTS_MODEL = """
import json, math
from pathlib import Path

LOG = Path({log!r})

def predict(texts):
    weight = json.loads(Path({weights!r}).read_text())["weight"]  # read from outside the source file
    with LOG.open("a") as f:
        f.write(f"{{len(texts)}}\\n")
    out = []
    for t in texts:
        s = sum({{"good": 2, "great": 3, "fine": 0.5, "bad": -2, "awful": -3}}.get(w, 0) for w in t.split())
        s *= -1 if "not" in t.split() else 1
        p = 1 / (1 + math.exp(-weight * s))
        out.append([1 - p, p])
    return out
"""


def weights_model(tmp_path: Path, weight: float) -> tuple[str, Path, Path]:
    log, weights = tmp_path / "calls.log", tmp_path / "weights.json"
    weights.write_text(json.dumps({"weight": weight}))
    source = tmp_path / "weighted.py"
    source.write_text(WEIGHTS_MODEL.format(log=str(log), weights=str(weights)))
    return f"{source}:predict", weights, log


def computed(log: Path) -> int:
    return sum(int(n) for n in log.read_text().split()) if log.exists() else 0


def test_a_callable_whose_weights_file_changes_gives_new_answers(tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    spec, weights, log = weights_model(tmp_path, 1.0)
    run = ["run", str(suite), "--model", spec]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0
    weights.write_text(json.dumps({"weight": -1.0}))  # retrained: same code, other weights
    assert main([*run, "--out", str(tmp_path / "b")]) == 0
    assert computed(log) == 16  # every input computed in both runs
    a = json.loads((tmp_path / "a" / "results.json").read_text())
    b = json.loads((tmp_path / "b" / "results.json").read_text())
    assert rates(a, spec)["LC1"] == pytest.approx(1 / 3) and rates(b, spec)["LC1"] == pytest.approx(2 / 3)
    assert manifest(tmp_path / "b")[spec]["from_cache"] == 0
    assert "0 of 8 answers from the prediction cache (kept for this run only)" in capsys.readouterr().out


def test_a_declared_callable_version_reuses_its_answers_and_no_cache_asks_again(tmp_path, capsys):
    suite = write_suite(tmp_path / "suite")
    spec, _, log = weights_model(tmp_path, 1.0)
    run = ["run", str(suite), "--model", spec, "--model-version", "2024-06"]
    assert main([*run, "--out", str(tmp_path / "a")]) == 0
    assert main([*run, "--out", str(tmp_path / "b")]) == 0
    assert computed(log) == 8  # the second run computed nothing
    assert manifest(tmp_path / "b")[spec]["from_cache"] == 8
    assert "8 of 8 answers from the prediction cache (reused across runs)" in capsys.readouterr().out
    assert (tmp_path / "a" / "results.json").read_bytes() == (tmp_path / "b" / "results.json").read_bytes()
    assert main([*run, "--out", str(tmp_path / "c"), "--no-cache"]) == 0
    assert computed(log) == 16

    source = Path(spec.rsplit(":", 1)[0])  # a version attribute on the function pins it too
    source.write_text(source.read_text() + "\npredict.version = '7'\n")
    assert load_model(spec).pinned and load_model(spec).identity.endswith(" version:7")
    assert (
        main(
            [
                "run",
                str(suite),
                "--model",
                spec,
                "--model-version",
                "1",
                "--model-version",
                "2",
                "--out",
                str(tmp_path / "d"),
            ]
        )
        == 2
    )


def test_file_checksum_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    import autocheck.cache

    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"a" * 1000)
    real, hashed = autocheck.cache.file_sha256, []
    monkeypatch.setattr(autocheck.cache, "file_sha256", lambda p: hashed.append(p) or real(p))
    first = file_checksum(weights)
    assert file_checksum(weights) == first and len(hashed) == 1  # the second time from the cache
    weights.write_bytes(b"b" * 1000)  # same size, new content and modification time
    os.utime(weights, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert file_checksum(weights) != first and len(hashed) == 2


def test_hf_directory_is_pinned_by_its_weights(tmp_path):
    bert = tiny_bert(tmp_path / "clf", "ForSequenceClassification", WORDS, {0: "negative", 1: "positive"})
    model = load_model(bert)
    assert model.pinned and model.predict([("good film",)]).cached == 0
    again = load_model(bert)
    assert again.identity == model.identity and again.predict([("good film",)]).cached == 1


# --------------------------------------------------------------------------------- Python models


def probabilities(texts):
    return [[1 - p_positive(t), p_positive(t)] for t in texts]


def labels(texts):
    return ["POSITIVE" if p_positive(t) >= 0.5 else "NEGATIVE" for t in texts]


def top_one(texts):
    return [
        {"label": "POSITIVE" if p >= 0.5 else "NEGATIVE", "score": max(p, 1 - p)}
        for p in map(p_positive, texts)
    ]


def every_class(texts):
    rows = [
        [{"label": "POSITIVE", "score": p}, {"label": "NEGATIVE", "score": 1 - p}]
        for p in map(p_positive, texts)
    ]
    return [row if i % 2 else row[::-1] for i, row in enumerate(rows)]  # in score order: any order


top_one.labels = ["NEGATIVE", "POSITIVE"]  # a top-1 answer spreads the rest over the declared classes


@pytest.mark.parametrize("fn", [probabilities, top_one, every_class], ids=lambda f: f.__name__)
def test_callables_returning_each_supported_shape_give_the_same_results(fn, tmp_path):
    suite = write_suite(tmp_path / "suite")
    expected = run_suite(suite, [probabilities], tmp_path / "reference")
    results = run_suite(suite, [fn], tmp_path / "out")
    name = f"{__name__}:{fn.__name__}"
    assert rates(results, name) == rates(expected, f"{__name__}:probabilities")
    probs = [r["probs"] for r in read_jsonl(tmp_path / "out" / "predictions.jsonl")]
    assert probs == [r["probs"] for r in read_jsonl(tmp_path / "reference" / "predictions.jsonl")]


def test_a_callable_returning_labels_is_label_only(tmp_path):
    suite = write_suite(tmp_path / "suite")
    expected = run_suite(suite, [probabilities], tmp_path / "reference")
    results = run_suite(suite, [labels], tmp_path / "out")
    model = results["models"][f"{__name__}:labels"]
    ref = rates(expected, f"{__name__}:probabilities")
    assert rates(results, f"{__name__}:labels")["LC1"] == ref["LC1"] and ref["LC1"] is not None
    assert model["capabilities"]["DIR1"]["all"]["applicable"] == 0  # DIR needs probabilities
    assert "without probabilities" in model["not_applicable"]["DIR"]
    rows = {r["case"]: r for r in read_jsonl(tmp_path / "out" / "predictions.jsonl")}
    assert rows["d0.1"]["outcome"] == "n/a" and "without probabilities" in rows["d0.1"]["reason"]


def test_a_wrong_shape_is_one_clear_error_after_the_first_batch(tmp_path):
    calls = []

    def scores(texts):
        calls.append(len(texts))
        return [{"positive": p_positive(t)} for t in texts]  # neither probabilities nor a label

    suite = write_suite(tmp_path / "suite")
    with pytest.raises(InputError) as error:
        run_suite(suite, [as_model(scores, SENTIMENT, batch_size=2)], tmp_path / "out")
    assert calls == [2]  # the first batch only: not retried in halves
    message = str(error.value)
    assert "dict {'positive'" in message and "expected a list of" in message and '"label"' in message
    assert "\n" not in message

    def one_number(texts):
        return [0.5 for _ in texts]

    with pytest.raises(InputError, match=r"shape \(\)"):
        run_suite(suite, [one_number], tmp_path / "out2")

    def words(texts):
        calls.append(len(texts))
        return [["very", "positive"] for _ in texts]

    with pytest.raises(InputError, match=r"an answer is list \['very', 'positive'\]; expected a list of"):
        run_suite(suite, [as_model(words, SENTIMENT, batch_size=2)], tmp_path / "out3")
    assert calls == [2, 2]


class Estimator:
    """scikit-learn's protocol without scikit-learn: classes_ and predict_proba."""

    classes_ = np.array([0, 1])

    def predict_proba(self, texts):
        return np.array(probabilities(texts))


def test_an_estimator_with_predict_proba_and_classes(tmp_path):
    suite = write_suite(tmp_path / "suite")
    expected = run_suite(suite, [probabilities], tmp_path / "reference")
    results = run_suite(suite, [Estimator()], tmp_path / "out")
    name = f"{__name__}:Estimator"
    assert results["models"][name]["labels"] == ["negative", "positive"]
    assert rates(results, name) == rates(expected, f"{__name__}:probabilities")
    assert not as_model(Estimator()).pinned
    with pytest.raises(InputError, match="not a model"):
        as_model(42)


def test_a_pipeline_object_and_a_pipeline_spec_answer_as_the_model_directory(tmp_path):
    transformers = pytest.importorskip("transformers")
    suite = write_suite(tmp_path / "suite")
    bert = tiny_bert(tmp_path / "clf", "ForSequenceClassification", WORDS, {0: "negative", 1: "positive"})
    pipe = transformers.pipeline("text-classification", model=bert, device="cpu")
    results = run_suite(suite, [pipe, load_model(bert)], tmp_path / "out")
    rows = list(read_jsonl(tmp_path / "out" / "predictions.jsonl"))
    name = f"pipeline:text-classification:{bert}"
    by_model = {m: [r["probs"] for r in rows if r["model"] == m] for m in (name, bert)}
    np.testing.assert_allclose(by_model[name], by_model[bert], atol=1e-5)
    assert results["models"][name]["labels"] == ["negative", "positive"]
    spec = load_model(name)
    assert spec.pinned and spec.identity == as_model(pipe).identity
    assert isinstance(spec, Model) and spec.predict([("good film",)]).cached == 1  # cached by the run above


# ------------------------------------------------------------------------------- prediction files


def test_export_inputs_and_a_shuffled_prediction_file_give_the_same_rates(tmp_path, caplog, capsys):
    suite = write_suite(tmp_path / "suite")
    assert main(["export", str(suite), "--inputs", str(tmp_path / "inputs.jsonl")]) == 0
    assert "8 distinct inputs written" in capsys.readouterr().out
    exported = list(read_jsonl(tmp_path / "inputs.jsonl"))
    assert [x["text"] for x in exported] == INPUTS and len({x["id"] for x in exported}) == 8
    assert main(["export", str(suite), "--inputs", str(tmp_path / "inputs.txt")]) == 0
    assert (tmp_path / "inputs.txt").read_text().splitlines() == INPUTS  # CheckList's raw file
    assert main(["export", str(suite), "--inputs", str(tmp_path / "inputs.txt")]) == 2  # not overwritten

    ordered = tmp_path / "ordered.txt"
    ordered.write_text("".join(f"{1 - p_positive(t):.6f} {p_positive(t):.6f}\n" for t in INPUTS))
    rows = [{"id": x["id"], "probs": [1 - p_positive(x["text"]), p_positive(x["text"])]} for x in exported]
    random.Random(0).shuffle(rows)
    by_id = tmp_path / "by_id.jsonl"
    by_id.write_text("".join(json.dumps(r) + "\n" for r in rows))
    by_text = tmp_path / "by_text.jsonl"
    by_text.write_text(
        "".join(
            json.dumps({"text": t, "probs": {"positive": p_positive(t), "negative": 1 - p_positive(t)}})
            + "\n"
            for t in reversed(INPUTS)
        )
    )
    shuffled_lines = tmp_path / "shuffled.txt"  # no ids: a shuffled file cannot be detected
    shuffled_lines.write_text("".join(reversed(ordered.read_text().splitlines(keepends=True))))

    specs = [f"file:{p}" for p in (ordered, by_id, by_text, shuffled_lines)]
    results = run_suite(suite, specs, tmp_path / "out")
    reference = rates(results, specs[0])
    assert reference["LC1"] == pytest.approx(1 / 3) and reference["LC2"] == pytest.approx(1 / 4)
    assert rates(results, specs[1]) == reference and rates(results, specs[2]) == reference
    assert rates(results, specs[3]) != reference  # why files should carry ids
    assert "matched to the suite by order" in caplog.text

    partial = tmp_path / "partial.jsonl"  # an input without a line is an error, never a pass
    partial.write_text("".join(json.dumps(r) + "\n" for r in rows if r["id"] != exported[0]["id"]))
    results = run_suite(suite, [f"file:{partial}"], tmp_path / "out2")
    assert results["models"][f"file:{partial}"]["errors"] == 1
    rows_out = {r["case"]: r for r in read_jsonl(tmp_path / "out2" / "predictions.jsonl")}
    assert rows_out["s1"]["outcome"] == rows_out["dup"]["outcome"] == "error"
    assert "no prediction for input" in rows_out["s1"]["error"] and rows_out["s2"]["outcome"] == "pass"


def test_a_label_only_file_is_read_as_checklist_reads_it(tmp_path):
    suite = write_suite(tmp_path / "suite")
    reference = run_suite(suite, [probabilities], tmp_path / "reference")
    names = tmp_path / "pred_only.txt"
    names.write_text("".join(("positive" if p_positive(t) >= 0.5 else "negative") + "\n" for t in INPUTS))
    indices = tmp_path / "pred_only_index.txt"  # integers index the task's labels: 0 negative, 2 positive
    indices.write_text("".join(("2" if p_positive(t) >= 0.5 else "0") + "\n" for t in INPUTS))
    specs = [f"file:{names}", f"file:{indices}"]
    results = run_suite(suite, specs, tmp_path / "out")
    for spec in specs:
        model = results["models"][spec]
        assert rates(results, spec)["LC1"] == rates(reference, f"{__name__}:probabilities")["LC1"]
        assert model["capabilities"]["LC1"]["inv"]["pairs"] == 2  # label-change INV of the expansions
        assert model["capabilities"]["LC1"]["inv"]["pair_failures"] == 1  # "not good film" flips
        assert model["capabilities"]["DIR1"]["all"]["applicable"] == 0 and "DIR" in model["not_applicable"]
    bad = tmp_path / "bad.txt"
    bad.write_text("positive\n7\n")
    with pytest.raises(InputError, match=r"bad.txt:2: label index 7"):
        load_model(f"file:{bad}")


# ------------------------------------------------------------------ no head; the whole-request deadline


def test_a_masked_lm_directory_is_not_a_classifier(tmp_path, capsys):
    mlm = tiny_bert(tmp_path / "mlm", "ForMaskedLM", WORDS)
    with pytest.raises(
        InputError, match=r"holds BertForMaskedLM, not a sequence-classification model for the"
    ):
        load_model(mlm)
    suite = write_suite(tmp_path / "suite")
    assert main(["run", str(suite), "--model", mlm, "--out", str(tmp_path / "out")]) == 2
    assert "BertForMaskedLM" in capsys.readouterr().err
    config = json.loads((tmp_path / "mlm" / "config.json").read_text())  # a config that claims a head
    config["architectures"] = ["BertForSequenceClassification"]
    (tmp_path / "mlm" / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match=r"no weights for a sequence-classification head \(classifier"):
        load_model(mlm).predict([("good film",)])


def test_shared_masked_lm_is_refused(shared_data):
    from conftest import require

    mlm = require(shared_data / "models" / "mini-bert-mlm")
    with pytest.raises(InputError, match="ForMaskedLM"):
        load_model(str(mlm))


def test_timeout_bounds_the_whole_reply_of_a_trickling_server(tmp_path):
    class Trickle(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(100):  # one byte every 0.2 s: each read is quick, the reply takes 20 s
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/predict"
        model = load_model(url, SENTIMENT, timeout=1.0, retries=0)
        start = time.monotonic()
        outputs = model.predict([("good film",)])
        assert time.monotonic() - start < 30  # the server trickles forever: only the 1 s deadline ends it
        assert outputs.errors[0] == f"{url}: no complete reply within 1 s (after 1 attempt)"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    "answer,message",
    [
        (
            lambda texts: {"positive": 0.8},
            "returned a single dict {'positive': 0.8} for a batch of 2 inputs; expected a list with one "
            "answer per input",
        ),
        (lambda texts: [[0.5, 0.5]], "returned 1 answers for a batch of 2 inputs; expected a list"),
        (
            lambda texts: [[float("nan"), 1.0] for _ in texts],
            "returned probabilities list [nan, 1.0], not all finite numbers (NaN or infinity)",
        ),
    ],
)
def test_a_dict_a_short_list_or_nan_from_a_callable_is_named_in_the_message(answer, message):
    from autocheck.models.callables import CallableModel

    answer.labels = ["negative", "positive"]
    with pytest.raises(InputError, match=re.escape(f"model m: {message}")):
        CallableModel("m", answer).predict([("good",), ("bad",)])


def test_the_nltk_data_identity_reads_its_files_once_then_from_the_checksum_cache(monkeypatch):
    """A process's first cached look-up keys on a checksum of the tagger's, the sentence splitter's and
    WordNet's files: they are read once, then remembered with the model checksums, with the same identity."""
    import autocheck.cache
    from autocheck.resources import NLTK_DATA_READ, find_nltk, nltk_data_identity
    from autocheck.store import content_hash, file_sha256

    real, hashed = autocheck.cache.file_sha256, []
    monkeypatch.setattr(autocheck.cache, "file_sha256", lambda p: hashed.append(p) or real(p))
    nltk_data_identity.cache_clear()  # as in a new process
    try:
        first = nltk_data_identity()
        read = len(hashed)
        nltk_data_identity.cache_clear()
        assert nltk_data_identity() == first and read > 0 and len(hashed) == read
    finally:
        nltk_data_identity.cache_clear()
    parts = [version("nltk")]  # the identity as each file read afresh gave it: caches made before still match
    for resource in NLTK_DATA_READ:
        path = Path(found) if (found := find_nltk(resource)) else None
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path and path.is_dir() else [path]
        parts += [f"{resource}:{file_sha256(f) if f else None}" for f in files]
    assert first == content_hash(*parts)
