"""The HTML report: one self-contained page (inline CSS, SVG and a small script; no external assets) that
reads without JavaScript. Every dataset text is HTML-escaped.

What it shows: each capability's name, group, description, test type and expectation from the suite's
manifest; a capability × model matrix of headline failure rates (with the mapped CheckList test beside
each LC when a CheckList run is given); every count the results hold per model (seeds, expansions,
perturbations, all cases, seed groups, errors, pass→fail and fail→pass, the seed-vs-expansion INV test);
two plots (failure rate with its 95% interval, seed vs expansion rates) as inline SVG, also written as PNG
files beside the page; and a table of the failing cases of every capability and model (up to
``max_failures`` each, with a note of how many there are), which the script filters (capability, model,
test type, kind, outcome, text) and sorts. Without JavaScript every row is shown and the filters are not.
"""

from __future__ import annotations

import html
import logging
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..expect import ERROR, FAIL
from ..run import CASES, PREDICTIONS
from ..store import atomic_write_text, read_jsonl
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

log = logging.getLogger(__name__)

DEFAULT_MAX_FAILURES = 100

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}th{background:#f4f4f4}
td.hi{background:#fde2e1}td.mid{background:#fff4d6}td.lo{background:#e6f4ea}
.examples td,.examples th,.spec td,.spec th{text-align:left}.ex{max-width:420px}
mark{background:#ffe066;padding:0 2px;border-radius:2px}
.muted{color:#777;font-size:12px}.fail{color:#b00020;font-weight:600}
[hidden]{display:none!important}
.filters{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:end;margin:8px 0;padding:8px;background:#f8f8f8}
.filters label{font-size:12px;display:flex;flex-direction:column}
th button{all:unset;cursor:pointer;font-weight:600}th button::after{content:" \\2195";color:#999}
th[aria-sort=ascending] button::after{content:" \\2191"}
th[aria-sort=descending] button::after{content:" \\2193"}
figure{margin:8px 0}figure svg{max-width:100%;height:auto}
"""

# Filters rows of each table named by a form.filters (data-table); sorts every table.sortable by a column.
# It only hides and reorders rows that the page already holds.
SCRIPT = """
(function () {
  function cellKey(row, i) {
    var cell = row.cells[i];
    var text = cell ? (cell.getAttribute('data-sort') || cell.textContent) : '';
    var num = parseFloat(text);
    return isNaN(num) || !/^\\s*-?[0-9.]/.test(text) ? text.toLowerCase() : num;
  }
  document.querySelectorAll('form.filters').forEach(function (form) {
    var table = document.getElementById(form.getAttribute('data-table'));
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var shown = form.querySelector('.shown');
    function apply() {
      var query = form.elements.q.value.trim().toLowerCase(), n = 0;
      var selects = form.querySelectorAll('select');
      rows.forEach(function (row) {
        var keep = !query || row.textContent.toLowerCase().indexOf(query) >= 0;
        selects.forEach(function (s) {
          if (s.value && row.getAttribute('data-' + s.name) !== s.value) keep = false;
        });
        row.hidden = !keep;
        n += keep ? 1 : 0;
      });
      shown.textContent = n + ' of ' + rows.length + ' rows shown';
    }
    form.addEventListener('input', apply);
    form.addEventListener('change', apply);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  });
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = th.textContent;
      th.textContent = '';
      th.appendChild(button);
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellKey(a, i), y = cellKey(b, i);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
"""


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
    for row in read_jsonl(predictions):
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
    return chosen, totals


def filter_form(table_id: str, selects: dict[str, list[str]], placeholder: str) -> str:
    """The filter controls of a table: hidden in the HTML, shown by the script (so a page without
    JavaScript shows no dead controls)."""
    parts = [f"<form class=filters data-table='{_e(table_id)}' hidden>"]
    for name, values in selects.items():
        options = "".join(f"<option value='{_e(v)}'>{_e(v)}</option>" for v in values)
        parts.append(
            f"<label>{_e(name)}<select name='{_e(name)}'><option value=''>(all)</option>{options}"
            "</select></label>"
        )
    parts.append(
        f"<label>text<input type=search name=q placeholder='{_e(placeholder)}' autocomplete=off></label>"
        "<span class='shown muted'></span></form>"
    )
    return "".join(parts)


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
                f"<td class=ex>{seed_cell}</td><td>{prediction_html(row)}</td>"
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
# Tables


def _spec_table(results: dict[str, Any]) -> str:
    rows = []
    for cap in capabilities(results):
        info = capability_info(results, cap)
        name = info["name"] if info["name"] != cap else ""
        rows.append(
            f"<tr><td id='cap-{_e(cap)}'><b>{_e(cap)}</b>{'<br>' + _e(name) if name else ''}</td>"
            f"<td>{_e(info['group'])}</td><td>{_e(info['description'])}</td><td>{_e(info['test_type'])}</td>"
            f"<td>{_e(info['expectation'])}</td></tr>"
        )
    return (
        "<table class='spec sortable'><thead><tr><th>capability</th><th>group</th><th>description</th>"
        f"<th>test type</th><th>expectation</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _ci_text(c: dict[str, Any]) -> str:
    pair = interval(c)
    return "" if pair is None else f"{100 * pair[0]:.1f}–{100 * pair[1]:.1f}%"


def _matrix(results: dict[str, Any], checklist: dict[str, Any] | None) -> str:
    models = list(results["models"])
    span = 4 + bool(checklist)
    head = "<thead><tr><th rowspan=2>capability</th><th rowspan=2>type</th>"
    head += (
        "".join(f"<th colspan={span} title='{_e(m)}'>{_e(short_name(m))}</th>" for m in models) + "</tr><tr>"
    )
    head += "".join(
        "<th>failure rate (95% CI)</th><th>failed / applicable</th><th>pass→fail</th><th>fail→pass</th>"
        + ("<th>CheckList</th>" if checklist else "")
        for _ in models
    )
    rows = [head + "</tr></thead><tbody>"]
    for cap in capabilities(results):
        info = capability_info(results, cap)
        about = " — ".join(x for x in (info["group"], info["description"]) if x)
        title = f"<br><span class=muted>{_e(about)}</span>" if about else ""
        cells = [f"<td>{_e(row_label(results, cap))}{title}</td>", f"<td>{_e(info['test_type'])}</td>"]
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
                f"<td>{transitions.get('pass_to_fail', 0)}</td><td>{transitions.get('fail_to_pass', 0)}</td>"
            )
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
    out = []
    head = (
        "<thead><tr><th>capability</th><th>type</th><th>seeds</th><th>expansions</th><th>perturbations</th>"
        "<th>all cases</th><th>seed groups</th><th>pass→fail</th><th>fail→pass</th><th>pass→pass</th>"
        "<th>fail→fail</th><th>INV seed vs expansion (groups)</th><th>INV pairs failed</th></tr></thead>"
    )
    for name, model in results["models"].items():
        rows = []
        for cap, c in model_capabilities(results, model):
            tr, inv = c.get("transitions", {}), c.get("inv") or {}
            inv_cell = (
                f"<td>{pct(inv.get('failure_rate'))}"
                f"<br><span class=muted>{inv['failures']}/{inv['groups']}</span></td>"
                if inv.get("groups")
                else "<td class=muted>–</td>"
            )
            rows.append(
                f"<tr><td>{_e(cap)}</td><td>{_e(c['test_type'])}</td>"
                + "".join(
                    _tally_cell(c.get(t)) for t in ("seeds", "expansions", "perturbations", "all", "groups")
                )
                + "".join(
                    f"<td>{tr.get(k, 0)}</td>"
                    for k in ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail")
                )
                + inv_cell
                + (
                    f"<td>{inv.get('pair_failures', 0)}/{inv.get('pairs', 0)}</td>"
                    if inv.get("pairs")
                    else "<td class=muted>–</td>"
                )
                + "</tr>"
            )
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


def page(title: str, body: list[str]) -> str:
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset='utf-8'>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(body)
        + f"\n<script>{SCRIPT}</script></body></html>\n"
    )


def write_html(
    results_dir: str | Path,
    html_path: str | Path,
    *,
    checklist_dir: str | Path | None = None,
    max_failures: int | None = DEFAULT_MAX_FAILURES,
    plots: bool = True,
) -> Path:
    """Write the report page to ``html_path`` (and, with ``plots``, its two PNG plots beside it:
    ``<name>-failure-rates.png``, ``<name>-seed-vs-expansion.png``). ``max_failures``: failing cases
    listed per capability and model (None or 0: all)."""
    results_dir, html_path = Path(results_dir), Path(html_path)
    results = load_results(results_dir)
    checklist = load_results(checklist_dir) if checklist_dir else None
    limit = max_failures or None
    suite = results.get("suite", {})
    env = results.get("environment", {})
    title = "autocheck report" + (" — CheckList suite" if is_checklist(results) else "")
    chosen, totals = collect_failures(results_dir, results, limit)
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<p class=muted>suite {_e(suite.get('dir', ''))}: {suite.get('cases', 0)} cases, "
        f"{suite.get('inputs', suite.get('texts', 0))} distinct inputs; task "
        f"{_e((results.get('task') or {}).get('task', 'sentiment'))}; "
        f"models: {_e(', '.join(results['models']))}; python {_e(env.get('python', ''))}</p>",
        "<noscript><p class=muted>JavaScript is off: every row is shown; filtering and sorting need it."
        "</p></noscript>",
        "<h2 id=capabilities>Capabilities</h2>",
        _spec_table(results),
        "<h2 id=rates>Failure rates</h2>",
        "<p class=muted>failures / applicable cases: every case for MFT tests, seed groups (a seed with its "
        "expansions or perturbations; fails when any member fails) for INV/DIR tests, with a 95% Wilson "
        "interval. pass→fail / fail→pass: a seed and its expansion, each judged by its own test. "
        f"{_e(binary_note(results))}</p>",
        _matrix(results, checklist),
    ]
    if plots:
        svgs = _plots(results, html_path)
        body += [
            "<h2 id=plots>Plots</h2>",
            f"<figure>{svgs['failure_rates']}<figcaption class=muted>Failure rate per capability and model, "
            "with its 95% Wilson interval.</figcaption></figure>",
            f"<figure>{svgs['seed_vs_expansion']}<figcaption class=muted>Seed cases (solid) vs their "
            "expansions or perturbations (hatched): failure rates side by side.</figcaption></figure>",
        ]
    body += [
        "<h2 id=counts>Counts</h2>",
        "<p class=muted>Each tally: failure rate, failures / applicable of all its cases; errors are cases "
        "without a prediction (not applicable).</p>",
        _counts_tables(results),
        "<h2 id=failures-heading>Failing cases</h2>",
        _failures_section(results, chosen, totals, limit),
    ]
    atomic_write_text(html_path, page(title, body))
    return html_path


def plot_files(html_path: str | Path) -> list[Path]:
    """The PNG files :func:`write_html` writes beside ``html_path``, for callers that refuse to replace."""
    from .plots import png_path

    return [png_path(Path(html_path).with_suffix(""), key) for key in ("failure_rates", "seed_vs_expansion")]


def _plots(results: dict[str, Any], html_path: Path) -> dict[str, str]:
    from .plots import render

    return render(results, html_path.with_suffix(""))
