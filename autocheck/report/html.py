"""Summaries of a run: a terminal table and one self-contained HTML page (inline CSS and SVG, no scripts).

A CheckList run (a suite made by ``checklist.convert_checklist``) is recognised from its manifest; its
rows show the paper's LC each test maps to. Given an autocheck run and a CheckList run of the same
models, each LC row also shows the failure rate of its mapped CheckList test (``Macros.LC_MAP``).
"""

from __future__ import annotations

import html
import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..run import CASES, FAIL, PREDICTIONS, RESULTS, natural_key
from ..store import InputError, atomic_write_text, load_json, read_jsonl

log = logging.getLogger(__name__)

PARTS = ("seeds", "expansions", "all")


def load_results(results_dir: str | Path) -> dict[str, Any]:
    results = load_json(Path(results_dir) / RESULTS, "results file (written by 'autocheck run')")
    if not isinstance(results, dict) or "models" not in results:
        raise InputError(f"{Path(results_dir) / RESULTS}: field 'models' missing; not a results file")
    return results


def _manifest(results: dict[str, Any]) -> dict[str, Any]:
    return (results.get("suite") or {}).get("manifest") or {}


def is_checklist(results: dict[str, Any]) -> bool:
    return _manifest(results).get("source") == "checklist"


def short_name(model: str) -> str:
    """A local model directory by its folder name; hub ids and other specs as they are."""
    return Path(model).name if model.startswith(("/", ".", "~")) else model


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}%"


def _capabilities(results: dict[str, Any]) -> list[str]:
    caps = {cap for model in results["models"].values() for cap in model["capabilities"]}
    return sorted(caps, key=natural_key)


def _row_label(results: dict[str, Any], cap: str) -> str:
    """A CheckList test's full name and LC; an autocheck capability as is."""
    test = _manifest(results).get("tests", {}).get(cap)
    if not test:
        return cap
    return f"{test['name']} [{test['lc']}]" if test.get("lc") else test["name"]


def _binary_note(results: dict[str, Any]) -> str:
    binary = (results.get("task") or {}).get("binary")
    if not binary:
        return ""
    low, high = binary["band"]
    return (
        f"{binary['neutral'].capitalize()} = P({binary['labels'][1]}) strictly between {low:.3g} and "
        f"{high:.3g} for binary models."
    )


def describe(results: dict[str, Any], cap: str) -> str:
    """A capability's group and description, from the suite's manifest ("" when it has none)."""
    info = _manifest(results).get("capabilities", {}).get(cap) or {}
    return " — ".join(x for x in (info.get("capability"), info.get("description")) if x)


def _derived(c: dict[str, Any]) -> dict[str, Any]:
    """The tally of a capability's derived cases: its expansions, or its perturbations (INV/DIR)."""
    perturbations = c.get("perturbations") or {}
    return perturbations if perturbations.get("cases") and not c["expansions"]["cases"] else c["expansions"]


def mapped_checklist(
    checklist: dict[str, Any] | None, cap: str, model: str
) -> tuple[str, float | None] | None:
    """(CheckList test name, its failure rate for ``model``) mapped to an LC capability, if the run has it."""
    if not checklist:
        return None
    manifest = _manifest(checklist)
    test_id = manifest.get("lc_map", {}).get(cap)
    models = checklist["models"]
    row = models.get(model) or (next(iter(models.values())) if len(models) == 1 else None)
    if not test_id or row is None or test_id not in row["capabilities"]:
        return None
    return manifest["tests"][test_id]["name"], row["capabilities"][test_id]["failure_rate"]


def format_table(results: dict[str, Any], checklist: dict[str, Any] | None = None) -> str:
    """Capability × model failure rates (seeds / expansions / all), plain text.

    ``checklist``: results of a CheckList run of the same models, shown next to each mapped LC.
    """
    models = list(results["models"])
    header = ["capability", "type"]
    for name in models:
        header += [f"{short_name(name)} seeds", "derived", "all", "p→f"]
        if checklist:
            header.append("CheckList")
    rows = [header]
    for cap in _capabilities(results):
        row = [_row_label(results, cap), ""]
        for name in models:
            c = results["models"][name]["capabilities"].get(cap)
            if c is None:
                row += ["", "", "", ""] + ([""] if checklist else [])
                continue
            row[1] = c["test_type"]
            row += [_pct(c["seeds"]["failure_rate"]), _pct(_derived(c)["failure_rate"])]
            row += [_pct(c["failure_rate"]), str(c["transitions"]["pass_to_fail"])]
            if checklist:
                mapped = mapped_checklist(checklist, cap, name)
                row.append(_pct(mapped[1]) if mapped else "")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    note = (
        "rates: failures / applicable cases; derived = expansions (or perturbations); "
        "'all' = CheckList test-case rate (groups for INV/DIR)"
    )
    return "\n".join([*lines, note])


# ---------------------------------------------------------------------------------------------------------
# HTML

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}th{background:#f4f4f4}
td.hi{background:#fde2e1}td.mid{background:#fff4d6}td.lo{background:#e6f4ea}
.examples td,.examples th{text-align:left}.ex{max-width:480px}
mark{background:#ffe066;padding:0 2px;border-radius:2px}
.muted{color:#777;font-size:12px}.fail{color:#b00020;font-weight:600}
"""
COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")


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


def _matrix(results: dict[str, Any], checklist: dict[str, Any] | None) -> str:
    models = list(results["models"])
    head = "<tr><th rowspan=2>capability</th><th rowspan=2>type</th>"
    head += (
        "".join(f"<th colspan={4 + bool(checklist)} title='{_e(m)}'>{_e(short_name(m))}</th>" for m in models)
        + "</tr><tr>"
    )
    head += "".join(
        "<th>seeds</th><th>derived</th><th>all</th><th>pass→fail</th>"
        + ("<th>CheckList</th>" if checklist else "")
        for _ in models
    )
    rows = [head + "</tr>"]
    for cap in _capabilities(results):
        about = describe(results, cap)
        title = f"<br><span class=muted>{_e(about)}</span>" if about else ""
        cells = [f"<td>{_e(_row_label(results, cap))}{title}</td>"]
        test_type = ""
        for name in models:
            c = results["models"][name]["capabilities"].get(cap)
            if c is None:
                cells.append("<td></td>" * (4 + bool(checklist)))
                continue
            test_type = c["test_type"]
            for tally in (c["seeds"], _derived(c)):
                cells.append(
                    f"<td class='{_shade(tally['failure_rate'])}'>{_pct(tally['failure_rate'])}"
                    f"<br><span class=muted>{tally['failures']}/{tally['applicable']}</span></td>"
                )
            cells.append(f"<td class='{_shade(c['failure_rate'])}'><b>{_pct(c['failure_rate'])}</b></td>")
            cells.append(f"<td>{c['transitions']['pass_to_fail']}</td>")
            if checklist:
                mapped = mapped_checklist(checklist, cap, name)
                cells.append(f"<td title='{_e(mapped[0])}'>{_pct(mapped[1])}</td>" if mapped else "<td></td>")
        cells.insert(1, f"<td>{_e(test_type)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table class=matrix>" + "".join(rows) + "</table>"


def _chart(results: dict[str, Any]) -> str:
    """Horizontal bars: one group per capability, one bar per model (headline failure rate)."""
    models = list(results["models"])
    caps = _capabilities(results)
    label_w, bar_w, bar_h, gap = 320, 520, 14, 10
    group_h = bar_h * len(models) + gap
    legend_h = 20 * len(models) + 10
    height = group_h * len(caps) + legend_h + 30
    width = label_w + bar_w + 70
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
        f"aria-label='failure rate per capability'>",
        "<style>text{font:12px system-ui,sans-serif;fill:#222}</style>",
    ]
    for i, name in enumerate(models):
        y = 10 + 20 * i
        parts.append(f"<rect x='{label_w}' y='{y}' width='12' height='12' fill='{COLORS[i % len(COLORS)]}'/>")
        parts.append(f"<text x='{label_w + 18}' y='{y + 10}'>{_e(short_name(name))}</text>")
    top = legend_h
    for frac in (0, 0.25, 0.5, 0.75, 1):
        x = label_w + frac * bar_w
        parts.append(f"<line x1='{x}' x2='{x}' y1='{top}' y2='{height - 20}' stroke='#ddd'/>")
        parts.append(f"<text x='{x - 10}' y='{height - 6}'>{int(frac * 100)}%</text>")
    for g, cap in enumerate(caps):
        y0 = top + g * group_h
        label = _row_label(results, cap)
        short = label if len(label) <= 48 else label[:46] + "…"
        parts.append(
            f"<text x='{label_w - 8}' y='{y0 + group_h / 2}' text-anchor='end'><title>{_e(label)}</title>"
            f"{_e(short)}</text>"
        )
        for i, name in enumerate(models):
            c = results["models"][name]["capabilities"].get(cap)
            rate = c["failure_rate"] if c else None
            y = y0 + i * bar_h
            w = (rate or 0) * bar_w
            parts.append(
                f"<rect x='{label_w}' y='{y}' width='{w:.1f}' height='{bar_h - 2}' "
                f"fill='{COLORS[i % len(COLORS)]}'><title>{_e(name)}: {_pct(rate)}</title></rect>"
            )
            parts.append(f"<text x='{label_w + w + 4:.1f}' y='{y + bar_h - 4}'>{_pct(rate)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def failing_examples(
    results_dir: Path, results: dict[str, Any], per_capability: int
) -> dict[Any, list[dict]]:
    """Up to ``per_capability`` failing cases per (model, capability), with their seeds, from the run's files.

    Streams predictions.jsonl (twice) and the suite's cases.jsonl (once); holds only the chosen examples.
    """
    predictions = results_dir / PREDICTIONS
    cases_path = Path(results["suite"]["dir"]) / CASES
    if not predictions.is_file() or not cases_path.is_file():
        log.warning("no failing examples: %s or %s is missing", predictions, cases_path)
        return {}
    chosen: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in read_jsonl(predictions):
        failed = row["outcome"] == FAIL or row.get("inv") == FAIL
        key = (row["model"], row["capability"])
        if failed and len(chosen[key]) < per_capability:
            chosen[key].append(row)
    wanted_seeds = {
        (row["model"], row["seed"]) for rows in chosen.values() for row in rows if row.get("seed")
    }
    seed_rows = {}
    for row in read_jsonl(predictions):
        if (row["model"], row["case"]) in wanted_seeds:
            seed_rows[(row["model"], row["case"])] = row
    wanted_cases = {row["case"] for rows in chosen.values() for row in rows} | {c for _, c in wanted_seeds}
    cases = {obj["id"]: obj for obj in read_jsonl(cases_path) if obj.get("id") in wanted_cases}
    for (model, _), rows in chosen.items():
        for row in rows:
            row["case_record"] = cases.get(row["case"], {})
            row["seed_row"] = seed_rows.get((model, row.get("seed")))
            row["seed_record"] = cases.get(row.get("seed"), {})
    return chosen


def _why(case: dict[str, Any]) -> str:
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
    return "expected " + (" or ".join(expected) if isinstance(expected, list) else str(expected))


def case_html(case: dict[str, Any], fields: list[str]) -> str:
    """A case's input for the page: one text (inserted words marked), or each field on its own line."""
    inserted = (case.get("provenance") or {}).get("inserted") or []
    if len(fields) == 1:
        return highlighted(str(case.get(fields[0], "")), inserted)
    return "<br>".join(f"<b>{_e(name)}:</b> {_e(case.get(name, ''))}" for name in fields)


def prediction_html(row: dict[str, Any] | None) -> str:
    """What the model answered: label and probabilities, an answer, or what went wrong."""
    if not row:
        return ""
    if "error" in row:
        return f"<span class=muted>no answer: {_e(row['error'])}</span>"
    if "reply" in row:
        return f"<span class=fail>unreadable reply</span><br><span class=muted>{_e(row['reply'])}</span>"
    if "answer" in row:
        return f"<span class=fail>{_e(row['answer'])}</span>"
    probs = " / ".join(f"{p:.2f}" for p in row.get("probs", ()))
    return f"<span class=fail>{_e(row.get('label'))}</span><br><span class=muted>{_e(probs)}</span>"


def _examples_html(results: dict[str, Any], chosen: dict[Any, list[dict]]) -> str:
    if not chosen:
        return "<p class=muted>No failing examples (or the run's files were not found).</p>"
    task = results.get("task") or {}
    fields = task.get("inputs", ["text"])
    labels = task.get("labels", ["negative", "neutral", "positive"])
    answered = "answer" if task.get("output") == "span" else f"predicted ({' / '.join(labels)})"
    out = []
    for cap in _capabilities(results):
        blocks = []
        for model in results["models"]:
            rows = chosen.get((model, cap))
            if not rows:
                continue
            trs = []
            for row in rows:
                case = row["case_record"]
                why = _why(case) if row["outcome"] == FAIL else "INV vs seed: " + _why({"test_type": "INV"})
                seed = row["seed_record"]
                seed_cell = (
                    f"{case_html(seed, fields)}<br><span class=muted>predicted</span> "
                    f"{prediction_html(row.get('seed_row'))}"
                    if seed and row.get("seed_row")
                    else "<span class=muted>(seed case)</span>"
                )
                trs.append(
                    f"<tr><td class=ex>{case_html(case, fields)}</td><td class=ex>{seed_cell}</td>"
                    f"<td>{prediction_html(row)}</td><td>{_e(why)}</td></tr>"
                )
            blocks.append(
                f"<h3>{_e(short_name(model))}</h3><table class=examples>"
                "<tr><th>case (inserted words marked)</th>"
                f"<th>original</th><th>{_e(answered)}</th><th>failed</th></tr>{''.join(trs)}</table>"
            )
        if blocks:
            out.append(f"<section><h2>{_e(_row_label(results, cap))}</h2>{''.join(blocks)}</section>")
    return "".join(out)


def write_html(
    results_dir: str | Path,
    html_path: str | Path,
    *,
    checklist_dir: str | Path | None = None,
    examples_per_capability: int = 5,
) -> Path:
    """One self-contained HTML file: the capability × model matrix, a failure-rate chart (inline SVG) and
    failing examples per capability next to their seeds, inserted words highlighted. All dataset text is
    HTML-escaped."""
    results_dir, html_path = Path(results_dir), Path(html_path)
    results = load_results(results_dir)
    checklist = load_results(checklist_dir) if checklist_dir else None
    suite = results.get("suite", {})
    env = results.get("environment", {})
    title = "autocheck report" + (" — CheckList suite" if is_checklist(results) else "")
    chosen = failing_examples(results_dir, results, examples_per_capability)
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<p class=muted>suite {_e(suite.get('dir', ''))}: {suite.get('cases', 0)} cases, "
        f"{suite.get('inputs', suite.get('texts', 0))} distinct inputs; task "
        f"{_e((results.get('task') or {}).get('task', 'sentiment'))}; "
        f"models: {_e(', '.join(results['models']))}; python {_e(env.get('python', ''))}</p>",
        "<h2>Failure rates</h2>",
        "<p class=muted>failures / applicable cases; 'derived' = expansions or perturbations; 'all' is the "
        f"CheckList test-case rate (seed groups for INV/DIR tests). {_e(_binary_note(results))}</p>",
        _matrix(results, checklist),
        "<h2>Chart</h2>",
        _chart(results),
        "<h2>Failing examples</h2>",
        _examples_html(results, chosen),
    ]
    page = (
        "<!DOCTYPE html><html lang=en><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
    atomic_write_text(html_path, page)
    return html_path
