"""CheckList's test types and expectations, over any task's predictions.

A prediction of a classification task is a row of probabilities over the task's labels and a predicted
label (``tasks.Task.read``); of a question-answering task, an answer string (and its score).

- MFT: the predicted label is the expected label or one of a tuple of allowed labels; for question
  answering, the answer equals one of the acceptable answers after SQuAD's normalisation (lower case, no
  punctuation, no articles, single spaces: ``squad_normalize``); for named-entity recognition, the predicted
  entities of the task's types are exactly the expected ones, span and type (``entities.compare``).
- INV (a changed case compared with its original): fails when the predicted label changes AND the
  probability of the original's predicted class moves by more than ``INV_THRESHOLD`` (0.1), as CheckList's
  ``Expect.inv(0.1)``; for question answering, when the normalised answer changes; for named-entity
  recognition, when the entities differ from the original's carried through the perturbation's edits (a
  name replaced by another is still one entity, at its new offsets: ``entities.carry``).
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

import re
import string
from typing import Any

import numpy as np

from .entities import as_entities, compare
from .tasks import Task

INV_THRESHOLD = 0.1
PASS, FAIL, NA, ERROR = "pass", "fail", "n/a", "error"

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def squad_normalize(text: str) -> str:
    """SQuAD v1.1's answer normalisation (its official evaluation script)."""
    return " ".join(_ARTICLES.sub(" ", str(text).lower().translate(_PUNCTUATION)).split())


def allowed(expected: Any) -> tuple[str, ...]:
    """A label, or a tuple/list of allowed labels, as a tuple."""
    return tuple(expected) if isinstance(expected, tuple | list) else (expected,)


def mft_outcome(task: Task, expected: Any, label: Any) -> str:
    if task.is_entities:
        return PASS if compare(expected, label, task.labels)["ok"] else FAIL
    if task.is_span:
        return PASS if squad_normalize(label) in {squad_normalize(a) for a in allowed(expected)} else FAIL
    return PASS if label in allowed(expected) else FAIL


def inv_outcome(task: Task, orig_probs: np.ndarray, orig_label: Any, probs: np.ndarray, label: Any) -> str:
    if task.is_entities:  # orig_label: the original's entities carried to this text (``entities.carry``)
        return PASS if compare(orig_label, label, task.labels)["ok"] else FAIL
    if task.is_span:
        return PASS if squad_normalize(label) == squad_normalize(orig_label) else FAIL
    if label == orig_label:
        return PASS
    k = task.labels.index(orig_label)
    return FAIL if abs(probs[k] - orig_probs[k]) > INV_THRESHOLD else PASS


def dir_outcome(
    task: Task,
    expected: dict[str, Any],
    orig_probs: np.ndarray,
    orig_label: str,
    probs: np.ndarray,
    label: str,
) -> str:
    if "target" in expected:
        return PASS if label in allowed(expected["target"]) else FAIL
    tolerance = float(expected.get("tolerance", 0.0))
    up = expected["direction"] == "up"
    if expected.get("score"):
        plus, minus = (task.labels.index(expected["score"][k]) for k in ("plus", "minus"))
        before = orig_probs[plus] - orig_probs[minus]
        change = probs[plus] - probs[minus] - before
        return PASS if (change + tolerance >= 0 if up else change - tolerance <= 0) else FAIL
    name = expected.get("label")
    if name is None and task.binary is not None and orig_label == task.binary.neutral:
        return NA
    k = task.labels.index(name or orig_label)
    before, change = orig_probs[k], probs[k] - orig_probs[k]
    if up:
        return NA if before <= tolerance else PASS if change + tolerance >= 0 else FAIL
    return NA if before >= 1 - tolerance else PASS if change - tolerance <= 0 else FAIL


def check_expected(task: Task, test_type: str, expected: Any) -> str | None:
    """Why ``expected`` is not a valid expectation of ``test_type`` in ``task`` (None when it is)."""
    labels = set(task.labels)
    if test_type == "MFT" and task.is_entities:
        try:
            entities = as_entities(expected, "expected")
        except ValueError as error:
            return str(error)
        unknown = {kind for *_, kind in entities} - labels
        return f"entity types {sorted(unknown)} are not the task's {task.labels}" if unknown else None
    if test_type == "MFT":
        values = allowed(expected)
        if task.is_span:
            return None if values and all(isinstance(v, str) for v in values) else "answers (text) expected"
        return None if values and set(values) <= labels else f"one or more of {task.labels} expected"
    if test_type == "INV":
        return None if expected is None else "null expected"
    if test_type == "DIR":
        if task.is_span or task.is_entities:
            return "DIR tests need a classification task"
        if not isinstance(expected, dict):
            return "an object expected"
        if "target" in expected:
            return None if set(allowed(expected["target"])) <= labels else "target must be task labels"
        used = {expected.get("label")} - {None} | set((expected.get("score") or {}).values())
        if expected.get("direction") not in ("up", "down") or not used <= labels:
            return "{'direction': 'up'|'down', 'label' or 'score', 'tolerance'} over task labels expected"
        return None
    return "test_type must be MFT, INV or DIR"


def case_outcome(
    task: Task,
    test_type: str,
    expected: Any,
    probs: np.ndarray,
    label: str,
    orig_probs: np.ndarray | None,
    orig_label: str | None,
) -> str:
    """A case's outcome under its own expectation (INV/DIR compare with the original's prediction)."""
    if test_type == "MFT":
        return mft_outcome(task, expected, label)
    if orig_label is None or orig_probs is None:
        return NA  # the original of an INV/DIR test is not a test by itself
    if test_type == "INV":
        return inv_outcome(task, orig_probs, orig_label, probs, label)
    return dir_outcome(task, expected, orig_probs, orig_label, probs, label)
