"""The ``span`` output kind: extractive question answering, the answer a span of the context.

A model answers, per input, the answer text or an ``(answer, score)`` pair; the answer stored is
``[text, score]`` and the reading is the score (a one-column row) and the text. Answers are compared by
SQuAD's normalised exact match (lower case, no punctuation, no articles, single spaces:
``squad_normalize``): MFT passes when the answer is one of the acceptable answers, INV when the changed
case's answer is its original's; DIR does not apply. Expectations are answer texts, not task labels.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..store import InputError
from ..tasks import Task
from .kind import FAIL, PASS, Answering, Outputs, WithoutDirections, allowed, answered, shown

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
EXPECTED = "an answer text or an (answer, score) pair"


def squad_normalize(text: str) -> str:
    """SQuAD v1.1's answer normalisation (its official evaluation script)."""
    return " ".join(_ARTICLES.sub(" ", str(text).lower().translate(_PUNCTUATION)).split())


class SpanKind(WithoutDirections):
    name = "span"
    expects_labels = False
    export_columns: tuple[str, ...] = ("answers",)

    def check_task(self, task: Task, where: str) -> None:
        pass  # any inputs; labels, if any, are not read

    def check_mft(self, task: Task, expected: Any) -> str | None:
        values = allowed(expected)
        return None if values and all(isinstance(v, str) for v in values) else "answers (text) expected"

    def answer(self, model: Answering, raw: Any) -> Any:
        try:
            text, score = (raw, 1.0) if isinstance(raw, str) else raw
            return [str(text), float(score)]
        except (TypeError, ValueError):
            raise InputError(f"model {model.name}: an answer is {shown(raw)}; expected {EXPECTED}") from None

    def outputs(self, model: Answering, answers: Sequence[Any], errors: Sequence[str | None]) -> Outputs:
        out = Outputs(np.full((len(answers), 1), np.nan), [None] * len(answers))
        assert out.answers is not None
        for i, (text, score) in answered(out, answers, errors):
            out.answers[i], out.probs[i, 0] = text, score
        return out

    def read(self, model: Answering, outputs: Outputs) -> tuple[np.ndarray, list[Any]]:
        assert outputs.answers is not None
        return outputs.probs, list(outputs.answers)

    def mft(self, task: Task, expected: Any, answer: Any) -> str:
        return PASS if squad_normalize(answer) in {squad_normalize(a) for a in allowed(expected)} else FAIL

    def inv(
        self, task: Task, orig_scores: np.ndarray, orig_answer: Any, scores: np.ndarray, answer: Any
    ) -> str:
        return PASS if squad_normalize(answer) == squad_normalize(orig_answer) else FAIL

    def result_fields(self, scores: np.ndarray, answer: Any) -> dict[str, Any]:
        return {"answer": answer, "score": round(float(scores[0]), 6)}

    def from_result(self, row: dict[str, Any]) -> tuple[np.ndarray, Any]:
        return np.array([row.get("score", 0.0)]), row.get("answer")

    def export(
        self, test_type: str, expected: Any, label_space: Sequence[str], rule: str
    ) -> tuple[int, list[float], dict[str, Any]] | str:
        if test_type != "MFT":
            return "no single label (INV/DIR)"
        return -1, [], {"answers": list(expected)}
