"""Predictions computed elsewhere, read from a file (``file:PATH``): CheckList's formats, or JSON Lines that
name their inputs.

Formats (one prediction per line):

* JSON Lines: ``{"id": "...", "probs": [0.1, 0.9]}`` or ``{"text": "...", "label": "positive"}``: the input
  named by the ``id`` that ``autocheck export --inputs`` wrote, or by its fields (the task's inputs:
  ``text``; ``premise`` and ``hypothesis``; ...); the answer as ``probs`` (a list in the model's class order,
  or class name -> probability), ``label`` alone (label-only), or ``answer`` and ``score`` (span tasks);
* CheckList's ``label p0 p1 [p2]`` (``pred_and_softmax``) or ``p0 p1 [p2]`` (``softmax``), whitespace
  separated; probabilities in (negative, positive) or (negative, neutral, positive) order. A file is read
  as ``label + probabilities`` when on every line the first field is an integer (written without a decimal
  point) and the other fields sum to 1;
* CheckList's ``pred_only``: one label per line, a name (or alias) of the task's labels or an integer
  index into them (sentiment: 0 negative, 1 neutral, 2 positive). Label-only answers have no
  probabilities: MFT and INV (a label change) are tested, DIR tests are not applicable;
* for a question-answering task, a plain line is the answer text.

Matching (``align``, called by the runner with the suite's inputs): lines that carry ids or inputs are
matched by them, whatever their order; a suite input the file has no line for is an error of its cases
(never a pass). Lines that carry neither are matched by order, with a warning, and only when their count
is the suite's number of cases (``cases.jsonl`` order) or of distinct inputs (first-occurrence order, the
order of ``export --inputs``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Failed, Input, Model, default_labels

log = logging.getLogger(__name__)


def input_id(item: Input) -> str:
    """The stable id of one input (its fields in the task's order), as ``export --inputs`` writes it."""
    return content_hash(*item)


class FilePredictions(Model):
    """Predictions computed elsewhere, one line per input, in the formats of the module docs."""

    cacheable = False  # the file is the cache

    def __init__(self, spec: str, path: Path, task: Task):
        self.name, self.path, self.task = spec, path, task
        if not path.is_file():
            raise InputError(f"model '{spec}': predictions file {path} not found")
        self.identity = f"file:{path.name}#{file_sha256(path)[:16]}"
        lines = _lines(path, answers=task.is_span)
        self.keys: list[tuple[str, Any]] | None = None  # ("id", id) or ("input", fields) per line
        if lines[0][1].lstrip().startswith("{"):
            self.rows, self.keys = self._read_jsonl(lines)
        elif task.is_span:
            self.rows = [(line, 1.0) for _, line in lines]
        elif all(len(line.split()) == 1 for _, line in lines):
            self.rows = [self._label(line.strip(), f"{path}:{n}") for n, line in lines]
        else:
            probs = _read_probabilities(path, lines)
            self.labels = default_labels(task, probs.shape[1], str(path))
            self.rows = [list(row) for row in probs]
        self.by_input: dict[Input, Any] = {}

    def _label(self, text: str, where: str) -> str:
        """A label-only line: a task label (or alias), or an integer index into the task's labels."""
        if text.isdigit():
            index = int(text)
            if index >= len(self.task.labels):
                raise InputError(
                    f"{where}: label index {index}; the {self.task.name} task has {len(self.task.labels)} "
                    f"labels {list(self.task.labels)}"
                )
            return self.task.labels[index]
        return self.task.model_labels([text], where)[0]

    def _read_jsonl(self, lines: list[tuple[int, str]]) -> tuple[list[Any], list[tuple[str, Any]] | None]:
        rows: list[Any] = []
        keys: list[tuple[str, Any]] = []
        fields = self.task.inputs
        for n, line in lines:
            where = f"{self.path}:{n}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{where}: not valid JSON ({e.msg})") from None
            if not isinstance(record, dict):
                raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
            if "id" in record:
                keys.append(("id", str(record["id"])))
            elif all(isinstance(record.get(f), str) for f in fields):
                keys.append(("input", tuple(record[f] for f in fields)))
            else:
                keys.append(("", None))
            rows.append(self._answer(record, where))
        kinds = {kind for kind, _ in keys}
        if kinds == {""}:
            return rows, None
        self._check_repeats(lines, keys, rows)
        if "" in kinds:
            n = lines[[kind for kind, _ in keys].index("")][0]
            raise InputError(
                f"{self.path}:{n}: names no input; every line needs 'id' or the input fields {list(fields)}, "
                "or none does (matched by order)"
            )
        return rows, keys

    def _check_repeats(
        self, lines: list[tuple[int, str]], keys: list[tuple[str, Any]], rows: list[Any]
    ) -> None:
        """An input named twice with other answers is an error naming both lines; an identical repeat is
        counted and announced (the first line is used)."""
        first: dict[tuple[str, Any], tuple[int, Any]] = {}
        repeats = 0
        for (n, _), key, row in zip(lines, keys, rows):
            seen = first.setdefault(key, (n, row))
            if seen[0] == n:
                continue
            if seen[1] != row:
                raise InputError(
                    f"{self.path}:{n}: input {key[1]!r} again, with another answer than on line {seen[0]}; "
                    "keep one of the two lines"
                )
            repeats += 1
        if repeats:
            log.warning(
                "%s: %d identical repeated line(s) skipped (each input counted once)", self.path, repeats
            )

    def _answer(self, record: dict[str, Any], where: str) -> Any:
        """A line's answer in a shape ``Model._checked`` reads."""
        if self.task.is_span:
            if not isinstance(record.get("answer"), str):
                raise InputError(f"{where}: field 'answer' (a text) is missing")
            return (record["answer"], record.get("score", 1.0))
        probs, label = record.get("probs"), record.get("label")
        if isinstance(probs, dict) and probs:
            return [{"label": name, "score": p} for name, p in probs.items()]
        if isinstance(probs, list) and probs:
            if not self.labels:
                self.labels = default_labels(self.task, len(probs), where)
            return probs
        if isinstance(label, int) and not isinstance(label, bool):
            return self._label(str(label), where)
        if isinstance(label, str):
            return self._label(label, where)
        raise InputError(f"{where}: needs 'probs' (a list or class name -> probability) or 'label'")

    def align(self, inputs: Sequence[Input], case_input_index: Sequence[int]) -> None:
        """Attach the lines to inputs: ``inputs`` are the suite's distinct inputs in first-occurrence order,
        ``case_input_index`` the input index of each case in file order."""
        self.by_input = {}
        if self.keys is not None:
            self._align_by_key(inputs)
            return
        n = len(self.rows)
        if n == len(case_input_index):
            order: Sequence[int] = case_input_index
        elif n == len(inputs):
            order = range(n)
        else:
            raise InputError(
                f"{self.path}: {n} predictions, but the suite has {len(case_input_index)} cases and "
                f"{len(inputs)} distinct inputs; write one line per case or per distinct input (better: "
                "lines with the 'id' that 'autocheck export --inputs' writes, matched in any order)"
            )
        log.warning(
            "%s: lines carry no input ids or texts; matched to the suite by order (%d lines, one per %s)",
            self.path,
            n,
            "case" if order is case_input_index else "distinct input",
        )
        for row, index in zip(self.rows, order):
            self.by_input.setdefault(inputs[index], row)

    def _align_by_key(self, inputs: Sequence[Input]) -> None:
        assert self.keys is not None
        by_key: dict[tuple[str, Any], Any] = {}
        for key, row in zip(self.keys, self.rows):
            by_key.setdefault(key, row)
        used = 0
        for item in inputs:
            row = by_key.get(("id", input_id(item)), by_key.get(("input", item)))
            if row is not None:
                self.by_input[item] = row
                used += 1
        missing = len(inputs) - used
        if missing:
            log.warning("%s: no prediction for %d of %d suite inputs", self.path, missing, len(inputs))
        if len(by_key) > used:
            log.warning("%s: %d lines name inputs the suite does not have", self.path, len(by_key) - used)

    def _predict(self, batch: list[Input]) -> list[Any]:
        out = []
        for item in batch:
            if item in self.by_input:
                out.append(self.by_input[item])
            elif self.keys is not None:
                out.append(Failed(f"{self.path}: no prediction for input {input_id(item)} {item[0][:60]!r}"))
            else:
                raise InputError(f"{self.path}: no prediction aligned to input {item!r} (call align first)")
        return out


def _lines(path: Path, *, answers: bool = False) -> list[tuple[int, str]]:
    """The file's lines with their numbers; an empty line between predictions is an error (except in a
    file of answers, where it is an empty answer)."""
    with open(path, encoding="utf-8") as f:
        numbered = [(n, line.rstrip("\n").rstrip("\r")) for n, line in enumerate(f, 1)]
    while numbered and not numbered[-1][1].strip():
        numbered.pop()
    if not numbered:
        raise InputError(f"{path}: no predictions")
    for n, line in numbered:
        if not line.strip() and not answers:
            raise InputError(f"{path}:{n}: empty line; expected one prediction per line")
    return numbered


def _read_probabilities(path: Path, lines: list[tuple[int, str]]) -> np.ndarray:
    rows_fields = [(n, line.split()) for n, line in lines]
    widths = {len(f) for _, f in rows_fields}
    if len(widths) != 1:
        raise InputError(f"{path}: lines have different numbers of fields {sorted(widths)}")
    with_label = all(f[0].isdigit() and len(f) in (3, 4) and _sums_to_one(f[1:]) for _, f in rows_fields)
    rows = []
    for lineno, fields in rows_fields:
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


def _sums_to_one(fields: Sequence[str]) -> bool:
    try:
        return abs(sum(float(x) for x in fields) - 1.0) < 1e-3
    except ValueError:
        return False
