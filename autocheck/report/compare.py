"""Compare two runs of the same suite (two models, or one model before and after retraining or an
upgrade): per capability and model, the change in failure rate with a 95% interval, and the cases whose
outcome flipped pass→fail or fail→pass.

Models are matched by name; when each run holds exactly one model, those two are compared whatever their
names. Cases are matched by id. Two runs of different suites (other suite fingerprint or directory) are
compared on the case ids they share, and refused when they share none.

Rates are recomputed from both runs' ``predictions.jsonl`` over the shared cases, the way ``run`` counts
them (every case for MFT capabilities, seed groups for INV/DIR ones), so for two runs of one suite they
equal the runs' own. The interval of the change (B − A) is Newcombe's hybrid score interval (method 10,
from two Wilson intervals) for a difference of independent proportions; the cases of two runs of one
suite are paired, which usually makes it wider than a paired interval would be (it errs on the cautious
side). Flips compare each case's own outcome (an expansion's INV-with-its-seed outcome is not a flip).
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..expect import ERROR, FAIL, NA, PASS
from ..explain import compare_features
from ..run import CASES, PREDICTIONS, natural_key
from ..store import InputError, atomic_write_text, read_jsonl
from .summary import load_results, manifest, newcombe, pct, short_name, wilson

INTERVAL = "Newcombe hybrid score (method 10), difference of independent proportions, 95%"
PASS_TO_FAIL, FAIL_TO_PASS = "pass→fail", "fail→pass"


@dataclass(frozen=True, slots=True)
class _Outcome:
    capability: str
    kind: str
    group: str  # the seed's id, or the case's own for a seed
    outcome: str
    said: str  # what the model answered, for the page


def _said(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"no answer: {row['error']}"
    if "reply" in row:
        return f"unreadable reply: {row['reply']}"
    if "answer" in row:
        return str(row["answer"])
    probs = " / ".join(f"{p:.2f}" for p in row.get("probs", ()))
    return f"{row.get('label')} ({probs})" if probs else str(row.get("label", ""))


def read_outcomes(run_dir: Path) -> dict[str, dict[str, _Outcome]]:
    """model → case id → outcome, from a run's predictions.jsonl."""
    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise InputError(f"{path}: predictions not found (written by 'autocheck run')")
    out: dict[str, dict[str, _Outcome]] = defaultdict(dict)
    for n, row in enumerate(read_jsonl(path), 1):
        try:
            out[row["model"]][row["case"]] = _Outcome(
                row["capability"],
                row.get("kind", ""),
                row.get("seed") or row["case"],
                row["outcome"],
                _said(row),
            )
        except KeyError as e:
            raise InputError(f"{path}:{n}: field {e.args[0]!r} missing; not a prediction") from None
    return out


def match_models(a: dict[str, Any], b: dict[str, Any], dir_a: Path, dir_b: Path) -> list[tuple[str, str]]:
    """Pairs of (model in A, model in B): same names, or the single model of each run."""
    names_a, names_b = list(a["models"]), list(b["models"])
    common = [name for name in names_a if name in b["models"]]
    if common:
        return [(name, name) for name in common]
    if len(names_a) == 1 and len(names_b) == 1:
        return [(names_a[0], names_b[0])]
    raise InputError(
        f"{dir_a} and {dir_b}: no model in common by name ({', '.join(names_a)} vs {', '.join(names_b)}); "
        "compare runs of the same models, or runs of one model each"
    )


def _same_suite(a: dict[str, Any], b: dict[str, Any]) -> bool:
    fa, fb = manifest(a).get("fingerprint"), manifest(b).get("fingerprint")
    if fa and fb:
        return fa == fb
    return (a.get("suite") or {}).get("dir") == (b.get("suite") or {}).get("dir")


def _headline(outcomes: dict[str, _Outcome], ids: list[str], test_type: str) -> tuple[int, int]:
    """(failures, applicable) as ``run`` counts them: cases for MFT, seed groups for INV/DIR."""
    if test_type == "MFT":
        seen = [outcomes[i].outcome for i in ids]
        return seen.count(FAIL), sum(o in (PASS, FAIL) for o in seen)
    groups: dict[str, set[str]] = defaultdict(set)
    for i in ids:
        groups[outcomes[i].group].add(outcomes[i].outcome)
    verdicts = [FAIL if FAIL in g else PASS if PASS in g else NA for g in groups.values()]
    return verdicts.count(FAIL), sum(v != NA for v in verdicts)


def _tally(failures: int, applicable: int) -> dict[str, Any]:
    return {
        "failures": failures,
        "applicable": applicable,
        "failure_rate": round(failures / applicable, 6) if applicable else None,
    }


def _round(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [round(pair[0], 6), round(pair[1], 6)]


def compare_runs(dir_a: str | Path, dir_b: str | Path) -> dict[str, Any]:
    """The comparison of run B against run A (see the module's docstring)."""
    dir_a, dir_b = Path(dir_a), Path(dir_b)
    a, b = load_results(dir_a), load_results(dir_b)
    pairs = match_models(a, b, dir_a, dir_b)
    outcomes_a, outcomes_b = read_outcomes(dir_a), read_outcomes(dir_b)
    ids_a = set().union(*(set(m) for m in outcomes_a.values())) if outcomes_a else set()
    ids_b = set().union(*(set(m) for m in outcomes_b.values())) if outcomes_b else set()
    shared = ids_a & ids_b
    if not shared:
        raise InputError(
            f"{dir_a} and {dir_b}: runs of different suites with no case id in common; compare two runs of "
            "the same suite (cases are matched by id)"
        )
    out: dict[str, Any] = {
        "a": str(dir_a),
        "b": str(dir_b),
        "same_suite": _same_suite(a, b),
        "cases": {"shared": len(shared), "only_a": len(ids_a - shared), "only_b": len(ids_b - shared)},
        "interval": INTERVAL,
        "suite_dirs": [(r.get("suite") or {}).get("dir") for r in (a, b)],
        "task": (b.get("task") or {}).get("inputs", ["text"]),
        "pairs": [],
    }
    for name_a, name_b in pairs:
        oa, ob = outcomes_a.get(name_a, {}), outcomes_b.get(name_b, {})
        by_cap: dict[str, list[str]] = defaultdict(list)
        for case in sorted(set(oa) & set(ob)):
            by_cap[oa[case].capability].append(case)
        caps, flips = {}, []
        for cap in sorted(by_cap, key=natural_key):
            ids = by_cap[cap]
            row = a["models"][name_a]["capabilities"].get(cap) or b["models"][name_b]["capabilities"].get(cap)
            test_type = row["test_type"] if row else "MFT"
            ta, tb = _headline(oa, ids, test_type), _headline(ob, ids, test_type)
            moves = Counter((oa[i].outcome, ob[i].outcome) for i in ids)
            change = None
            if ta[1] and tb[1]:
                change = round(tb[0] / tb[1] - ta[0] / ta[1], 6)
            caps[cap] = {
                "test_type": test_type,
                "a": _tally(*ta) | {"interval": _round(wilson(*ta))},
                "b": _tally(*tb) | {"interval": _round(wilson(*tb))},
                "change": change,
                "interval": _round(newcombe(ta, tb)),
                "pass_to_fail": moves[(PASS, FAIL)],
                "fail_to_pass": moves[(FAIL, PASS)],
                "to_error": sum(n for (x, y), n in moves.items() if y == ERROR and x != ERROR),
                "from_error": sum(n for (x, y), n in moves.items() if x == ERROR and y != ERROR),
            }
            for i in ids:
                pair = (oa[i].outcome, ob[i].outcome)
                if pair in ((PASS, FAIL), (FAIL, PASS)):
                    flips.append(
                        {
                            "case": i,
                            "capability": cap,
                            "kind": oa[i].kind,
                            "flip": PASS_TO_FAIL if pair[0] == PASS else FAIL_TO_PASS,
                            "a": oa[i].said,
                            "b": ob[i].said,
                        }
                    )
        out["pairs"].append({"model_a": name_a, "model_b": name_b, "capabilities": caps, "flips": flips})
    out["features"] = compare_features(dir_a, dir_b, pairs)  # which features' failures changed
    return out


# ---------------------------------------------------------------------------------------------------------
# Terminal


def _signed(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:+.1f}"


def format_comparison(result: dict[str, Any], width: int = 100) -> str:
    """One block per model pair: rates in A and B, the change in points with its interval, flips."""
    from .summary import _fit

    lines = [
        _fit(f"A: {result['a']}", width),
        _fit(f"B: {result['b']}", width),
    ]
    cases = result["cases"]
    if not result["same_suite"]:
        lines.append(
            f"different suites: compared on {cases['shared']} shared case ids "
            f"({cases['only_a']} only in A, {cases['only_b']} only in B)"
        )
    header = ["capability", "type", "A", "B", "change", "95% CI (points)", "p→f", "f→p"]
    for pair in result["pairs"]:
        rows = []
        for cap, c in pair["capabilities"].items():
            ci = c["interval"]
            mark = " *" if ci and (ci[0] > 0 or ci[1] < 0) else ""
            rows.append(
                [
                    cap,
                    c["test_type"],
                    pct(c["a"]["failure_rate"]),
                    pct(c["b"]["failure_rate"]),
                    _signed(c["change"]) + mark,
                    "" if ci is None else f"{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}",
                    str(c["pass_to_fail"]),
                    str(c["fail_to_pass"]),
                ]
            )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        widths[0] = max(10, min(widths[0], width - sum(widths[1:]) - 2 * (len(header) - 1)))
        title = f"{short_name(pair['model_a'])} (A) → {short_name(pair['model_b'])} (B)"
        lines += ["", _fit(title, width), "-" * min(width, sum(widths) + 2 * (len(header) - 1))]
        for r in [header, *rows]:
            cells = [_fit(r[0], widths[0]).ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        flips = Counter(f["flip"] for f in pair["flips"])
        lines.append(f"flipped cases: {flips[PASS_TO_FAIL]} pass→fail, {flips[FAIL_TO_PASS]} fail→pass")
    lines += [
        "",
        "change: B − A in percentage points (* the interval excludes 0); interval: Newcombe hybrid score",
        "(independent proportions, 95%); p→f / f→p: cases whose own outcome flipped.",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# HTML


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _case_texts(result: dict[str, Any], wanted: set[str]) -> dict[str, dict[str, Any]]:
    for suite_dir in reversed(result["suite_dirs"]):
        path = Path(suite_dir or "") / CASES
        if suite_dir and path.is_file():
            return {obj["id"]: obj for obj in read_jsonl(path) if obj.get("id") in wanted}
    return {}


def write_comparison_html(result: dict[str, Any], path: str | Path, *, max_cases: int | None = 200) -> Path:
    """The comparison as one self-contained page: the change table per model pair and the flipped cases
    (up to ``max_cases`` per capability, pair and direction; None or 0: all), filtered and sorted by the
    report's inline script; readable without it."""
    from .html import case_html, filter_form, page

    limit = max_cases or None
    shown: list[tuple[int, dict[str, Any]]] = []
    counts: Counter = Counter()
    notes = []
    for p, pair in enumerate(result["pairs"]):
        for flip in pair["flips"]:
            key = (p, flip["capability"], flip["flip"])
            counts[key] += 1
            if limit is None or counts[key] <= limit:
                shown.append((p, flip))
        for (q, cap, direction), n in sorted(counts.items()):
            if q == p and limit is not None and n > limit:
                notes.append(f"{cap} {direction} ({short_name(pair['model_b'])}): showing {limit} of {n}")
    texts = _case_texts(result, {flip["case"] for _, flip in shown})
    fields = result["task"]
    body = [
        "<h1>autocheck: comparison of two runs</h1>",
        f"<p class=muted>A: {_e(result['a'])}<br>B: {_e(result['b'])}</p>",
    ]
    cases = result["cases"]
    if not result["same_suite"]:
        body.append(
            f"<p><b>Different suites</b>: compared on the {cases['shared']:,} case ids they share "
            f"({cases['only_a']:,} only in A, {cases['only_b']:,} only in B).</p>"
        )
    body.append(
        f"<p class=muted>change = B − A in percentage points, with its 95% interval ({_e(INTERVAL)}); "
        "bold where the interval excludes 0. Rates over the shared cases: every case for MFT, seed groups "
        "for INV/DIR.</p>"
    )
    for pair in result["pairs"]:
        rows = []
        for cap, c in pair["capabilities"].items():
            ci = c["interval"]
            strong = ci is not None and (ci[0] > 0 or ci[1] < 0)
            change = _signed(c["change"])
            rows.append(
                f"<tr><td>{_e(cap)}</td><td>{_e(c['test_type'])}</td>"
                f"<td data-sort='{c['a']['failure_rate'] or 0}'>{pct(c['a']['failure_rate'])}"
                f"<br><span class=muted>{c['a']['failures']}/{c['a']['applicable']}</span></td>"
                f"<td data-sort='{c['b']['failure_rate'] or 0}'>{pct(c['b']['failure_rate'])}"
                f"<br><span class=muted>{c['b']['failures']}/{c['b']['applicable']}</span></td>"
                f"<td data-sort='{c['change'] or 0}'>{f'<b>{change}</b>' if strong else change}</td>"
                f"<td>{'' if ci is None else f'{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}'}</td>"
                f"<td>{c['pass_to_fail']}</td><td>{c['fail_to_pass']}</td>"
                f"<td>{c['to_error']}/{c['from_error']}</td></tr>"
            )
        body.append(
            f"<h2>{_e(short_name(pair['model_a']))} (A) → {_e(short_name(pair['model_b']))} (B)</h2>"
            "<table class='changes sortable'><thead><tr><th>capability</th><th>type</th><th>A</th><th>B</th>"
            "<th>change (points)</th><th>95% interval</th><th>pass→fail</th><th>fail→pass</th>"
            "<th>to / from error</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
    flip_rows = []
    for p, flip in shown:
        pair = result["pairs"][p]
        label = f"{short_name(pair['model_a'])} → {short_name(pair['model_b'])}"
        case = texts.get(flip["case"], {})
        flip_rows.append(
            f"<tr data-capability='{_e(flip['capability'])}' data-flip='{_e(flip['flip'])}' "
            f"data-kind='{_e(flip['kind'])}' data-models='{_e(label)}'><td>{_e(flip['capability'])}</td>"
            f"<td>{_e(label)}</td><td>{_e(flip['kind'])}</td><td>{_e(flip['flip'])}</td>"
            f"<td class=ex>{case_html(case, fields) if case else ''}</td><td>{_e(flip['a'])}</td>"
            f"<td>{_e(flip['b'])}</td><td class=muted>{_e(flip['case'])}</td></tr>"
        )
    selects = {
        "capability": sorted({f["capability"] for _, f in shown}, key=natural_key),
        "flip": [PASS_TO_FAIL, FAIL_TO_PASS],
        "kind": sorted({f["kind"] for _, f in shown}),
        "models": list(
            dict.fromkeys(f"{short_name(p['model_a'])} → {short_name(p['model_b'])}" for p in result["pairs"])
        ),
    }
    body += [
        "<h2 id=flips>Flipped cases</h2>",
        f"<p class=muted>{sum(counts.values()):,} cases flipped; {len(shown):,} listed.</p>",
        "<ul class=muted>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>" if notes else "",
        filter_form("flipped", selects, "words in a case, an id, a label…"),
        "<table id=flipped class='examples sortable'><thead><tr><th>capability</th><th>models</th>"
        "<th>kind</th><th>flip</th><th>case</th><th>A said</th><th>B said</th><th>case id</th></tr></thead>"
        f"<tbody>{''.join(flip_rows)}</tbody></table>",
    ]
    atomic_write_text(path, page("autocheck comparison", body))
    return Path(path)
