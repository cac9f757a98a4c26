"""Run a suite against models: per-case outcomes, failure rates, seed→expansion transitions.

The suite's task (recorded in its manifest; sentiment for a suite without one) says what the inputs are and
how each model's answers are read (``tasks.Task.read``); ``expect.py`` holds CheckList's expectations.

Every expansion of an MFT or INV suite also forms an INV test with its seed (inserted words are
sentiment-neutral): its ``inv`` outcome. Transitions (pass→fail, ...) count (seed, expansion) pairs where
both are MFT-applicable, one per expansion, as the paper does. Perturbed cases are INV/DIR tests of their
own against their original.

Failure rate = failures / applicable, per test case. A "group" is a seed with its expansions or
perturbations, CheckList's test case for INV/DIR tests (fails when any applicable member fails), so the
headline ``failure_rate`` of a capability is ``all`` for MFT capabilities and ``groups`` for INV/DIR ones.
A case whose input a model could not answer (a remote endpoint that failed) is an ``error``: recorded,
counted, and not applicable.
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

from .expect import ERROR, FAIL, NA, PASS, case_outcome, check_expected, inv_outcome, mft_outcome
from .models import Model
from .models.base import Input
from .models.files import FilePredictions
from .records import KINDS, PERTURBATION, SEED, TestCase
from .store import InputError, JsonlWriter, atomic_write_json, environment, load_json
from .tasks import Task

log = logging.getLogger(__name__)

TRANSITIONS = ("pass_to_fail", "fail_to_pass", "pass_to_pass", "fail_to_fail")
CASES, MANIFEST = "cases.jsonl", "manifest.json"
PREDICTIONS, RESULTS = "predictions.jsonl", "results.json"
PREDICT_CHUNK = 4096  # inputs per predict call: bounds memory and cache transactions


def suite_task(suite_dir: str | Path) -> Task:
    """The task a suite was made for: from its manifest, or sentiment for a suite without one."""
    manifest_path = Path(suite_dir) / MANIFEST
    manifest = load_json(manifest_path, "suite manifest") if manifest_path.is_file() else {}
    if isinstance(manifest, dict) and isinstance(manifest.get("task"), dict):
        return Task.from_spec(manifest["task"])
    from .models import default_task

    return default_task()


# ---------------------------------------------------------------------------------------------------------
# Reading the suite


def _validate(case: TestCase, task: Task, where: str) -> None:
    if case.kind not in KINDS:
        raise InputError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}, got {case.kind!r}")
    if case.kind != SEED and not case.seed_id:
        raise InputError(f"{where}: {case.kind} {case.id} has no 'seed_id'")
    if tuple(case.inputs) != task.inputs and set(case.inputs) != set(task.inputs):
        raise InputError(
            f"{where}: input fields {sorted(case.inputs)}; the {task.name} task's are {list(task.inputs)}"
        )
    why = check_expected(task, case.test_type, case.expected)
    if why is not None:
        raise InputError(f"{where}: {case.test_type} field 'expected': {why}, got {case.expected!r}")


def iter_cases(path: Path, task: Task | None = None) -> Iterator[TestCase]:
    """Stream a suite's cases, validated against ``task`` (default: the suite's); a malformed line is an
    error naming file and line."""
    task = task or suite_task(path.parent)
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
            _validate(case, task, where)
            yield case


def input_of(case: TestCase, task: Task) -> Input:
    """The case's input as a model sees it: its fields in the task's order."""
    return tuple(case.inputs[name] for name in task.inputs)


@dataclass
class _SuiteIndex:
    """What the second pass needs: distinct inputs, each case's input, and the seeds (small)."""

    task: Task
    inputs: list[Input] = field(default_factory=list)
    input_index: dict[Input, int] = field(default_factory=dict)
    case_input: array = field(default_factory=lambda: array("l"))
    seeds: dict[str, TestCase] = field(default_factory=dict)

    @classmethod
    def build(cls, path: Path, task: Task) -> _SuiteIndex:
        index = cls(task)
        referenced: dict[str, str] = {}  # seed id -> first expansion naming it
        for case in iter_cases(path, task):
            if case.seed_id:
                referenced.setdefault(case.seed_id, case.id)
            item = input_of(case, task)
            i = index.input_index.setdefault(item, len(index.inputs))
            if i == len(index.inputs):
                index.inputs.append(item)
            index.case_input.append(i)
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
    errors: int = 0  # no prediction (not applicable)

    def add(self, outcome: str) -> None:
        self.cases += 1
        self.applicable += outcome not in (NA, ERROR)
        self.failures += outcome == FAIL
        self.errors += outcome == ERROR

    def __iadd__(self, other: _Tally) -> _Tally:
        self.cases += other.cases
        self.applicable += other.applicable
        self.failures += other.failures
        self.errors += other.errors
        return self

    def to_json(self) -> dict[str, Any]:
        out = {
            "cases": self.cases,
            "applicable": self.applicable,
            "failures": self.failures,
            "failure_rate": _rate(self.failures, self.applicable),
        }
        if self.errors:
            out["errors"] = self.errors
        return out


@dataclass
class _Group:
    """A seed with its expansions or perturbations, for one model."""

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
    perturbations: _Tally = field(default_factory=_Tally)
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
        everything += self.perturbations
        test_type = "MFT" if self.test_types == {"MFT"} else "/".join(sorted(self.test_types - {"MFT"}))
        headline = everything if test_type == "MFT" else group_tally
        return {
            "test_type": test_type,
            "failure_rate": _rate(headline.failures, headline.applicable),
            "seeds": self.seeds.to_json(),
            "expansions": self.expansions.to_json(),
            "perturbations": self.perturbations.to_json(),
            "all": everything.to_json(),
            "groups": group_tally.to_json(),
            "transitions": dict(self.transitions),
            "inv": inv,
        }


def natural_key(text: str) -> list[Any]:
    """Sort LC2 before LC10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


# ---------------------------------------------------------------------------------------------------------


@dataclass
class _Predictions:
    """One model's reading of every distinct input of the suite."""

    probs: np.ndarray  # (inputs, task labels); (inputs, 1) the answer score for span tasks
    labels: list[str | None]  # predicted label or answer; None: no answer (see errors)
    errors: dict[int, str]
    invalid: dict[int, str]


def _predict_all(model: Model, index: _SuiteIndex, compute: Any = None) -> _Predictions:
    if isinstance(model, FilePredictions):
        model.align(index.inputs, index.case_input)
    parts = []
    for start in tqdm(range(0, len(index.inputs), PREDICT_CHUNK), desc=model.name, unit="chunk", leave=False):
        parts.append((start, model.predict(index.inputs[start : start + PREDICT_CHUNK], compute)))
    width = 1 if index.task.is_span else len(index.task.labels)
    result = _Predictions(np.zeros((0, width)), [], {}, {})
    chunks = []
    for start, outputs in parts:
        probs, labels = model.read(outputs)
        chunks.append(probs)
        result.labels.extend(labels)
        result.errors.update((start + i, why) for i, why in outputs.errors.items())
        result.invalid.update((start + i, reply) for i, reply in outputs.invalid.items())
    if chunks:
        result.probs = np.concatenate(chunks)
    if result.errors:
        log.warning(
            "%s: no prediction for %d of %d inputs", model.name, len(result.errors), len(index.inputs)
        )
    return result


def _outcome(task: Task, case: TestCase, p: _Predictions, t: int, s: int | None) -> str:
    if t in p.errors or (s is not None and s in p.errors):
        return ERROR
    if t in p.invalid:
        return FAIL if case.test_type == "MFT" or s is not None else NA
    if s is not None and s in p.invalid:
        return NA  # nothing to compare with
    return case_outcome(
        task,
        case.test_type,
        case.expected,
        p.probs[t],
        p.labels[t],  # type: ignore[arg-type]
        p.probs[s] if s is not None else None,
        p.labels[s] if s is not None else None,
    )


def _row(task: Task, case: TestCase, model: Model, p: _Predictions, t: int, outcome: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "case": case.id,
        "capability": case.capability,
        "kind": case.kind,
        "seed": case.seed_id,
        "model": model.name,
        "outcome": outcome,
    }
    if t in p.errors:
        row["error"] = p.errors[t]
    elif t in p.invalid:
        row["reply"] = p.invalid[t]
    elif task.is_span:
        row["answer"], row["score"] = p.labels[t], round(float(p.probs[t, 0]), 6)
    else:
        row["probs"], row["label"] = [round(float(x), 6) for x in p.probs[t]], p.labels[t]
    return row


def run_suite(
    suite_dir: str | Path,
    models: list[Model],
    out_dir: str | Path,
    *,
    batch_size: int | None = None,
    task: Task | None = None,
    executor: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
) -> dict[str, Any]:
    """Run every case of ``suite_dir/cases.jsonl`` against each model; write ``predictions.jsonl`` and
    ``results.json`` into ``out_dir`` and return the results. ``batch_size`` overrides the models' own;
    ``task`` the suite's own (recorded in its manifest). With ``executor="ray"``, the batches of a model
    loaded from a spec (``Model.loader``: HF models, callables) are answered by a pool of Ray actors
    (``execute.ray``; ``ray_address`` as for ``ray.init``, ``ray_actors`` default one per CPU or GPU), with
    the same results; files and remote endpoints are read by this process as with the local executor.

    Cases are streamed twice (index, then outcomes); only distinct inputs, their predictions and the seed
    cases are held in memory. Each distinct input is predicted once per model (and not at all when cached).
    """
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    cases_path = suite_dir / CASES
    if not cases_path.is_file():
        raise InputError(f"{cases_path}: suite cases not found")
    if not models:
        raise InputError("run_suite: no models given")
    if executor not in ("local", "ray"):
        raise InputError(f"--executor must be local or ray, not {executor!r}")
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise InputError(f"run_suite: model names must differ, got {names}")
    manifest = load_json(suite_dir / MANIFEST, "suite manifest") if (suite_dir / MANIFEST).is_file() else None
    task = task or suite_task(suite_dir)
    for model in models:
        if model.task.name != task.name:
            raise InputError(
                f"model {model.name} was loaded for task {model.task.name}, the suite is {task.name}"
            )

    index = _SuiteIndex.build(cases_path, task)
    if not index.case_input:  # a suite that tests nothing must not pass
        dataset = (manifest or {}).get("dataset") or {}
        why = f" (its dataset: read {dataset.get('read')}, kept {dataset.get('kept')})" if dataset else ""
        raise InputError(f"{cases_path}: the suite has no cases, so it tests nothing{why}")
    log.info("suite %s: %d cases, %d distinct inputs", suite_dir, len(index.case_input), len(index.inputs))
    predictions = []
    for model in models:
        if batch_size:
            model.batch_size = batch_size
        if executor == "ray" and model.loader is not None:
            from .execute.ray import RayPredictor

            ray_predictor = RayPredictor(model, address=ray_address, actors=ray_actors)
            try:
                predictions.append(_predict_all(model, index, ray_predictor))
            finally:
                ray_predictor.close()
        else:
            if executor == "ray":
                log.info("%s: predicted by this process (Ray actors load models given by a spec)", model.name)
            predictions.append(_predict_all(model, index))

    tallies = [defaultdict(_CapabilityTally) for _ in models]
    groups: list[dict[str, _Group]] = [{} for _ in models]
    out_dir.mkdir(parents=True, exist_ok=True)
    with JsonlWriter(out_dir / PREDICTIONS) as writer:
        for case, t in zip(iter_cases(cases_path, task), index.case_input):
            seed = index.seeds[case.seed_id] if case.seed_id else None
            s = index.input_index[input_of(seed, task)] if seed else None
            for m, p in enumerate(predictions):
                outcome = _outcome(task, case, p, t, s)
                tally = tallies[m][case.capability]
                tally.test_types.add(case.test_type)
                group = groups[m].setdefault(seed.id if seed else case.id, _Group(case.capability))
                group.outcomes.add(outcome)
                inv = None
                if seed is None:
                    tally.seeds.add(outcome)
                elif case.kind == PERTURBATION:
                    tally.perturbations.add(outcome)
                else:
                    tally.expansions.add(outcome)
                    answered = not ({t, s} & (p.errors.keys() | p.invalid.keys()))
                    if case.test_type in ("MFT", "INV") and answered:
                        inv = inv_outcome(task, p.probs[s], p.labels[s], p.probs[t], p.labels[t])
                        group.inv.add(inv)
                        group.pairs += 1
                        group.pair_failures += inv == FAIL
                    if case.test_type == "MFT" and seed.test_type == "MFT" and outcome in (PASS, FAIL):
                        before = FAIL if s in p.invalid else mft_outcome(task, seed.expected, p.labels[s])
                        if s not in p.errors:
                            tally.transitions[f"{before}_to_{outcome}"] += 1
                row = _row(task, case, models[m], p, t, outcome)
                row["inv"] = inv
                writer.write(row)

    results = {
        "suite": {
            "dir": str(suite_dir.resolve()),
            "cases": len(index.case_input),
            "inputs": len(index.inputs),
            "manifest": manifest,
        },
        "task": task.to_json(),
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
            "errors": len(predictions[m].errors),
            "capabilities": {cap: tallies[m][cap].to_json(by_capability[cap]) for cap in capabilities},
        }
    atomic_write_json(out_dir / RESULTS, results)
    return results
