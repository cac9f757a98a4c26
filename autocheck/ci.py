"""autocheck in continuous integration: the gate (``run --fail-above``, ``--max-errors``), JUnit XML
(``run --junit``: one test case per capability × model) and a Markdown summary for a pull request
(``report --markdown``).

One rule decides: ``verdict`` lists every problem of a run, and both the exit status (non-zero when the
list is not empty) and the JUnit file (a ``<failure>`` or ``<error>`` element per problem) are written from
that list, so the two cannot disagree.

The gate is on when any of ``--fail-above``, ``--max-errors`` or ``--junit`` is given. Then a capability
fails when its failure rate is above its own limit (``CAP=RATE``), else the overall one (``RATE``), else
0 (any failure); the overall failure rate fails above ``RATE``; and the error rate (cases without a
prediction over the cases that should have been judged) of a capability, or overall, is an error above
``--max-errors`` (default 0: any error). Whatever the gate, a model that tested nothing (it answered none
of the suite's inputs, or none of its cases was applicable) and results without any model are errors: a
run that tested nothing never passes.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import expect
from .markdown import md_code, md_html, md_text
from .results import error_rate, headline, natural_key, overall_counts, untested, without_cases
from .store import InputError, atomic_write_text

OVERALL = "*"
NO_MODEL = "(no model)"  # the name under which a run without any model is an error
FAILURE, ERROR = "failure", "error"


def parse_rate(flag: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0 <= number <= 1:
        raise InputError(f"{flag} {value!r}: expected a RATE in 0..1")
    return number


def parse_thresholds(values: list[str]) -> dict[str, float]:
    """``["0.2", "LC4=0.5"]`` → ``{"*": 0.2, "LC4": 0.5}``; a rate outside 0..1 is an error."""
    out: dict[str, float] = {}
    for value in values:
        capability, _, rate = value.rpartition("=")
        try:
            out[capability or OVERALL] = parse_rate("--fail-above", rate)
        except InputError:
            raise InputError(
                f"--fail-above {value!r}: expected RATE or CAPABILITY=RATE with RATE in 0..1"
            ) from None
    return out


@dataclass(frozen=True)
class Gate:
    """What a run must meet. ``on``: judge failure and error rates; off, only a run that tested nothing
    fails."""

    fail_above: dict[str, float] = field(default_factory=dict)
    max_errors: float = 0.0
    on: bool = False

    @classmethod
    def from_options(cls, fail_above: list[str] | None, max_errors: str | None, junit: bool = False) -> Gate:
        thresholds = parse_thresholds(fail_above or [])
        limit = 0.0 if max_errors is None else parse_rate("--max-errors", max_errors)
        return cls(thresholds, limit, bool(thresholds) or max_errors is not None or junit)

    def limit(self, capability: str) -> float:
        return self.fail_above.get(capability, self.fail_above.get(OVERALL, 0.0))


@dataclass(frozen=True)
class Problem:
    model: str
    test: str  # a capability, or OVERALL for the model as a whole
    kind: str  # FAILURE or ERROR
    message: str

    def line(self) -> str:
        return f"{self.model}: {self.message}"


def verdict(results: dict[str, Any], gate: Gate) -> list[Problem]:
    """Every problem of a run under ``gate``, in a stable order (empty: it passes). The only rule; the exit
    status and the JUnit writer both read it."""
    problems = []
    if not results["models"]:
        problems.append(Problem(NO_MODEL, OVERALL, ERROR, "the results hold no model, so nothing was tested"))
    for name, model in results["models"].items():
        why = untested(results, name)
        if why is not None:
            problems.append(Problem(name, OVERALL, ERROR, why))
        if not gate.on:
            continue
        total = overall_counts(model)
        if OVERALL in gate.fail_above and total["failure_rate"] is not None:
            if total["failure_rate"] > gate.fail_above[OVERALL]:
                message = (
                    f"overall failure rate {total['failure_rate']:.1%} above {gate.fail_above[OVERALL]:.1%} "
                    f"({total['failures']} of {total['applicable']} applicable failed)"
                )
                problems.append(Problem(name, OVERALL, FAILURE, message))
        rate = error_rate(total)
        if rate is not None and rate > gate.max_errors:
            problems.append(Problem(name, OVERALL, ERROR, _too_many_errors("overall", total, gate)))
        for cap in gate.fail_above:
            if cap != OVERALL and cap not in model["capabilities"]:
                message = f"no capability {cap!r} in the results (--fail-above {cap}={gate.fail_above[cap]})"
                problems.append(Problem(name, OVERALL, FAILURE, message))
        for cap in sorted(model["capabilities"], key=natural_key):
            c, limit = model["capabilities"][cap], gate.limit(cap)
            top = headline(c)
            if c["failure_rate"] is not None and c["failure_rate"] > limit:
                message = (
                    f"{cap} failure rate {c['failure_rate']:.1%} above {limit:.1%} "
                    f"({top['failures']} of {top['applicable']} applicable failed)"
                )
                problems.append(Problem(name, cap, FAILURE, message))
            rate = error_rate(top)
            if rate is not None and rate > gate.max_errors:
                problems.append(Problem(name, cap, ERROR, _too_many_errors(cap, top, gate)))
    return problems


def _too_many_errors(what: str, tally: dict[str, Any], gate: Gate) -> str:
    errors = tally.get("errors", 0)
    return (
        f"{what} error rate {error_rate(tally):.1%} above --max-errors {gate.max_errors:.1%} "
        f"({errors} of {tally['applicable'] + errors} cases without a prediction)"
    )


def _counts(rate: float | None, tally: dict[str, Any]) -> str:
    shown = "-" if rate is None else f"{rate:.1%}"
    errors = tally.get("errors", 0)
    return f"failure rate {shown}; {tally['failures']}/{tally['applicable']} failed; {errors} errors"


# ---------------------------------------------------------------------------------------------------------
# JUnit


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def write_junit(
    results: dict[str, Any], path: str | Path, gate: Gate, seconds: dict[str, float] | None = None
) -> list[Problem]:
    """JUnit XML from ``verdict``: a test suite per model, a test case per capability (skipped when no
    case was applicable and nothing is wrong), and an ``overall`` test case when the gate has an overall
    limit or the model as a whole has a problem. ``seconds``: each model's prediction time (a capability's
    time is its share by case count). Returns the problems (the caller's exit status)."""
    problems = verdict(results, gate)
    by_test: dict[tuple[str, str], list[Problem]] = {}
    for problem in problems:
        by_test.setdefault((problem.model, problem.test), []).append(problem)
    seconds = seconds or {}
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    root = ET.Element("testsuites", name="autocheck")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    models = results["models"] or {NO_MODEL: {"capabilities": {}}}
    for name, model in models.items():
        suite = ET.SubElement(root, "testsuite", name=name, timestamp=stamp, hostname=socket.gethostname())
        counts = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
        spent = seconds.get(name, 0.0)
        caps = sorted(model["capabilities"], key=natural_key)
        cases = sum(model["capabilities"][cap]["all"]["cases"] for cap in caps) or 1
        tests: list[tuple[str, str, float, str]] = []
        for cap in caps:
            c = model["capabilities"][cap]
            out = _counts(c["failure_rate"], headline(c))
            tests.append((cap, f"{cap} ({c['test_type']})", spent * c["all"]["cases"] / cases, out))
        if (name, OVERALL) in by_test or OVERALL in gate.fail_above:
            total = overall_counts(model)
            tests.append((OVERALL, "overall", 0.0, _counts(total["failure_rate"], total)))
        for test, label, took, out in tests:
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", name=label, classname=name, time=_seconds(took))
            found = by_test.get((name, test), [])
            if found:
                # one element per test case (an error when any problem is one), listing every problem:
                # JUnit readers count test cases, so a case with two problems must not count twice
                # (errors="4" with tests="3")
                kind = ERROR if any(p.kind == ERROR for p in found) else FAILURE
                first = next(p for p in found if p.kind == kind)
                counts["failures" if kind == FAILURE else "errors"] += 1
                element = ET.SubElement(case, kind, message=first.message, type=f"capability {kind}")
                element.text = "\n".join(p.line() for p in found)
            c = model["capabilities"].get(test)
            if not found and c is not None and c["failure_rate"] is None:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message="no applicable case")
            ET.SubElement(case, "system-out").text = out
        suite.attrib.update({k: str(v) for k, v in counts.items()} | {"time": _seconds(spent)})
        for key in totals:
            totals[key] += counts[key]
    # Jenkins' junit-10.xsd has no "skipped" on <testsuites> (each <testsuite> carries its own)
    del totals["skipped"]
    root.attrib.update({k: str(v) for k, v in totals.items()} | {"time": _seconds(sum(seconds.values()))})
    ET.indent(root)
    atomic_write_text(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
    return problems


def judge(
    results: dict[str, Any],
    gate: Gate,
    junit: str | Path | None = None,
    seconds: dict[str, float] | None = None,
) -> tuple[int, list[Problem]]:
    """What ``run`` ends with: the exit status (1 when there is a problem) and the problems, with the JUnit
    file written from the same list when ``junit`` is given."""
    problems = write_junit(results, junit, gate, seconds) if junit else verdict(results, gate)
    return (1 if problems else 0), problems


# ---------------------------------------------------------------------------------------------------------
# Markdown


def markdown_summary(
    results: dict[str, Any], gate: Gate, failing: dict[tuple[str, str], list[dict]] | None = None
) -> str:
    """A Markdown summary for a pull-request comment: per model a row per capability (type, failure rate,
    errors, limit, pass/fail under ``gate``), an overall row, the problems, and under each failing
    capability the failing cases of ``failing`` ((model, capability) → prediction rows with their case)."""
    problems = verdict(results, gate)
    failed = {(p.model, p.test) for p in problems}
    task = (results.get("task") or {}).get("task", "sentiment")
    fields = (results.get("task") or {}).get("inputs") or ["text"]
    status = "FAIL" if problems else "pass"
    lines = [f"### autocheck: {task} ({(results.get('suite') or {}).get('cases', 0)} cases): {status}", ""]
    lines += [f"- {md_text(p.line())}\n" for p in problems if p.model not in results["models"]]
    for name, model in results["models"].items():
        lines += [
            f"#### `{md_code(name)}`",
            "",
            "| capability | type | failure rate | errors | limit | verdict |",
            "|---|---|---:|---:|---:|---|",
        ]
        for cap in sorted(model["capabilities"], key=natural_key):
            c = model["capabilities"][cap]
            top = headline(c)
            row = _rate_cell(c["failure_rate"], top["failures"], top["applicable"])
            limit = f"{gate.limit(cap):.1%}" if gate.on else "–"
            mark = "**fail**" if (name, cap) in failed else ("n/a" if c["failure_rate"] is None else "pass")
            lines.append(
                f"| {md_text(cap)} | {c['test_type']} | {row} | {_errors_cell(top)} | {limit} | {mark} |"
            )
        for cap, why in without_cases(results).items():
            lines.append(f"| {md_text(cap)} | | – (0/0) | | | no test case: {md_text(why)} |")
        total = overall_counts(model)
        limit = f"{gate.fail_above[OVERALL]:.1%}" if gate.on and OVERALL in gate.fail_above else "–"
        mark = "**fail**" if any(p.model == name for p in problems) else "pass"
        lines.append(
            f"| **overall** | | {_rate_cell(total['failure_rate'], total['failures'], total['applicable'])} "
            f"| {_errors_cell(total)} | {limit} | {mark} |"
        )
        lines.append("")
        lines += [f"- {md_text(p.message)}" for p in problems if p.model == name]
        for cap in sorted(model["capabilities"], key=natural_key):
            shown = (failing or {}).get((name, cap), []) if (name, cap) in failed else []
            rows = [row for row in shown if row.get("outcome") in (expect.FAIL, expect.ERROR)]
            if not rows:
                continue
            lines += ["", f"<details><summary>{md_html(cap)}: failing cases</summary>", ""]
            lines += [f"- {_example(row, fields)}" for row in rows]
            lines += ["", "</details>"]
        lines.append("")
    lines.append(
        "Failure rate = failures / applicable cases (seed groups for INV/DIR tests); errors = cases without "
        "a prediction, over the cases that should have been judged. "
        + (
            f"Errors above {gate.max_errors:.1%} fail."
            if gate.on
            else "No gate was given: only a model that answered nothing fails."
        )
    )
    return "\n".join(lines) + "\n"


def _rate_cell(rate: float | None, failures: int, applicable: int) -> str:
    return f"{'–' if rate is None else f'{rate:.1%}'} ({failures}/{applicable})"


def _errors_cell(tally: dict[str, Any]) -> str:
    errors = tally.get("errors", 0)
    rate = error_rate(tally)
    return str(errors) if not errors or rate is None else f"{errors} ({rate:.1%})"


def _example(row: dict[str, Any], fields: list[str]) -> str:
    record = row.get("case_record") or {}
    text = " / ".join(str(record.get(f, "")) for f in fields)
    if "error" in row:
        said = f"no prediction: {row['error']}"
    elif "reply" in row:
        said = f"unreadable reply: {row['reply']}"
    elif "answer" in row:
        said = f"answered {row['answer']!r}"
    else:
        said = f"predicted {row.get('label')}"
    expected = record.get("expected")
    wanted = f"expected {expected}; " if record.get("test_type") == "MFT" and expected is not None else ""
    return (
        f"`{md_code(text)}`: {md_text(wanted + said)} "
        f"({md_text(row.get('failure', row.get('outcome')))}, {md_text(row['case'])})"
    )
