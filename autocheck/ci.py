"""autocheck in continuous integration: failure-rate thresholds (``run --fail-above``), JUnit XML
(``run --junit``: one test case per capability × model) and a Markdown summary (``report --markdown``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .report import summary
from .results import headline, natural_key
from .store import InputError, atomic_write_text

OVERALL = "*"


def parse_thresholds(values: list[str]) -> dict[str, float]:
    """``["0.2", "LC4=0.5"]`` → ``{"*": 0.2, "LC4": 0.5}``; a rate outside 0..1 is an error."""
    out: dict[str, float] = {}
    for value in values:
        capability, _, rate = value.rpartition("=")
        try:
            number = float(rate)
        except ValueError:
            number = -1.0
        if not 0 <= number <= 1:
            raise InputError(f"--fail-above {value!r}: expected RATE or CAPABILITY=RATE with RATE in 0..1")
        out[capability or OVERALL] = number
    return out


def check_thresholds(results: dict[str, Any], thresholds: dict[str, float]) -> list[str]:
    """One line per threshold exceeded (per model), empty when all hold. A capability named in a threshold
    that no model has is reported too (a typo must not pass silently)."""
    lines = []
    for name, model in results["models"].items():
        overall = summary.overall(model)["failure_rate"]
        if OVERALL in thresholds and overall is not None and overall > thresholds[OVERALL]:
            lines.append(f"{name}: overall failure rate {overall:.1%} is above {thresholds[OVERALL]:.1%}")
        for cap, limit in thresholds.items():
            if cap == OVERALL:
                continue
            c = model["capabilities"].get(cap)
            if c is None:
                lines.append(f"{name}: no capability {cap!r} in the results (--fail-above {cap}={limit})")
            elif c["failure_rate"] is not None and c["failure_rate"] > limit:
                lines.append(f"{name}: {cap} failure rate {c['failure_rate']:.1%} is above {limit:.1%}")
    return lines


def _limit(thresholds: dict[str, float], cap: str) -> float:
    return thresholds.get(cap, thresholds.get(OVERALL, 0.0))


def write_junit(results: dict[str, Any], path: str | Path, thresholds: dict[str, float]) -> None:
    """JUnit XML: a test suite per model, a test case per capability; a capability fails when its failure
    rate is above its threshold (its own, else the overall one, else 0: any failure), and is skipped when
    no case was applicable."""
    root = ET.Element("testsuites", name="autocheck")
    for name, model in results["models"].items():
        suite = ET.SubElement(root, "testsuite", name=name)
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for cap, c in model["capabilities"].items():
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=name, name=f"{cap} ({c['test_type']})")
            rate, limit = c["failure_rate"], _limit(thresholds, cap)
            top = headline(c)
            if rate is None:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message="no applicable case")
            elif rate > limit:
                counts["failures"] += 1
                failure = ET.SubElement(
                    case, "failure", message=f"failure rate {rate:.1%} above {limit:.1%}", type="capability"
                )
                failure.text = f"{top['failures']} of {top['applicable']} applicable cases failed"
            ET.SubElement(case, "system-out").text = (
                f"failure rate {'-' if rate is None else f'{rate:.1%}'}; "
                f"{top['failures']}/{top['applicable']} failed"
            )
        suite.attrib.update({k: str(v) for k, v in counts.items()})
    ET.indent(root)
    atomic_write_text(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")


def markdown_summary(results: dict[str, Any]) -> str:
    """A Markdown table of failure rates per capability and model, for a pull-request comment."""
    models = list(results["models"])
    caps = sorted({c for m in results["models"].values() for c in m["capabilities"]}, key=natural_key)
    lines = [
        f"### autocheck: {(results.get('task') or {}).get('task', 'sentiment')} "
        f"({results.get('suite', {}).get('cases', 0)} cases)",
        "",
        "| capability | type | " + " | ".join(f"`{_cell(m)}`" for m in models) + " |",
        "|---|---|" + "---:|" * len(models),
    ]
    for cap in caps:
        cells, test_type = [], ""
        for m in models:
            c = results["models"][m]["capabilities"].get(cap)
            if c is None:
                cells.append("")
                continue
            test_type = c["test_type"]
            top = headline(c)
            rate = "–" if c["failure_rate"] is None else f"{c['failure_rate']:.1%}"
            cells.append(f"{rate} ({top['failures']}/{top['applicable']})")
        lines.append(f"| {_cell(cap)} | {test_type} | " + " | ".join(cells) + " |")
    lines += ["", "Failure rate = failures / applicable cases (seed groups for INV/DIR tests)."]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
