"""The tally of a run and its rules, in one place for run, report, CI and compare.

``load_results`` reads a run's ``results.json`` back, every count and rate checked.

A case's outcome is pass, fail, not applicable or error (no prediction). Failure rate = failures /
applicable, per test case. A "group" is a seed with its expansions or perturbations, CheckList's test case
for INV/DIR tests (it fails when any applicable member fails), so the headline tally of a capability is
``all`` (every case) for an MFT capability and ``groups`` (seed groups) for an INV/DIR one.

An error is never a pass. A case whose own input got no prediction is an ``error``; a group with an error
and no failure is an error (it was not tested whole). Error rate = errors / (applicable + errors): the
share of the cases that should have been judged and were not. An INV/DIR case whose own input was answered
but whose source (seed or original) was not is not applicable, for that reason (``NO_SOURCE``), and
counted apart from errors: the error is its source's.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from .expect import ERROR, FAIL, NA, PASS
from .store import InputError, load_json

RESULTS = "results.json"  # a run's tallies (written by ``run.run_suite``, read by ``load_results``)

TRANSITIONS = ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail")
PARTS = ("seeds", "expansions", "perturbations")  # a capability's cases by kind
NO_SOURCE = "no prediction for the source"


def natural_key(text: str) -> list[Any]:
    """Sort LC2 before LC10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def rate(failures: int, applicable: int) -> float | None:
    return round(failures / applicable, 6) if applicable else None


def error_rate(tally: dict[str, Any]) -> float | None:
    """Errors over the cases that should have been judged (applicable + errors) of a tally's JSON."""
    errors = tally.get("errors", 0)
    return rate(errors, tally["applicable"] + errors)


@dataclass
class Tally:
    cases: int = 0
    applicable: int = 0
    failures: int = 0
    errors: int = 0  # no prediction for the case's input
    no_source: int = 0  # not applicable: no prediction for the source (INV/DIR)

    def add(self, outcome: str, reason: str | None = None) -> None:
        self.cases += 1
        self.applicable += outcome not in (NA, ERROR)
        self.failures += outcome == FAIL
        self.errors += outcome == ERROR
        self.no_source += reason == NO_SOURCE

    def __iadd__(self, other: Tally) -> Tally:
        self.cases += other.cases
        self.applicable += other.applicable
        self.failures += other.failures
        self.errors += other.errors
        self.no_source += other.no_source
        return self

    def to_json(self) -> dict[str, Any]:
        out = {
            "cases": self.cases,
            "applicable": self.applicable,
            "failures": self.failures,
            "failure_rate": rate(self.failures, self.applicable),
            "errors": self.errors,
        }
        if self.no_source:
            out["no_source"] = self.no_source
        return out


def group_outcome(outcomes: set[str]) -> str:
    """A seed group's outcome from its members' own outcomes: fail when any fails, else error when a
    member has no prediction (the group was not tested whole), else pass when any passes."""
    if FAIL in outcomes:
        return FAIL
    return ERROR if ERROR in outcomes else PASS if PASS in outcomes else NA


@dataclass
class Group:
    """A seed with its expansions or perturbations, for one model."""

    capability: str
    outcomes: set[str] = field(default_factory=set)  # own outcomes of the seed and its expansions
    inv: set[str] = field(default_factory=set)  # implicit INV outcomes of its expansions
    pairs: int = 0
    pair_failures: int = 0


@dataclass
class CapabilityTally:
    test_types: set[str] = field(default_factory=set)
    seeds: Tally = field(default_factory=Tally)
    expansions: Tally = field(default_factory=Tally)
    perturbations: Tally = field(default_factory=Tally)
    transitions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TRANSITIONS, 0))

    def to_json(self, groups: list[Group]) -> dict[str, Any]:
        group_tally = Tally()
        inv = {"groups": 0, "failures": 0, "pairs": 0, "pair_failures": 0}
        for g in groups:
            group_tally.add(group_outcome(g.outcomes))
            if g.pairs:
                inv["groups"] += 1
                inv["failures"] += FAIL in g.inv
                inv["pairs"] += g.pairs
                inv["pair_failures"] += g.pair_failures
        everything = Tally()
        everything += self.seeds
        everything += self.expansions
        everything += self.perturbations
        test_type = "MFT" if self.test_types == {"MFT"} else "/".join(sorted(self.test_types - {"MFT"}))
        top = everything if test_type == "MFT" else group_tally
        return {
            "test_type": test_type,
            "failure_rate": rate(top.failures, top.applicable),
            "error_rate": rate(top.errors, top.applicable + top.errors),
            "seeds": self.seeds.to_json(),
            "expansions": self.expansions.to_json(),
            "perturbations": self.perturbations.to_json(),
            "all": everything.to_json(),
            "groups": group_tally.to_json(),
            "transitions": dict(self.transitions),
            "inv": {**inv, "failure_rate": rate(inv["failures"], inv["groups"])},
        }


# ---------------------------------------------------------------------------------------------------------
# Reading the tallies of a results.json


def headline(c: dict[str, Any]) -> dict[str, Any]:
    """The tally behind a capability's failure rate: all cases (MFT) or seed groups (INV/DIR)."""
    tally: dict[str, Any] = c["all"] if c["test_type"] == "MFT" else c["groups"]
    return tally


def overall_counts(model: dict[str, Any]) -> dict[str, Any]:
    """Failures over applicable cases and errors across every capability of one model's results
    (headline tallies), with both rates."""
    tallies = [headline(c) for c in model["capabilities"].values()]
    failures = sum(t["failures"] for t in tallies)
    applicable = sum(t["applicable"] for t in tallies)
    errors = sum(t.get("errors", 0) for t in tallies)
    return {
        "failures": failures,
        "applicable": applicable,
        "failure_rate": rate(failures, applicable),
        "errors": errors,
        "error_rate": rate(errors, applicable + errors),
    }


def capability_errors(c: dict[str, Any]) -> int:
    """Cases of a capability without a prediction for their own input (seeds, expansions, perturbations)."""
    return sum(c[part].get("errors", 0) for part in PARTS if part in c)


def answered_nothing(results: dict[str, Any], name: str) -> bool:
    """Whether model ``name`` answered none of the suite's inputs (and there were some)."""
    inputs = (results.get("suite") or {}).get("inputs") or 0
    return bool(inputs) and results["models"][name].get("errors", 0) >= inputs


def load_results(results_dir: str | Path) -> dict[str, Any]:
    """``results.json`` of a run directory; anything else is a one-line error naming the file."""
    path = Path(results_dir) / RESULTS
    if not Path(results_dir).is_dir():
        raise InputError(f"{results_dir}: not a results directory (written by 'autocheck run')")
    results = load_json(path, "results file (written by 'autocheck run')")
    if not isinstance(results, dict) or not isinstance(results.get("models"), dict):
        raise InputError(f"{path}: field 'models' missing; not a results file")
    for name, model in results["models"].items():
        caps = model.get("capabilities") if isinstance(model, dict) else None
        if not isinstance(caps, dict) or any(
            not isinstance(c, dict) or "test_type" not in c or "all" not in c for c in caps.values()
        ):
            raise InputError(f"{path}: model {name!r}: 'capabilities' is not a results table")
    _check_fields(path, results)
    return results


TALLIES = ("seeds", "expansions", "perturbations", "all", "groups")  # each counts cases/applicable/failures


def _check_fields(path: Path, results: dict[str, Any]) -> None:
    """Every count and rate a report reads has its type and range, so a hand-edited or damaged file is
    one error naming the file and the field, never a crash deep in a table or a plot."""

    def fail(field: str, what: str, value: Any) -> NoReturn:
        shown = json.dumps(value, ensure_ascii=False)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        raise InputError(f"{path}: field '{field}' must be {what}, not {shown}")

    def number(field: str, value: Any) -> None:
        """A count (a whole number >= 0), or a rate (0..1 or null) when the field's name says so."""
        if field.endswith("rate"):
            if value is not None and not (_is_number(value) and 0 <= value <= 1):
                fail(field, "a rate between 0 and 1 (or null)", value)
        elif not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            fail(field, "a whole number of at least 0", value)

    def numbers(field: str, table: Any) -> None:
        if not isinstance(table, dict):
            fail(field, "an object of counts", table)
        for key, value in table.items():
            number(f"{field}.{key}", value)

    suite = results.get("suite", {})
    if not isinstance(suite, dict):
        fail("suite", "an object", suite)
    for key in ("cases", "inputs"):
        if key in suite:
            number(f"suite.{key}", suite[key])
    if not isinstance(suite.get("dir", ""), str):
        fail("suite.dir", "the suite's directory", suite["dir"])
    if not isinstance(suite.get("manifest") or {}, dict):
        fail("suite.manifest", "an object", suite["manifest"])
    for key in ("task", "environment"):
        if not isinstance(results.get(key) or {}, dict):
            fail(key, "an object", results[key])
    task = results.get("task") or {}

    def texts(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    if not isinstance(task.get("task", ""), str):
        fail("task.task", "the task's name", task["task"])
    for key in ("inputs", "labels"):
        if not texts(task.get(key, [])):
            fail(f"task.{key}", "a list of names", task[key])
    binary = task.get("binary")
    if binary is not None:
        band = binary.get("band", [0, 1]) if isinstance(binary, dict) else None
        if not (
            isinstance(binary, dict)
            and texts(binary.get("labels"))
            and len(binary["labels"]) == 2
            and isinstance(binary.get("neutral"), str)
            and isinstance(band, list)
            and len(band) == 2
            and all(_is_number(b) for b in band)
        ):
            fail("task.binary", 'an object {"labels": [low, high], "neutral": label, "band": [a, b]}', binary)
    for name, model in results["models"].items():
        where = f"models.{name}"
        if "errors" in model:
            number(f"{where}.errors", model["errors"])
        if "overall" in model:
            numbers(f"{where}.overall", model["overall"])
        if not isinstance(model.get("labels", []), list):
            fail(f"{where}.labels", "a list of labels", model["labels"])
        for cap, table in model["capabilities"].items():
            here = f"{where}.capabilities.{cap}"
            if not isinstance(table["test_type"], str):
                fail(f"{here}.test_type", "text (MFT, INV or DIR)", table["test_type"])
            for key, value in table.items():
                if key.endswith("rate"):
                    number(f"{here}.{key}", value)
                elif isinstance(value, dict) or key in (*TALLIES, "transitions", "inv"):
                    numbers(f"{here}.{key}", value)
            for key in TALLIES:
                tally = table.get(key)
                if tally is None:
                    continue
                missing = [k for k in ("cases", "applicable", "failures") if k not in tally]
                if missing:
                    fail(f"{here}.{key}", f"counts with {', '.join(missing)}", tally)
                if not tally["failures"] <= tally["applicable"] <= tally["cases"]:
                    fail(f"{here}.{key}", "counts with failures <= applicable <= cases", tally)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
