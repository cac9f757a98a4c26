"""Remote models against real HTTP(S) servers that the tests start on 127.0.0.1 (no mocks of the client):
autocheck's JSON protocol, an OpenAI-compatible chat endpoint, failures, secrets and TLS."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from json_endpoint import JsonEndpoint

from autocheck.cli import main
from autocheck.models import default_task, load_model
from autocheck.models.remote import ChatModel, HTTPModel
from autocheck.records import TestCase
from autocheck.requirements import load_spec
from autocheck.resources import ResourceMissing
from autocheck.run import run_suite
from autocheck.store import InputError, content_hash, read_jsonl
from autocheck.tasks import Task

SENTIMENT = default_task()
FAST = {"backoff": 0.01, "timeout": 5.0}  # back-off of 10 ms, so retries cost nothing
NLI = {
    "task": "nli_tiny",
    "description": "Does the premise entail the hypothesis?",
    "inputs": ["premise", "hypothesis"],
    "labels": ["entailment", "neutral", "contradiction"],
    "label_aliases": {"entailment": ["ENTAILMENT", "entails"], "contradiction": ["CONTRADICTION"]},
    "prompt": "Premise: {premise}\nHypothesis: {hypothesis}\nAnswer with one word: {labels}.",
    "capabilities": [
        {
            "id": "N1",
            "capability": "Negation",
            "description": "A negated hypothesis contradicts",
            "test_type": "MFT",
            "search": [{"field": "hypothesis", "include": [{"words": ["not"]}], "label": "contradiction"}],
            "expected": {"contradiction": "contradiction"},
        }
    ],
}
QA = Task.from_spec(
    {
        "task": "qa_tiny",
        "inputs": ["context", "question"],
        "output": "span",
        "prompt": "{context}\n{question}",
    }
)


# ------------------------------------------------------------------------------------- a real server


@dataclass
class Reply:
    body: Any = None  # JSON
    status: int = 200
    delay: float = 0.0  # seconds before answering
    drop: bool = False  # close the connection without answering
    raw: bytes | None = None  # bytes instead of JSON


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    json: Any


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client that gave up (timeout) is expected
        pass


class Server:
    """An HTTP(S) server on 127.0.0.1 in a thread; ``respond(request_json, n)`` makes the n-th reply."""

    def __init__(self, respond, tls: ssl.SSLContext | None = None):
        self.respond, self.requests, self.lock = respond, [], threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                seen = Seen(
                    self.path,
                    dict(self.headers),
                    json.loads(self.rfile.read(int(self.headers["Content-Length"]))),
                )
                with server.lock:
                    server.requests.append(seen)
                    n = len(server.requests)
                reply = server.respond(seen.json, n)
                time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        if tls:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        self.scheme = "https" if tls else "http"

    def url(self, path: str = "/predict") -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def serve():
    servers: list[Server] = []

    def start(respond, tls=None) -> Server:
        servers.append(Server(respond, tls))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def protocol(answer, fail=lambda inputs, n: None):
    """A responder of autocheck's protocol: ``answer(input) -> prediction``; ``fail(inputs, n)`` may
    return a Reply instead (an error of the whole request)."""

    def respond(body, n):
        return fail(body["inputs"], n) or Reply({"predictions": [answer(x) for x in body["inputs"]]})

    return respond


def sentiment(x: dict[str, str]) -> dict[str, Any]:
    text = x["text"]
    if "good" in text:
        return {"label": "positive", "probs": {"negative": 0.1, "neutral": 0.2, "positive": 0.7}}
    if "bad" in text:
        return {"label": "NEG"}  # an alias, no probabilities: one-hot
    return {"label": "positive", "probs": {"negative": 0.45, "positive": 0.55}}  # binary: the neutral band


def read(model, inputs):
    outputs = model.predict(inputs)
    probs, labels = model.read(outputs)
    return outputs, probs, labels


# -------------------------------------------------------------------------------------- HTTP protocol


def test_http_classifier_answers_in_input_order(serve, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-this-endpoint")
    server = serve(protocol(sentiment))
    model = load_model(server.url(), SENTIMENT, batch_size=8, **FAST)
    assert isinstance(model, HTTPModel) and model.identity == f"http:{server.url()}"
    outputs, probs, labels = read(model, [("a good film",), ("bad",), ("so so",), ("good",)])
    assert labels == ["positive", "negative", "neutral", "positive"]
    assert np.allclose(probs[0], [0.1, 0.2, 0.7]) and np.allclose(probs[1], [1, 0, 0])
    assert not outputs.errors and not outputs.invalid
    (request,) = server.requests
    assert request.path == "/predict" and request.json["task"] == "sentiment"
    assert sorted(x["text"] for x in request.json["inputs"]) == ["a good film", "bad", "good", "so so"]
    # the chat key in the environment is not sent to an endpoint that did not ask for one
    assert "Authorization" not in request.headers


def test_http_pair_task_from_a_spec_file(serve, tmp_path):
    spec = tmp_path / "nli_tiny.json"
    spec.write_text(json.dumps(NLI))
    task = load_spec(spec).task
    names = {"yes": "ENTAILMENT", "no": "Contradiction", "maybe": "neutral"}
    server = serve(protocol(lambda x: {"label": names[x["hypothesis"]]}))
    model = load_model(server.url(), task, **FAST)
    _, probs, labels = read(model, [("p1", "yes"), ("p2", "no"), ("p3", "maybe")])
    assert labels == ["entailment", "contradiction", "neutral"]
    assert probs.shape == (3, 3)
    assert {"premise": "p1", "hypothesis": "yes"} in server.requests[0].json["inputs"]


def test_http_span_task(serve):
    server = serve(protocol(lambda x: {"answer": x["context"].split()[-1], "score": 0.75}))
    model = load_model(server.url(), QA, **FAST)
    outputs, probs, answers = read(model, [("It was built in Paris", "Where?"), ("Ask Ada", "Who?")])
    assert answers == ["Paris", "Ada"] and np.allclose(probs[:, 0], 0.75)
    assert {"context": "Ask Ada", "question": "Who?"} in server.requests[0].json["inputs"]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_http_batches_of_batch_size_in_order_and_cached(serve, concurrency):
    # later requests answer sooner: with concurrency the replies arrive out of order
    server = serve(lambda body, n: Reply(protocol(sentiment)(body, n).body, delay=0.15 / n))
    model = load_model(server.url(), SENTIMENT, batch_size=4, concurrency=concurrency, version="v1", **FAST)
    texts = [f"good {i}" if i % 2 else f"bad {i}" for i in range(10)]
    _, _, labels = read(model, [(t,) for t in texts])
    assert labels == ["negative" if i % 2 == 0 else "positive" for i in range(10)]
    assert sorted(len(r.json["inputs"]) for r in server.requests) == [2, 4, 4]
    read(model, [(t,) for t in texts])  # all cached under the declared version: no request
    assert len(server.requests) == 3


def test_slow_reply_beyond_timeout_is_retried(serve):
    server = serve(lambda body, n: Reply(protocol(sentiment)(body, n).body, delay=2.0 if n == 1 else 0))
    model = load_model(server.url(), SENTIMENT, timeout=0.3, backoff=0.01)
    outputs, _, labels = read(model, [("good",)])
    assert labels == ["positive"] and not outputs.errors and len(server.requests) == 2

    model = load_model(server.url("/again"), SENTIMENT, timeout=0.3, backoff=0.01, retries=0)
    server.respond = lambda body, n: Reply(delay=2.0)
    outputs, _, labels = read(model, [("good",)])
    assert (
        labels == [None]
        and outputs.errors[0] == f"{server.url('/again')}: no complete reply within 0.3 s (after 1 attempt)"
    )


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_errors_then_success(serve, status):
    server = serve(
        protocol(sentiment, fail=lambda inputs, n: Reply({"error": "busy"}, status) if n < 3 else None)
    )
    model = load_model(server.url(), SENTIMENT, retries=3, **FAST)
    outputs, _, labels = read(model, [("good",), ("bad",)])
    assert labels == ["positive", "negative"] and not outputs.errors and len(server.requests) == 3


def test_client_errors_are_not_retried(serve):
    server = serve(lambda body, n: Reply({"detail": "unknown field"}, 422))
    model = load_model(server.url(), SENTIMENT, retries=3, **FAST)
    outputs, _, _ = read(model, [("good",)])
    assert len(server.requests) == 1
    assert outputs.errors[0] == f'{server.url()}: HTTP 422 {{"detail": "unknown field"}}'


def test_failing_batch_is_recorded_as_errors_while_others_succeed(serve, caplog):
    def fail(inputs, n):
        return Reply({"error": "internal"}, 500) if any("boom" in x["text"] for x in inputs) else None

    server = serve(protocol(sentiment, fail=fail))
    model = load_model(server.url(), SENTIMENT, batch_size=1, retries=2, concurrency=2, **FAST)
    outputs, _, labels = read(model, [("good",), ("boom 1",), ("bad",), ("boom 2",)])
    assert labels == ["positive", None, "negative", None]
    assert set(outputs.errors) == {1, 3}
    assert outputs.errors[1] == f'{server.url()}: HTTP 500 {{"error": "internal"}} (after 3 attempts)'
    assert len(server.requests) == 2 + 2 * 3
    assert "Traceback" not in caplog.text
    # errors are never cached: the next run asks again
    server.respond = protocol(sentiment)
    outputs, _, labels = read(model, [("good",), ("boom 1",), ("bad",), ("boom 2",)])
    assert labels == ["positive", "neutral", "negative", "neutral"] and not outputs.errors


@pytest.mark.parametrize(
    "reply, reason",
    [
        (Reply(raw=b"<html>oops</html>"), "reply is not JSON: <html>oops</html>"),
        (Reply({"result": []}), "reply has no 'predictions' list"),
        (Reply({"predictions": [{"label": "positive"}]}), "1 predictions for 2 inputs"),
        (Reply({"predictions": [{"label": "sarcastic"}] * 2}), "cannot read labels ['sarcastic']"),
        (Reply({"predictions": [{"probs": {"positive": "high"}}] * 2}), "'probs' must map class names"),
        (Reply({"predictions": ["positive"] * 2}), "a prediction is not a JSON object"),
    ],
)
def test_malformed_replies_are_errors_with_a_reason(serve, reply, reason):
    server = serve(lambda body, n: reply)
    outputs, _, _ = read(load_model(server.url(), SENTIMENT, **FAST), [("good",), ("bad",)])
    assert set(outputs.errors) == {0, 1}
    assert outputs.errors[0].startswith(server.url() + ": ") and reason in outputs.errors[0]
    assert len(server.requests) == 1  # a reply that came is not asked again


def test_an_error_for_one_input(serve):
    server = serve(protocol(lambda x: {"error": "input too long"} if len(x["text"]) > 9 else sentiment(x)))
    outputs, _, labels = read(load_model(server.url(), SENTIMENT, **FAST), [("good",), ("good but long",)])
    assert labels == ["positive", None] and outputs.errors == {1: f"{server.url()}: input too long"}


@pytest.mark.parametrize("always", [True, False])
def test_dropped_connection_fails_only_its_batch(serve, always):
    def fail(inputs, n):
        dropping = any(x["text"] == "drop" for x in inputs) and (always or n <= 2)
        return Reply(drop=True) if dropping else None

    server = serve(protocol(lambda x: {"label": "neutral"}, fail=fail))
    model = load_model(server.url(), SENTIMENT, batch_size=2, concurrency=2, retries=1, **FAST)
    texts = ["ok 1", "ok 2", "drop", "ok 3", "ok 4", "ok 5"]  # one length: batches keep this order
    outputs, _, labels = read(model, [(t,) for t in texts])
    if always:
        assert set(outputs.errors) == {2, 3}
        assert outputs.errors[2] == f"{server.url()}: connection closed without a reply (after 2 attempts)"
        assert labels == ["neutral", "neutral", None, None, "neutral", "neutral"]
    else:
        assert not outputs.errors and labels == ["neutral"] * 6


# -------------------------------------------------------------------------------- runs with errors


def write_suite(directory: Path, task: Task, cases: list[TestCase]) -> Path:
    directory.mkdir()
    (directory / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    (directory / "manifest.json").write_text(json.dumps({"kind": "suite", "task": task.to_json()}))
    return directory


def sentiment_suite(tmp_path: Path) -> Path:
    return write_suite(
        tmp_path / "suite",
        SENTIMENT,
        [
            TestCase("s1", "LC1", "seed", "good", "positive", "MFT", "positive"),
            TestCase("e1", "LC1", "expansion", "really good", "positive", "MFT", "positive", "s1"),
            TestCase("e2", "LC1", "expansion", "good boom", "positive", "MFT", "positive", "s1"),
            TestCase("s2", "LC2", "seed", "bad", "negative", "MFT", "negative"),
            TestCase("e3", "LC2", "expansion", "bad boom", "negative", "MFT", "negative", "s2"),
        ],
    )


def boom_server(serve) -> Server:
    def fail(inputs, n):
        return Reply({"error": "internal"}, 500) if any("boom" in x["text"] for x in inputs) else None

    return serve(protocol(sentiment, fail=fail))


def test_run_suite_finishes_with_errors_recorded(serve, tmp_path):
    server = boom_server(serve)
    model = load_model(server.url(), SENTIMENT, batch_size=1, retries=1, **FAST)
    results = run_suite(sentiment_suite(tmp_path), [model], tmp_path / "out", batch_size=1)
    summary = results["models"][server.url()]
    assert summary["errors"] == 2
    rows = {row["case"]: row for row in read_jsonl(tmp_path / "out" / "predictions.jsonl")}
    assert rows["e2"]["outcome"] == rows["e3"]["outcome"] == "error"
    assert rows["e2"]["error"] == f'{server.url()}: HTTP 500 {{"error": "internal"}} (after 2 attempts)'
    assert rows["s1"]["outcome"] == rows["e1"]["outcome"] == "pass" and "error" not in rows["s1"]


def test_cli_run_against_a_failing_endpoint_exits_0_without_traceback(serve, tmp_path, capsys):
    server = boom_server(serve)
    suite, out = sentiment_suite(tmp_path), tmp_path / "out"
    code = main(
        ["run", str(suite), "--model", server.url(), "--out", str(out), "--batch-size", "1", "--retries", "0"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.out + captured.err
    results = json.loads((out / "results.json").read_text())
    assert results["models"][server.url()]["errors"] == 2
    errors = [row for row in read_jsonl(out / "predictions.jsonl") if "error" in row]
    assert {row["case"] for row in errors} == {"e2", "e3"}


# -------------------------------------------------------------------------------------- chat models


def chat(answer):
    """An OpenAI-compatible chat/completions responder: ``answer(prompt) -> reply text``."""

    def respond(body, n):
        content = answer(body["messages"][0]["content"])
        return Reply(
            {"id": f"c{n}", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
        )

    return respond


SENTIMENT_REPLIES = {
    "great": "Positive.",
    "awful": "The sentiment is NEGATIVE",
    "ok": "neutral",
    "torn": "It is positive or negative, hard to say.",  # two labels: ambiguous
    "huh": "Banana",  # no label
    "pos": "pos",  # an alias of positive
    "nope": "positively negative",  # 'positively' is not the word 'positive': negative
}


def test_chat_model_reads_one_label_from_the_reply(serve, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-chat-test")
    server = serve(chat(lambda prompt: SENTIMENT_REPLIES[prompt.rsplit("Text: ", 1)[1]]))
    model = load_model(f"openai:tiny-llm@{server.url('/v1')}", SENTIMENT, concurrency=2, **FAST)
    assert isinstance(model, ChatModel) and model.name == f"openai:tiny-llm@{server.url('/v1')}"
    texts = list(SENTIMENT_REPLIES)
    outputs, probs, labels = read(model, [(t,) for t in texts])
    assert dict(zip(texts, labels)) == {
        "great": "positive",
        "awful": "negative",
        "ok": "neutral",
        "torn": None,
        "huh": None,
        "pos": "positive",
        "nope": "negative",
    }
    assert outputs.invalid == {3: SENTIMENT_REPLIES["torn"], 4: "Banana"} and not outputs.errors
    assert np.allclose(probs[0], [0, 0, 1])
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-chat-test"
    assert request.json["model"] == "tiny-llm" and request.json["temperature"] == 0
    prompt = "What is the sentiment of this text? Answer with one word: negative, neutral, positive."
    assert prompt + "\n\nText: great" in {r.json["messages"][0]["content"] for r in server.requests}
    assert len(server.requests) == len(texts)  # one request per input


def test_chat_pair_and_span_tasks_and_label_words(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-chat-test")
    spec = tmp_path / "nli_tiny.json"
    spec.write_text(json.dumps(NLI))
    nli = load_spec(spec).task
    replies = {
        "sleeps": "The premise entails the hypothesis.",
        "awake": "Contradiction",
        "{labels}": "neutral",
    }
    server = serve(chat(lambda prompt: next(r for k, r in replies.items() if k in prompt.split("\n")[1])))
    model = load_model(f"openai:m@{server.url()}", nli, **FAST)
    _, _, labels = read(
        model, [("A man sleeps.", "He sleeps"), ("A man sleeps.", "He is awake"), ("x", "{labels}")]
    )
    assert labels == ["entailment", "contradiction", "neutral"]
    prompts = {r.json["messages"][0]["content"] for r in server.requests}
    assert (
        "Premise: A man sleeps.\nHypothesis: He sleeps\n"
        "Answer with one word: entailment, neutral, contradiction." in prompts
    )
    # a field's text is never filled in again: '{labels}' in the hypothesis stays as it is
    assert any("Hypothesis: {labels}\n" in prompt for prompt in prompts)

    server.respond = chat(lambda prompt: '"Denver Broncos".' if "Who" in prompt else "  ")
    outputs, _, answers = read(
        load_model(f"openai:m@{server.url()}", QA, **FAST), [("c", "Who won?"), ("c", "Why?")]
    )
    assert answers == ["Denver Broncos", None] and outputs.invalid == {1: "  "}

    hate = Task.from_spec({"task": "hate", "labels": ["non-hateful", "hateful"], "prompt": "{text}"})
    server.respond = chat(lambda prompt: {"a": "Non-hateful.", "b": "hateful"}[prompt])
    _, _, labels = read(load_model(f"openai:m@{server.url()}", hate, **FAST), [("a",), ("b",)])
    assert labels == ["non-hateful", "hateful"]


def test_invalid_chat_reply_fails_the_case_with_the_reply_recorded(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-chat-test")
    server = serve(chat(lambda prompt: "Banana" if "bad" in prompt else "positive"))
    model = load_model(f"openai:m@{server.url()}", SENTIMENT, **FAST)
    run_suite(sentiment_suite(tmp_path), [model], tmp_path / "out")
    rows = {row["case"]: row for row in read_jsonl(tmp_path / "out" / "predictions.jsonl")}
    assert rows["s2"]["outcome"] == "fail" and rows["s2"]["reply"] == "Banana"
    assert rows["s1"]["outcome"] == "pass"


def test_chat_model_needs_a_prompt_and_a_key(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ResourceMissing, match="environment variable OPENAI_API_KEY"):
        load_model("openai:m@https://llm.example.com/v1", SENTIMENT)
    with pytest.raises(ResourceMissing, match="environment variable OPENAI_API_KEY"):
        load_model("openai:m", SENTIMENT)  # the OpenAI API itself
    with pytest.raises(ResourceMissing, match="MY_KEY"):
        load_model("openai:m@http://127.0.0.1:9/v1", SENTIMENT, api_key_env="MY_KEY")
    with pytest.raises(ResourceMissing, match="API key file .*missing.txt"):
        load_model("openai:m@http://127.0.0.1:9/v1", SENTIMENT, api_key_file=tmp_path / "missing.txt")
    no_prompt = Task.from_spec({"task": "topic", "inputs": ["headline", "body"], "labels": ["a", "b"]})
    with pytest.raises(InputError, match=r'add "prompt" to its spec.*\{headline\}, \{body\} and \{labels\}'):
        load_model("openai:m@http://127.0.0.1:9/v1", no_prompt)
    monkeypatch.setenv("OPENAI_API_KEY", "two words")
    with pytest.raises(InputError, match="OPENAI_API_KEY has spaces") as error:
        load_model("openai:m@http://127.0.0.1:9/v1", SENTIMENT)
    assert "two words" not in str(error.value)


def test_key_from_a_file_and_for_an_http_endpoint_that_names_one(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    key_file = tmp_path / "key.txt"
    key_file.write_text("sk-from-file\n")
    server = serve(chat(lambda prompt: "positive"))
    read(load_model(f"openai:m@{server.url()}", SENTIMENT, api_key_file=key_file, **FAST), [("x",)])
    assert server.requests[-1].headers["Authorization"] == "Bearer sk-from-file"

    monkeypatch.setenv("ENDPOINT_TOKEN", "tok-123")
    server.respond = protocol(sentiment)
    read(load_model(server.url(), SENTIMENT, api_key_env="ENDPOINT_TOKEN", **FAST), [("x",)])
    assert server.requests[-1].headers["Authorization"] == "Bearer tok-123"


def test_rejected_key_stops_asking(serve, monkeypatch):
    key = "sk-rejected-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    server = serve(lambda body, n: Reply({"error": {"message": f"Incorrect API key provided: {key}"}}, 401))
    outputs, _, _ = read(load_model(f"openai:m@{server.url()}", SENTIMENT, **FAST), [("a",), ("b",), ("c",)])
    assert len(server.requests) == 1 and set(outputs.errors) == {0, 1, 2}
    assert "HTTP 401" in outputs.errors[2] and "check the API key" in outputs.errors[2]
    assert key not in outputs.errors[0] and "Incorrect API key provided: ***" in outputs.errors[0]


# -------------------------------------------------------------------------------------------- secrets


def test_the_key_is_never_written_anywhere(serve, tmp_path, monkeypatch, capsys, caplog):
    key = "sk-autocheck-SECRET-7f3a9c1e5b2d4680"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    caplog.set_level(logging.DEBUG)
    replies = {"good": "positive", "really good": f"positive (your key is {key})", "bad": f"? {key}"}

    def respond(body, n):
        text = body["messages"][0]["content"].rsplit("Text: ", 1)[1]
        if "boom" in text:
            return Reply({"error": {"message": f"failed for key {key}"}}, 500)
        return chat(lambda prompt: replies[text])(body, n)

    server = serve(respond)
    suite, out = sentiment_suite(tmp_path), tmp_path / "out"
    junit, html, markdown = tmp_path / "junit.xml", tmp_path / "report.html", tmp_path / "summary.md"
    model = f"openai:gpt-test@{server.url('/v1')}"
    argv = [
        "-v",
        "run",
        str(suite),
        "--model",
        model,
        "--out",
        str(out),
        "--retries",
        "1",
        "--junit",
        str(junit),
        "--model-version",
        "gpt-test-1",  # pinned: its answers go to the prediction cache, searched below
    ]
    assert main(argv) == 1  # --junit judges: an unreadable reply fails, an error is never a pass
    assert main(["report", str(out), "--html", str(html), "--markdown", str(markdown)]) == 0
    captured = capsys.readouterr()

    assert {r.headers["Authorization"] for r in server.requests} == {f"Bearer {key}"}
    rows = {row["case"]: row for row in read_jsonl(out / "predictions.jsonl")}
    assert rows["e2"]["outcome"] == "error" and "failed for key ***" in rows["e2"]["error"]
    assert rows["e1"]["outcome"] == "pass" and rows["s2"]["reply"] == "? ***"
    written = [
        p for root in (tmp_path, Path(os.environ["AUTOCHECK_CACHE"])) for p in root.rglob("*") if p.is_file()
    ]
    assert {out / "results.json", out / "manifest.json", out / "predictions.jsonl", junit, html} <= set(
        written
    )
    assert markdown in written
    assert any(p.suffix == ".sqlite" for p in written)  # the prediction cache was written
    for path in written:
        assert key.encode() not in path.read_bytes(), path
    logs = caplog.text + "".join(map(str, (r.args for r in caplog.records)))
    assert key not in captured.out + captured.err + logs
    assert "Traceback" not in captured.err


def test_credentials_in_a_url_are_refused_and_query_values_masked(serve, monkeypatch):
    with pytest.raises(InputError, match="credentials in a URL are refused") as error:
        load_model("https://user:hunter2@example.com/predict", SENTIMENT)
    assert "hunter2" not in str(error.value)
    server = serve(protocol(sentiment))
    model = load_model(server.url("/predict?token=abc123&v=2"), SENTIMENT, **FAST)
    assert model.name == server.url("/predict?token=***&v=***") and "abc123" not in model.identity
    _, _, labels = read(model, [("good",)])
    assert labels == ["positive"] and server.requests[0].path == "/predict?token=abc123&v=2"

    monkeypatch.setenv("OPENAI_API_KEY", "sk-chat-test")
    server.respond = chat(lambda prompt: "positive")
    model = load_model(f"openai:m@{server.url('/v1/?api-version=7')}", SENTIMENT, **FAST)
    assert model.name == f"openai:m@{server.url('/v1/?api-version=***')}"
    read(model, [("good",)])
    assert server.requests[-1].path == "/v1/chat/completions?api-version=7"


# ------------------------------------------------------------------------------------------------ TLS


@pytest.fixture
def self_signed(tmp_path) -> ssl.SSLContext:
    if not shutil.which("openssl"):
        pytest.skip("the openssl command is needed to make a self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert)]
        + ["-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def test_self_signed_certificate_is_refused_unless_insecure(serve, self_signed, caplog):
    server = serve(protocol(sentiment), tls=self_signed)
    outputs, _, _ = read(load_model(server.url(), SENTIMENT, batch_size=1, **FAST), [("good",), ("bad",)])
    assert set(outputs.errors) == {0, 1} and not server.requests
    assert outputs.errors[0].startswith(f"{server.url()}: TLS certificate not accepted (self")
    assert "--insecure" in outputs.errors[0]

    caplog.set_level(logging.WARNING)
    model = load_model(server.url(), SENTIMENT, verify_tls=False, **FAST)
    assert "TLS certificate not verified (--insecure)" in caplog.text
    outputs, _, labels = read(model, [("good",), ("bad",)])
    assert labels == ["positive", "negative"] and not outputs.errors


# ------------------------------------------------------------------------- connections and deadlines


def test_requests_reuse_one_connection(monkeypatch):
    """40 requests on one kept-open connection (urllib opened one per request, Connection: close)."""
    endpoint = JsonEndpoint(lambda body: (200, {"predictions": [sentiment(x) for x in body["inputs"]]}))
    try:
        model = load_model(endpoint.url, SENTIMENT, batch_size=1, **FAST)
        outputs, _, labels = read(model, [(f"good {i}",) for i in range(40)])
        assert not outputs.errors and labels == ["positive"] * 40
        assert (endpoint.requests, endpoint.connections) == (40, 1)
    finally:
        endpoint.stop()


def test_a_trickling_reply_is_cut_off_at_the_deadline():
    """--timeout bounds the whole request: a server sending a byte every 0.1 s never times out a single
    read, and is cut off at the deadline all the same."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def trickle():
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            while not stop.wait(0.1):
                try:
                    connection.sendall(b" ")
                except OSError:
                    return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/predict"
    try:
        model = load_model(url, SENTIMENT, timeout=0.5, retries=0)
        start = time.monotonic()
        outputs, _, _ = read(model, [("good",)])
        assert time.monotonic() - start < 2.0
        assert outputs.errors[0] == f"{url}: no complete reply within 0.5 s (after 1 attempt)"
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def test_a_local_chat_server_needs_no_key_and_gets_max_tokens_and_a_system_prompt(monkeypatch):
    """A server on this machine (llama.cpp, vLLM, Ollama) takes no key: none is sent, none is asked for;
    --max-tokens and --system-prompt reach it and are part of the answers' identity."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    seen = []

    def reply(body):
        seen.append(body)
        return 200, {"choices": [{"message": {"role": "assistant", "content": "positive"}}]}

    endpoint = JsonEndpoint(reply)
    base = endpoint.url.rsplit("/", 1)[0]
    try:
        plain = load_model(f"openai:local@{base}", SENTIMENT, **FAST)
        model = load_model(
            f"openai:local@{base}", SENTIMENT, max_tokens=5, system_prompt="You label sentiment.", **FAST
        )
        _, _, labels = read(model, [("good",)])
        assert labels == ["positive"]
        (body,) = seen
        assert body["max_tokens"] == 5 and body["messages"][0] == {
            "role": "system",
            "content": "You label sentiment.",
        }
        assert body["messages"][1]["role"] == "user" and plain.identity != model.identity
        assert (
            f"prompt:{content_hash(SENTIMENT.prompt, ', '.join(SENTIMENT.labels))}" in plain.identity
        )  # as before
        read(plain, [("good",)])
        assert "max_tokens" not in seen[1] and [m["role"] for m in seen[1]["messages"]] == ["user"]
    finally:
        endpoint.stop()
    with pytest.raises(ResourceMissing, match="MY_KEY"):  # a key that is named is required, even here
        load_model(f"openai:local@{base}", SENTIMENT, api_key_env="MY_KEY")
