"""The HTML report: one self-contained page (inline CSS, SVG and a small script; no external assets) that
reads without JavaScript. This module gathers what the page shows; the template ``report.html.j2`` of the
template set (``report/templates/``, autoescaped, with the stylesheet the notebook displays use) lays it
out. Every dataset text is HTML-escaped: by the template, or by ``case_html`` and ``prediction_html``, the
pieces the report shares with the displays.

It leads with the answer. First a verdict per model: which capabilities fail beyond the gate (any failure,
or ``report --fail-above``), each with its strongest explanation (``explain.py``: the case feature whose
cases fail most beyond the rest, Fisher's exact test corrected by Benjamini–Hochberg) and its first failing
example, so the first failing example is on the first screen. Then the capability × model matrix of
headline failure rates (with the mapped CheckList test beside each LC when a CheckList run is given), and
a drill-down per capability, CheckList's visual summary: name, group, description, test type and
expectation from the suite's manifest; per model the rate with its 95% interval, the ranked explanations,
then the failing examples grouped by seed (the seed once, its failing expansions or perturbations folded
under it in ``<details>``), with the minimal failing edit of a case when ``autocheck explain
--minimal-edits`` found one. Then the plots that apply (failure rate with its 95% interval; seed vs
expansion rates only when the suite has expansions or perturbations), also written as PNG files beside the
page; the counts, with only the columns the suite's sources fill; and, folded, the flat table of every
failing case (up to ``max_failures`` per capability and model), which the script filters (capability,
model, test type, kind, outcome, text) and sorts.
"""

from __future__ import annotations

import html
import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..ci import OVERALL
from ..expect import ERROR, FAIL
from ..explain import MINIMAL_EDITS, explain_run, strongest
from ..outputs.entities import listed, shown
from ..records import display
from ..results import without_cases
from ..run import PREDICTIONS, read_predictions
from ..store import InputError, atomic_write_text, load_json
from ..suite import CASES, iter_cases
from .plots import FIGURES, png_path
from .plots import render as render_plots
from .summary import (
    binary_note,
    capabilities,
    capability_info,
    headline,
    interval,
    is_checklist,
    load_results,
    mapped_checklist,
    model_capabilities,
    overall,
    pct,
    row_label,
    short_name,
)
from .templates import asset, render

log = logging.getLogger(__name__)

DEFAULT_MAX_FAILURES = 100


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _shade(rate: float | None) -> str:
    if rate is None:
        return ""
    return "hi" if rate >= 0.5 else "mid" if rate >= 0.2 else "lo"


def highlighted(text: str, inserted: list[dict[str, Any]]) -> str:
    """HTML of ``text`` with each inserted word (provenance ``inserted``: word + offset) in <mark>."""
    spans = []
    for item in inserted:
        word, start = str(item.get("word", "")), item.get("offset")
        if isinstance(start, int) and word and text[start : start + len(word)] == word:
            spans.append((start, start + len(word)))
    out, cursor = [], 0
    for start, end in sorted(set(spans)):
        if start < cursor:
            continue  # overlapping spans: keep the first
        out += [_e(text[cursor:start]), f"<mark>{_e(text[start:end])}</mark>"]
        cursor = end
    out.append(_e(text[cursor:]))
    return "".join(out)


def why(case: dict[str, Any]) -> str:
    expected, test_type = case.get("expected"), case.get("test_type")
    if test_type == "INV":
        return "prediction changed (a label whose probability moved > 0.1, or another answer)"
    if test_type == "DIR" and isinstance(expected, dict):
        if "target" in expected:
            target = expected["target"]
            return "expected " + (" or ".join(target) if isinstance(target, list) else str(target))
        if expected.get("score"):
            score = expected["score"]
            measure = f"P({score['plus']}) − P({score['minus']})"
        else:
            measure = f"P({expected.get('label') or 'the original label'})"
        return f"{measure} should go {expected.get('direction')} (tolerance {expected.get('tolerance')})"
    if expected is None:
        return ""
    if expected and all(isinstance(e, list) for e in expected):  # an NER case's entities
        return "expected " + shown(case.get("text", ""), [(s, e, k) for s, e, k in expected])
    return "expected " + (" or ".join(expected) if isinstance(expected, list) else str(expected))


def _edited(case: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """A perturbation's edits of ``field`` as marks (word + offset) in the perturbed text: the recorded
    offsets are the original's, so each is moved by the length change of the edits before it."""
    change = (case.get("provenance") or {}).get("perturbation")
    edits = change.get("edits") if isinstance(change, dict) else None
    marks, shift = [], 0
    for edit in sorted(
        (e for e in edits or () if isinstance(e, dict) and e.get("field") == field), key=_start
    ):
        new, old = str(edit.get("to", "")), str(edit.get("from", ""))
        if isinstance(edit.get("start"), int):
            marks.append({"word": new, "offset": edit["start"] + shift})
            shift += len(new) - len(old)
    return marks


def _start(edit: dict[str, Any]) -> int:
    return edit["start"] if isinstance(edit.get("start"), int) else -1


def case_html(case: dict[str, Any], fields: list[str]) -> str:
    """A case's input for the page: one text, or each field on its own line; the words an expansion
    inserted and the words a perturbation changed (a typo, a name) marked."""
    inserted = (case.get("provenance") or {}).get("inserted") or []
    if len(fields) == 1:
        return highlighted(str(case.get(fields[0], "")), [*inserted, *_edited(case, fields[0])])
    return "<br>".join(
        f"<b>{_e(name)}:</b> {highlighted(str(case.get(name, '')), _edited(case, name))}" for name in fields
    )


def prediction_html(row: dict[str, Any] | None, failed: bool = True, labels: Sequence[str] = ()) -> str:
    """What the model answered: label and probabilities (each named by the task's ``labels`` when given),
    an answer, or what went wrong (in red when ``failed``)."""
    if not row:
        return ""
    if "error" in row:
        return f"<span class=muted>no answer: {_e(row['error'])}</span>"
    if "reply" in row:
        return f"<span class=fail>unreadable reply</span><br><span class=muted>{_e(row['reply'])}</span>"
    if "answer" in row:
        return f"<span class=fail>{_e(row['answer'])}</span>"
    if "entities" in row:
        return f"<span class={'fail' if failed else 'pass'}>{_e(listed(row['entities']))}</span>"
    values = row.get("probs", ())
    named = len(labels) == len(values)
    probs = (" · " if named else " / ").join(
        f"{labels[i]} {p:.2f}" if named else f"{p:.2f}" for i, p in enumerate(values)
    )
    said = f"<span class=fail>{_e(row.get('label'))}</span>" if failed else f"<b>{_e(row.get('label'))}</b>"
    return f"{said}<br><span class=muted>{_e(probs)}</span>"


# ---------------------------------------------------------------------------------------------------------
# Failing cases

INV_FAIL = "INV vs seed"


def failure_kind(row: dict[str, Any]) -> str | None:
    """Why a prediction row belongs in the failing-cases table: "fail", "error", "INV vs seed", or None."""
    if row.get("outcome") == FAIL:
        return FAIL
    if row.get("outcome") == ERROR:
        return ERROR
    if row.get("inv") == FAIL:
        return INV_FAIL
    return None


def collect_failures(
    results_dir: Path, results: dict[str, Any], limit: int | None
) -> tuple[dict[tuple[str, str], list[dict]], Counter]:
    """The failing cases of each (model, capability), the first ``limit`` of each (all when None), with
    their case records and seeds; and how many each (model, capability) has in all.

    Streams predictions.jsonl (twice) and the suite's cases.jsonl (once); holds only the chosen rows.
    """
    predictions = results_dir / PREDICTIONS
    cases_path = Path((results.get("suite") or {}).get("dir", "")) / CASES
    totals: Counter = Counter()
    if not predictions.is_file() or not cases_path.is_file():
        log.warning("no failing cases in the report: %s or %s is missing", predictions, cases_path)
        return {}, totals
    chosen: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in read_predictions(predictions):
        kind = failure_kind(row)
        if kind is None:
            continue
        key = (row["model"], row["capability"])
        totals[key] += 1
        if limit is None or len(chosen[key]) < limit:
            row["failure"] = kind
            chosen[key].append(row)
    wanted_seeds = {
        (row["model"], row["seed"]) for rows in chosen.values() for row in rows if row.get("seed")
    }
    seed_rows = {}
    for row in read_predictions(predictions):
        if (row["model"], row["case"]) in wanted_seeds:
            seed_rows[(row["model"], row["case"])] = row
    wanted_cases = {row["case"] for rows in chosen.values() for row in rows} | {c for _, c in wanted_seeds}
    cases = {c.id: c.to_json() for c in iter_cases(cases_path) if c.id in wanted_cases}
    for (model, _), rows in chosen.items():
        for row in rows:
            row["case_record"] = cases.get(row["case"], {})
            row["seed_row"] = seed_rows.get((model, row.get("seed")))
            row["seed_record"] = cases.get(row.get("seed") or "", {})
    return chosen, totals


def _failures(
    results: dict[str, Any],
    chosen: dict[tuple[str, str], list[dict]],
    totals: Counter,
    limit: int | None,
    labels: list[str],
) -> dict[str, Any] | None:
    """The flat table of every listed failing case, with its filters and the notes on what was cut."""
    if not totals:
        return None
    fields = (results.get("task") or {}).get("inputs", ["text"])
    answered = (
        "answer"
        if (results.get("task") or {}).get("output") == "span"
        else f"predicted ({' / '.join(labels)})"
    )
    order = {cap: i for i, cap in enumerate(capabilities(results))}
    models = list(results["models"])
    originals = present(results)["derived"]  # the "original" column only when cases have one
    keys = sorted(  # a model the results do not hold (a damaged run) has no table to read its rows with
        (k for k in chosen if k[0] in models), key=lambda k: (order.get(k[1], len(order)), models.index(k[0]))
    )
    rows = []
    for model, cap in keys:
        for row in chosen[(model, cap)]:
            case, seed, failure = row["case_record"], row["seed_record"], row["failure"]
            capability = results["models"][model]["capabilities"].get(cap, {})
            rows.append(
                {
                    "cap": cap,
                    "model": model,
                    "short": short_name(model),
                    "test_type": case.get("test_type") or capability.get("test_type", ""),
                    "kind": row.get("kind", ""),
                    "failure": failure,
                    "why": why(case)
                    if failure == FAIL
                    else why({"test_type": "INV"})
                    if failure == INV_FAIL
                    else "",
                    "case_html": case_html(case, fields),
                    "seed_html": case_html(seed, fields) if seed and row.get("seed_row") else "",
                    "seed_prediction_html": prediction_html(row.get("seed_row"), labels=labels),
                    "prediction_html": prediction_html(row, labels=labels),
                    "case": row["case"],
                }
            )
    seen = {
        name: {r[key] for r in rows}
        for name, key in (
            ("capability", "cap"),
            ("model", "short"),
            ("type", "test_type"),
            ("kind", "kind"),
            ("outcome", "failure"),
        )
    }
    return {
        "total": sum(totals.values()),
        "rows": rows,
        "limit": limit,
        "notes": [
            f"{cap} × {short_name(model)}: showing {len(chosen[(model, cap)]):,} of {n:,} failing cases"
            for (model, cap), n in sorted(totals.items(), key=lambda kv: (order.get(kv[0][1], 0), kv[0][0]))
            if len(chosen.get((model, cap), ())) < n
        ],
        "selects": {
            "capability": sorted(seen["capability"], key=lambda c: order.get(c, len(order))),
            "model": [short_name(m) for m in models if short_name(m) in seen["model"]],
            **{name: sorted(seen[name]) for name in ("type", "kind", "outcome")},
        },
        "originals": originals,
        "head": ["capability", "model", "type", "kind", "case (inserted words marked)"]
        + ["original"] * originals
        + [answered, "outcome", "case id"],
    }


# ---------------------------------------------------------------------------------------------------------
# What the suite has


def present(results: dict[str, Any]) -> dict[str, bool]:
    """Which parts the suite's sources fill, over every model and capability: expansions (ALiCT),
    perturbations, seed groups (INV/DIR tests or derived cases), seed → expansion transitions."""
    caps = [c for model in results["models"].values() for c in model["capabilities"].values()]
    expansions = any(c["expansions"].get("cases") for c in caps)
    perturbations = any((c.get("perturbations") or {}).get("cases") for c in caps)
    return {
        "expansions": expansions,
        "perturbations": perturbations,
        "derived": expansions or perturbations,
        "groups": expansions or perturbations or any(c["test_type"] != "MFT" for c in caps),
        "inv": any((c.get("inv") or {}).get("groups") for c in caps),
    }


def _ci_text(c: dict[str, Any]) -> str:
    pair = interval(c)
    return "" if pair is None else f"{100 * pair[0]:.1f}–{100 * pair[1]:.1f}%"


def _matrix(results: dict[str, Any], checklist: dict[str, Any] | None) -> dict[str, Any]:
    """The capability × model table of headline failure rates (with the mapped CheckList test's)."""
    models = list(results["models"])
    transitions = present(results)["expansions"]
    rows = []
    for cap in capabilities(results):
        info = capability_info(results, cap)
        cells: list[dict[str, Any] | None] = []
        for name in models:
            c = results["models"][name]["capabilities"].get(cap)
            if c is None:
                cells.append(None)
                continue
            tally, moves = headline(c), c.get("transitions", {})
            mapped = mapped_checklist(checklist, cap, name) if checklist else None
            cells.append(
                {
                    "shade": _shade(c["failure_rate"]),
                    "rate": pct(c["failure_rate"]),
                    "ci": _ci_text(c),
                    "failures": tally["failures"],
                    "applicable": tally["applicable"],
                    "errors": tally.get("errors"),
                    "pass_to_fail": moves.get("pass_to_fail", 0),
                    "fail_to_pass": moves.get("fail_to_pass", 0),
                    "checklist": (mapped[0], pct(mapped[1])) if mapped else None,
                }
            )
        rows.append(
            {
                "cap": cap,
                "label": row_label(results, cap),
                "about": " — ".join(x for x in (info["group"], info["description"]) if x),
                "test_type": info["test_type"],
                "cells": cells,
            }
        )
    return {
        "models": [(m, short_name(m)) for m in models],
        "span": 2 + 2 * transitions + bool(checklist),
        "transitions": transitions,
        "checklist": bool(checklist),
        "rows": rows,
    }


def _tally(t: dict[str, Any] | None) -> dict[str, Any] | None:
    if not t or not t.get("cases"):
        return None
    rate = t["failure_rate"]
    return {**t, "shade": _shade(rate), "sort": rate if rate is not None else -1, "rate": pct(rate)}


def _counts(results: dict[str, Any]) -> dict[str, Any]:
    """Per model, every tally the results hold, in columns only where the suite's sources fill them."""
    has = present(results)
    tallies = ["seeds"] + [t for t in ("expansions", "perturbations") if has[t]] + ["all"]
    tallies += ["groups"] if has["groups"] else []
    moves = ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail") if has["expansions"] else ()
    names = {"all": "all cases", "groups": "seed groups"}
    out = []
    for name, model in results["models"].items():
        total = overall(model)
        rows = []
        for cap, c in model_capabilities(results, model):
            inv = c.get("inv") or {}
            rows.append(
                {
                    "cap": cap,
                    "test_type": c["test_type"],
                    "tallies": [_tally(c.get(t)) for t in tallies],
                    "moves": [c.get("transitions", {}).get(k, 0) for k in moves],
                    "inv": {**inv, "rate": pct(inv.get("failure_rate"))} if inv.get("groups") else None,
                    "pairs": f"{inv.get('pair_failures', 0)}/{inv['pairs']}" if inv.get("pairs") else "",
                }
            )
        out.append(
            {
                "name": name,
                "short": short_name(name),
                "rate": pct(total["failure_rate"]),
                "failures": total["failures"],
                "applicable": total["applicable"],
                "errors": f"; {total['errors']} headline errors, {model['errors']} inputs without a "
                "prediction"
                if model.get("errors")
                else "",
                "rows": rows,
            }
        )
    return {
        "tallies": [(t, names.get(t, t)) for t in tallies],
        "moves": moves,
        "inv": has["inv"],
        "models": out,
    }


# ---------------------------------------------------------------------------------------------------------
# The verdict and the drill-down

MAX_VERDICT = 10  # failing capabilities named in a model's verdict
DRILLDOWN_GROUPS = 8  # seed groups of failing cases shown per capability and model (all: the last table)


def _limit(thresholds: dict[str, float], cap: str) -> float:
    return thresholds.get(cap, thresholds.get(OVERALL, 0.0))


def _gate(thresholds: dict[str, float]) -> str:
    if not thresholds:
        return "gate: any failure"
    return "gate: failure rate above " + ", ".join(
        f"{pct(v)}" if k == "*" else f"{pct(v)} for {k}" for k, v in thresholds.items()
    )


def _unit(c: dict[str, Any]) -> str:
    return "cases" if c["test_type"] == "MFT" else "seed groups"


def _reason(row: dict[str, Any]) -> str:
    failure = row["failure"]
    case = row.get("case_record") or {}
    reason = why(case) if failure == FAIL else why({"test_type": "INV"}) if failure == INV_FAIL else ""
    return f"{failure}: {reason}" if reason else failure


def _because(explained: dict[str, Any] | None) -> str:
    """The strongest explanation of a capability, as a phrase for the verdict."""
    if not explained or not explained.get("cases"):
        return ""
    if explained["failures"] == explained["cases"]:
        return " — every applicable case fails"
    if not explained["features_tried"]:
        return " — too few cases to tell which features go with failure"
    e = strongest(explained)
    if e is None:
        return (
            f" — no case feature stands out (none of {explained['features_tried']} tried is significant "
            "after correction)"
        )
    w, o = e["with"], e["without"]
    return (
        f" — its cases fail {pct(w['failure_rate'])} ({w['failures']}/{w['cases']}) when "
        f"<code>{_e(e['feature'])}</code>, "
        f"{pct(o['failure_rate'])} ({o['failures']}/{o['cases']}) otherwise (q = {e['q']:.2g})"
    )


def _verdicts(
    results: dict[str, Any],
    explained: dict[str, dict[str, Any]],
    chosen: dict[tuple[str, str], list[dict]],
    thresholds: dict[str, float],
    labels: list[str],
) -> list[dict[str, Any]]:
    """Per model: the capabilities failing beyond the gate, worst first (the first ``MAX_VERDICT``), each
    with its strongest explanation and first failing example."""
    fields = (results.get("task") or {}).get("inputs", ["text"])
    out = []
    for name, model in results["models"].items():
        caps = model_capabilities(results, model)
        failing = [
            (cap, c)
            for cap, c in caps
            if c["failure_rate"] is not None and c["failure_rate"] > _limit(thresholds, cap)
        ]
        failing.sort(key=lambda item: -item[1]["failure_rate"])
        items = []
        for cap, c in failing[:MAX_VERDICT]:
            info, tally = capability_info(results, cap), headline(c)
            rows = chosen.get((name, cap)) or []
            first = next((r for r in rows if r["failure"] == FAIL), rows[0] if rows else None)
            items.append(
                {
                    "cap": cap,
                    "about": info["group"] or (info["name"] if info["name"] != cap else ""),
                    "rate": pct(c["failure_rate"]),
                    "applicable": tally["applicable"],
                    "failures": tally["failures"],
                    "unit": _unit(c),
                    "because_html": _because(explained.get(name, {}).get(cap)),
                    "example": first
                    and {
                        "case_html": case_html(first.get("case_record") or {}, fields),
                        # the label or answer, without the probabilities
                        "said_html": prediction_html(first, labels=labels).split("<br>")[0],
                        "reason": _reason(first),
                    },
                }
            )
        total = overall(model)
        out.append(
            {
                "name": name,
                "short": short_name(name),
                "failing": items,
                "more": max(len(failing) - MAX_VERDICT, 0),
                "capabilities": len(caps),
                "failures": total["failures"],
                "applicable": total["applicable"],
                "errors": f" {model['errors']:,} inputs got no prediction (errors, never counted as passes)."
                if model.get("errors")
                else "",
            }
        )
    return out


def _minimal(edit: dict[str, Any] | None, fields: list[str]) -> dict[str, Any] | None:
    if not edit:
        return None
    return {
        "parts": ", ".join(
            f"“{p['word']}”" if "word" in p else f"“{p.get('from')}” → “{p.get('to')}”"
            for p in edit["minimal"]
        ),
        "size": len(edit["minimal"]),
        "changes": edit["changes"],
        "inputs": display_inputs(edit["inputs"], fields),
        "label": edit["label"],
    }


def display_inputs(inputs: dict[str, str], fields: list[str]) -> str:
    return display({f: inputs[f] for f in fields if f in inputs})


def _grouped_examples(
    rows: list[dict[str, Any]], fields: list[str], edits: dict[str, dict], labels: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """Failing cases grouped by seed: the seed once (failing itself, or what it was), then its failing
    expansions or perturbations (several are folded under it in a <details>). The first
    ``DRILLDOWN_GROUPS`` groups, and how many there are."""

    def example(r: dict[str, Any]) -> dict[str, Any]:
        return {
            "case_html": case_html(r["case_record"], fields),
            "minimal": _minimal(edits.get(r["case"]), fields),
            "prediction_html": prediction_html(r, labels=labels),
            "reason": _reason(r),
            "case": r["case"],
        }

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r.get("seed") or r["case"]].append(r)
    out = []
    what = {"pass": "seed: passes", "n/a": "original (not a test itself)"}
    for key, members in list(groups.items())[:DRILLDOWN_GROUPS]:
        own = [r for r in members if r["case"] == key]
        rest = [r for r in members if r["case"] != key]
        seed_row = (rest[0].get("seed_row") if rest else None) or {}
        out.append(
            {
                "key": key,
                "own": example(own[0]) if own else None,
                "seed": {
                    "case_html": case_html((rest[0].get("seed_record") if rest else None) or {}, fields),
                    "prediction_html": prediction_html(seed_row, seed_row.get("outcome") == FAIL, labels),
                    "what": what.get(seed_row.get("outcome", ""), "seed"),
                },
                "rest": [example(r) for r in rest],
                "kind": "perturbation" if any(r.get("kind") == "perturbation" for r in rest) else "expansion",
            }
        )
    return out, len(groups)


def _drilldown(
    results: dict[str, Any],
    explained: dict[str, dict[str, Any]],
    chosen: dict[tuple[str, str], list[dict]],
    totals: Counter,
    edits: dict[tuple[str, str], dict],
    labels: list[str],
) -> list[dict[str, Any]]:
    """Per capability: what the manifest says of it, then per model its rate, its ranked explanations and
    its first ``DRILLDOWN_GROUPS`` seed groups of failing cases."""
    fields = (results.get("task") or {}).get("inputs", ["text"])
    out = []
    for cap in capabilities(results):
        info = capability_info(results, cap)
        models = []
        for model, own in results["models"].items():
            c = own["capabilities"].get(cap)
            if c is None:
                continue
            tally, rows = headline(c), chosen.get((model, cap)) or []
            own_edits = {case: e for (m, case), e in edits.items() if m == model}
            groups, count = _grouped_examples(rows, fields, own_edits, labels)
            e = explained.get(model, {}).get(cap)
            models.append(
                {
                    "name": model,
                    "short": short_name(model),
                    "shade": _shade(c["failure_rate"]),
                    "rate": pct(c["failure_rate"]),
                    "failures": tally["failures"],
                    "applicable": tally["applicable"],
                    "unit": _unit(c),
                    "ci": _ci_text(c),
                    "explained": e if e and e.get("cases") and e.get("failures") else None,
                    "groups": groups,
                    "shown": f"the first {DRILLDOWN_GROUPS} of {count:,} seed groups"
                    if count > DRILLDOWN_GROUPS
                    else f"{count:,} seed groups",
                    "listed": len(rows) < totals[(model, cap)],
                    "total": totals[(model, cap)],
                }
            )
        out.append(
            {
                "cap": cap,
                "name": f" {info['name']}" if info["name"] != cap else "",
                "about": " — ".join(x for x in (info["group"], info["description"]) if x),
                "meta": "; ".join(x for x in (info["test_type"], info["expectation"]) if x),
                "models": models,
            }
        )
    return out


def read_minimal_edits(results_dir: Path) -> dict[tuple[str, str], dict]:
    """(model, case) → minimal failing edit, from ``autocheck explain --minimal-edits`` (none if absent)."""
    path = results_dir / MINIMAL_EDITS
    if not path.is_file():
        return {}
    data = load_json(path, "minimal failing edits (written by 'autocheck explain --minimal-edits')")
    if not isinstance(data, dict) or not isinstance(data.get("edits"), list):
        raise InputError(f"{path}: field 'edits' missing; not a minimal-edits file")
    return {
        (data.get("model", ""), e["case"]): e for e in data["edits"] if isinstance(e, dict) and "case" in e
    }


def write_html(
    results_dir: str | Path,
    html_path: str | Path,
    *,
    checklist_dir: str | Path | None = None,
    max_failures: int | None = DEFAULT_MAX_FAILURES,
    plots: bool = True,
    thresholds: dict[str, float] | None = None,
    explain: bool = True,
) -> Path:
    """Write the report page to ``html_path`` (and, with ``plots``, its PNG plots beside it:
    ``<name>-failure-rates.png``, and ``<name>-seed-vs-expansion.png`` when the suite has expansions or
    perturbations). ``max_failures``: failing cases listed per capability and model (None or 0: all);
    ``thresholds``: the verdict's gate (as ``run --fail-above``; default: any failure); ``explain``: rank
    the case features of each capability (one more pass over the run's files)."""
    results_dir, html_path = Path(results_dir), Path(html_path)
    results = load_results(results_dir)
    checklist = load_results(checklist_dir) if checklist_dir else None
    limit = max_failures or None
    suite = results.get("suite", {})
    env = results.get("environment", {})
    title = "autocheck report" + (" — CheckList suite" if is_checklist(results) else "")
    chosen, totals = collect_failures(results_dir, results, limit)
    explained: dict[str, dict[str, Any]] = {}
    if explain:
        try:
            explained = explain_run(results_dir, results)
        except InputError as e:
            log.warning("no explanations in the report: %s", e)
    has = present(results)
    labels = (results.get("task") or {}).get("labels", ["negative", "neutral", "positive"])
    text = render(
        "report.html.j2",
        title=title,
        script=asset("page.js"),
        suite=suite,
        task=(results.get("task") or {}).get("task", "sentiment"),
        models=list(results["models"]),
        python=env.get("python", ""),
        binary_note=binary_note(results),
        gate=_gate(thresholds or {}),
        verdicts=_verdicts(results, explained, chosen, thresholds or {}, labels),
        matrix=_matrix(results, checklist),
        without_cases=without_cases(results),
        drilldown=_drilldown(results, explained, chosen, totals, read_minimal_edits(results_dir), labels),
        plots=_plots(results, html_path, has["derived"]) if plots else {},
        counts=_counts(results),
        failures=_failures(results, chosen, totals, limit, labels),
    )
    atomic_write_text(html_path, text)
    return html_path


def plot_files(html_path: str | Path) -> list[Path]:
    """The PNG files :func:`write_html` may write beside ``html_path``, for callers that refuse to replace."""
    return [png_path(Path(html_path).with_suffix(""), key) for key in FIGURES]


def _plots(results: dict[str, Any], html_path: Path, derived_cases: bool = True) -> dict[str, str]:
    keys = [k for k in FIGURES if derived_cases or k != "seed_vs_expansion"]
    return render_plots(results, html_path.with_suffix(""), keys)
