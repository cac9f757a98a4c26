"""The tally of a run and its rules, in one place for run, report, CI and compare.

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

import re
from dataclasses import dataclass, field
from typing import Any

from .expect import ERROR, FAIL, NA, PASS

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


def untested(results: dict[str, Any], name: str) -> str | None:
    """Why model ``name`` tested nothing, or None when it judged at least one case: it answered none of the
    suite's inputs, or none of its cases was applicable (e.g. DIR tests of a model that answers labels
    only). Either way its run is an error, never a pass."""
    model = results["models"][name]
    inputs = (results.get("suite") or {}).get("inputs") or 0
    if inputs and model.get("errors", 0) >= inputs:
        first = f" (first error: {model['first_error']})" if model.get("first_error") else ""
        return f"no prediction for any of the {inputs} inputs{first}"
    if overall_counts(model)["applicable"]:
        return None
    cases = sum(c["all"]["cases"] for c in model["capabilities"].values())
    why = "; ".join(f"{kind}: {reason}" for kind, reason in (model.get("not_applicable") or {}).items())
    return f"none of its {cases} cases was applicable, so nothing was tested" + (f" ({why})" if why else "")


def without_cases(results: dict[str, Any]) -> dict[str, str]:
    """The suite's capabilities that got no test case, each with why (its manifest's ``empty``)."""
    manifest = (results.get("suite") or {}).get("manifest") or {}
    return dict(manifest.get("empty") or {})
