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
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cache import Cache
from ..outputs import Outputs, kind_of
from ..outputs.kind import shown
from ..outputs.label import default_labels
from ..resources import ResourceMissing
from ..store import InputError, content_hash
from ..tasks import Task

log = logging.getLogger(__name__)

Input = tuple[str, ...]

__all__ = ["Failed", "Input", "Invalid", "Model", "Outputs", "default_labels"]


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
            early = self._record(first, self.answer(first), found, errors)
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
        answered = compute(batches) if compute and batches else map(self.answer, batches)
        for batch, answers in zip(batches, answered):
            fresh = self._record(batch, answers, found, errors)
            if cache and self.pinned:  # an endpoint that changed its version mid-run is no longer pinned
                cache.put_many({self._key(item): answer for item, answer in fresh.items()})
        if cache:
            cache.close()
        answers, why = [found.get(item) for item in inputs], [errors.get(item) for item in inputs]
        outputs = kind_of(self.task).outputs(self, answers, why)
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

    def answer(self, batch: list[Input]) -> list[Any]:
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
            return self.answer(batch[:half]) + self.answer(batch[half:])

    def predict_proba(self, texts: Sequence[str | Input]) -> np.ndarray:
        """Class probabilities (in ``labels`` order) for texts (one-field tasks) or inputs: a shortcut to
        ``predict(...).probs`` for Python users."""
        return self.predict([(t,) if isinstance(t, str) else tuple(t) for t in texts]).probs

    def _checked(self, batch: list[Input], raw: Any) -> list[Any]:
        """One answer per input: ``Invalid``, ``Failed``, or what the task's output kind stores
        (``outputs.kind.OutputKind.answer``: a probability list of a classifier, ``[answer, score]`` of a
        span model). Anything else is an ``InputError`` saying what came back and what is expected: a
        deterministic mistake of the model's code, so the run stops at the first batch instead of retrying
        it input by input."""
        try:
            raw = raw if isinstance(raw, dict) else list(raw)  # the rows of an array, the answers of a list
        except TypeError:
            raise InputError(
                f"model {self.name}: returned {shown(raw)} for a batch of {len(batch)} inputs; expected "
                "one answer per input"
            ) from None
        if isinstance(raw, dict) or len(raw) != len(batch):
            # list(a dict) is its keys: {"positive": 0.8} would read as 1 answer
            got = f"a single {shown(raw)}" if isinstance(raw, dict) else f"{len(raw)} answers"
            raise InputError(
                f"model {self.name}: returned {got} for a batch of {len(batch)} inputs; expected a list "
                "with one answer per input"
            )
        kind = kind_of(self.task)
        return [a if isinstance(a, (Invalid, Failed)) else kind.answer(self, a) for a in raw]

    def read(self, outputs: Outputs) -> tuple[np.ndarray, list[Any]]:
        """Per input, the task's scores and answer, as the tests compare them (``OutputKind.read``): the
        probabilities over the task's labels and the predicted label of a classifier, the score and the
        answer of a span model. Rows without an answer read NaN/None."""
        return kind_of(self.task).read(self, outputs)

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
