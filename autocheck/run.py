"""Run a suite against models: expectations, per-case outcomes, failure rates, seed→expansion transitions.

Expectations (CheckList semantics; probabilities are the (negative, neutral, positive) reading of
``models.sentiment_probs``):

- MFT: the predicted label equals the expected label, or is one of a tuple of allowed labels.
- INV (an expansion compared with its seed): fails when the predicted label changes AND the probability of
  the seed's predicted class moves by more than ``INV_THRESHOLD`` (0.1), as CheckList's
  ``Expect.inv(0.1)``. The seed itself is not applicable.
- DIR ``{"label", "direction", "tolerance"}`` (an expansion compared with its seed), CheckList's
  ``Expect.monotonic``: for ``up`` the probability of ``label`` must not go down by more than ``tolerance``,
  for ``down`` it must not go up by more than it. Not applicable when the test cannot fail because the seed
  is already at the limit: for ``up`` the seed's probability is <= tolerance (it cannot drop by more), for
  ``down`` it is >= 1 - tolerance. ``label: null`` means the seed's predicted label (CheckList's
  ``label=None``), and then a neutral seed prediction is not applicable (CheckList sliced those out with
  ``pred != neutral``).

Every expansion of an MFT or INV suite also forms an INV test with its seed (inserted words are
sentiment-neutral): its ``inv`` outcome. Transitions (pass→fail, ...) count (seed, expansion) pairs where
both are MFT-applicable, one per expansion, as the paper does.

Failure rate = failures / applicable, per test case. A "group" is a seed with its expansions, CheckList's
test case for INV/DIR tests (fails when any applicable member fails), so the headline ``failure_rate`` of a
capability is ``all`` for MFT capabilities and ``groups`` for INV/DIR ones.
"""

from __future__ import annotations

import json
import logging
import re
from array import array
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from .models import SENTIMENT, FilePredictions, Model, sentiment_probs
from .records import EXPANSION, SEED, TestCase
from .store import InputError, JsonlWriter, atomic_write_json, environment, load_json

log = logging.getLogger(__name__)

INV_THRESHOLD = 0.1
PASS, FAIL, NA = "pass", "fail", "n/a"
TRANSITIONS = ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail")
CASES, MANIFEST = "cases.jsonl", "manifest.json"
PREDICTIONS, RESULTS = "predictions.jsonl", "results.json"
PREDICT_CHUNK = 4096  # texts per predict_proba call: bounds memory and cache transactions


# ---------------------------------------------------------------------------------------------------------
# Expectations on hand-made or real predictions


def mft_outcome(expected: str | tuple[str, ...], label: str) -> str:
    allowed = expected if isinstance(expected, tuple) else (expected,)
    return PASS if label in allowed else FAIL


def inv_outcome(orig_probs: np.ndarray, orig_label: str, probs: np.ndarray, label: str) -> str:
    if label == orig_label:
        return PASS
    k = SENTIMENT.index(orig_label)
    return FAIL if abs(probs[k] - orig_probs[k]) > INV_THRESHOLD else PASS


def dir_outcome(expected: dict[str, Any], orig_probs: np.ndarray, orig_label: str, probs: np.ndarray) -> str:
    label = expected.get("label") or orig_label
    if expected.get("label") is None and orig_label == SENTIMENT[1]:
        return NA
    k = SENTIMENT.index(label)
    tolerance = float(expected.get("tolerance", 0.0))
    before, change = orig_probs[k], probs[k] - orig_probs[k]
    if expected["direction"] == "up":
        if before <= tolerance:
            return NA
        return PASS if change + tolerance >= 0 else FAIL
    if before >= 1 - tolerance:
        return NA
    return PASS if change - tolerance <= 0 else FAIL


def case_outcome(
    case: TestCase, probs: np.ndarray, label: str, seed_probs: np.ndarray | None, seed_label: str | None
) -> str:
    """A case's outcome under its own expectation (INV/DIR compare with the seed's prediction)."""
    if case.test_type == "MFT":
        return mft_outcome(case.expected, label)
    if seed_probs is None or seed_label is None:
        return NA  # the original of an INV/DIR test is not a test by itself
    if case.test_type == "INV":
        return inv_outcome(seed_probs, seed_label, probs, label)
    return dir_outcome(case.expected, seed_probs, seed_label, probs)


# ---------------------------------------------------------------------------------------------------------
# Reading the suite


def _validate(case: TestCase, where: str) -> None:
    if case.kind not in (SEED, EXPANSION):
        raise InputError(f"{where}: field 'kind' must be 'seed' or 'expansion', got {case.kind!r}")
    if case.kind == EXPANSION and not case.seed_id:
        raise InputError(f"{where}: expansion {case.id} has no 'seed_id'")
    e = case.expected
    if case.test_type == "MFT":
        labels = e if isinstance(e, tuple) else (e,)
        if not labels or any(x not in SENTIMENT for x in labels):
            raise InputError(f"{where}: MFT field 'expected' must be one or more of {SENTIMENT}, got {e!r}")
    elif case.test_type == "INV":
        if e is not None:
            raise InputError(f"{where}: INV field 'expected' must be null, got {e!r}")
    elif case.test_type == "DIR":
        ok = isinstance(e, dict) and e.get("direction") in ("up", "down")
        if not ok or e.get("label") not in (*SENTIMENT, None):
            raise InputError(
                f"{where}: DIR field 'expected' must be {{'label', 'direction': 'up'|'down', 'tolerance'}}, "
                f"got {e!r}"
            )
    else:
        raise InputError(f"{where}: field 'test_type' must be MFT, INV or DIR, got {case.test_type!r}")


def iter_cases(path: Path) -> Iterator[TestCase]:
    """Stream a suite's cases, validated; a malformed line is an error naming file and line."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                case = TestCase.from_json(json.loads(line))
            except json.JSONDecodeError as e:
                raise InputError(f"{where}: not valid JSON ({e.msg})") from None
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                raise InputError(f"{where}: not a test case ({type(e).__name__}: {e})") from None
            _validate(case, where)
            yield case


@dataclass
class _SuiteIndex:
    """What the second pass needs: distinct texts, each case's text, and the seeds (small)."""

    texts: list[str] = field(default_factory=list)
    text_index: dict[str, int] = field(default_factory=dict)
    case_text: array = field(default_factory=lambda: array("l"))
    seeds: dict[str, TestCase] = field(default_factory=dict)

    @classmethod
    def build(cls, path: Path) -> _SuiteIndex:
        index = cls()
        referenced: dict[str, str] = {}  # seed id -> first expansion naming it
        for case in iter_cases(path):
            if case.seed_id:
                referenced.setdefault(case.seed_id, case.id)
            i = index.text_index.setdefault(case.text, len(index.texts))
            if i == len(index.texts):
                index.texts.append(case.text)
            index.case_text.append(i)
            if case.kind == SEED:
                if case.id in index.seeds:
                    raise InputError(f"{path}: seed id {case.id!r} appears twice")
                index.seeds[case.id] = case
        missing = next((seed for seed in referenced if seed not in index.seeds), None)
        if missing is not None:
            raise InputError(f"{path}: expansion {referenced[missing]} names unknown seed {missing!r}")
        return index


# ---------------------------------------------------------------------------------------------------------
# Counting


def _rate(failures: int, applicable: int) -> float | None:
    return round(failures / applicable, 6) if applicable else None


@dataclass
class _Tally:
    cases: int = 0
    applicable: int = 0
    failures: int = 0

    def add(self, outcome: str) -> None:
        self.cases += 1
        self.applicable += outcome != NA
        self.failures += outcome == FAIL

    def __iadd__(self, other: _Tally) -> _Tally:
        self.cases += other.cases
        self.applicable += other.applicable
        self.failures += other.failures
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "applicable": self.applicable,
            "failures": self.failures,
            "failure_rate": _rate(self.failures, self.applicable),
        }


@dataclass
class _Group:
    """A seed with its expansions, for one model."""

    capability: str
    outcomes: set[str] = field(default_factory=set)  # own outcomes of the seed and its expansions
    inv: set[str] = field(default_factory=set)  # implicit INV outcomes of its expansions
    pairs: int = 0
    pair_failures: int = 0


@dataclass
class _CapabilityTally:
    test_types: set[str] = field(default_factory=set)
    seeds: _Tally = field(default_factory=_Tally)
    expansions: _Tally = field(default_factory=_Tally)
    transitions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TRANSITIONS, 0))

    def to_json(self, groups: list[_Group]) -> dict[str, Any]:
        group_tally = _Tally()
        inv = {"groups": 0, "failures": 0, "pairs": 0, "pair_failures": 0}
        for g in groups:
            group_tally.add(FAIL if FAIL in g.outcomes else PASS if PASS in g.outcomes else NA)
            if g.pairs:
                inv["groups"] += 1
                inv["failures"] += FAIL in g.inv
                inv["pairs"] += g.pairs
                inv["pair_failures"] += g.pair_failures
        inv["failure_rate"] = _rate(inv["failures"], inv["groups"])
        everything = _Tally()
        everything += self.seeds
        everything += self.expansions
        test_type = "MFT" if self.test_types == {"MFT"} else "/".join(sorted(self.test_types - {"MFT"}))
        headline = everything if test_type == "MFT" else group_tally
        return {
            "test_type": test_type,
            "failure_rate": _rate(headline.failures, headline.applicable),
            "seeds": self.seeds.to_json(),
            "expansions": self.expansions.to_json(),
            "all": everything.to_json(),
            "groups": group_tally.to_json(),
            "transitions": dict(self.transitions),
            "inv": inv,
        }


def natural_key(text: str) -> list[Any]:
    """Sort LC2 before LC10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


# ---------------------------------------------------------------------------------------------------------


def _predict_all(model: Model, index: _SuiteIndex) -> tuple[np.ndarray, list[str]]:
    if isinstance(model, FilePredictions):
        model.align(index.texts, index.case_text)
    chunks = []
    for start in tqdm(range(0, len(index.texts), PREDICT_CHUNK), desc=model.name, unit="chunk", leave=False):
        chunks.append(model.predict_proba(index.texts[start : start + PREDICT_CHUNK]))
    raw = np.concatenate(chunks) if chunks else np.zeros((0, len(model.labels) or 2))
    return sentiment_probs(model.labels, raw) if len(raw) else (np.zeros((0, 3)), [])


def run_suite(
    suite_dir: str | Path, models: list[Model], out_dir: str | Path, *, batch_size: int | None = None
) -> dict[str, Any]:
    """Run every case of ``suite_dir/cases.jsonl`` against each model; write ``predictions.jsonl`` and
    ``results.json`` into ``out_dir`` and return the results. ``batch_size`` overrides the models' own.

    Cases are streamed twice (index, then outcomes); only distinct texts, their probabilities and the seed
    cases are held in memory. Each distinct text is predicted once per model (and not at all when cached).
    """
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    cases_path = suite_dir / CASES
    if not cases_path.is_file():
        raise InputError(f"{cases_path}: suite cases not found")
    if not models:
        raise InputError("run_suite: no models given")
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise InputError(f"run_suite: model names must differ, got {names}")
    manifest = load_json(suite_dir / MANIFEST, "suite manifest") if (suite_dir / MANIFEST).is_file() else None

    index = _SuiteIndex.build(cases_path)
    log.info("suite %s: %d cases, %d distinct texts", suite_dir, len(index.case_text), len(index.texts))
    predictions = []
    for model in models:
        if batch_size:
            model.batch_size = batch_size
        predictions.append(_predict_all(model, index))

    tallies = [defaultdict(_CapabilityTally) for _ in models]
    groups: list[dict[str, _Group]] = [{} for _ in models]
    out_dir.mkdir(parents=True, exist_ok=True)
    with JsonlWriter(out_dir / PREDICTIONS) as writer:
        for case, t in zip(iter_cases(cases_path), index.case_text):
            seed = index.seeds[case.seed_id] if case.seed_id else None
            s = index.text_index[seed.text] if seed else None
            for m, (probs, labels) in enumerate(predictions):
                outcome = case_outcome(
                    case, probs[t], labels[t], probs[s] if seed else None, labels[s] if seed else None
                )
                tally = tallies[m][case.capability]
                tally.test_types.add(case.test_type)
                group = groups[m].setdefault(seed.id if seed else case.id, _Group(case.capability))
                group.outcomes.add(outcome)
                inv = None
                if seed is None:
                    tally.seeds.add(outcome)
                else:
                    tally.expansions.add(outcome)
                    if case.test_type in ("MFT", "INV"):
                        inv = inv_outcome(probs[s], labels[s], probs[t], labels[t])
                        group.inv.add(inv)
                        group.pairs += 1
                        group.pair_failures += inv == FAIL
                    if case.test_type == "MFT" and seed.test_type == "MFT" and outcome != NA:
                        before = mft_outcome(seed.expected, labels[s])
                        tally.transitions[f"{before}_to_{outcome}"] += 1
                writer.write(
                    {
                        "case": case.id,
                        "capability": case.capability,
                        "kind": case.kind,
                        "seed": case.seed_id,
                        "model": models[m].name,
                        "probs": [round(float(p), 6) for p in probs[t]],
                        "label": labels[t],
                        "outcome": outcome,
                        "inv": inv,
                    }
                )

    results = {
        "suite": {
            "dir": str(suite_dir.resolve()),
            "cases": len(index.case_text),
            "texts": len(index.texts),
            "manifest": manifest,
        },
        "environment": environment(),
        "models": {},
    }
    for m, model in enumerate(models):
        by_capability: dict[str, list[_Group]] = defaultdict(list)
        for group in groups[m].values():
            by_capability[group.capability].append(group)
        capabilities = sorted(tallies[m], key=natural_key)
        results["models"][model.name] = {
            "identity": model.identity,
            "labels": list(model.labels),
            "capabilities": {cap: tallies[m][cap].to_json(by_capability[cap]) for cap in capabilities},
        }
    atomic_write_json(out_dir / RESULTS, results)
    return results
