"""The one protocol every model under test follows, whatever its form (in-process, callable, file, remote).

A model answers a batch of *inputs*: tuples of the task's input fields in ``task.inputs`` order (``(text,)``,
``(premise, hypothesis)``, ``(context, question)``). A classifier answers probabilities over its classes,
named by ``labels`` (task labels, see ``tasks.Task.model_labels``); a question-answering model answers a
span of the context with a score. A model that could not answer an input (a remote endpoint that failed)
reports an *error* for it, and one whose reply cannot be read (a chat model answering off-label) an
*invalid* reply: the runner records both, counts the first as not run and the second as a failure.

``predict`` goes through a persistent prediction cache keyed by (model identity, input), so the same model
never runs twice on the same input, across runs. Errors are never cached. The batches it cuts can be
answered in other processes (``execute.ray``), by copies of the model loaded from ``loader``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cache import Cache
from ..resources import ResourceMissing
from ..store import InputError, content_hash
from ..tasks import Task

log = logging.getLogger(__name__)

Input = tuple[str, ...]


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
    cacheable = True
    loader: tuple[str, dict[str, Any]] | None = None  # load_model's spec and options, to load it elsewhere

    def _predict(self, batch: list[Input]) -> Any:
        raise NotImplementedError

    def predict(
        self,
        inputs: Sequence[Input],
        compute: Callable[[list[list[Input]]], Iterable[list[Any]]] | None = None,
    ) -> Outputs:
        """The model's outputs for ``inputs``: cached answers, then each distinct uncached input once, in
        batches of ``batch_size`` (sorted by length, so batches waste less padding). ``compute`` answers
        the batches elsewhere, in order (``execute.ray.RayPredictor``); by default this process does."""
        inputs = list(inputs)
        cache = Cache("predictions") if self.cacheable else None
        keys = [content_hash(self.identity, *item) for item in inputs]
        found = cache.get_many(keys) if cache else {}
        todo = list(dict.fromkeys(item for item, key in zip(inputs, keys) if key not in found))
        todo.sort(key=lambda item: sum(map(len, item)))
        errors: dict[str, str] = {}
        if todo:
            log.info("%s: predicting %d inputs (%d cached)", self.name, len(todo), len(inputs) - len(todo))
        batches = [todo[start : start + self.batch_size] for start in range(0, len(todo), self.batch_size)]
        answered = compute(batches) if compute and batches else map(self._answers, batches)
        for batch, answers in zip(batches, answered):
            fresh = {}
            for item, answer in zip(batch, answers):
                key = content_hash(self.identity, *item)
                if isinstance(answer, Failed):
                    errors[key] = answer.why
                else:
                    fresh[key] = answer.as_json() if isinstance(answer, Invalid) else answer
            if cache:
                cache.put_many(fresh)
            found.update(fresh)
        if cache:
            cache.close()
        if not self.task.is_span and not self.labels:  # every answer came from the cache or elsewhere
            width = next((len(a) for a in found.values() if isinstance(a, list)), None)
            if width:
                self.labels = default_labels(self.task, width, f"model {self.name}")
        return self._outputs([found.get(key) for key in keys], [errors.get(key) for key in keys])

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
            elif isinstance(answer, dict):  # a cached Invalid
                out.invalid[i] = answer["invalid"]
            elif span:
                out.answers[i], out.probs[i, 0] = answer[0], answer[1]  # type: ignore[index]
            else:
                out.probs[i] = answer
        return out

    def _checked(self, batch: list[Input], raw: Any) -> list[Any]:
        """One answer per input, each a probability list (classifiers), ``[answer, score]`` (span models),
        ``Invalid`` or ``Failed``; the wrong shape is an error naming the model."""
        raw = list(raw)  # the rows of an array, or the answers of a list
        if len(raw) != len(batch):
            raise InputError(f"model {self.name}: returned {len(raw)} answers for {len(batch)} inputs")
        out = []
        for answer in raw:
            if isinstance(answer, (Invalid, Failed)):
                out.append(answer)
            elif self.task.is_span:
                text, score = (answer, 1.0) if isinstance(answer, str) else answer
                out.append([str(text), float(score)])
            else:
                row = np.asarray(answer, dtype=float)
                if not self.labels:
                    self.labels = default_labels(self.task, row.shape[-1], f"model {self.name}")
                if row.shape != (len(self.labels),) or not np.isfinite(row).all():
                    raise InputError(
                        f"model {self.name}: returned probabilities of shape {row.shape} for the "
                        f"{len(self.labels)} labels {self.labels}"
                    )
                out.append([float(p) for p in row])
        return out

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
