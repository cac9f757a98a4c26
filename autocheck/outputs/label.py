"""The ``label`` output kind: a classifier over the task's labels.

A model answers, per input, probabilities over its classes (``Answering.labels``, task labels read by
``tasks.Task.model_labels``), a label, a pipeline-style ``{"label", "score"}`` or a list of those; the answer
stored is a probability row over the model's labels (``{LABEL_ONLY: one-hot row}`` for a label without
probabilities). The reading is a row over the task's labels and the predicted label (``Task.read``: a
binary model in a three-label task is read with the task's neutral band).

CheckList's expectations:

- MFT: the predicted label is the expected label or one of a tuple of allowed labels.
- INV: fails when the predicted label changes AND the probability of the original's predicted class moves
  by more than ``INV_THRESHOLD`` (0.1), as CheckList's ``Expect.inv(0.1)``.
- DIR, CheckList's monotonic expectations, with a ``tolerance``:
  * ``{"direction": "up"|"down", "score": {"plus": P, "minus": M}}``: the score P(P) − P(M) must not move
    against the direction by more than the tolerance. This is CheckList's reading of "more positive" for
    sentiment (P(positive) − P(negative)), the task's default ``score``; every case is applicable, as in
    CheckList.
  * ``{"direction": ..., "label": L}``: the same for P(L); ``"label": null`` means the original's
    predicted label (CheckList's ``label=None``), not applicable when that is the neutral label of a
    binary reading (CheckList sliced those out). A case is not applicable when it cannot fail because the
    original is already at the limit (it cannot drop or rise by more than the tolerance).
  * ``{"target": L or [L, ...]}``: the changed case must be predicted as (one of) the target label(s).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np

from ..store import InputError
from ..tasks import Task
from .kind import FAIL, LABEL_ONLY, NA, PASS, Answering, Outputs, allowed, answered, shown

INV_THRESHOLD = 0.1


class LabelKind:
    name = "label"
    expects_labels = True
    export_columns: tuple[str, ...] = ()

    def check_task(self, task: Task, where: str) -> None:
        if len(task.labels) < 2:
            raise InputError(f"{where}: $.labels: a classification task needs at least two labels")

    def check_expected(self, task: Task, test_type: str, expected: Any) -> str | None:
        labels = set(task.labels)
        if test_type == "MFT":
            values = allowed(expected)
            return None if values and set(values) <= labels else f"one or more of {task.labels} expected"
        if test_type == "INV":
            return None if expected is None else "null expected"
        if test_type == "DIR":
            if not isinstance(expected, dict):
                return "an object expected"
            if "target" in expected:
                return None if set(allowed(expected["target"])) <= labels else "target must be task labels"
            used = {expected.get("label")} - {None} | set((expected.get("score") or {}).values())
            if expected.get("direction") not in ("up", "down") or not used <= labels:
                return "{'direction': 'up'|'down', 'label' or 'score', 'tolerance'} over task labels expected"
            return None
        return "test_type must be MFT, INV or DIR"

    # ------------------------------------------------------------------------------ a model's answers

    def answer(self, model: Answering, raw: Any) -> Any:
        """One answer as probabilities over the model's ``labels`` (decided here when not declared)."""
        if isinstance(raw, dict) and not isinstance(raw.get("label"), str):
            raise InputError(
                f"model {model.name}: an answer is {shown(raw)}; expected {expected_answer(model)}"
            )
        if isinstance(raw, str) or (isinstance(raw, dict) and "score" not in raw):
            label = raw if isinstance(raw, str) else raw.get("label")
            return _from_scores(model, {label: 1.0}, label_only=True)
        if isinstance(raw, dict):  # a pipeline's top answer: its label and score
            label, given = raw.get("label"), raw.get("score")
            score = float(given) if _is_score(given) else None
            if not model.labels or score is None:
                return _from_scores(model, {label: 1.0}, label_only=True)
            named = _label_of(model, label)
            rest = (1.0 - score) / max(len(model.labels) - 1, 1)
            return [score if x == named else rest for x in model.labels]
        if isinstance(raw, (list, tuple)) and raw and all(isinstance(a, dict) for a in raw):
            scores = {a.get("label"): a.get("score") for a in raw}  # a pipeline's answer, top_k=None
            if not all(_is_score(v) for v in scores.values()):
                raise InputError(
                    f"model {model.name}: an answer is {shown(raw)}; expected {expected_answer(model)}"
                )
            return _from_scores(model, scores)
        try:
            row = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise InputError(
                f"model {model.name}: an answer is {shown(raw)}; expected {expected_answer(model)}"
            ) from None
        if not model.labels and row.ndim == 1:
            model.labels = default_labels(model.task, row.shape[-1], f"model {model.name}")
        if row.shape != (len(model.labels),):
            raise InputError(
                f"model {model.name}: returned probabilities of shape {row.shape} for the "
                f"{len(model.labels)} labels {model.labels}"
            )
        if not np.isfinite(row).all():
            raise InputError(
                f"model {model.name}: returned probabilities {shown(raw)}, not all finite numbers (NaN or "
                "infinity); a model that cannot score an input should raise, so only that input is an error"
            )
        return [float(p) for p in row]

    def outputs(self, model: Answering, answers: Sequence[Any], errors: Sequence[str | None]) -> Outputs:
        if not model.labels:  # every answer came from the cache or elsewhere
            rows = (a.get(LABEL_ONLY, a) if isinstance(a, dict) else a for a in answers)
            width = next((len(a) for a in rows if isinstance(a, list)), None)
            if width:
                model.labels = default_labels(model.task, width, f"model {model.name}")
        out = Outputs(np.full((len(answers), len(model.labels)), np.nan))
        for i, answer in answered(out, answers, errors):
            if isinstance(answer, dict):  # a label without probabilities: {LABEL_ONLY: one-hot row}
                out.probs[i] = answer[LABEL_ONLY]
                model.probabilities = False
            else:
                out.probs[i] = answer
        return out

    def read(self, model: Answering, outputs: Outputs) -> tuple[np.ndarray, list[Any]]:
        """Probabilities over the task's labels and the predicted label, read by ``Task.read``."""
        answered = ~np.isnan(outputs.probs).any(axis=1)
        probs = np.full((len(outputs.probs), len(model.task.labels)), np.nan)
        labels: list[str | None] = [None] * len(outputs.probs)
        if answered.any():
            read, read_labels = model.task.read(model.labels, outputs.probs[answered])
            probs[answered] = read
            for i, label in zip(np.flatnonzero(answered), read_labels):
                labels[i] = label
        return probs, labels

    # ------------------------------------------------------------------------------ comparing answers

    def mft(self, task: Task, expected: Any, answer: Any) -> str:
        return PASS if answer in allowed(expected) else FAIL

    def inv(
        self, task: Task, orig_scores: np.ndarray, orig_answer: Any, scores: np.ndarray, answer: Any
    ) -> str:
        if answer == orig_answer:
            return PASS
        k = task.labels.index(orig_answer)
        return FAIL if abs(scores[k] - orig_scores[k]) > INV_THRESHOLD else PASS

    def dir(
        self,
        task: Task,
        expected: dict[str, Any],
        orig_scores: np.ndarray,
        orig_answer: Any,
        scores: np.ndarray,
        answer: Any,
    ) -> str:
        if "target" in expected:
            return PASS if answer in allowed(expected["target"]) else FAIL
        tolerance = float(expected.get("tolerance", 0.0))
        up = expected["direction"] == "up"
        if expected.get("score"):
            plus, minus = (task.labels.index(expected["score"][k]) for k in ("plus", "minus"))
            before = orig_scores[plus] - orig_scores[minus]
            change = scores[plus] - scores[minus] - before
            return PASS if (change + tolerance >= 0 if up else change - tolerance <= 0) else FAIL
        name = expected.get("label")
        if name is None and task.binary is not None and orig_answer == task.binary.neutral:
            return NA
        k = task.labels.index(name or orig_answer)
        before, change = orig_scores[k], scores[k] - orig_scores[k]
        if up:
            return NA if before <= tolerance else PASS if change + tolerance >= 0 else FAIL
        return NA if before >= 1 - tolerance else PASS if change - tolerance <= 0 else FAIL

    # ------------------------------------------------------------------------------ results and export

    def result_fields(self, scores: np.ndarray, answer: Any) -> dict[str, Any]:
        return {"probs": [round(float(x), 6) for x in scores], "label": answer}

    def from_result(self, row: dict[str, Any]) -> tuple[np.ndarray, Any]:
        return np.array(row.get("probs") or []), row.get("label")

    def export(
        self, test_type: str, expected: Any, label_space: Sequence[str], rule: str
    ) -> tuple[int, list[float], dict[str, Any]] | str:
        mapped = map_expected(expected, label_space, rule)
        return mapped if isinstance(mapped, str) else (*mapped, {})


def map_expected(expected: Any, label_space: Sequence[str], rule: str) -> tuple[int, list[float]] | str:
    """``(label index or -1, soft label)`` of one expectation, or the reason it is left out. ``rule``: how
    a set of allowed labels is mapped: ``hard`` (one label of the space, else left out), ``drop`` (left out)
    or ``soft`` (spread over the allowed labels of the space)."""
    if expected is None or isinstance(expected, dict):
        return "no single label (INV/DIR)"
    allowed = (expected,) if isinstance(expected, str) else tuple(expected)
    if len(allowed) > 1 and rule == "drop":
        return "label set dropped"
    inside = [label for label in label_space if label in allowed]
    if rule == "soft":
        if not inside and allowed == ("neutral",) and len(label_space) == 2:
            inside = list(label_space)  # the original code's neutral = [0.5, 0.5] for binary models
        if not inside:
            return "no label in the label space"
        soft = [1 / len(inside) if label in inside else 0.0 for label in label_space]
        return (label_space.index(inside[0]) if len(inside) == 1 else -1), soft
    if len(inside) != 1:
        return "no label in the label space" if not inside else "ambiguous label set"
    index = label_space.index(inside[0])
    return index, [float(k == index) for k in range(len(label_space))]


def expected_answer(model: Answering) -> str:
    """What ``LabelKind.answer`` reads, for errors."""
    width = f"{len(model.labels)} " if model.labels else ""
    return (
        f"a list of {width}class probabilities, a label (a text), a pipeline-style "
        '{"label": ..., "score": ...} or a list of those'
    )


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


def _label_of(model: Answering, name: Any) -> str:
    if not isinstance(name, str):
        raise InputError(
            f"model {model.name}: an answer names the label {shown(name)}; expected {expected_answer(model)}"
        )
    (label,) = model.task.model_labels([name], f"model {model.name}")
    return label


def _from_scores(model: Answering, scores: dict[Any, Any], *, label_only: bool = False) -> Any:
    """Probabilities over ``labels`` from class name -> score (classes not named get 0). Without declared
    labels, the model's labels are the task's (those named, for a full distribution)."""
    named = {_label_of(model, name): float(score) for name, score in scores.items()}
    if not model.labels:
        keep = set(named) if not label_only else set(model.task.labels)
        model.labels = tuple(x for x in model.task.labels if x in keep)
    unknown = set(named) - set(model.labels)
    if unknown:
        raise InputError(
            f"model {model.name}: answered {sorted(unknown)}; its labels are {list(model.labels)}"
        )
    row = [named.get(x, 0.0) for x in model.labels]
    return {LABEL_ONLY: row} if label_only else row  # marked, in the cache too (``LabelKind.outputs``)


def _is_score(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and np.isfinite(value)
