"""Predictions computed elsewhere, read from a file (``file:PATH``), in CheckList's formats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..store import InputError, file_sha256
from ..tasks import Task
from .base import Input, Model, default_labels


class FilePredictions(Model):
    """Predictions computed elsewhere, one line per text, in CheckList's file formats.

    Each line is either ``label p0 p1 [p2]`` (CheckList ``pred_and_softmax``) or ``p0 p1 [p2]``
    (``softmax``), whitespace separated; probabilities are in (negative, positive) or
    (negative, neutral, positive) order. A file is read as ``label + probabilities`` when on every line the
    first field is an integer (written without a decimal point) and the other fields sum to 1.

    For a question-answering task each line is the answer text.

    Order: the lines follow the suite's ``cases.jsonl``, either one line per case (in file order) or one line
    per distinct input (in order of first occurrence); the runner calls ``align`` with the suite's inputs,
    which checks the line count against both.
    """

    cacheable = False  # the file is the cache

    def __init__(self, spec: str, path: Path, task: Task):
        self.name, self.path, self.task = spec, path, task
        if not path.is_file():
            raise InputError(f"model '{spec}': predictions file {path} not found")
        self.identity = f"file:{path.name}#{file_sha256(path)[:16]}"
        if task.is_span:
            with open(path, encoding="utf-8") as f:
                self.rows: list[Any] = [(line.rstrip("\n"), 1.0) for line in f]
        else:
            self.rows = list(self._read(path))
            self.labels = default_labels(task, len(self.rows[0]), str(path))
        self.by_input: dict[Input, Any] = {}

    @staticmethod
    def _read(path: Path) -> np.ndarray:
        lines: list[list[str]] = []
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    raise InputError(f"{path}:{lineno}: empty line; expected one prediction per line")
                lines.append(fields)
        if not lines:
            raise InputError(f"{path}: no predictions")
        widths = {len(f) for f in lines}
        if len(widths) != 1:
            raise InputError(f"{path}: lines have different numbers of fields {sorted(widths)}")
        with_label = all(f[0].isdigit() and len(f) in (3, 4) and _sums_to_one(f[1:]) for f in lines)
        rows = []
        for lineno, fields in enumerate(lines, 1):
            numbers = fields[1:] if with_label else fields
            try:
                probs = [float(x) for x in numbers]
            except ValueError:
                raise InputError(f"{path}:{lineno}: not numbers: {' '.join(fields)!r}") from None
            if len(probs) not in (2, 3) or not _sums_to_one(numbers):
                raise InputError(
                    f"{path}:{lineno}: expected 'label p0 p1 [p2]' or 'p0 p1 [p2]' with probabilities "
                    f"summing to 1, got {' '.join(fields)!r}"
                )
            rows.append(probs)
        return np.asarray(rows)

    def align(self, inputs: Sequence[Input], case_input_index: Sequence[int]) -> None:
        """Attach the lines to inputs: ``inputs`` are the suite's distinct inputs in first-occurrence order,
        ``case_input_index`` the input index of each case in file order."""
        n = len(self.rows)
        if n == len(case_input_index):
            order: Sequence[int] = case_input_index
        elif n == len(inputs):
            order = range(n)
        else:
            raise InputError(
                f"{self.path}: {n} predictions, but the suite has {len(case_input_index)} cases and "
                f"{len(inputs)} distinct inputs; write one line per case or per distinct input"
            )
        self.by_input = {}
        for row, index in zip(self.rows, order):
            self.by_input.setdefault(inputs[index], row)

    def _predict(self, batch: list[Input]) -> list[Any]:
        missing = [item for item in batch if item not in self.by_input]
        if missing:
            raise InputError(f"{self.path}: no prediction aligned to input {missing[0]!r} (call align first)")
        return [self.by_input[item] for item in batch]


def _sums_to_one(fields: Sequence[str]) -> bool:
    try:
        return abs(sum(float(x) for x in fields) - 1.0) < 1e-3
    except ValueError:
        return False
