"""Compare two runs of the same suite (two models, or one model before and after retraining or an
upgrade): per capability and model, the change in failure rate, whether it is significant, and the cases
whose outcome flipped pass→fail or fail→pass; and a regression gate for continuous integration.

Models are matched by name; when each run holds exactly one model, those two are compared whatever their
names. Cases are matched by id. Two runs of different suites (other suite fingerprint or directory) are
compared on the case ids they share, and refused when they share none.

Each run's rate is recomputed from its ``predictions.jsonl`` over the shared cases, the way ``run``
counts them (every case for MFT capabilities, seed groups for INV/DIR ones), so for two runs of one suite
they equal the runs' own. Both runs scored the same cases, so the change is judged on *paired* units: the
cases (MFT) or seed groups (INV/DIR) that both runs scored (pass or fail in both; an error or a
not-applicable unit in either run is left out of the pair and counted apart). On those:

- ``change`` = B's failure rate − A's over the paired units (the difference of the runs' own rates when
  neither has errors);
- its 95% interval is Newcombe's hybrid score interval for paired proportions (his 1998 method 10: two
  Wilson intervals combined with the phi correlation of the 2×2 table, a positive one shrunk by n/2).
  Unlike Wald it stays inside [−1, 1] and keeps its coverage with few discordant pairs and rates near 0
  or 1, which is where behavioural tests live;
- significance is McNemar's exact test: under "no change" each discordant unit (pass→fail or fail→pass)
  is either way with probability 1/2, so the two-sided p-value is the exact binomial tail of the smaller
  count, doubled (capped at 1). Concordant units carry no information about the change.

The gate (``regressions``): a capability regressed when its change is more than ``points`` percentage
points *and* McNemar's p is below ``alpha`` (default 0.05): a large rise on three cases is noise, and a
significant rise of 0.1 points on a million cases is not worth blocking a merge. A gated capability also
fails when B has no prediction for a case A answered (an error is never a pass, and a failure could hide
behind it). No correction for testing many capabilities is applied (each is its own claim); lower
``alpha`` to make false alarms rarer.
Flips compare each case's own outcome (an expansion's INV-with-its-seed outcome is not a flip).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..expect import ERROR, FAIL, PASS
from ..explain import compare_features
from ..markdown import md_code, md_text
from ..outputs.entities import listed
from ..results import group_outcome, natural_key, untested
from ..run import PREDICTIONS, read_predictions
from ..stats import Z95, wilson
from ..store import InputError, atomic_write_text
from ..suite import CASES, iter_cases
from .html import case_html
from .summary import capability_info, fit, load_results, manifest, pct, short_name
from .templates import asset, render

INTERVAL = "Newcombe hybrid score (method 10) for paired proportions, 95%"
TEST = "McNemar's exact test (two-sided) on the discordant pairs"
PASS_TO_FAIL, FAIL_TO_PASS = "pass→fail", "fail→pass"
ALPHA = 0.05


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
    if "entities" in row:
        return listed(row["entities"])
    probs = " / ".join(f"{p:.2f}" for p in row.get("probs", ()))
    return f"{row.get('label')} ({probs})" if probs else str(row.get("label", ""))


def read_outcomes(run_dir: Path) -> dict[str, dict[str, _Outcome]]:
    """model → case id → outcome, from a run's predictions.jsonl."""
    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise InputError(f"{path}: predictions not found (written by 'autocheck run')")
    out: dict[str, dict[str, _Outcome]] = defaultdict(dict)
    for row in read_predictions(path):
        out[row["model"]][row["case"]] = _Outcome(
            row["capability"], row.get("kind", ""), row.get("seed") or row["case"], row["outcome"], _said(row)
        )
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


def _units(outcomes: dict[str, _Outcome], ids: list[str], test_type: str) -> dict[str, str]:
    """The units ``run`` counts a capability's rate over, with their verdicts: each case (MFT) or each
    seed group (INV/DIR, by ``results.group_outcome``, the rule ``run`` tallies with)."""
    if test_type == "MFT":
        return {i: outcomes[i].outcome for i in ids}
    groups: dict[str, set[str]] = defaultdict(set)
    for i in ids:
        groups[outcomes[i].group].add(outcomes[i].outcome)
    return {g: group_outcome(seen) for g, seen in groups.items()}


def _headline(units: dict[str, str]) -> tuple[int, int]:
    """(failures, applicable) over a capability's units."""
    verdicts = list(units.values())
    return verdicts.count(FAIL), sum(v in (PASS, FAIL) for v in verdicts)


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> float:
    """Two-sided p-value of McNemar's exact test: the binomial(n, 1/2) tail of the smaller discordant
    count, doubled and capped at 1 (1.0 when nothing flipped)."""
    n, k = pass_to_fail + fail_to_pass, min(pass_to_fail, fail_to_pass)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)  # exact integers: no underflow for large n


def paired_interval(
    both: int, a_only: int, b_only: int, neither: int, z: float = Z95
) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (1998, method 10) of p_B − p_A for paired binary outcomes:
    ``both`` failed in A and B, ``a_only`` failed in A only, ``b_only`` in B only, ``neither`` passed in
    both. None when there are no pairs."""
    n = both + a_only + b_only + neither
    if n == 0:
        return None
    pa, pb = (both + a_only) / n, (both + b_only) / n
    la, ua = wilson(both + a_only, n, z)  # type: ignore[misc]
    lb, ub = wilson(both + b_only, n, z)  # type: ignore[misc]
    margins = (both + a_only) * (b_only + neither) * (both + b_only) * (a_only + neither)
    # Newcombe's estimate of the pairs' correlation: a positive cross product is shrunk by n/2 (to 0 at
    # most), a negative one kept, so the interval errs towards the independent (wider) one
    cross = both * neither - a_only * b_only
    shrunk = max(cross - n / 2, 0.0) if cross > 0 else cross
    phi = shrunk / math.sqrt(margins) if margins else 0.0
    d = pb - pa
    low = d - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    high = d + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    return max(-1.0, low), min(1.0, high)


def _paired(units_a: dict[str, str], units_b: dict[str, str], unit: str) -> dict[str, Any]:
    """The 2×2 table of the units both runs scored, the change, its interval and McNemar's p."""
    moves = Counter((units_a[u], units_b[u]) for u in units_a if u in units_b)
    both, a_only = moves[(FAIL, FAIL)], moves[(FAIL, PASS)]
    b_only, neither = moves[(PASS, FAIL)], moves[(PASS, PASS)]
    n = both + a_only + b_only + neither
    return {
        "unit": unit,
        "units": n,
        "unpaired": len(units_a.keys() | units_b.keys()) - n,  # an error or not applicable in a run
        "fail_both": both,
        "pass_to_fail": b_only,
        "fail_to_pass": a_only,
        "pass_both": neither,
        "change": round((b_only - a_only) / n, 6) if n else None,
        "interval": _round(paired_interval(both, a_only, b_only, neither)),
        "p_value": mcnemar_exact(b_only, a_only),
    }


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
        "test": TEST,
        "suite_dirs": [(r.get("suite") or {}).get("dir") for r in (a, b)],
        "task": (b.get("task") or {}).get("inputs", ["text"]),
        # a model that tested nothing in either run is an error of the comparison (ci.verdict's rule)
        "untested": [
            f"{run_dir}: {name}: {why}"
            for run_dir, run, names in ((dir_a, a, [p[0] for p in pairs]), (dir_b, b, [p[1] for p in pairs]))
            for name in names
            if (why := untested(run, name))
        ],
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
            units_a, units_b = _units(oa, ids, test_type), _units(ob, ids, test_type)
            ta, tb = _headline(units_a), _headline(units_b)
            moves = Counter((oa[i].outcome, ob[i].outcome) for i in ids)
            paired = _paired(units_a, units_b, "case" if test_type == "MFT" else "seed group")
            caps[cap] = {
                "test_type": test_type,
                "a": _tally(*ta) | {"interval": _round(wilson(*ta))},
                "b": _tally(*tb) | {"interval": _round(wilson(*tb))},
                "change": paired["change"],
                "interval": paired["interval"],
                "p_value": paired["p_value"],
                "paired": paired,
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
        flips.sort(
            key=lambda f: (f["flip"] != PASS_TO_FAIL, natural_key(f["capability"]), natural_key(f["case"]))
        )
        out["pairs"].append({"model_a": name_a, "model_b": name_b, "capabilities": caps, "flips": flips})
    out["names"] = {
        cap: capability_info(b, cap)["group"] or capability_info(a, cap)["group"] for cap in _caps(out)
    }
    out["features"] = compare_features(dir_a, dir_b, pairs)  # which features' failures changed
    return out


def _caps(result: dict[str, Any]) -> list[str]:
    return sorted({cap for pair in result["pairs"] for cap in pair["capabilities"]}, key=natural_key)


# ---------------------------------------------------------------------------------------------------------
# The regression gate

EVERY = "*"


def parse_regression_rules(values: list[str]) -> dict[str, float]:
    """``["5", "LC4=2"]`` → ``{"*": 5.0, "LC4": 2.0}`` (percentage points; ``*``: every capability)."""
    out: dict[str, float] = {}
    for value in values:
        capability, _, points = value.rpartition("=")
        try:
            number = float(points)
        except ValueError:
            number = -1.0
        if not 0 <= number <= 100:
            raise InputError(
                f"--fail-on-regression {value!r}: expected POINTS or CAPABILITY=POINTS, POINTS in 0..100 "
                "(percentage points of failure rate)"
            )
        out[capability or EVERY] = number
    return out


def regressions(
    result: dict[str, Any], rules: dict[str, float], alpha: float = ALPHA
) -> list[dict[str, Any]]:
    """The capabilities (per model pair) that regressed: failure rate up by more than the rule's points
    (the capability's own, else the ``*`` one; a capability under neither is not gated) and McNemar's
    p below ``alpha``; or cases that B left without a prediction where A had one (``errors``: an error
    is never a pass, and failures could hide behind it). A capability named in a rule that the
    comparison does not hold is an error (a typo must not pass the gate)."""
    if not 0 < alpha < 1:
        raise InputError(f"--alpha {alpha}: expected a significance level between 0 and 1, e.g. 0.05")
    unknown = sorted(set(rules) - {EVERY} - set(_caps(result)), key=natural_key)
    if unknown:
        raise InputError(
            f"--fail-on-regression {unknown[0]}={rules[unknown[0]]:g}: no capability {unknown[0]!r} in the "
            f"compared runs ({', '.join(_caps(result))})"
        )
    found = []
    for pair in result["pairs"]:
        for cap, c in pair["capabilities"].items():
            points = rules.get(cap, rules.get(EVERY))
            if points is None:
                continue
            item = {
                "model_a": pair["model_a"],
                "model_b": pair["model_b"],
                "capability": cap,
                "points": points,
            }
            if c["to_error"]:
                found.append(item | {"errors": c["to_error"]})
            if c["change"] is not None and 100 * c["change"] > points and c["p_value"] < alpha:
                found.append(item)
    return found


def regression_line(result: dict[str, Any], found: dict[str, Any], alpha: float = ALPHA) -> str:
    """One line for a regression: model, capability, rates, change, p-value and the rule it broke."""
    pair = next(
        p for p in result["pairs"] if (p["model_a"], p["model_b"]) == (found["model_a"], found["model_b"])
    )
    c = pair["capabilities"][found["capability"]]
    if "errors" in found:
        return (
            f"{short_name(found['model_b'])}: {found['capability']}: {found['errors']} case"
            f"{'s' * (found['errors'] != 1)} with an answer in the base run have no prediction in the new "
            "one (an error is never a pass)"
        )
    paired = c["paired"]
    return (
        f"{short_name(found['model_b'])}: {found['capability']} failure rate {pct(c['a']['failure_rate'])} → "
        f"{pct(c['b']['failure_rate'])} ({_signed(c['change'])} points over {paired['units']} paired "
        f"{paired['unit']}s, {paired['pass_to_fail']} pass→fail vs {paired['fail_to_pass']} fail→pass, "
        f"McNemar {_p_is(c['p_value'])}); allowed: +{found['points']:g} points at p < {alpha:g}"
    )


def _p_is(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {_p(p)}"


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.3f}" if p < 1 else "1"


# ---------------------------------------------------------------------------------------------------------
# Terminal


def _signed(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:+.1f}"


def _significant(c: dict[str, Any], alpha: float = ALPHA) -> bool:
    return c["change"] is not None and c["p_value"] < alpha


def format_comparison(result: dict[str, Any], width: int = 100, alpha: float = ALPHA) -> str:
    """One block per model pair: rates in A and B, the paired change in points with its interval and
    McNemar's p, flips."""
    lines = [
        fit(f"A: {result['a']}", width),
        fit(f"B: {result['b']}", width),
    ]
    cases = result["cases"]
    if not result["same_suite"]:
        lines.append(
            f"different suites: compared on {cases['shared']} shared case ids "
            f"({cases['only_a']} only in A, {cases['only_b']} only in B)"
        )
    header = ["capability", "type", "A", "B", "change", "95% CI (points)", "p", "p→f", "f→p"]
    for pair in result["pairs"]:
        rows = []
        for cap, c in pair["capabilities"].items():
            ci = c["interval"]
            rows.append(
                [
                    cap,
                    c["test_type"],
                    pct(c["a"]["failure_rate"]),
                    pct(c["b"]["failure_rate"]),
                    _signed(c["change"]) + (" *" if _significant(c, alpha) else ""),
                    "" if ci is None else f"{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}",
                    _p(c["p_value"]),
                    str(c["pass_to_fail"]),
                    str(c["fail_to_pass"]),
                ]
            )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        widths[0] = max(10, min(widths[0], width - sum(widths[1:]) - 2 * (len(header) - 1)))
        title = f"{short_name(pair['model_a'])} (A) → {short_name(pair['model_b'])} (B)"
        lines += ["", fit(title, width), "-" * min(width, sum(widths) + 2 * (len(header) - 1))]
        for r in [header, *rows]:
            cells = [fit(r[0], widths[0]).ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
            lines.append("  ".join(cells).rstrip())
        flips = Counter(f["flip"] for f in pair["flips"])
        lines.append(f"flipped cases: {flips[PASS_TO_FAIL]} pass→fail, {flips[FAIL_TO_PASS]} fail→pass")
        errors = sum(c["to_error"] for c in pair["capabilities"].values())
        if errors:
            lines.append(
                f"{errors} cases answered in A have no prediction in B (errors, left out of the pairs)"
            )
    lines += [
        "",
        f"change: B − A in percentage points over the units both runs scored (* McNemar p < {alpha:g});",
        "95% CI: Newcombe hybrid score for paired proportions; p: McNemar's exact test; p→f / f→p:",
        "cases whose own outcome flipped.",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# Markdown


def gate_verdict(
    result: dict[str, Any],
    rules: dict[str, float],
    alpha: float = ALPHA,
    found: list[dict[str, Any]] | None = None,
) -> tuple[str, str, list[str]]:
    """The gate's verdict, what a comparison leads with (the Markdown and the page alike): a title, its
    detail and one line per regression; with no rules, the capabilities whose failure rate rose
    significantly, ungated."""
    if not rules:
        rose = [
            f"{short_name(pair['model_b'])}: {cap} {_signed(c['change'])} points ({_p_is(c['p_value'])})"
            for pair in result["pairs"]
            for cap, c in pair["capabilities"].items()
            if _significant(c, alpha) and (c["change"] or 0) > 0
        ]
        return (
            "No regression gate",
            f"--fail-on-regression; {len(rose)} significant rise(s) at p < {alpha:g}",
            rose,
        )
    found = regressions(result, rules, alpha) if found is None else found
    if found:
        lines = [regression_line(result, f, alpha) for f in found]
        return "Regression gate: failed", f"{len(found)} regression{'s' * (len(found) != 1)}", lines
    allowed = ", ".join(f"{'every capability' if k == EVERY else k} +{v:g}" for k, v in rules.items())
    return "Regression gate: passed", f"allowed rise in points: {allowed}; at p < {alpha:g}", []


def _input_text(case: dict[str, Any], fields: list[str]) -> str:
    if len(fields) == 1:
        return str(case.get(fields[0], ""))
    return " / ".join(f"{name}: {case.get(name, '')}" for name in fields)


def comparison_markdown(
    result: dict[str, Any],
    *,
    rules: dict[str, float] | None = None,
    alpha: float = ALPHA,
    max_flips: int = 10,
) -> str:
    """The comparison as a pull-request comment: the gate's verdict, per model pair a table of
    capabilities (name, base vs new with counts, change, interval, p, flips), then the pass→fail flips
    (regressed capabilities first, biggest rise first; up to ``max_flips``, each with its input and both
    answers), then up to half as many fail→pass flips."""
    rules = rules or {}
    found = regressions(result, rules, alpha) if rules else []
    names = result.get("names", {})
    lines = ["### autocheck: comparison of two runs", ""]
    lines.append(f"base: `{md_code(result['a'])}`  \nnew: `{md_code(result['b'])}`")
    lines.append("")
    if result.get("untested"):
        lines.append("**Nothing tested: failed**")
        lines += [f"- {md_text(line)}" for line in result["untested"]]
        lines.append("")
    if rules:
        title, detail, items = gate_verdict(result, rules, alpha, found)
        lines += [f"**{title}** ({detail})", *(f"- {md_text(item)}" for item in items)]
        lines.append("")
    cases = result["cases"]
    if not result["same_suite"]:
        lines += [
            f"Different suites: compared on the {cases['shared']:,} case ids they share "
            f"({cases['only_a']:,} only in base, {cases['only_b']:,} only in new).",
            "",
        ]
    wanted = {f["case"] for pair in result["pairs"] for f in pair["flips"]}
    texts = _case_texts(result, wanted)
    fields = list(result["task"])
    gated = {(f["model_a"], f["model_b"], f["capability"]) for f in found}
    for pair in result["pairs"]:
        key = (pair["model_a"], pair["model_b"])
        lines += [
            f"#### `{md_code(short_name(key[0]))}` (base) → `{md_code(short_name(key[1]))}` (new)",
            "",
            "| capability | type | base | new | change (points) | 95% CI | McNemar p | pass→fail "
            "| fail→pass |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for cap, c in pair["capabilities"].items():
            ci = c["interval"]
            change = _signed(c["change"])
            if _significant(c, alpha):
                change = f"**{change}**"
            if (*key, cap) in gated:
                change += " ❌"
            name = f"{cap} {names.get(cap, '')}".strip()
            lines.append(
                f"| {md_text(name)} | {c['test_type']} "
                f"| {pct(c['a']['failure_rate'])} ({c['a']['failures']}/{c['a']['applicable']}) "
                f"| {pct(c['b']['failure_rate'])} ({c['b']['failures']}/{c['b']['applicable']})"
                f"{f'; {n} new errors' if (n := c['to_error']) else ''} "
                f"| {change} | {'' if ci is None else f'{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}'} "
                f"| {_p(c['p_value'])} | {c['pass_to_fail']} | {c['fail_to_pass']} |"
            )
        rise = {cap: c["change"] or 0.0 for cap, c in pair["capabilities"].items()}
        strong = {cap for cap, c in pair["capabilities"].items() if _significant(c, alpha)}
        for direction, limit in ((PASS_TO_FAIL, max_flips), (FAIL_TO_PASS, max(1, max_flips // 2))):
            flips = [f for f in pair["flips"] if f["flip"] == direction]
            if not flips:
                continue
            if direction == PASS_TO_FAIL:  # regressed, then significant capabilities; biggest rise first
                flips.sort(
                    key=lambda f: (
                        (*key, f["capability"]) not in gated,
                        f["capability"] not in strong,
                        -rise[f["capability"]],
                    )
                )
            shown = flips[:limit]
            more = f" (first {len(shown)} of {len(flips)})" if len(flips) > len(shown) else ""
            lines += [
                "",
                f"{direction} flips{more}:",
                "",
                "| capability | input | base said | new said |",
                "|---|---|---|---|",
            ]
            for f in shown:
                case = texts.get(f["case"])
                text = _input_text(case, fields) if case else f["case"]
                lines.append(
                    "| "
                    + " | ".join(md_text(cell) for cell in (f["capability"], text, f["a"], f["b"]))
                    + " |"
                )
        lines.append("")
    lines.append(
        f"Change: new − base over the cases (MFT) or seed groups (INV/DIR) both runs scored; bold: McNemar's "
        f"exact p < {alpha:g}; 95% CI: Newcombe's hybrid score interval for paired proportions."
    )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------------
# HTML


def _case_texts(result: dict[str, Any], wanted: set[str]) -> dict[str, dict[str, Any]]:
    for suite_dir in reversed(result["suite_dirs"]):
        path = Path(suite_dir or "") / CASES
        if suite_dir and path.is_file():
            return {c.id: c.to_json() for c in iter_cases(path) if c.id in wanted}
    return {}


def write_comparison_html(
    result: dict[str, Any],
    path: str | Path,
    *,
    max_cases: int | None = 200,
    rules: dict[str, float] | None = None,
    alpha: float = ALPHA,
) -> Path:
    """The comparison as one self-contained page: first the gate's verdict (``gate_verdict``), then the
    change table per model pair and the flipped cases (up to ``max_cases`` per capability, pair and
    direction; None or 0: all), filtered and sorted by the report's inline script; readable without it."""
    limit = max_cases or None
    shown: list[tuple[int, dict[str, Any]]] = []
    counts: Counter = Counter()
    for direction in (PASS_TO_FAIL, FAIL_TO_PASS):  # what got worse is listed first, for every pair
        for p, pair in enumerate(result["pairs"]):
            for flip in pair["flips"]:
                if flip["flip"] != direction:
                    continue
                key = (p, flip["capability"], direction)
                counts[key] += 1
                if limit is None or counts[key] <= limit:
                    shown.append((p, flip))
    notes = [
        f"{cap} {direction} ({short_name(result['pairs'][p]['model_b'])}): showing {limit} of {n}"
        for (p, cap, direction), n in counts.items()
        if limit is not None and n > limit
    ]
    texts = _case_texts(result, {flip["case"] for _, flip in shown})
    fields = result["task"]
    title, detail, items = gate_verdict(result, rules or {}, alpha)
    models = [f"{short_name(p['model_a'])} → {short_name(p['model_b'])}" for p in result["pairs"]]
    flips = [
        {
            **flip,
            "models": models[p],
            "case_html": case_html(texts[flip["case"]], fields) if flip["case"] in texts else "",
        }
        for p, flip in shown
    ]
    text = render(
        "compare.html.j2",
        title="autocheck comparison",
        script=asset("page.js"),
        a=result["a"],
        b=result["b"],
        untested=result.get("untested") or [],
        verdict={
            "title": title,
            "detail": detail,
            "lines": items,
            "passed": title == "Regression gate: passed" or not (rules or items),
        },
        different=None if result["same_suite"] else result["cases"],
        interval=INTERVAL,
        test=TEST,
        alpha=f"{alpha:g}",
        pairs=[
            {
                "a": short_name(pair["model_a"]),
                "b": short_name(pair["model_b"]),
                "rows": [_change_row(cap, c, alpha) for cap, c in pair["capabilities"].items()],
            }
            for pair in result["pairs"]
        ],
        flipped=sum(counts.values()),
        flips=flips,
        notes=notes,
        selects={
            "capability": sorted({f["capability"] for _, f in shown}, key=natural_key),
            "flip": [PASS_TO_FAIL, FAIL_TO_PASS],
            "kind": sorted({f["kind"] for _, f in shown}),
            "models": list(dict.fromkeys(models)),
        },
    )
    atomic_write_text(path, text)
    return Path(path)


def _change_row(cap: str, c: dict[str, Any], alpha: float) -> dict[str, Any]:
    """One capability's row of a pair's change table, its cells as text; the change in bold when
    significant at ``alpha`` (the page's, as the Markdown's, where it was always 0.05 before)."""
    ci = c["interval"]
    return {
        "capability": cap,
        "test_type": c["test_type"],
        **{
            side: {
                "sort": c[side]["failure_rate"] or 0,
                "rate": pct(c[side]["failure_rate"]),
                "counts": f"{c[side]['failures']}/{c[side]['applicable']}",
            }
            for side in ("a", "b")
        },
        "change": _signed(c["change"]),
        "change_sort": c["change"] or 0,
        "significant": _significant(c, alpha),
        "interval": "" if ci is None else f"{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f}",
        "p": _p(c["p_value"]),
        "p_sort": c["p_value"],
        "pass_to_fail": c["pass_to_fail"],
        "fail_to_pass": c["fail_to_pass"],
        "errors": f"{c['to_error']}/{c['from_error']}",
    }
