"""Remote models: a model behind autocheck's HTTP protocol, and an OpenAI-compatible chat model.

HTTP protocol (``--model http://HOST:PORT/PATH`` or ``https://...``)
--------------------------------------------------------------------

autocheck sends each batch of inputs (``--batch-size``, default 32) as one request::

    POST /PATH
    Content-Type: application/json

    {"task": "nli",
     "inputs": [{"premise": "A man sleeps.", "hypothesis": "A man is awake."}, ...]}

one object per input, its keys the task's input fields (``text`` for sentiment; ``premise`` and
``hypothesis``, ``question1`` and ``question2``, ``context`` and ``question``: see the task's spec). The
endpoint answers ``200`` with one prediction per input, in input order::

    {"predictions": [
        {"label": "contradiction", "probs": {"entailment": 0.05, "neutral": 0.15, "contradiction": 0.8}},
        {"label": "ENTAILMENT"},
        {"answer": "Denver Broncos", "score": 0.93},
        {"error": "input too long"}
    ]}

- a classifier answers ``label`` and optionally ``probs`` (class name -> probability; without it the label
  gets probability 1). Class names are the task's labels or their aliases, in any case (``ENTAILMENT``,
  ``LABEL_1`` where the spec's ``label_order`` says what it is); a two-class model of a three-label task is
  read by the task's ``binary`` rule (sentiment: CheckList's neutral band);
- a span (question answering) model answers ``answer``, a text, and optionally ``score`` (default 1);
- ``{"error": "..."}`` says the model could not answer that input: recorded as an error of its cases.

The reply may name the deployed model: ``{"model_version": "2024-06-01", "predictions": [...]}``. Answers
are reused across runs only under a version: the one the endpoint returns (a run asks one batch, then
looks up the rest under that version), or ``--model-version`` (no request for cached inputs). Without
either, the URL pins nothing and the answers live for one run.

Anything else (a status other than 2xx, a reply that is not JSON, the wrong number of predictions, a class
name the task does not know) is an error of the inputs concerned, with a one-line reason naming the
endpoint; the run goes on with the other batches. Connection failures, timeouts (``--timeout`` seconds
for the whole request, the reply read to its end), ``429`` and ``5xx`` are retried (``--retries``) after
exponential back-off (1 s, 2 s, 4 s, ... with jitter; ``Retry-After`` is honoured); other ``4xx`` are not;
redirects are not followed.
``--concurrency N`` keeps up to N requests in flight. Replies are parsed as JSON and nothing else.

An endpoint that needs a key gets ``Authorization: Bearer KEY`` when the user names where the key is:
``--api-key-env VAR`` or ``--api-key-file PATH``; otherwise no key is sent (a chat model's key is not sent
to whatever endpoint a user points at).

Chat models (``--model openai:MODEL`` or ``openai:MODEL@BASE_URL``)
------------------------------------------------------------------

One ``POST BASE_URL/chat/completions`` per input (base: ``$OPENAI_BASE_URL``, else
``https://api.openai.com/v1``) with ``{"model": MODEL, "messages": [{"role": "user", "content": PROMPT}],
"temperature": 0}`` (a ``--system-prompt`` goes first as a system message; ``--max-tokens N`` adds
``"max_tokens": N``), where PROMPT is the task spec's ``prompt`` with ``{field}`` replaced by the input's
fields and ``{labels}`` by the task's labels (``negative, neutral, positive``). The reply
(``choices[0].message.content``) is read zero-shot: a classification reply must name exactly one of the
task's labels (or their aliases) as a whole word, in any case; a reply naming none or several is
*invalid*: the case fails and the reply is recorded. A span task's answer is the reply without
surrounding quotes and a final period.

The key is read from ``$OPENAI_API_KEY`` (``--api-key-env``) or ``--api-key-file``, never from the command
line, and sent only as ``Authorization: Bearer``; a server on this machine (``localhost``, ``127.0.0.1``,
``::1``) needs none unless one is named. The key is not part of a model's name or identity, and is
masked in any text an endpoint sends back. TLS certificates are verified unless ``--insecure``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import numpy as np

from ..outputs import for_output
from ..resources import ResourceMissing
from ..store import InputError, content_hash
from ..tasks import Task
from .base import Failed, Input, Invalid, Model

log = logging.getLogger(__name__)

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_REPLY_BYTES = 64 << 20
MAX_DELAY = 60.0  # seconds: the longest back-off, Retry-After included
READER = "1"  # version of the chat reply reading (cached answers depend on it)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class RemoteOptions:
    """How remote models are called (``autocheck run``'s remote options)."""

    timeout: float = 30.0  # seconds for a whole request (connect, send, reply read to its end)
    retries: int = 3  # retries of a failed request (connection, timeout, 429, 5xx)
    concurrency: int = 1  # requests in flight
    backoff: float = 1.0  # first back-off delay in seconds, doubled on every retry
    api_key_env: str | None = None  # None: OPENAI_API_KEY for chat models, no key for HTTP endpoints
    api_key_file: Path | None = None
    verify_tls: bool = True
    max_tokens: int | None = None  # chat models: the longest reply asked for (None: the server's default)
    system_prompt: str | None = None  # chat models: a system message before the task's prompt

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise InputError(f"remote options: need --max-tokens >= 1, got {self.max_tokens}")
        if not self.timeout > 0 or self.retries < 0 or self.concurrency < 1 or self.backoff < 0:
            raise InputError(
                f"remote options: need --timeout > 0, --retries >= 0, --concurrency >= 1 and back-off >= 0; "
                f"got {self.timeout}, {self.retries}, {self.concurrency}, {self.backoff}"
            )


def load_remote(
    spec: str, task: Task, *, batch_size: int = 32, version: str | None = None, **options: Any
) -> Model:
    """An ``HTTPModel`` (``http://``, ``https://``) or a ``ChatModel`` (``openai:``) of ``task``. A declared
    ``version`` pins its answers (reused across runs); without one they live for one run, unless an HTTP
    endpoint names its ``model_version``."""
    unknown = set(options) - set(RemoteOptions.__dataclass_fields__)
    if unknown:
        raise TypeError(f"load_remote: unknown options {sorted(unknown)}")
    opts = RemoteOptions(**options)
    model: Model
    if spec.startswith("openai:"):
        model = ChatModel(spec, task, opts, batch_size=batch_size)
    else:
        model = HTTPModel(spec, task, opts, batch_size=batch_size)
    version = str(version).strip() if version is not None else ""
    if version:
        model.identity, model.pinned = f"{model.identity} version:{version}", True
        if isinstance(model, HTTPModel):
            model.declared_version = version
    return model


# ------------------------------------------------------------------------------------------ secrets, URLs


def read_key(options: RemoteOptions, *, required: bool) -> str | None:
    """The API key from ``api_key_file`` or the variable ``api_key_env``; errors name where, never what."""
    if options.api_key_file is not None:
        path = Path(options.api_key_file).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise ResourceMissing(f"API key file {path}: cannot read it ({type(e).__name__})") from None
        where = f"API key file {path}"
    else:
        name = options.api_key_env or DEFAULT_KEY_ENV
        key = os.environ.get(name, "").strip()
        where = f"environment variable {name}"
        if not key and required:
            raise ResourceMissing(
                f"no API key: set the {where} (or name another: --api-key-env VAR, --api-key-file PATH)"
            )
    if not key:
        if required:
            raise ResourceMissing(f"{where} is empty")
        return None
    if not re.fullmatch(r"[\x21-\x7e]+", key):
        raise InputError(f"the API key in the {where} has spaces or non-ASCII characters")
    return key


def shown_url(url: str) -> str:
    """``url`` as it may be shown and recorded: query values masked. Credentials in a URL are refused."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"not an http(s) URL with a host: {parts.scheme}://{parts.netloc}{parts.path}")
    if parts.username is not None or parts.password is not None:
        raise InputError(
            f"{parts.scheme}://{parts.hostname}{parts.path}: credentials in a URL are refused; "
            "put the key in an environment variable (--api-key-env) or a file (--api-key-file)"
        )
    query = "&".join(f"{k}=***" for k, _ in urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def _query_digest(url: str) -> str:
    query = urllib.parse.urlsplit(url).query
    return f" query:{content_hash(query)}" if query else ""


# ------------------------------------------------------------------------------------------- transport


class _Failure(Exception):
    """A request that got no usable reply; ``reason`` is one line naming the endpoint."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Deadline:
    """The end of one request's time. httpx's timeouts bound each phase (connect, each read), not the
    whole exchange, so when this passes the connection is shut down under a blocked read: a server
    trickling its reply is cut off at ``--timeout``."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds
        self.expired = False
        self._timer: threading.Timer | None = None

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def watch(self, sock: socket.socket | None) -> None:
        if sock is not None:
            self._timer = threading.Timer(self.left(), self._expire, (sock,))
            self._timer.daemon = True
            self._timer.start()

    def _expire(self, sock: socket.socket) -> None:
        self.expired = True
        try:  # the plain socket's shutdown (an SSL socket's own would tear down its state under the reader)
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


class _Endpoint:
    """POSTs JSON to one URL with timeouts, retries and back-off over one httpx client, whose connections
    are kept open and reused (one per request in flight); TLS verified unless told otherwise."""

    def __init__(self, url: str, options: RemoteOptions, key: str | None):
        import httpx

        self.url, self.shown, self.options = url, shown_url(url), options
        self._key = key
        self._refused: str | None = None  # set by 401/403 or a bad certificate: no request can succeed
        context = ssl.create_default_context()  # the system's trust store, SSL_CERT_FILE included
        if not options.verify_tls:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            if url.startswith("https:"):
                log.warning("%s: TLS certificate not verified (--insecure)", self.shown)
        if key and url.startswith("http:"):
            host = urllib.parse.urlsplit(url).hostname
            if host not in LOCAL_HOSTS:
                log.warning("%s: the API key is sent without encryption (http, not https)", self.shown)
        self._client = httpx.Client(
            verify=context,
            follow_redirects=False,  # a 3xx reaches the caller as is
            timeout=options.timeout,
            limits=httpx.Limits(
                max_connections=options.concurrency, max_keepalive_connections=options.concurrency
            ),
        )

    def mask(self, text: str) -> str:
        """``text`` with the key masked (an endpoint may echo it)."""
        return text.replace(self._key, "***") if self._key else text

    def scrub(self, text: Any, limit: int = 300) -> str:
        """One line of at most ``limit`` characters, the key masked."""
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        text = self.mask(" ".join(text.split()))
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def post(self, payload: Any, salt: str) -> Any:
        """The JSON reply to ``payload``; ``_Failure`` when there is none after the retries. ``salt`` picks
        the jitter of the back-off schedule (deterministic per request)."""
        if self._refused:
            raise _Failure(self._refused)
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        attempts = self.options.retries + 1
        for attempt in range(attempts):
            retry_after = None
            try:
                status, body, retry_after = self._send(data)
            except _Retry as e:
                reason = e.args[0]
            else:
                if 200 <= status < 300:
                    try:
                        return json.loads(body)
                    except (ValueError, UnicodeDecodeError):
                        raise _Failure(f"{self.shown}: reply is not JSON: {self.scrub(body[:80])}") from None
                reason = f"HTTP {status} {self.scrub(body, 200)}".rstrip()
                if status in (401, 403):
                    self._refused = f"{self.shown}: {reason} (check the API key)"
                    raise _Failure(self._refused)
                if status != 429 and status < 500:
                    raise _Failure(f"{self.shown}: {reason}")
            if attempt + 1 < attempts:
                delay = self._delay(attempt, salt, retry_after)
                log.debug("%s: %s; retry %d of %d", self.shown, reason, attempt + 1, attempts - 1)
                time.sleep(delay)
        raise _Failure(f"{self.shown}: {reason} (after {attempts} attempt{'s' * (attempts > 1)})")

    def _delay(self, attempt: int, salt: str, retry_after: float | None) -> float:
        jitter = 0.5 + random.Random(f"{salt}:{attempt}").random()  # 0.5x to 1.5x, fixed per request
        delay = self.options.backoff * 2**attempt * jitter
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, MAX_DELAY)

    def _send(self, data: bytes) -> tuple[int, bytes, float | None]:
        """(status, body, Retry-After seconds); ``_Retry`` for a failure worth retrying. ``--timeout``
        bounds the whole exchange, not each socket read: a server trickling its reply is cut off."""
        import httpx

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        deadline = _Deadline(self.options.timeout)
        try:
            with self._client.stream("POST", self.url, content=data, headers=headers) as response:
                stream = response.extensions.get("network_stream")
                deadline.watch(stream.get_extra_info("socket") if stream is not None else None)
                body = self._read(response, deadline)
                status = response.status_code
                retry_after = None if 200 <= status < 300 else _seconds(response.headers.get("Retry-After"))
        except httpx.HTTPError as e:
            self._network_error(e, deadline)
        finally:
            deadline.cancel()
        if deadline.expired:  # a body read to the end of a closed connection may look complete
            raise _Retry(f"no complete reply within {self.options.timeout:g} s")
        return status, body, retry_after

    def _read(self, response: Any, deadline: _Deadline) -> bytes:
        body = bytearray()
        for piece in response.iter_raw():
            body += piece
            if len(body) > MAX_REPLY_BYTES:
                raise _Failure(f"{self.shown}: reply larger than {MAX_REPLY_BYTES >> 20} MiB")
            if not deadline.left():
                raise _Retry(f"no complete reply within {self.options.timeout:g} s")
        return bytes(body)

    def _network_error(self, error: Any, deadline: _Deadline) -> NoReturn:
        import httpx

        if deadline.expired or isinstance(error, httpx.TimeoutException):
            raise _Retry(f"no complete reply within {self.options.timeout:g} s")
        cause = error.__context__
        while cause is not None and not isinstance(
            cause, ssl.SSLCertVerificationError | ConnectionRefusedError
        ):
            cause = cause.__context__
        if isinstance(cause, ssl.SSLCertVerificationError):
            self._refused = (
                f"{self.shown}: TLS certificate not accepted ({self.scrub(cause.verify_message or cause)}); "
                "add its CA to the system's trust store (or SSL_CERT_FILE), or turn verification off with "
                "--insecure"
            )
            raise _Failure(self._refused)
        if isinstance(cause, ConnectionRefusedError):
            raise _Retry("connection refused")
        if isinstance(error, httpx.RemoteProtocolError):
            text = str(error)
            raise _Retry(
                "reply cut short" if "incomplete" in text.lower() else "connection closed without a reply"
            )
        raise _Retry(f"{type(error).__name__}: {self.scrub(error, 200)}")


class _Retry(Exception):
    """A failure of one attempt that another attempt may not have."""


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: the back-off schedule is used instead


def _map(fn: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """``[fn(x) for x in items]``, up to ``workers`` at a time, in order."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(min(workers, len(items)), thread_name_prefix="autocheck-remote") as pool:
        return list(pool.map(fn, items))


# ------------------------------------------------------------------------------------------ HTTP models


class HTTPModel(Model):
    """A model behind autocheck's JSON protocol (see the module docs): one request per ``batch_size``
    inputs, ``concurrency`` requests at a time. Its labels are the task's (probabilities in that order).

    Its answers are pinned by a declared version, or by the ``model_version`` its replies carry: the first
    one pins the identity (``Model.predict`` then looks up the rest in the cache); a reply naming another
    version (a redeployment mid-run, or not the declared one) unpins it, with a warning, for the run."""

    pinned = False  # the URL alone says nothing of the model behind it
    learns_version = True

    def __init__(self, url: str, task: Task, options: RemoteOptions, *, batch_size: int = 32):
        self.name = shown_url(url)
        self.identity = self._base = f"http:{self.name}{_query_digest(url)}"
        self.declared_version: str | None = None  # --model-version
        self.version: str | None = None  # the model_version the endpoint returned first
        self._lock = threading.Lock()
        self.task = task
        self._read, self.labels = for_output(
            f"model {self.name}",
            task,
            {"label": (self._label_prediction, task.labels), "span": (_span_prediction, ())},
        )
        self.options = options
        self.request_size = batch_size
        named = options.api_key_file is not None or options.api_key_env is not None
        self._endpoint = _Endpoint(url, options, read_key(options, required=True) if named else None)

    # ``Model.predict`` hands ``batch_size`` inputs at a time to ``_predict``: enough for ``concurrency``
    # requests of ``request_size`` (the user's --batch-size) each.
    @property
    def batch_size(self) -> int:
        return self.request_size * self.options.concurrency

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        if value < 1:
            raise InputError(f"{self.name}: batch size must be at least 1, got {value}")
        self.request_size = value

    def _predict(self, batch: list[Input]) -> list[Any]:
        size = self.request_size
        chunks = [batch[i : i + size] for i in range(0, len(batch), size)]
        return [a for answers in _map(self._ask, chunks, self.options.concurrency) for a in answers]

    def _ask(self, chunk: list[Input]) -> list[Any]:
        payload = {"task": self.task.name, "inputs": [dict(zip(self.task.inputs, item)) for item in chunk]}
        try:
            reply = self._endpoint.post(payload, salt=content_hash(*chunk[0]))
            predictions = reply.get("predictions") if isinstance(reply, dict) else None
            if not isinstance(predictions, list):
                raise _Failure(f"{self.name}: reply has no 'predictions' list")
            if len(predictions) != len(chunk):
                raise _Failure(f"{self.name}: {len(predictions)} predictions for {len(chunk)} inputs")
            self._note_version(reply.get("model_version"))
        except _Failure as e:
            log.warning("%s", e.reason)
            return [Failed(e.reason)] * len(chunk)
        return [self._answer(p) for p in predictions]

    def _note_version(self, version: Any) -> None:
        if (
            not isinstance(version, (str, int, float))
            or isinstance(version, bool)
            or not str(version).strip()
        ):
            return
        version = str(version).strip()
        with self._lock:  # replies of concurrent requests
            first = self.version is None
            if first:
                self.version = version
            known = self.declared_version or self.version
            if version != known:
                if self.pinned or first:
                    log.warning(
                        "%s: the endpoint answers as model_version %r, not %r: its answers are not cached",
                        self.name,
                        version,
                        known,
                    )
                self.pinned = False
            elif first and self.declared_version is None:
                self.identity, self.pinned = f"{self._base} version:{version}", True

    def _answer(self, prediction: Any) -> Any:
        """One prediction of the reply: probabilities over the task's labels, ``(answer, score)``, or
        ``Failed`` with the reason."""
        if not isinstance(prediction, dict):
            return Failed(f"{self.name}: a prediction is not a JSON object")
        if "error" in prediction:
            return Failed(f"{self.name}: {self._endpoint.scrub(prediction['error'])}")
        try:
            return self._read(prediction)
        except InputError as e:
            return Failed(f"{self.name}: {self._endpoint.scrub(e)}")

    def _label_prediction(self, prediction: dict[str, Any]) -> Any:
        """A classifier's prediction: probabilities over the task's labels."""
        probs = prediction.get("probs")
        if probs is None:
            if not isinstance(prediction.get("label"), str):
                raise InputError("a prediction has neither 'label' nor 'probs'")
            names, values = [prediction["label"]], [1.0]
        elif isinstance(probs, dict) and probs and all(_is_number(v) and v >= 0 for v in probs.values()):
            names, values = list(probs), [float(v) for v in probs.values()]
        else:
            raise InputError("'probs' must map class names to probabilities >= 0")
        labels = self.task.model_labels(names, "reply")
        return self.task.read(labels, np.array([values]))[0][0].tolist()


def _span_prediction(prediction: dict[str, Any]) -> Any:
    """A question-answering prediction: ``(answer, score)``."""
    answer, score = prediction.get("answer"), prediction.get("score", 1.0)
    if not isinstance(answer, str) or not _is_number(score):
        raise InputError("a prediction needs 'answer' (a text) and a numeric 'score'")
    return (answer, float(score))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# ------------------------------------------------------------------------------------------ chat models


class ChatModel(Model):
    """An OpenAI-compatible chat model asked with the task's prompt, one request per input. Its answers are
    reused across runs only under a declared version (``--model-version``)."""

    pinned = False

    def __init__(self, spec: str, task: Task, options: RemoteOptions, *, batch_size: int = 32):
        model, _, base = spec[len("openai:") :].partition("@")
        if not model:
            raise InputError("openai:MODEL[@BASE_URL]: the model name is missing")
        if not task.prompt:
            fields = ", ".join("{" + f + "}" for f in task.inputs)
            raise InputError(
                f'the {task.name} task has no prompt for chat models: add "prompt" to its spec, a text '
                f"with {fields} and {{labels}} where the input and the task's labels go"
            )
        explicit = bool(base)
        base = base or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        shown = shown_url(base)
        parts = urllib.parse.urlsplit(base)  # a query (Azure's api-version) stays after the path
        url = parts._replace(path=parts.path.rstrip("/") + "/chat/completions").geturl()
        self.name = f"openai:{model}" + (f"@{shown}" if explicit else "")
        labels = ", ".join(task.labels)
        # what else is asked changes the answers; nothing else keeps the identity answers were cached under
        extra = [f"system:{options.system_prompt}"] if options.system_prompt else []
        extra += [f"max_tokens:{options.max_tokens}"] if options.max_tokens is not None else []
        asked = content_hash(task.prompt, labels, *extra)
        self.identity = (
            f"openai:{model}@{shown}{_query_digest(base)} temperature:0 reader:{READER} prompt:{asked}"
        )
        self.task = task
        self._read_reply, self.labels = for_output(
            f"model {model}", task, {"label": (self._label_reply, task.labels), "span": (_span_reply, ())}
        )
        self.batch_size = batch_size
        self.model, self.options = model, options
        self._labels_text = labels
        # a server on this machine (llama.cpp, vLLM, Ollama) needs no key unless one is named
        named = options.api_key_file is not None or options.api_key_env is not None
        local = parts.hostname in LOCAL_HOSTS
        self._endpoint = _Endpoint(url, options, read_key(options, required=named or not local))
        # every label name and alias, the longest first ("non-hateful" before "hateful"), as a whole word
        names = sorted((name for name, _ in task.aliases), key=len, reverse=True)
        words = "|".join(map(re.escape, names)) or r"(?!)"
        self._pattern = re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.IGNORECASE)

    def prompt(self, item: Input) -> str:
        """The task's prompt for one input (placeholders filled in one pass: texts are never re-read)."""
        values = dict(zip(self.task.inputs, item), labels=self._labels_text)
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), self.task.prompt or "")

    def _predict(self, batch: list[Input]) -> list[Any]:
        return _map(self._ask, batch, self.options.concurrency)

    def _ask(self, item: Input) -> Any:
        system = (
            [{"role": "system", "content": self.options.system_prompt}] if self.options.system_prompt else []
        )
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [*system, {"role": "user", "content": self.prompt(item)}],
            "temperature": 0,
        }
        if self.options.max_tokens is not None:
            payload["max_tokens"] = self.options.max_tokens
        try:
            reply = self._endpoint.post(payload, salt=content_hash(*item))
            try:
                message = reply["choices"][0]["message"]
                content = message.get("content")
            except (KeyError, IndexError, TypeError, AttributeError):
                raise _Failure(f"{self.name}: reply is not a chat completion (choices[0].message)") from None
        except _Failure as e:
            log.warning("%s", e.reason)
            return Failed(e.reason)
        if not isinstance(content, str):
            refusal = message.get("refusal")
            return Invalid(self._endpoint.mask(refusal) if isinstance(refusal, str) else "")
        return self.read_reply(self._endpoint.mask(content))

    def read_reply(self, reply: str) -> Any:
        """A classification reply naming exactly one label (one-hot), or a span answer; else ``Invalid``."""
        return self._read_reply(reply)

    def _label_reply(self, reply: str) -> Any:
        aliases = dict(self.task.aliases)
        named = {aliases.get(m.group(0).lower()) for m in self._pattern.finditer(reply)} - {None}
        if len(named) != 1:
            return Invalid(reply)
        (label,) = named
        return [float(label == x) for x in self.labels]


def _span_reply(reply: str) -> Any:
    answer, previous = reply, None
    while answer != previous:
        previous = answer
        answer = answer.strip().rstrip(".").strip("\"'`“”‘’")
    return (answer, 1.0) if answer else Invalid(reply)
