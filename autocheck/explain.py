"""Why a capability fails: the case features that predict failure, and the smallest failing edits.

Every case carries how it was made (``TestCase.provenance``); each of its *features* is one fact of that:

- ``{slot}=value`` for each template slot, and ``{slot}.attr=value`` for each attribute the slot's shipped
  lexicon gives that value (``{first_name}.gender=female``, ``{city}.country=China``); ``template=id``;
- ``inserted=word``, ``inserted tag=TAG`` and ``site=before 'word'`` (the word it went before) for each
  word a grammar expansion (or ``fuzz``) inserted, and ``production=LHS: from → to`` for the production
  it used;
- ``perturbation=name``, and for each edit ``edited=word`` (what it changed) and ``edit=from → to``;
- ``seed=id`` (the seed group: a seed with its expansions or perturbations), ``label=L``, ``kind=K`` and
  ``length=...`` (words over all input fields, in buckets).

``explain_run`` counts, per model and capability, over the applicable cases (a case's own outcome: pass or
fail; errors are counted apart, never as passes), how many cases with each feature fail and how many
without do. A feature held by fewer than ``MIN_SUPPORT`` cases, or by every case, is not tried. Each tried
feature gets Fisher's exact test (one-sided: cases with it fail more often) and the p-values of a
capability are corrected together by Benjamini–Hochberg (``q``); ``significant`` means q < ``ALPHA``.
Significant features come first, each group ranked by the lower end of the 95% Newcombe interval of (rate
with − rate without), so a large gap seen on few cases does not outrank a clear one seen on many.

``minimal_edits`` asks the model again: for a failing expansion (whose seed passes) or perturbation that
made several changes, the smallest subset of the changes that still fails, tried smallest first. Its model
calls are counted and capped; it reads the run's files and never changes them.

``feature_changes`` compares two runs of the same suite: the features whose failure rate moved between
them, with a two-sided Fisher test and the same correction (``autocheck compare``).
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .expect import ERROR, FAIL, PASS, case_outcome
from .languages.lexicons import load_lexicon, shipped_lexicons
from .outputs import kind_of
from .results import load_results, natural_key
from .run import PREDICTIONS, read_predictions
from .stats import benjamini_hochberg, fisher_greater, fisher_two_sided, newcombe, wilson
from .store import InputError
from .suite import CASES, iter_cases
from .tasks import Task

log = logging.getLogger(__name__)

ALPHA = 0.05  # the corrected (BH) level at which a feature is called significant
MIN_SUPPORT = 2  # a feature held by one case cannot be told from that case
TOP = 5  # explanations kept per capability and model
GENERIC = frozenset({"kind", "length", "label", "seed"})  # features that do not say how a case was made
LENGTHS = ((5, "1–5 words"), (10, "6–10 words"), (20, "11–20 words"), (40, "21–40 words"))
_WORD = re.compile(r"[^\W_][\w'-]*")
MINIMAL_EDITS = "minimal-edits.json"  # written into a run directory by ``autocheck explain --minimal-edits``


# ---------------------------------------------------------------------------------------------------------
# Features of a case


def _length(case: dict[str, Any], fields: list[str]) -> str:
    words = sum(len(str(case.get(f, "")).split()) for f in fields)
    return next((name for limit, name in LENGTHS if words <= limit), f"over {LENGTHS[-1][0]} words")


@dataclass
class _Attributes:
    """Attributes of lexicon values, from the shipped lexicons (loaded once each)."""

    tables: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def of(self, slot: str, value: str) -> dict[str, Any]:
        base = re.sub(r"\d+$", "", slot.split(":")[-1].split(".")[0])
        if base not in self.tables:
            entries = load_lexicon(base) if base in shipped_lexicons() else ()
            self.tables[base] = {e.value: dict(e.attrs) for e in entries if e.attrs}
        return self.tables[base].get(value, {})


def case_features(case: dict[str, Any], fields: list[str], attributes: _Attributes | None = None) -> set[str]:
    """The features of one case record (as in cases.jsonl); see the module's docs."""
    prov = case.get("provenance") or {}
    attributes = attributes or _Attributes()
    out = {f"kind={case.get('kind')}", f"length={_length(case, fields)}"}
    label = case.get("label")
    if isinstance(label, str) and label:
        out.add(f"label={label}")
    out.add(f"seed={case.get('seed_id') or case.get('id')}")
    if prov.get("template"):
        out.add(f"template={prov['template']}")
    for slot, value in (prov.get("slots") or {}).items():
        out.add(f"{{{slot}}}={value}")
        for attr, attr_value in attributes.of(slot, str(value)).items():
            if isinstance(attr_value, str):  # a category (gender, country), not a number (population)
                out.add(f"{{{slot}}}.{attr}={attr_value}")
    text = str(case.get(fields[0], "")) if fields else ""
    for item in prov.get("inserted") or ():
        word = str(item.get("word"))
        out.add(f"inserted={word}")
        out.add(f"inserted tag={item.get('tag')}")
        following = _WORD.search(text, int(item.get("offset", 0)) + len(word))  # the word it went before
        out.add(f"site=before {following.group().lower()!r}" if following else "site=at the end")
    production = prov.get("production")
    if isinstance(production, dict):
        out.add(
            f"production={production.get('lhs')}: {' '.join(production.get('from') or ())} → "
            f"{' '.join(production.get('to') or ())}"
        )
    change = prov.get("perturbation")
    if isinstance(change, dict):
        out.add(f"perturbation={change.get('perturbation')}")
        for edit in change.get("edits") or ():
            if str(edit.get("from", "")).strip():
                out.add(f"edited={edit.get('from')}")
            out.add(f"edit={edit.get('from')!r} → {edit.get('to')!r}")  # quoted: an edit may add spaces
    return out


def feature_kind(feature: str) -> str:
    """The kind of a feature: 'slot', 'attribute', 'inserted', 'perturbation', 'seed', ... ."""
    name = feature.split("=", 1)[0]
    if name.startswith("{"):
        return "attribute" if "}." in name else "slot"
    return name


# ---------------------------------------------------------------------------------------------------------
# Counting over a run


@dataclass
class _Counts:
    """Per (model, capability): applicable cases, failures, errors, and per feature [cases, failures]."""

    cases: int = 0
    failures: int = 0
    errors: int = 0
    features: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    def add(self, features: Iterable[str], failed: bool) -> None:
        self.cases += 1
        self.failures += failed
        for f in features:
            tally = self.features[f]
            tally[0] += 1
            tally[1] += failed


def _run_files(run_dir: Path, results: dict[str, Any]) -> tuple[Path, Path]:
    predictions = run_dir / PREDICTIONS
    cases = Path((results.get("suite") or {}).get("dir", "")) / CASES
    for path, what in (
        (predictions, "predictions (written by 'autocheck run')"),
        (cases, "the suite's cases"),
    ):
        if not path.is_file():
            raise InputError(f"{path}: {what} not found; explanations need the run's files")
    return predictions, cases


def aligned_rows(predictions: Path, cases: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(prediction row, its case record) in the order of the rows. ``run`` writes each case's rows (one
    per model) in the order of cases.jsonl, so both files are streamed once; cases read ahead of their
    rows (another writer's order) are held until their rows come."""
    case_iter = (case.to_json() for case in iter_cases(cases))
    case: dict[str, Any] = {}
    ahead: dict[Any, dict[str, Any]] = {}  # by case id as the file has it (a row may lack one: None)
    for row in read_predictions(predictions):
        wanted = row.get("case")
        if case.get("id") != wanted:
            case = ahead.pop(wanted, {})
        while case.get("id") != wanted:
            following = next(case_iter, None)
            if following is None:
                raise InputError(
                    f"{predictions}: case {wanted!r} is not in {cases}; the suite changed after the run"
                )
            if following.get("id") == wanted:
                case = following
            else:
                ahead[following.get("id")] = following
        yield row, case


def count_run(run_dir: Path, results: dict[str, Any]) -> dict[tuple[str, str], _Counts]:
    predictions, cases = _run_files(run_dir, results)
    fields = (results.get("task") or {}).get("inputs", ["text"])
    attributes = _Attributes()
    counts: dict[tuple[str, str], _Counts] = defaultdict(_Counts)
    last_id, features = None, set()
    for row, case in aligned_rows(predictions, cases):
        if case["id"] != last_id:
            last_id, features = case["id"], case_features(case, fields, attributes)
        tally = counts[(row["model"], row["capability"])]
        if row.get("outcome") == ERROR:
            tally.errors += 1
        elif row.get("outcome") in (PASS, FAIL):
            tally.add(features, row["outcome"] == FAIL)
    return counts


def _tested(p: float, q: float) -> dict[str, Any]:
    """A feature's test as explanations and comparisons report it: p, the corrected q, significance."""
    return {"p": float(f"{p:.4g}"), "q": float(f"{q:.4g}"), "significant": q < ALPHA}


def _rate(failures: int, n: int) -> dict[str, Any]:
    pair = wilson(failures, n)
    return {
        "failures": failures,
        "cases": n,
        "failure_rate": round(failures / n, 6) if n else None,
        "interval": None if pair is None else [round(pair[0], 6), round(pair[1], 6)],
    }


def explain_counts(counts: _Counts, top: int | None = TOP) -> dict[str, Any]:
    """The ranked explanations of one capability and model (see the module's docs)."""
    n, failures = counts.cases, counts.failures
    tried = sorted(f for f, (k, _) in counts.features.items() if MIN_SUPPORT <= k < n)
    rows = []
    for f in tried:
        k, a = counts.features[f]
        b, c = k - a, failures - a
        d = n - k - c
        rows.append((f, k, a, fisher_greater(a, b, c, d)))
    qs = benjamini_hochberg([r[3] for r in rows])
    ranked: list[dict[str, Any]] = []
    for (f, k, a, p), q in zip(rows, qs):
        with_, without = (a, k), (failures - a, n - k)
        gap = newcombe(without, with_)
        difference = a / k - without[0] / without[1]
        if difference <= 0 or gap is None:
            continue
        ranked.append(
            {
                "feature": f,
                "kind": feature_kind(f),
                "with": _rate(*with_),
                "without": _rate(*without),
                "difference": round(difference, 6),
                "difference_interval": [round(gap[0], 6), round(gap[1], 6)],
                **_tested(p, q),
            }
        )
    ranked.sort(
        key=lambda e: (
            not e["significant"],
            -e["difference_interval"][0],
            e["q"],
            e["kind"] in GENERIC,  # of features on the same cases, the one that says how they were made
            -e["with"]["cases"],
            e["feature"],
        )
    )
    return {
        "cases": n,
        "failures": failures,
        "errors": counts.errors,
        "features_tried": len(tried),
        "significant": sum(e["significant"] for e in ranked),
        "explanations": ranked[:top] if top else ranked,
    }


def explain_run(
    run_dir: str | Path, results: dict[str, Any] | None = None, *, top: int | None = TOP
) -> dict[str, dict[str, dict[str, Any]]]:
    """model → capability → explanations (``explain_counts``) of a run directory, capabilities in the
    report's order. The Python API of ``autocheck explain``."""

    run_dir = Path(run_dir)
    results = results or load_results(run_dir)
    counts = count_run(run_dir, results)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for model, own in results["models"].items():
        caps = sorted(own["capabilities"], key=natural_key)
        out[model] = {cap: explain_counts(counts.get((model, cap)) or _Counts(), top) for cap in caps}
    return out


def add_explanations(summary: dict[str, Any], run_dir: str | Path, results: dict[str, Any]) -> dict[str, Any]:
    """``summary`` (``report --json``) with each capability's explanations under ``explain``; a run whose
    suite files are gone keeps its summary, with a warning."""
    try:
        explained = explain_run(run_dir, results)
    except InputError as e:
        log.warning("no explanations: %s", e)
        return summary
    for model, caps in explained.items():
        for cap, explanation in caps.items():
            row = summary["models"].get(model, {}).get("capabilities", {}).get(cap)
            if row is not None:
                row["explain"] = explanation
    return summary


def strongest(explained: dict[str, Any]) -> dict[str, Any] | None:
    """The first significant explanation of a capability, if any."""
    return next((e for e in explained.get("explanations", ()) if e["significant"]), None)


def sentence(cap: str, e: dict[str, Any]) -> str:
    """One line: 'LC4: fails 94% (47/50) when {profession}=nurse, 12% (6/50) otherwise (q = 0.0001)'."""
    w, o = e["with"], e["without"]
    return (
        f"{cap}: fails {100 * w['failure_rate']:.0f}% ({w['failures']}/{w['cases']}) when {e['feature']}, "
        f"{100 * o['failure_rate']:.0f}% ({o['failures']}/{o['cases']}) otherwise (q = {e['q']:.2g})"
    )


def format_explanations(explained: dict[str, dict[str, dict[str, Any]]], *, width: int = 100) -> str:
    """The terminal form of ``explain_run``: per model, each capability with failures and its features."""
    lines = []
    for model, caps in explained.items():
        lines += [f"{model}", "-" * min(width, max(10, len(model)))]
        for cap, e in caps.items():
            head = (
                f"{cap}: {e['failures']}/{e['cases']} applicable cases fail"
                + (f", {e['errors']} errors" if e["errors"] else "")
                + f"; {e['features_tried']} features tried, {e['significant']} significant (BH q < {ALPHA})"
            )
            lines.append(head)
            for x in e["explanations"]:
                w, o = x["with"], x["without"]
                mark = "*" if x["significant"] else " "
                lines.append(
                    f"  {mark} {x['feature']}: {100 * w['failure_rate']:.0f}% ({w['failures']}/{w['cases']}) "
                    f"vs {100 * o['failure_rate']:.0f}% ({o['failures']}/{o['cases']}) without; "
                    f"p = {x['p']:.2g}, q = {x['q']:.2g}"
                )
        lines.append("")
    lines.append(
        "Each line: failure rate of the applicable cases with the feature vs without it; p: one-sided "
        "Fisher's exact test; q: Benjamini–Hochberg over the features tried; *: q < 0.05."
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# Comparing two runs


def feature_changes(
    dir_a: str | Path, dir_b: str | Path, pairs: list[tuple[str, str]], *, top: int | None = TOP
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """For each model pair (``compare.match_models``): capability → the features whose failure rate moved
    from run A to run B, largest significant change first; each with both tallies, the change, its
    Newcombe interval and a two-sided Fisher test corrected by Benjamini–Hochberg per capability."""

    dir_a, dir_b = Path(dir_a), Path(dir_b)
    counts_a = count_run(dir_a, load_results(dir_a))
    counts_b = count_run(dir_b, load_results(dir_b))
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name_a, name_b in pairs:
        caps = {cap for model, cap in counts_a if model == name_a} & {
            cap for model, cap in counts_b if model == name_b
        }
        by_cap = {}
        for cap in sorted(caps, key=natural_key):
            fa, fb = counts_a[(name_a, cap)].features, counts_b[(name_b, cap)].features
            tried = sorted(f for f in set(fa) & set(fb) if min(fa[f][0], fb[f][0]) >= MIN_SUPPORT)
            rows = []
            for f in tried:
                (na, xa), (nb, xb) = fa[f], fb[f]
                rows.append((f, (xa, na), (xb, nb), fisher_two_sided(xa, na - xa, xb, nb - xb)))
            qs = benjamini_hochberg([r[3] for r in rows])
            changes: list[dict[str, Any]] = []
            for (f, ta, tb, p), q in zip(rows, qs):
                change = tb[0] / tb[1] - ta[0] / ta[1]
                gap = newcombe(ta, tb)
                if change == 0 or gap is None:
                    continue
                changes.append(
                    {
                        "feature": f,
                        "kind": feature_kind(f),
                        "a": _rate(*ta),
                        "b": _rate(*tb),
                        "change": round(change, 6),
                        "interval": [round(gap[0], 6), round(gap[1], 6)],
                        **_tested(p, q),
                    }
                )
            changes.sort(key=lambda c: (not c["significant"], -abs(c["change"]), c["q"], c["feature"]))
            by_cap[cap] = changes[:top] if top else changes
        out[name_b if name_a == name_b else f"{name_a} → {name_b}"] = by_cap
    return out


def compare_features(dir_a: str | Path, dir_b: str | Path, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """``feature_changes`` for ``autocheck compare``; {} with a warning when a run's suite files are gone."""
    try:
        return feature_changes(dir_a, dir_b, pairs)
    except InputError as e:
        log.warning("no feature changes: %s", e)
        return {}


# ---------------------------------------------------------------------------------------------------------
# Minimal failing edits


@dataclass(frozen=True)
class _Candidate:
    case: dict[str, Any]
    seed: dict[str, Any]
    seed_row: dict[str, Any]
    parts: tuple[dict[str, Any], ...]  # inserted words, or edits


def _without_insertions(text: str, inserted: list[dict[str, Any]], keep: set[int]) -> str | None:
    """``text`` with every inserted word not in ``keep`` (indices) removed, with the space it brought."""
    for i in sorted(range(len(inserted)), key=lambda i: -int(inserted[i]["offset"])):
        if i in keep:
            continue
        word, at = str(inserted[i]["word"]), int(inserted[i]["offset"])
        if text[at : at + len(word)] != word:
            return None
        if text[at + len(word) : at + len(word) + 1] == " ":
            text = text[:at] + text[at + len(word) + 1 :]
        elif at > 0 and text[at - 1] == " ":
            text = text[: at - 1] + text[at + len(word) :]
        else:
            text = text[:at] + text[at + len(word) :]
    return text


def _with_edits(inputs: dict[str, str], edits: Iterable[dict[str, Any]]) -> dict[str, str] | None:
    """The original's input fields with ``edits`` (offsets into the original) applied."""
    out = dict(inputs)
    for e in sorted(edits, key=lambda e: (str(e["field"]), -int(e["start"]))):
        text = out.get(e["field"])
        if text is None or text[e["start"] : e["end"]] != e.get("from"):
            return None
        out[e["field"]] = text[: e["start"]] + str(e["to"]) + text[e["end"] :]
    return out


def _subset_inputs(c: _Candidate, keep: tuple[int, ...], fields: list[str]) -> dict[str, str] | None:
    if c.case.get("kind") == "expansion":
        name = fields[0]
        text = _without_insertions(str(c.case.get(name, "")), list(c.parts), set(keep))
        return None if text is None else {name: text}
    return _with_edits({f: str(c.seed.get(f, "")) for f in fields}, (c.parts[i] for i in keep))


def _candidates(run_dir: Path, results: dict[str, Any], model: str) -> list[_Candidate]:
    """Failing expansions with several inserted words whose seed did not fail, and failing perturbations
    with several edits, in file order."""
    predictions, cases = _run_files(run_dir, results)
    rows = {}
    for row, case in aligned_rows(predictions, cases):
        if row["model"] == model:
            rows[case["id"]] = (row, case) if case.get("kind") == "seed" or row["outcome"] == FAIL else None
    out = []
    for row_case in rows.values():
        if row_case is None or row_case[1].get("kind") == "seed":
            continue
        row, case = row_case
        seed_row, seed = rows.get(row.get("seed")) or ({}, {})
        prov = case.get("provenance") or {}
        if case["kind"] == "expansion":
            parts = tuple(prov.get("inserted") or ())
            if seed_row.get("outcome") == FAIL:
                continue
        else:
            parts = tuple((prov.get("perturbation") or {}).get("edits") or ())
        if len(parts) >= 2 and seed:
            out.append(_Candidate(case, seed, seed_row, parts))
    return out


def minimal_edits(run_dir: str | Path, model: Any, *, max_calls: int, max_parts: int = 6) -> dict[str, Any]:
    """For each failing expansion or perturbation of ``model`` (a loaded ``models.Model`` whose name is a
    model of the run, or the run's only model) made of several changes: the smallest subset of them that
    still fails, found by asking the model about subsets, smallest first (all singletons of every case,
    then pairs, ...). At most ``max_calls`` inputs are sent in all (cached answers count too), a case with
    more than ``max_parts`` changes is left out; the order is the file's, so the result is deterministic.
    The run's failure rates are not touched: this reads the run and returns a new record. An inserted word
    is taken out with the space it brought; a capital that the insertion lowered (``lowered``) stays
    lowered, so the subset is the expansion's own text minus words."""
    run_dir = Path(run_dir)
    results = load_results(run_dir)
    names = list(results["models"])
    name = model.name if model.name in names else names[0] if len(names) == 1 else None
    if name is None:
        raise InputError(f"--model {model.name}: not a model of {run_dir} ({', '.join(names)})")
    task = Task.from_spec(results["task"]) if results.get("task") else model.task
    fields = list(task.inputs)
    pending = [c for c in _candidates(run_dir, results, name) if len(c.parts) <= max_parts]
    over_budget: set[str] = set()
    found: dict[str, dict[str, Any]] = {}
    calls = 0
    for size in range(1, max_parts):
        batch: list[tuple[_Candidate, tuple[int, ...], dict[str, str]]] = []
        for c in pending:
            if c.case["id"] in found or c.case["id"] in over_budget or size >= len(c.parts):
                continue
            subsets = []
            for keep in itertools.combinations(range(len(c.parts)), size):
                inputs = _subset_inputs(c, keep, fields)
                if inputs is not None:
                    subsets.append((c, keep, inputs))
            if calls + len(batch) + len(subsets) > max_calls:
                over_budget.add(c.case["id"])
                continue
            batch += subsets
        if not batch:
            continue
        outputs = model.predict([tuple(i[f] for f in fields) for _, _, i in batch])
        calls += len(batch)
        probs, labels = model.read(outputs)
        for j, (c, keep, inputs) in enumerate(batch):
            if c.case["id"] in found or j in outputs.errors or j in outputs.invalid or labels[j] is None:
                continue
            seed_probs, seed_label = kind_of(task).from_result(c.seed_row)
            outcome = case_outcome(
                task, c.case["test_type"], c.case.get("expected"), probs[j], labels[j], seed_probs, seed_label
            )
            if outcome == FAIL:
                found[c.case["id"]] = {
                    "case": c.case["id"],
                    "capability": c.case["capability"],
                    "kind": c.case["kind"],
                    "seed": c.seed.get("id"),
                    "changes": len(c.parts),
                    "minimal": [c.parts[i] for i in keep],
                    "inputs": inputs,
                    "label": labels[j],
                }
    return {
        "model": name,
        "max_calls": max_calls,
        "calls": calls,
        "candidates": len(pending),
        "found": len(found),
        "not_smaller": len(pending) - len(found) - len(over_budget),
        "left_by_budget": len(over_budget),
        "edits": sorted(found.values(), key=lambda e: (natural_key(e["capability"]), e["case"])),
    }
