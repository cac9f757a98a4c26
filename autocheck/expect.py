"""CheckList's test types over any task's answers: a case's outcome under its expectation.

MFT compares a case's answer with its expected answer(s); INV and DIR compare a changed case's answer with
its original's. What "the same answer" and "moved up" mean is the task's output kind's
(``outputs.label``: CheckList's label and probability rules; ``outputs.span``: SQuAD's exact match); this
module only says which comparison a case gets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .outputs import ERROR, FAIL, NA, PASS, kind_of
from .tasks import Task

__all__ = ["ERROR", "FAIL", "NA", "PASS", "case_outcome", "check_expected"]


def check_expected(task: Task, test_type: str, expected: Any) -> str | None:
    """Why ``expected`` is not a valid expectation of ``test_type`` in ``task`` (None when it is)."""
    return kind_of(task).check_expected(task, test_type, expected)


def mft_outcome(task: Task, expected: Any, answer: Any) -> str:
    return kind_of(task).mft(task, expected, answer)


def inv_outcome(
    task: Task, orig_scores: np.ndarray, orig_answer: Any, scores: np.ndarray, answer: Any
) -> str:
    return kind_of(task).inv(task, orig_scores, orig_answer, scores, answer)


def case_outcome(
    task: Task,
    test_type: str,
    expected: Any,
    scores: np.ndarray,
    answer: Any,
    orig_scores: np.ndarray | None,
    orig_answer: Any | None,
) -> str:
    """A case's outcome under its own expectation (INV/DIR compare with the original's answer)."""
    if test_type == "MFT":
        return mft_outcome(task, expected, answer)
    if orig_answer is None or orig_scores is None:
        return NA  # the original of an INV/DIR test is not a test by itself
    if test_type == "INV":
        return inv_outcome(task, orig_scores, orig_answer, scores, answer)
    return kind_of(task).dir(task, expected, orig_scores, orig_answer, scores, answer)
