"""Reading a run's results: capability descriptions from the suite's manifest, headline tallies with a
confidence interval, the machine-readable summary (``report --json``) and the terminal table.

A CheckList run (a suite made by ``checklist.convert_checklist``) is recognised from its manifest; its
rows show the paper's LC each test maps to. Given an autocheck run and a CheckList run of the same
models, each LC row also shows the failure rate of its mapped CheckList test (``Macros.LC_MAP``).

Intervals are Wilson score intervals (95%) of failures / applicable cases of the headline tally: every
test case for an MFT capability, seed groups for an INV/DIR one.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from ..results import (
    TALLIES,
    capability_errors,
    error_rate,
    headline,
    natural_key,
    overall_counts,
    without_cases,
)
from ..results import load_results as load_results  # moved to results; the report's modules read it here
from ..stats import wilson


def manifest(results: dict[str, Any]) -> dict[str, Any]:
    return (results.get("suite") or {}).get("manifest") or {}


def is_checklist(results: dict[str, Any]) -> bool:
    return manifest(results).get("source") == "checklist"


def short_name(model: str) -> str:
    """A local model directory by its folder name; hub ids and other specs as they are."""
    return Path(model).name if model.startswith(("/", ".", "~")) else model


def pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}%"


def capabilities(results: dict[str, Any]) -> list[str]:
    caps = {cap for model in results["models"].values() for cap in model["capabilities"]}
    return sorted(caps, key=natural_key)


def model_capabilities(results: dict[str, Any], model: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(capability, its results)`` of one model, in the report's order, only those the model has."""
    own = model["capabilities"]
    return [(cap, own[cap]) for cap in capabilities(results) if cap in own]


def row_label(results: dict[str, Any], cap: str) -> str:
    """A CheckList test's full name and LC; an autocheck capability as is."""
    test = manifest(results).get("tests", {}).get(cap)
    if not test:
        return cap
    return f"{test['name']} [{test['lc']}]" if test.get("lc") else test["name"]


def binary_note(results: dict[str, Any]) -> str:
    binary = (results.get("task") or {}).get("binary")
    if not binary:
        return ""
    low, high = binary["band"]
    return (
        f"{binary['neutral'].capitalize()} = P({binary['labels'][1]}) strictly between {low:.3g} and "
        f"{high:.3g} for binary models."
    )


def _labels(value: Any) -> str:
    return " or ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def expectation(info: dict[str, Any]) -> str:
    """A capability's expectation in words, from its manifest entry ("" when the manifest says nothing)."""
    parts = []
    expected = info.get("expected")
    if isinstance(expected, dict):
        parts.append("; ".join(f"{label} → {_labels(v)}" for label, v in expected.items()))
    elif expected:
        parts.append(f"expected {_labels(expected)}")
    perturb = info.get("perturb")
    if isinstance(perturb, dict):
        options = perturb.get("options") or {}
        opts = ", ".join(f"{k}={_labels(v)}" for k, v in options.items())
        parts.append(f"perturbation {perturb.get('name')}" + (f" ({opts})" if opts else ""))
    direction = info.get("direction")
    if isinstance(direction, dict):
        measure = f"P({direction['label']})" if direction.get("label") else "the task's score"
        tolerance = direction.get("tolerance")
        parts.append(
            f"{measure} goes {direction.get('direction')}"
            + (f" (tolerance {tolerance})" if tolerance is not None else "")
        )
    if info.get("test_type") == "INV" and not expected:
        parts.append("prediction unchanged")
    if info.get("test_type") == "MFT" and not expected:
        parts.append("each case's own label")
    return "; ".join(parts)


def capability_info(results: dict[str, Any], cap: str) -> dict[str, str]:
    """Name, group, description, test type and expectation of a capability, from the suite's manifest."""
    info = manifest(results).get("capabilities", {}).get(cap) or {}
    test = manifest(results).get("tests", {}).get(cap) or {}
    test_type = info.get("test_type") or test.get("type") or ""
    if not test_type:
        test_type = next(
            (
                m["capabilities"][cap]["test_type"]
                for m in results["models"].values()
                if cap in m["capabilities"]
            ),
            "",
        )
    return {
        "id": cap,
        "name": row_label(results, cap),
        "group": str(info.get("capability") or ""),
        "description": str(info.get("description") or ""),
        "test_type": str(test_type),
        "expectation": expectation(info),
    }


def describe(results: dict[str, Any], cap: str) -> str:
    """A capability's group and description, from the suite's manifest ("" when it has none)."""
    info = capability_info(results, cap)
    return " — ".join(x for x in (info["group"], info["description"]) if x)


def derived(c: dict[str, Any]) -> dict[str, Any]:
    """The tally of a capability's derived cases: its expansions, or its perturbations (INV/DIR)."""
    perturbations = c.get("perturbations") or {}
    return perturbations if perturbations.get("cases") and not c["expansions"]["cases"] else c["expansions"]


def interval(c: dict[str, Any]) -> tuple[float, float] | None:
    tally = headline(c)
    return wilson(tally["failures"], tally["applicable"])


def overall(model: dict[str, Any]) -> dict[str, Any]:
    """Failures over applicable cases across every capability (headline tallies), with their interval."""
    total = overall_counts(model)
    return total | {"interval": _rounded(wilson(total["failures"], total["applicable"]))}


def _rounded(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [round(pair[0], 6), round(pair[1], 6)]


def mapped_checklist(
    checklist: dict[str, Any] | None, cap: str, model: str
) -> tuple[str, float | None] | None:
    """(CheckList test name, its failure rate for ``model``) mapped to an LC capability, if the run has it."""
    if not checklist:
        return None
    info = manifest(checklist)
    test_id = info.get("lc_map", {}).get(cap)
    models = checklist["models"]
    row = models.get(model) or (next(iter(models.values())) if len(models) == 1 else None)
    if not test_id or row is None or test_id not in row["capabilities"]:
        return None
    return info["tests"][test_id]["name"], row["capabilities"][test_id]["failure_rate"]


def summary_json(results: dict[str, Any], checklist: dict[str, Any] | None = None) -> dict[str, Any]:
    """The machine-readable summary (``report --json``): every capability's description and expectation,
    and per model every tally the results hold, the headline rate with its 95% Wilson interval."""
    suite = results.get("suite") or {}
    out: dict[str, Any] = {
        "suite": {k: suite.get(k) for k in ("dir", "cases", "inputs")},
        "task": (results.get("task") or {}).get("task", "sentiment"),
        "interval": "Wilson score, 95%",
        "capabilities": {cap: capability_info(results, cap) for cap in capabilities(results)},
        "models": {},
    }
    for name, model in results["models"].items():
        caps = {}
        for cap, c in model["capabilities"].items():
            row = {
                "test_type": c["test_type"],
                "failure_rate": c["failure_rate"],
                "error_rate": error_rate(headline(c)),
                "interval": _rounded(interval(c)),
                **{t: c[t] for t in TALLIES if t in c},
                "transitions": c.get("transitions", {}),
                "inv": c.get("inv", {}),
            }
            mapped = mapped_checklist(checklist, cap, name)
            if mapped:
                row["checklist"] = {"test": mapped[0], "failure_rate": mapped[1]}
            caps[cap] = row
        out["models"][name] = {
            "errors": model.get("errors", 0),
            "overall": overall(model),
            "capabilities": caps,
        }
    return out


# ---------------------------------------------------------------------------------------------------------
# Terminal


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _ci(pair: tuple[float, float] | None) -> str:
    return "" if pair is None else f"{100 * pair[0]:.0f}–{100 * pair[1]:.0f}%"


def format_table(
    results: dict[str, Any], checklist: dict[str, Any] | None = None, *, width: int = 100
) -> str:
    """Failure rates as plain text, one block per model, every line at most ``width`` characters.

    Columns: the headline rate with its 95% interval and counts, seeds and derived (expansions or
    perturbations) rates, pass→fail and fail→pass (seed → expansion), errors; ``checklist``: results of a
    CheckList run of the same models, its mapped test's rate beside each LC.
    """
    header = ["capability", "type", "fail", "95% CI", "failed", "seeds", "derived", "p→f", "f→p", "err"]
    if checklist:
        header.append("CheckList")
    lines: list[str] = []
    for name, model in results["models"].items():
        rows = []
        for cap, c in model_capabilities(results, model):
            info = capability_info(results, cap)
            label = info["name"] + (f" {info['group']}" if info["group"] and info["name"] == cap else "")
            tally, transitions = headline(c), c.get("transitions", {})
            errors = capability_errors(c)
            row = [
                label,
                c["test_type"],
                pct(c["failure_rate"]),
                _ci(interval(c)),
                f"{tally['failures']}/{tally['applicable']}",
                pct(c["seeds"]["failure_rate"]),
                pct(derived(c)["failure_rate"]),
                str(transitions.get("pass_to_fail", 0)),
                str(transitions.get("fail_to_pass", 0)),
                str(errors),
            ]
            if checklist:
                mapped = mapped_checklist(checklist, cap, name)
                row.append(pct(mapped[1]) if mapped else "")
            rows.append(row)
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        rest = sum(widths[1:]) + 2 * (len(header) - 1)
        widths[0] = max(10, min(widths[0], width - rest))
        total = overall(model)
        title = (
            f"{short_name(name)}: {pct(total['failure_rate'])} of {total['applicable']} applicable "
            f"failed ({_ci(wilson(total['failures'], total['applicable']))})"
        )
        if total["errors"]:
            title += f"; {total['errors']} errors ({pct(total['error_rate'])})"
        lines += [fit(title, width), "-" * min(width, sum(widths) + 2 * (len(header) - 1))]
        for r in [header, *rows]:
            cells = [fit(r[0], widths[0]).ljust(widths[0])]
            cells += [cell.rjust(w) for cell, w in zip(r[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        lines += [fit(f"{cap}: no test case: {why}", width) for cap, why in without_cases(results).items()]
        lines.append("")
        if "entities" in model:
            lines += entity_tables(model["entities"])
    note = (
        "fail: failures / applicable cases (seed groups for INV/DIR), 95% Wilson interval; seeds, derived "
        "(expansions or perturbations): their own rates; p→f, f→p: seed → expansion transitions; err: no "
        "prediction (an error, never a pass; the title's errors count headline cases). "
        + binary_note(results)
    )
    return "\n".join(lines + _wrap(note.strip(), width))


def entity_tables(tally: dict[str, Any]) -> list[str]:
    """An NER run's MFT results by entity type (missed and spurious entities) and by the origin of the
    names (failed cases, with their 95% Wilson interval), as ``entities.EntityTally`` counts them."""
    lines = [
        "by entity type (MFT cases)",
        "type      expected  missed  miss %  predicted  spurious  spurious %",
    ]
    for kind, c in tally.get("types", {}).items():
        lines.append(
            f"{kind:<8}{c['expected']:>10}{c['missed']:>8}{pct(c['miss_rate']):>8}{c['predicted']:>11}"
            f"{c['spurious']:>10}{pct(c['spurious_rate']):>12}"
        )
    origins = tally.get("origins", {})
    if origins:
        lines += ["", "by origin of the names (MFT cases)", "origin        fail  95% CI     failed"]
        for origin, c in sorted(origins.items(), key=lambda kv: -(kv[1]["failure_rate"] or 0)):
            ci = _ci(wilson(c["failures"], c["applicable"]))
            lines.append(
                f"{origin:<12}{pct(c['failure_rate']):>6}  {ci:<9}{c['failures']:>4}/{c['applicable']}"
            )
    return [*lines, ""]


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width) or [""]
