"""The HTML report: one self-contained page (inline CSS, SVG and a small script; no external assets) that
reads without JavaScript. Every dataset text is HTML-escaped.

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

from ..expect import ERROR, FAIL
from ..run import PREDICTIONS, read_predictions
from ..store import InputError, atomic_write_text, load_json
from ..suite import CASES, iter_cases
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


def filter_form(table_id: str, selects: dict[str, list[str]], placeholder: str) -> str:
    """The filter controls of a table (the template set's macro): hidden in the HTML, shown by the script."""
    from .templates import macro

    return macro("filter_form", table_id, selects, placeholder)


def _failures_section(
    results: dict[str, Any], chosen: dict[tuple[str, str], list[dict]], totals: Counter, limit: int | None
) -> str:
    if not totals:
        return "<p class=muted>No failing cases (or the run's files were not found).</p>"
    task = results.get("task") or {}
    fields = task.get("inputs", ["text"])
    labels = task.get("labels", ["negative", "neutral", "positive"])
    answered = "answer" if task.get("output") == "span" else f"predicted ({' / '.join(labels)})"
    order = {cap: i for i, cap in enumerate(capabilities(results))}
    models = list(results["models"])
    originals = present(results)["derived"]  # the "original" column only when cases have one
    keys = sorted(
        chosen, key=lambda k: (order.get(k[1], len(order)), models.index(k[0]) if k[0] in models else 0)
    )
    body, seen = [], defaultdict(set)
    for model, cap in keys:
        for row in chosen[(model, cap)]:
            case = row["case_record"]
            test_type = case.get("test_type") or results["models"][model]["capabilities"].get(cap, {}).get(
                "test_type", ""
            )
            kind, failure = row.get("kind", ""), row["failure"]
            for name, value in (("capability", cap), ("model", short_name(model)), ("type", test_type)):
                seen[name].add(value)
            seen["kind"].add(kind)
            seen["outcome"].add(failure)
            reason = (
                why(case) if failure == FAIL else why({"test_type": "INV"}) if failure == INV_FAIL else ""
            )
            seed = row["seed_record"]
            seed_cell = (
                f"{case_html(seed, fields)}<br><span class=muted>predicted</span> "
                f"{prediction_html(row.get('seed_row'))}"
                if seed and row.get("seed_row")
                else "<span class=muted>(seed case)</span>"
            )
            attrs = (
                f"data-capability='{_e(cap)}' data-model='{_e(short_name(model))}' "
                f"data-type='{_e(test_type)}' "
                f"data-kind='{_e(kind)}' data-outcome='{_e(failure)}'"
            )
            body.append(
                f"<tr {attrs}><td>{_e(cap)}</td><td title='{_e(model)}'>{_e(short_name(model))}</td>"
                f"<td>{_e(test_type)}</td><td>{_e(kind)}</td><td class=ex>{case_html(case, fields)}</td>"
                + (f"<td class=ex>{seed_cell}</td>" if originals else "")
                + f"<td>{prediction_html(row)}</td>"
                f"<td>{_e(failure)}{': ' + _e(reason) if reason else ''}</td>"
                f"<td class=muted>{_e(row['case'])}</td></tr>"
            )
    notes = [
        f"<li>{_e(cap)} × {_e(short_name(model))}: showing {len(chosen[(model, cap)]):,} of {n:,} "
        "failing cases</li>"
        for (model, cap), n in sorted(totals.items(), key=lambda kv: (order.get(kv[0][1], 0), kv[0][0]))
        if len(chosen.get((model, cap), ())) < n
    ]
    note = (
        f"<p class=muted>At most {limit:,} rows per capability and model "
        f"(<code>report --max-failures N</code>; 0 for all):</p>"
        f"<ul class='muted truncated'>{''.join(notes)}</ul>"
        if notes
        else ""
    )
    order_of = {
        "capability": sorted(seen["capability"], key=lambda c: order.get(c, len(order))),
        "model": [short_name(m) for m in models if short_name(m) in seen["model"]],
    }
    selects = {
        name: order_of.get(name) or sorted(seen[name])
        for name in ("capability", "model", "type", "kind", "outcome")
    }
    head = "".join(
        f"<th>{_e(h)}</th>"
        for h in ("capability", "model", "type", "kind", "case (inserted words marked)", "original", answered,
                  "outcome", "case id")
        if h != "original" or originals
    )  # fmt: skip
    total = sum(totals.values())
    return (
        f"<p class=muted>{total:,} failing cases (own test failed, seed-vs-expansion INV failed, or no "
        f"prediction: error); {len(body):,} listed. Sort by a column heading.</p>{note}"
        + filter_form("failures", selects, "words in a case, an id, a label…")
        + f"<table id=failures class='examples sortable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


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


def _matrix(results: dict[str, Any], checklist: dict[str, Any] | None) -> str:
    models = list(results["models"])
    transitions_apply = present(results)["expansions"]
    span = 2 + 2 * transitions_apply + bool(checklist)
    head = "<thead><tr><th rowspan=2>capability</th><th rowspan=2>type</th>"
    head += (
        "".join(f"<th colspan={span} title='{_e(m)}'>{_e(short_name(m))}</th>" for m in models) + "</tr><tr>"
    )
    head += "".join(
        "<th>failure rate (95% CI)</th><th>failed / applicable</th>"
        + ("<th>pass→fail</th><th>fail→pass</th>" if transitions_apply else "")
        + ("<th>CheckList</th>" if checklist else "")
        for _ in models
    )
    rows = [head + "</tr></thead><tbody>"]
    for cap in capabilities(results):
        info = capability_info(results, cap)
        about = " — ".join(x for x in (info["group"], info["description"]) if x)
        title = f"<br><span class=muted>{_e(about)}</span>" if about else ""
        link = f"<a href='#cap-{_e(cap)}'>{_e(row_label(results, cap))}</a>"
        cells = [f"<td>{link}{title}</td>", f"<td>{_e(info['test_type'])}</td>"]
        for name in models:
            c = results["models"][name]["capabilities"].get(cap)
            if c is None:
                cells.append("<td></td>" * span)
                continue
            tally, transitions = headline(c), c.get("transitions", {})
            cells.append(
                f"<td class='{_shade(c['failure_rate'])}'><b>{pct(c['failure_rate'])}</b>"
                f"<br><span class=muted>{_ci_text(c)}</span></td>"
                f"<td>{tally['failures']}/{tally['applicable']}{_errors_note(tally)}</td>"
            )
            if transitions_apply:
                cells += [f"<td>{transitions.get(k, 0)}</td>" for k in ("pass_to_fail", "fail_to_pass")]
            if checklist:
                mapped = mapped_checklist(checklist, cap, name)
                cells.append(f"<td title='{_e(mapped[0])}'>{pct(mapped[1])}</td>" if mapped else "<td></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table class=matrix>" + "".join(rows) + "</tbody></table>"


def _errors_note(t: dict[str, Any]) -> str:
    """Errors beside a rate: cases without a prediction are never a pass."""
    return f"<br><span class=fail>{t['errors']} errors</span>" if t.get("errors") else ""


def _tally_cell(t: dict[str, Any] | None) -> str:
    if not t or not t.get("cases"):
        return "<td class=muted>–</td>"
    errors = _errors_note(t)
    rate = t["failure_rate"]
    return (
        f"<td class='{_shade(rate)}' data-sort='{rate if rate is not None else -1}'>{pct(rate)}"
        f"<br><span class=muted>{t['failures']}/{t['applicable']} of {t['cases']}</span>"
        f"{errors}</td>"
    )


def _counts_tables(results: dict[str, Any]) -> str:
    """Per model, every tally the results hold, in columns only where the suite's sources fill them."""
    has = present(results)
    tallies = ["seeds"] + [t for t in ("expansions", "perturbations") if has[t]] + ["all"]
    tallies += ["groups"] if has["groups"] else []
    moves = ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail") if has["expansions"] else ()
    names = {"all": "all cases", "groups": "seed groups"}
    head = (
        "<thead><tr><th>capability</th><th>type</th>"
        + "".join(f"<th>{names.get(t, t)}</th>" for t in tallies)
        + "".join(f"<th>{m.replace('_to_', '→')}</th>" for m in moves)
        + ("<th>INV seed vs expansion (groups)</th><th>INV pairs failed</th>" if has["inv"] else "")
        + "</tr></thead>"
    )
    out = []
    for name, model in results["models"].items():
        rows = []
        for cap, c in model_capabilities(results, model):
            tr, inv = c.get("transitions", {}), c.get("inv") or {}
            cells = [f"<td>{_e(cap)}</td><td>{_e(c['test_type'])}</td>"]
            cells += [_tally_cell(c.get(t)) for t in tallies]
            cells += [f"<td>{tr.get(k, 0)}</td>" for k in moves]
            if has["inv"]:
                cells.append(
                    f"<td>{pct(inv.get('failure_rate'))}"
                    f"<br><span class=muted>{inv['failures']}/{inv['groups']}</span></td>"
                    if inv.get("groups")
                    else "<td class=muted>–</td>"
                )
                cells.append(
                    f"<td>{inv.get('pair_failures', 0)}/{inv.get('pairs', 0)}</td>"
                    if inv.get("pairs")
                    else "<td class=muted>–</td>"
                )
            rows.append("<tr>" + "".join(cells) + "</tr>")
        total = overall(model)
        errors = (
            f"; {total['errors']} headline errors, {model['errors']} inputs without a prediction"
            if model.get("errors")
            else ""
        )
        out.append(
            f"<h3 title='{_e(name)}'>{_e(short_name(name))}</h3>"
            f"<p class=muted>overall {pct(total['failure_rate'])}"
            f" ({total['failures']}/{total['applicable']} headline cases){_e(errors)}</p>"
            f"<table class='counts sortable'>{head}<tbody>{''.join(rows)}</tbody></table>"
        )
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------
# The verdict and the drill-down

MAX_VERDICT = 10  # failing capabilities named in a model's verdict
DRILLDOWN_GROUPS = 8  # seed groups of failing cases shown per capability and model (all: the last table)


def _limit(thresholds: dict[str, float], cap: str) -> float:
    from ..ci import OVERALL

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
    from ..explain import strongest

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


def _example_line(row: dict[str, Any], fields: list[str]) -> str:
    said = prediction_html(row).split("<br>")[0]  # the label or answer, without the probabilities
    case = case_html(row.get("case_record") or {}, fields)
    return f"e.g. {case} → {said} <span class=muted>({_e(_reason(row))})</span>"


def _verdict(
    results: dict[str, Any],
    explained: dict[str, dict[str, Any]],
    chosen: dict[tuple[str, str], list[dict]],
    thresholds: dict[str, float],
) -> str:
    """Per model: the capabilities failing beyond the gate, worst first, each with its strongest
    explanation and first failing example."""
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
        errors = (
            f" {model['errors']:,} inputs got no prediction (errors, never counted as passes)."
            if model.get("errors")
            else ""
        )
        who = f"<b title='{_e(name)}'>{_e(short_name(name))}</b>"
        if not failing:
            total = overall(model)
            out.append(
                f"<div class='verdict ok'><p>{who}: no capability fails beyond the gate "
                f"({_e(_gate(thresholds))}); "
                f"{total['failures']}/{total['applicable']} headline cases fail in all.{_e(errors)}</p></div>"
            )
            continue
        items = []
        for cap, c in failing[:MAX_VERDICT]:
            info, tally = capability_info(results, cap), headline(c)
            about = info["group"] or (info["name"] if info["name"] != cap else "")
            rows = chosen.get((name, cap)) or []
            first = next((r for r in rows if r["failure"] == FAIL), rows[0] if rows else None)
            example = f"<br><span class=eg>{_example_line(first, fields)}</span>" if first else ""
            items.append(
                f"<li><a href='#cap-{_e(cap)}'><b>{_e(cap)}</b></a> {_e(about)}: "
                f"<b>{pct(c['failure_rate'])}</b> of {tally['applicable']:,} {_unit(c)} "
                f"({tally['failures']:,} fail){_because(explained.get(name, {}).get(cap))}{example}</li>"
            )
        more = len(failing) - MAX_VERDICT
        out.append(
            f"<div class=verdict><p>{who}: {len(failing)} of {len(caps)} capabilities fail beyond the gate "
            f"({_e(_gate(thresholds))}).{_e(errors)}</p><ol>{''.join(items)}</ol>"
            + (f"<p class=muted>and {more} more (see the matrix below)</p>" if more > 0 else "")
            + "</div>"
        )
    return "".join(out)


def _explanations_table(e: dict[str, Any] | None) -> str:
    if not e or not e.get("cases") or not e.get("failures"):
        return ""
    if not e["features_tried"]:
        return (
            f"<p class=muted>Why it fails: too few cases ({e['cases']} applicable) to tell which case "
            "features go with failure.</p>"
        )
    note = (
        f"<p class=muted>Why it fails: {e['features_tried']} case features tried over {e['cases']:,} "
        f"applicable cases ({e['failures']:,} fail); {e['significant']} significant (one-sided Fisher's "
        "exact test, Benjamini–Hochberg q &lt; 0.05; in bold, first); ranked by the lower end of the 95% "
        "interval of the difference.</p>"
    )
    if not e["explanations"]:
        return note
    rows = []
    for x in e["explanations"]:
        w, o, gap = x["with"], x["without"], x["difference_interval"]
        strong = " class=strong" if x["significant"] else ""
        rows.append(
            f"<tr{strong}><td><code>{_e(x['feature'])}</code></td>"
            f"<td>{pct(w['failure_rate'])} <span class=muted>{w['failures']}/{w['cases']}</span></td>"
            f"<td>{pct(o['failure_rate'])} <span class=muted>{o['failures']}/{o['cases']}</span></td>"
            f"<td>{100 * x['difference']:+.0f} pts <span class=muted>({100 * gap[0]:+.0f} to "
            f"{100 * gap[1]:+.0f})</span></td><td>{x['p']:.2g}</td><td>{x['q']:.2g}</td></tr>"
        )
    return (
        note + "<table class='explain'><thead><tr><th>feature</th><th>fail with it</th><th>fail without</th>"
        "<th>difference (95% CI)</th><th>p</th><th>q</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _minimal_html(edit: dict[str, Any] | None, fields: list[str]) -> str:
    if not edit:
        return ""
    parts = ", ".join(
        f"“{p['word']}”" if "word" in p else f"“{p.get('from')}” → “{p.get('to')}”" for p in edit["minimal"]
    )
    return (
        f"<div class=minimal>minimal failing edit: {_e(parts)} alone ({len(edit['minimal'])} of "
        f"{edit['changes']} changes) → {_e(display_inputs(edit['inputs'], fields))} "
        f"<b>{_e(edit['label'])}</b></div>"
    )


def display_inputs(inputs: dict[str, str], fields: list[str]) -> str:
    from ..records import display

    return display({f: inputs[f] for f in fields if f in inputs})


def _example_row(r: dict[str, Any], fields: list[str], edits: dict[str, dict], under: bool = False) -> str:
    """A failing case's row; ``under`` a seed shown just above it: marked as derived from it."""
    return (
        f"<tr{' class=derived' if under else ''}><td class=ex>{'↳ ' if under else ''}"
        f"{case_html(r['case_record'], fields)}{_minimal_html(edits.get(r['case']), fields)}"
        f"</td><td>{prediction_html(r)}</td><td>{_e(_reason(r))}</td>"
        f"<td class=muted>{_e(r['case'])}</td></tr>"
    )


EXAMPLES_HEAD = (
    "<thead><tr><th>case (inserted words marked)</th><th>predicted</th><th>why</th><th>id</th></tr></thead>"
)


def _grouped_examples(
    rows: list[dict[str, Any]], fields: list[str], edits: dict[str, dict]
) -> tuple[str, int]:
    """Failing cases grouped by seed, in one table: the seed once (failing itself, or what it was), then
    its failing expansion or perturbation below it, or several folded under it in a <details>. At most
    ``DRILLDOWN_GROUPS`` groups; returns the table and how many groups there are."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r.get("seed") or r["case"]].append(r)
    body = []
    for key, members in list(groups.items())[:DRILLDOWN_GROUPS]:
        own = [r for r in members if r["case"] == key]
        rest = [r for r in members if r["case"] != key]
        if own:
            body.append(_example_row(own[0], fields, edits))
        else:
            seed_row = rest[0].get("seed_row") or {}
            what = {"pass": "seed: passes", "n/a": "original (not a test itself)"}
            body.append(
                f"<tr class=seed><td class=ex>{case_html(rest[0].get('seed_record') or {}, fields)}</td>"
                f"<td>{prediction_html(seed_row, seed_row.get('outcome') == FAIL)}</td>"
                f"<td class=muted>{_e(what.get(seed_row.get('outcome', ''), 'seed'))}</td>"
                f"<td class=muted>{_e(key)}</td></tr>"
            )
        if len(rest) == 1:
            body.append(_example_row(rest[0], fields, edits, under=True))
        elif rest:
            kind = "perturbation" if any(r.get("kind") == "perturbation" for r in rest) else "expansion"
            inner = "".join(_example_row(r, fields, edits) for r in rest)
            body.append(
                f"<tr class=fold><td colspan=4><details><summary>{len(rest)} failing {kind}s of "
                f"{_e(key)}</summary><table class=examples>{EXAMPLES_HEAD}<tbody>{inner}</tbody></table>"
                "</details></td></tr>"
            )
    table = f"<table class='examples grouped'>{EXAMPLES_HEAD}<tbody>{''.join(body)}</tbody></table>"
    return table, len(groups)


def _drilldown(
    results: dict[str, Any],
    explained: dict[str, dict[str, Any]],
    chosen: dict[tuple[str, str], list[dict]],
    totals: Counter,
    edits: dict[tuple[str, str], dict],
) -> str:
    fields = (results.get("task") or {}).get("inputs", ["text"])
    out = []
    for cap in capabilities(results):
        info = capability_info(results, cap)
        name = f" {info['name']}" if info["name"] != cap else ""
        about = " — ".join(x for x in (info["group"], info["description"]) if x)
        parts = [
            f"<section class=cap id='cap-{_e(cap)}'><h3>{_e(cap)}{_e(name)}</h3>",
            f"<p>{_e(about)}</p>" if about else "",
            f"<p class=muted>{_e('; '.join(x for x in (info['test_type'], info['expectation']) if x))}</p>",
        ]
        for model, own in results["models"].items():
            c = own["capabilities"].get(cap)
            if c is None:
                continue
            tally = headline(c)
            parts.append(
                f"<h4 title='{_e(model)}'>{_e(short_name(model))}: <span class='{_shade(c['failure_rate'])}'>"
                f"{pct(c['failure_rate'])}</span> <span class=muted>"
                f"{tally['failures']:,}/{tally['applicable']:,} "
                f"{_unit(c)} fail, 95% CI {_ci_text(c) or '–'}</span></h4>"
            )
            parts.append(_explanations_table(explained.get(model, {}).get(cap)))
            rows = chosen.get((model, cap)) or []
            if rows:
                own_edits = {case: e for (m, case), e in edits.items() if m == model}
                table, groups = _grouped_examples(rows, fields, own_edits)
                listed = len(rows) < totals[(model, cap)]
                shown = (
                    f"the first {DRILLDOWN_GROUPS} of {groups:,} seed groups"
                    if groups > DRILLDOWN_GROUPS
                    else f"{groups:,} seed groups"
                )
                parts.append(
                    f"<p class=muted>Failing cases by seed: {shown}{' listed' if listed else ''} "
                    f"({totals[(model, cap)]:,} failing cases in all; the last section lists them).</p>"
                    + table
                )
        parts.append("</section>")
        out.append("".join(parts))
    return "".join(out)


def read_minimal_edits(results_dir: Path) -> dict[tuple[str, str], dict]:
    """(model, case) → minimal failing edit, from ``autocheck explain --minimal-edits`` (none if absent)."""
    from ..explain import MINIMAL_EDITS

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
        from ..explain import explain_run

        try:
            explained = explain_run(results_dir, results)
        except InputError as e:
            log.warning("no explanations in the report: %s", e)
    has = present(results)
    text = render(
        "report.html.j2",
        title=title,
        script=asset("page.js"),
        suite=suite,
        task=(results.get("task") or {}).get("task", "sentiment"),
        models=list(results["models"]),
        python=env.get("python", ""),
        expansions=has["expansions"],
        binary_note=binary_note(results),
        verdict_html=_verdict(results, explained, chosen, thresholds or {}),
        matrix_html=_matrix(results, checklist),
        drilldown_html=_drilldown(results, explained, chosen, totals, read_minimal_edits(results_dir)),
        plots=_plots(results, html_path, has["derived"]) if plots else {},
        counts_html=_counts_tables(results),
        failures_html=_failures_section(results, chosen, totals, limit),
    )
    atomic_write_text(html_path, text)
    return html_path


def plot_files(html_path: str | Path) -> list[Path]:
    """The PNG files :func:`write_html` may write beside ``html_path``, for callers that refuse to replace."""
    from .plots import FIGURES, png_path

    return [png_path(Path(html_path).with_suffix(""), key) for key in FIGURES]


def _plots(results: dict[str, Any], html_path: Path, derived_cases: bool = True) -> dict[str, str]:
    from .plots import FIGURES, render

    keys = [k for k in FIGURES if derived_cases or k != "seed_vs_expansion"]
    return render(results, html_path.with_suffix(""), keys)
