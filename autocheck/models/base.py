"""The one protocol every model under test follows, whatever its form (in-process, callable, file, remote).

A model answers a batch of *inputs*: tuples of the task's input fields in ``task.inputs`` order (``(text,)``,
``(premise, hypothesis)``, ``(context, question)``). A classifier answers probabilities over its classes,
named by ``labels`` (task labels, see ``tasks.Task.model_labels``); a question-answering model answers a
span of the context with a score. A model that could not answer an input (a remote endpoint that failed)
reports an *error* for it, and one whose reply cannot be read (a chat model answering off-label) an
*invalid* reply: the runner records both, counts the first as not run and the second as a failure.

``predict`` goes through a persistent prediction cache keyed by (model identity, input), so the same model
never runs twice on the same input, across runs, when its identity pins its answers (``pinned``: hashed
weights, a hub commit, a version the user declares or an endpoint returns); any other model's answers live
for one run. Errors are never cached. The batches it cuts can be
answered in other processes (``execute.ray``), by copies of the model loaded from ``loader``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import numpy as np

from ..cache import Cache
from ..resources import ResourceMissing
from ..store import InputError, content_hash
from ..tasks import Task

log = logging.getLogger(__name__)

Input = tuple[str, ...]
LABEL_ONLY = "label_only"  # an answer that named a label without probabilities: {LABEL_ONLY: one-hot row}


@dataclass
class Outputs:
    """A model's answers to ``n`` inputs.

    ``probs``: (n, len(labels)) class probabilities of a classifier, or (n, 1) the answer score of a span
    model; rows of inputs without an answer are NaN. ``answers``: a span model's answer per input.
    ``errors``/``invalid``: input index -> what went wrong / the unreadable reply."""

    probs: np.ndarray
    answers: list[str | None] | None = None
    errors: dict[int, str] = field(default_factory=dict)
    invalid: dict[int, str] = field(default_factory=dict)
    cached: int = 0  # inputs answered from the persistent prediction cache


class Model:
    """A model under test. Subclasses set ``name``, ``identity``, ``task``, ``labels`` (classifiers; may be
    decided on the first answer) and implement ``_predict`` for one batch: a list with, per input, a list of
    class probabilities, an answer ``(text, score)`` (span tasks), ``Invalid(reply)`` or ``Failed(why)``;
    or a 2-D array of probabilities."""

    name: str
    identity: str  # everything the predictions depend on; the prediction cache key includes it
    task: Task
    labels: tuple[str, ...] = ()
    batch_size: int = 32
    cacheable = True  # False: never cached (a file of predictions; --no-cache)
    pinned = True  # the identity pins the answers (weights hashed, a commit, a declared version)
    learns_version = False  # the first answers may name a version that pins the rest (``predict``)
    probabilities = True  # False: the answers are labels only (tests that need probabilities do not apply)
    loader: tuple[str, dict[str, Any]] | None = None  # load_model's spec and options, to load it elsewhere

    def _predict(self, batch: list[Input]) -> Any:
        raise NotImplementedError

    def predict(
        self,
        inputs: Sequence[Input],
        compute: Callable[[list[list[Input]]], Iterable[list[Any]]] | None = None,
        *,
        batch_size: int | None = None,
        use_cache: bool = True,
    ) -> Outputs:
        """The model's outputs for ``inputs``: cached answers, then each distinct uncached input once, in
        batches of ``batch_size`` (sorted by length, so batches waste less padding). ``compute`` answers
        the batches elsewhere, in order (``execute.ray.RayPredictor``); by default this process does.

        Answers are read from and written to the persistent cache only when the identity pins them
        (``pinned``); otherwise they live for this call. A model that learns its version from its first
        answers (``learns_version``: an endpoint returning ``model_version``) answers one batch, then
        looks up the rest under the version it named. ``batch_size`` overrides the model's own for this
        call; ``use_cache=False`` neither reads nor writes the cache (``run --no-cache``)."""
        inputs = list(inputs)
        todo = sorted(dict.fromkeys(inputs), key=lambda item: sum(map(len, item)))
        found: dict[Input, Any] = {}
        errors: dict[Input, str] = {}
        early: dict[Input, Any] = {}
        size = batch_size or self.batch_size
        cacheable = self.cacheable and use_cache
        if cacheable and not self.pinned and self.learns_version and todo:
            first, todo = todo[:size], todo[size:]
            early = self._record(first, self._answers(first), found, errors)
        cache = Cache("predictions") if cacheable and self.pinned else None
        hits: set[Input] = set()
        if cache:
            cache.put_many({self._key(item): answer for item, answer in early.items()})
            keys = {self._key(item): item for item in todo}
            for key, answer in cache.get_many(keys).items():
                found[keys[key]] = answer
                hits.add(keys[key])
            todo = [item for item in todo if item not in hits]
        if todo:
            log.info("%s: predicting %d inputs (%d cached)", self.name, len(todo), len(hits))
        batches = [todo[start : start + size] for start in range(0, len(todo), size)]
        answered = compute(batches) if compute and batches else map(self._answers, batches)
        for batch, answers in zip(batches, answered):
            fresh = self._record(batch, answers, found, errors)
            if cache and self.pinned:  # an endpoint that changed its version mid-run is no longer pinned
                cache.put_many({self._key(item): answer for item, answer in fresh.items()})
        if cache:
            cache.close()
        if not self.task.is_span and not self.labels:  # every answer came from the cache or elsewhere
            rows = (a.get(LABEL_ONLY, a) if isinstance(a, dict) else a for a in found.values())
            width = next((len(a) for a in rows if isinstance(a, list)), None)
            if width:
                self.labels = default_labels(self.task, width, f"model {self.name}")
        outputs = self._outputs([found.get(item) for item in inputs], [errors.get(item) for item in inputs])
        outputs.cached = sum(item in hits for item in inputs)
        return outputs

    def _key(self, item: Input) -> str:
        return content_hash(self.identity, *item)

    @staticmethod
    def _record(
        batch: list[Input], answers: list[Any], found: dict[Input, Any], errors: dict[Input, str]
    ) -> dict[Input, Any]:
        """Sort one batch's answers into ``found`` and ``errors``; the answers worth caching."""
        fresh = {}
        for item, answer in zip(batch, answers):
            if isinstance(answer, Failed):
                errors[item] = answer.why
            else:
                fresh[item] = answer.as_json() if isinstance(answer, Invalid) else answer
        found.update(fresh)
        return fresh

    def _answers(self, batch: list[Input]) -> list[Any]:
        """The model's answers to ``batch``. A batch the model raises on (out of memory, an input it
        cannot take) is retried in halves, so one bad input fails alone: it is recorded as ``Failed`` and
        the run goes on. Errors in what the user gave (``InputError``, a missing resource) stop the run."""
        try:
            return self._checked(batch, self._predict(batch))
        except (InputError, ResourceMissing, KeyboardInterrupt):
            raise
        except Exception as e:  # a model's own failure: any type
            why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
            if len(batch) == 1:
                log.warning("%s: no answer for one input (%s)", self.name, why)
                return [Failed(f"the model raised {why}")]
            log.warning("%s: a batch of %d failed (%s); retrying it in halves", self.name, len(batch), why)
            half = len(batch) // 2
            return self._answers(batch[:half]) + self._answers(batch[half:])

    def predict_proba(self, texts: Sequence[str | Input]) -> np.ndarray:
        """Class probabilities (in ``labels`` order) for texts (one-field tasks) or inputs: a shortcut to
        ``predict(...).probs`` for Python users."""
        return self.predict([(t,) if isinstance(t, str) else tuple(t) for t in texts]).probs

    def _outputs(self, answers: list[Any], errors: list[str | None]) -> Outputs:
        span = self.task.is_span
        width = 1 if span else len(self.labels)
        out = Outputs(np.full((len(answers), width), np.nan), [None] * len(answers) if span else None)
        for i, (answer, error) in enumerate(zip(answers, errors)):
            if error is not None:
                out.errors[i] = error
            elif isinstance(answer, dict) and LABEL_ONLY in answer:  # a label without probabilities
                out.probs[i] = answer[LABEL_ONLY]
                self.probabilities = False
            elif isinstance(answer, dict):  # a cached Invalid
                out.invalid[i] = answer["invalid"]
            elif span:
                out.answers[i], out.probs[i, 0] = answer[0], answer[1]  # type: ignore[index]
            else:
                out.probs[i] = answer
        return out

    def _checked(self, batch: list[Input], raw: Any) -> list[Any]:
        """One answer per input, each a probability list (classifiers), ``[answer, score]`` (span models),
        ``Invalid`` or ``Failed``. A classifier may answer, per input, probabilities, a label, a
        pipeline-style ``{"label", "score"}`` or a list of those (``_row``). Anything else is an
        ``InputError`` saying what came back and what is expected: a deterministic mistake of the model's
        code, so the run stops at the first batch instead of retrying it input by input."""
        try:
            raw = raw if isinstance(raw, dict) else list(raw)  # the rows of an array, the answers of a list
        except TypeError:
            raise InputError(
                f"model {self.name}: returned {_shown(raw)} for a batch of {len(batch)} inputs; expected "
                f"one answer per input ({self._expected()})"
            ) from None
        if isinstance(raw, dict) or len(raw) != len(batch):
            # list(a dict) is its keys: {"positive": 0.8} would read as 1 answer
            got = f"a single {_shown(raw)}" if isinstance(raw, dict) else f"{len(raw)} answers"
            raise InputError(
                f"model {self.name}: returned {got} for a batch of {len(batch)} inputs; expected a list "
                f"with one answer per input ({self._expected()})"
            )
        out: list[Any] = []
        for answer in raw:
            if isinstance(answer, (Invalid, Failed)):
                out.append(answer)
            elif self.task.is_span:
                try:
                    text, score = (answer, 1.0) if isinstance(answer, str) else answer
                    out.append([str(text), float(score)])
                except (TypeError, ValueError):
                    raise InputError(
                        f"model {self.name}: an answer is {_shown(answer)}; expected {self._expected()}"
                    ) from None
            else:
                out.append(self._row(answer))
        return out

    def _expected(self) -> str:
        if self.task.is_span:
            return "an answer text or an (answer, score) pair"
        width = f"{len(self.labels)} " if self.labels else ""
        return (
            f"a list of {width}class probabilities, a label (a text), a pipeline-style "
            '{"label": ..., "score": ...} or a list of those'
        )

    def _row(self, answer: Any) -> Any:
        """One classifier answer as probabilities over ``labels`` (decided here when not declared)."""
        if isinstance(answer, dict) and not isinstance(answer.get("label"), str):
            raise InputError(f"model {self.name}: an answer is {_shown(answer)}; expected {self._expected()}")
        if isinstance(answer, str) or (isinstance(answer, dict) and "score" not in answer):
            label = answer if isinstance(answer, str) else answer.get("label")
            return self._from_scores({label: 1.0}, label_only=True)
        if isinstance(answer, dict):  # a pipeline's top answer: its label and score
            label, given = answer.get("label"), answer.get("score")
            score = float(given) if _is_score(given) else None
            if not self.labels or score is None:
                return self._from_scores({label: 1.0}, label_only=True)
            named = self._label_of(label)
            rest = (1.0 - score) / max(len(self.labels) - 1, 1)
            return [score if x == named else rest for x in self.labels]
        if isinstance(answer, (list, tuple)) and answer and all(isinstance(a, dict) for a in answer):
            scores = {a.get("label"): a.get("score") for a in answer}  # a pipeline's answer, top_k=None
            if not all(_is_score(v) for v in scores.values()):
                raise InputError(
                    f"model {self.name}: an answer is {_shown(answer)}; expected {self._expected()}"
                )
            return self._from_scores(scores)
        try:
            row = np.asarray(answer, dtype=float)
        except (TypeError, ValueError):
            raise InputError(
                f"model {self.name}: an answer is {_shown(answer)}; expected {self._expected()}"
            ) from None
        if not self.labels and row.ndim == 1:
            self.labels = default_labels(self.task, row.shape[-1], f"model {self.name}")
        if row.shape != (len(self.labels),):
            raise InputError(
                f"model {self.name}: returned probabilities of shape {row.shape} for the "
                f"{len(self.labels)} labels {self.labels}"
            )
        if not np.isfinite(row).all():
            raise InputError(
                f"model {self.name}: returned probabilities {_shown(answer)}, not all finite numbers (NaN or "
                "infinity); a model that cannot score an input should raise, so only that input is an error"
            )
        return [float(p) for p in row]

    def _label_of(self, name: Any) -> str:
        if not isinstance(name, str):
            raise InputError(
                f"model {self.name}: an answer names the label {_shown(name)}; expected {self._expected()}"
            )
        (label,) = self.task.model_labels([name], f"model {self.name}")
        return label

    def _from_scores(self, scores: dict[Any, Any], *, label_only: bool = False) -> Any:
        """Probabilities over ``labels`` from class name -> score (classes not named get 0). Without declared
        labels, the model's labels are the task's (those named, for a full distribution)."""
        named = {self._label_of(name): float(score) for name, score in scores.items()}
        if not self.labels:
            keep = set(named) if not label_only else set(self.task.labels)
            self.labels = tuple(x for x in self.task.labels if x in keep)
        unknown = set(named) - set(self.labels)
        if unknown:
            raise InputError(
                f"model {self.name}: answered {sorted(unknown)}; its labels are {list(self.labels)}"
            )
        row = [named.get(x, 0.0) for x in self.labels]
        return {LABEL_ONLY: row} if label_only else row  # marked, in the cache too (``_outputs``)

    def read(self, outputs: Outputs) -> tuple[np.ndarray, list[str | None]]:
        """Per input: probabilities over the task's labels and the predicted label (a classifier, read by
        ``Task.read``), or the score and the answer (a span model). Rows without an answer read NaN/None."""
        if self.task.is_span:
            assert outputs.answers is not None
            return outputs.probs, list(outputs.answers)
        answered = ~np.isnan(outputs.probs).any(axis=1)
        probs = np.full((len(outputs.probs), len(self.task.labels)), np.nan)
        labels: list[str | None] = [None] * len(outputs.probs)
        if answered.any():
            read, read_labels = self.task.read(self.labels, outputs.probs[answered])
            probs[answered] = read
            for i, label in zip(np.flatnonzero(answered), read_labels):
                labels[i] = label
        return probs, labels

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, labels={self.labels})"


@dataclass(frozen=True, slots=True)
class Invalid:
    """A reply the task cannot read (a chat model's off-label answer): recorded, and the case fails."""

    reply: str

    def as_json(self) -> dict[str, str]:
        return {"invalid": self.reply}


@dataclass(frozen=True, slots=True)
class Failed:
    """No answer for this input (an endpoint that kept failing): recorded, and the case is not run."""

    why: str


def _shown(value: Any) -> str:
    """What came back, for an error: its type and the start of its text."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:79] + '…'}"


def _is_score(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and np.isfinite(value)


def default_labels(task: Task, width: int, where: str) -> tuple[str, ...]:
    """Labels of a model that declares none: the task's ``label_order`` for ``width`` classes, or the task's
    own labels when there are ``width`` of them."""
    order = dict(task.label_order).get(width)
    if order:
        return order
    if width == len(task.labels):
        return task.labels
    raise InputError(
        f"{where}: {width} probability columns; the {task.name} task has {len(task.labels)} labels "
        f"{list(task.labels)} (declare the model's labels)"
    )


def default_task() -> Task:
    """The sentiment task (what a suite without a recorded task is)."""
    from ..requirements import load_spec

    return load_spec(None, "sentiment").task
