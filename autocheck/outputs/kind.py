"""The ``OutputKind`` protocol: what a task's models answer, and everything that depends on it.

A task's ``output`` names a registered output kind (``outputs.OUTPUT_KINDS``): ``label`` (a classifier over
the task's labels) and ``span`` (extractive question answering) are autocheck's; a plug-in adds one through
the entry-point group ``autocheck.outputs``. Nothing outside a kind asks which kind a task has: the runner,
the models, the expectations, the results and the export ask the kind instead, through these methods.

A model's answers live in two shapes:

* the *answer*: one input's answer as JSON (a probability row over the model's labels, ``[text, score]``),
  what the prediction cache stores (``answer`` reads and validates a model's raw answer into it);
* the *reading*: per input, a row of scores (``(n, width)``, NaN without an answer) and the answer itself
  (a task label, an answer text; None without an answer), what the tests compare (``read``).

A new kind implements every method below (``outputs.label`` is the worked example, ``outputs.span`` a short
one; a kind whose answers move in no direction inherits ``WithoutDirections`` and gives ``check_mft``). Three
hooks are optional, for answers located in the text (``outputs.entities``): ``unmark(text)``
-> (text, expected) reads an expectation marked in a template's text; ``carry(answer, edits, field)`` moves
an INV original's answer through a perturbation's edits (None: it cannot be placed, the case does not
apply); ``tally()`` gives an object whose ``add(expected, answer, task_labels, origin)`` counts each judged
MFT case and whose ``to_json()`` the results record under the kind's name.

A model form that reads a format of its own (a predictions file, an HTTP reply) declares which kinds it
reads; an authoring source asks ``expects_labels``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..store import InputError
from ..tasks import Task

PASS, FAIL, NA, ERROR = "pass", "fail", "n/a", "error"
LABEL_ONLY = "label_only"  # an answer that named a label without probabilities: {LABEL_ONLY: one-hot row}


@dataclass
class Outputs:
    """A model's answers to ``n`` inputs, as its output kind builds them (``OutputKind.outputs``).

    ``probs``: (n, width) scores, NaN for inputs without an answer: class probabilities over the model's
    labels (a classifier), the answer's score (a span model). ``answers``: the answers themselves when they
    are not read from the scores (a span model's texts). ``errors``/``invalid``: input index -> what went
    wrong / the unreadable reply."""

    probs: np.ndarray
    answers: list[Any] | None = None
    errors: dict[int, str] = field(default_factory=dict)
    invalid: dict[int, str] = field(default_factory=dict)
    cached: int = 0  # inputs answered from the persistent prediction cache


class Answering(Protocol):
    """What a kind sees of a model (``models.Model``): it may decide ``labels`` from the first answers and
    clear ``probabilities`` when the answers are labels without them."""

    name: str
    task: Task
    labels: tuple[str, ...]
    probabilities: bool


class OutputKind(Protocol):
    name: str
    # Expectations (MFT's ``expected``, a dataset example's label, a template's) are task labels; when
    # False they are the kind's own answers (texts), and templates give them as ``answer``.
    expects_labels: bool
    # columns of a retraining export beside the label, filled by ``export`` (the ``hf`` format stores each
    # as a list of texts)
    export_columns: tuple[str, ...]

    def check_task(self, task: Task, where: str) -> None:
        """Raise ``InputError`` naming ``where`` when the task's header does not suit this kind."""

    def check_expected(self, task: Task, test_type: str, expected: Any) -> str | None:
        """Why ``expected`` is not a valid expectation of ``test_type`` (None when it is)."""

    # ------------------------------------------------------------------------------ a model's answers
    def answer(self, model: Answering, raw: Any) -> Any:
        """One raw answer of ``model`` as the JSON the cache stores; ``InputError`` saying what came back
        and what is expected when it is not one (a deterministic mistake in the model's code)."""

    def outputs(self, model: Answering, answers: Sequence[Any], errors: Sequence[str | None]) -> Outputs:
        """``Outputs`` from the stored answers (``answer``'s, a cached ``{"invalid": reply}``, or None with
        an error)."""

    def read(self, model: Answering, outputs: Outputs) -> tuple[np.ndarray, list[Any]]:
        """Per input, the task's scores and answer (None without an answer), as the tests compare them."""

    # ------------------------------------------------------------------------------ comparing answers
    def mft(self, task: Task, expected: Any, answer: Any) -> str:
        """PASS or FAIL: ``answer`` against MFT's ``expected``."""

    def inv(
        self, task: Task, orig_scores: np.ndarray, orig_answer: Any, scores: np.ndarray, answer: Any
    ) -> str:
        """PASS or FAIL: a changed case's answer against its original's (INV)."""

    def dir(
        self,
        task: Task,
        expected: dict[str, Any],
        orig_scores: np.ndarray,
        orig_answer: Any,
        scores: np.ndarray,
        answer: Any,
    ) -> str:
        """PASS, FAIL or NA: DIR's expectation of a changed case against its original."""

    # ------------------------------------------------------------------------------ results and export
    def result_fields(self, scores: np.ndarray, answer: Any) -> dict[str, Any]:
        """A case's answer as fields of its row in ``predictions.jsonl``."""

    def from_result(self, row: dict[str, Any]) -> tuple[np.ndarray, Any]:
        """``(scores, answer)`` back from such a row."""

    def export(
        self, test_type: str, expected: Any, label_space: Sequence[str], rule: str
    ) -> tuple[int, list[float], dict[str, Any]] | str:
        """A case as retraining data: label index (-1: none), soft label and the ``export_columns``; or
        why it is left out."""


def answered(out: Outputs, answers: Sequence[Any], errors: Sequence[str | None]) -> Iterator[tuple[int, Any]]:
    """Record in ``out`` each input's error and each cached ``{"invalid": reply}``; yield ``(index,
    answer)`` for every other input (what ``OutputKind.outputs`` fills in)."""
    for i, (answer, error) in enumerate(zip(answers, errors)):
        if error is not None:
            out.errors[i] = error
        elif isinstance(answer, dict) and "invalid" in answer:  # a cached Invalid
            out.invalid[i] = answer["invalid"]
        else:
            yield i, answer


def shown(value: Any) -> str:
    """What came back, for an error: its type and the start of its text."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:79] + '…'}"


def allowed(expected: Any) -> tuple[str, ...]:
    """A label or answer, or a tuple/list of allowed ones, as a tuple."""
    return tuple(expected) if isinstance(expected, tuple | list) else (expected,)


class WithoutDirections:
    """What the kinds whose answers move in no direction (a span, entities) share: an INV case expects
    nothing and DIR does not apply. The kind gives ``check_mft(task, expected)``."""

    def check_mft(self, task: Task, expected: Any) -> str | None:
        raise NotImplementedError

    def check_expected(self, task: Task, test_type: str, expected: Any) -> str | None:
        if test_type == "MFT":
            return self.check_mft(task, expected)
        if test_type == "INV":
            return None if expected is None else "null expected"
        if test_type == "DIR":
            return "DIR tests need a classification task"
        return "test_type must be MFT, INV or DIR"

    def dir(
        self,
        task: Task,
        expected: dict[str, Any],
        orig_scores: np.ndarray,
        orig_answer: Any,
        scores: np.ndarray,
        answer: Any,
    ) -> str:
        raise InputError("DIR tests need a classification task")  # check_expected refuses them first
