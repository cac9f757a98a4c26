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

import logging
import time
from array import array
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import progress
from .execute import make_executor
from .expect import ERROR, FAIL, NA, PASS, case_outcome, inv_outcome, mft_outcome
from .models import Model, as_model
from .models.base import Input
from .models.files import FilePredictions
from .records import PERTURBATION, SEED, TestCase
from .results import (
    NO_SOURCE,
    PARTS,
    CapabilityTally,
    Group,
    capability_errors,
    natural_key,
    overall_counts,
)
from .schemas import read_checked
from .store import InputError, JsonlWriter, atomic_write_json, environment
from .suite import CASES, MANIFEST, iter_cases, read_manifest, suite_task
from .tasks import Task

log = logging.getLogger(__name__)

PREDICTIONS, RESULTS = "predictions.jsonl", "results.json"
LABEL_ONLY_DIR = "not applicable: the model answered labels without probabilities, which DIR tests compare"
# what a results directory holds (manifest.json: where the answers came from); --overwrite removes only these
RUN_FILES = (PREDICTIONS, RESULTS, MANIFEST)
PREDICT_CHUNK = 4096  # inputs per predict call: bounds memory and cache transactions


def read_predictions(path: str | Path) -> Iterator[dict[str, Any]]:
    """The rows of a run's predictions.jsonl, each checked (``schemas.PREDICTION_ROW``); a case judged twice
    for one model with other values is an error naming both lines."""
    return read_checked(path, "prediction", lambda row: (row["model"], row["case"]))


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
# Predicting and counting


@dataclass
class _Predictions:
    """One model's reading of every distinct input of the suite."""

    probs: np.ndarray  # (inputs, task labels); (inputs, 1) the answer score for span tasks
    labels: list[str | None]  # predicted label or answer; None: no answer (see errors)
    errors: dict[int, str]
    invalid: dict[int, str]
    cached: int = 0  # inputs answered from the persistent prediction cache
    label_only: bool = False  # answers without probabilities: DIR does not apply


def _predict_all(
    model: Model,
    index: _SuiteIndex,
    compute: Any = None,
    batch_size: int | None = None,
    use_cache: bool = True,
) -> _Predictions:
    if isinstance(model, FilePredictions):
        model.align(index.inputs, index.case_input)
    parts = []
    with progress.bar(len(index.inputs), model.name, "inputs") as reporter:
        for start in range(0, len(index.inputs), PREDICT_CHUNK):
            chunk = index.inputs[start : start + PREDICT_CHUNK]
            counted = progress.Counted(reporter, len(chunk), compute or (lambda b: map(model._answers, b)))
            parts.append((start, model.predict(chunk, counted, batch_size=batch_size, use_cache=use_cache)))
            counted.finish()  # every input answered from the cache: no batch was computed
    width = 1 if index.task.is_span else len(index.task.labels)
    result = _Predictions(np.zeros((0, width)), [], {}, {})
    chunks = []
    for start, outputs in parts:
        probs, labels = model.read(outputs)
        chunks.append(probs)
        result.labels.extend(labels)
        result.errors.update((start + i, why) for i, why in outputs.errors.items())
        result.invalid.update((start + i, reply) for i, reply in outputs.invalid.items())
        result.cached += outputs.cached
    result.label_only = not model.probabilities
    if chunks:
        result.probs = np.concatenate(chunks)
    log.info("%s: %d of %d answers from the prediction cache", model.name, result.cached, len(index.inputs))
    if result.errors:
        log.warning(
            "%s: no prediction for %d of %d inputs", model.name, len(result.errors), len(index.inputs)
        )
    return result


def _outcome(task: Task, case: TestCase, p: _Predictions, t: int, s: int | None) -> tuple[str, str | None]:
    """A case's outcome (and why it is not applicable, when that is for want of its source's prediction).
    ``s``: the source's input for INV/DIR cases; an MFT case needs only its own prediction."""
    if t in p.errors:
        return ERROR, None
    if s is not None and s in p.errors:
        return NA, NO_SOURCE
    if t in p.invalid:
        return (FAIL if case.test_type == "MFT" or s is not None else NA), None
    if s is not None and s in p.invalid:
        return NA, None  # nothing to compare with
    if p.label_only and case.test_type == "DIR":
        return NA, None  # see LABEL_ONLY_DIR
    outcome = case_outcome(
        task,
        case.test_type,
        case.expected,
        p.probs[t],
        p.labels[t],  # type: ignore[arg-type]
        p.probs[s] if s is not None else None,
        p.labels[s] if s is not None else None,
    )
    return outcome, None


def _row(task: Task, case: TestCase, model: Model, p: _Predictions, t: int, outcome: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "case": case.id,
        "capability": case.capability,
        "kind": case.kind,
        "seed": case.seed_id,
        "model": model.name,
        "outcome": outcome,
    }
    if outcome == NA and p.label_only and case.test_type == "DIR":
        row["reason"] = LABEL_ONLY_DIR
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
    models: list[Any],
    out_dir: str | Path,
    *,
    batch_size: int | None = None,
    task: Task | None = None,
    executor: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
    timings: dict[str, float] | None = None,
    use_cache: bool = True,
) -> dict[str, Any]:
    """Run every case of ``suite_dir/cases.jsonl`` against each model; write ``predictions.jsonl`` and
    ``results.json`` into ``out_dir`` and return the results. A model is any form ``models.as_model``
    takes: a ``Model``, a spec, a Hugging Face pipeline, an estimator with ``predict_proba`` and
    ``classes_``, or a function. ``batch_size`` overrides the models' own; ``task`` the suite's own
    (recorded in its manifest). ``executor`` names who answers a model's batches (``execute.EXECUTORS``):
    ``local``, this process; ``ray``, a pool of Ray actors for a model loaded from a spec
    (``Model.loader``: HF models, callables; ``ray_address`` as for ``ray.init``, ``ray_actors`` default
    one per CPU or GPU), with the same results; files and remote endpoints are read by this process
    whatever the executor.
    ``use_cache=False`` neither reads nor writes the prediction cache (``--no-cache``). ``timings``, when
    given, gets the seconds each model took to answer (kept out of ``results.json``, whose bytes depend only
    on the inputs).

    Cases are streamed twice (index, then outcomes); only distinct inputs, their predictions and the seed
    cases are held in memory. Each distinct input is predicted once per model (and not at all when cached).
    """
    suite_dir, out_dir = Path(suite_dir), Path(out_dir)
    cases_path = suite_dir / CASES
    if not cases_path.is_file():
        raise InputError(f"{cases_path}: suite cases not found")
    if not models:
        raise InputError("run_suite: no models given")
    scheduler = make_executor(executor, address=ray_address, actors=ray_actors)
    task = task or suite_task(suite_dir)
    models = [as_model(m, task) for m in models]
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise InputError(f"run_suite: model names must differ, got {names}")
    manifest = read_manifest(suite_dir) if (suite_dir / MANIFEST).is_file() else None
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
        started = time.perf_counter()
        try:
            predictions.append(_predict_all(model, index, scheduler.predictor(model), batch_size, use_cache))
        finally:
            scheduler.close()
        if timings is not None:
            timings[model.name] = time.perf_counter() - started

    tallies: list[defaultdict[str, CapabilityTally]] = [defaultdict(CapabilityTally) for _ in models]
    groups: list[dict[str, Group]] = [{} for _ in models]
    out_dir.mkdir(parents=True, exist_ok=True)
    with JsonlWriter(out_dir / PREDICTIONS) as writer:
        for case, t in zip(iter_cases(cases_path, task), index.case_input):
            seed = index.seeds[case.seed_id] if case.seed_id else None
            s = index.input_index[input_of(seed, task)] if seed else None
            source = s if case.test_type != "MFT" else None
            for m, p in enumerate(predictions):
                outcome, reason = _outcome(task, case, p, t, source)
                tally = tallies[m][case.capability]
                tally.test_types.add(case.test_type)
                group = groups[m].setdefault(seed.id if seed else case.id, Group(case.capability))
                group.outcomes.add(outcome)
                inv = None
                if seed is None:
                    tally.seeds.add(outcome, reason)
                elif case.kind == PERTURBATION:
                    tally.perturbations.add(outcome, reason)
                else:
                    assert s is not None  # set with seed
                    tally.expansions.add(outcome, reason)
                    seed_label, label = p.labels[s], p.labels[t]
                    answered = not ({t, s} & (p.errors.keys() | p.invalid.keys()))
                    if (
                        case.test_type in ("MFT", "INV")
                        and answered
                        and seed_label is not None
                        and label is not None
                    ):
                        inv = inv_outcome(task, p.probs[s], seed_label, p.probs[t], label)
                        group.inv.add(inv)
                        group.pairs += 1
                        group.pair_failures += inv == FAIL
                    if (
                        case.test_type == "MFT"
                        and seed.test_type == "MFT"
                        and outcome in (PASS, FAIL)
                        and s not in p.errors
                    ):
                        answer = None if s in p.invalid else seed_label
                        before = FAIL if answer is None else mft_outcome(task, seed.expected, answer)
                        tally.transitions[f"{before}_to_{outcome}"] += 1
                row = _row(task, case, models[m], p, t, outcome)
                if reason:
                    row["reason"] = reason
                row["inv"] = inv
                writer.write(row)

    results: dict[str, Any] = {
        "suite": {
            "dir": str(suite_dir.resolve()),
            "cases": len(index.case_input),
            "inputs": len(index.inputs),
            "manifest": manifest,
        },
        "files": {"predictions": PREDICTIONS},
        "task": task.to_json(),
        "environment": environment(),
        "models": {},
    }
    for m, model in enumerate(models):
        by_capability: dict[str, list[Group]] = defaultdict(list)
        for group in groups[m].values():
            by_capability[group.capability].append(group)
        capabilities = sorted(tallies[m], key=natural_key)
        errors = predictions[m].errors
        entry = results["models"][model.name] = {
            "identity": model.identity,
            "labels": list(model.labels),
            "errors": len(errors),
            **({"not_applicable": {"DIR": LABEL_ONLY_DIR}} if predictions[m].label_only else {}),
            "capabilities": {cap: tallies[m][cap].to_json(by_capability[cap]) for cap in capabilities},
        }
        if errors:
            entry["first_error"] = errors[min(errors)]
            cases = sum(capability_errors(c) for c in entry["capabilities"].values())
            no_source = sum(
                c[part].get("no_source", 0) for c in entry["capabilities"].values() for part in PARTS
            )
            log.warning(
                "%s: %d cases are errors (no prediction for their input); %d INV/DIR cases are not "
                "applicable: %s",
                model.name,
                cases,
                no_source,
                NO_SOURCE,
            )
        entry["overall"] = overall_counts(entry)
    atomic_write_json(out_dir / RESULTS, results)
    # Where the answers came from varies between equal runs, so it is kept out of results.json (whose bytes
    # depend only on the suite and the models' answers).
    atomic_write_json(
        out_dir / MANIFEST,
        {"models": {m.name: _cache_record(m, p, use_cache) for m, p in zip(models, predictions)}},
    )
    return results


def _cache_record(model: Model, p: _Predictions, use_cache: bool) -> dict[str, Any]:
    return {
        "identity": model.identity,
        "inputs": len(p.labels),
        "from_cache": p.cached,
        "reused_across_runs": use_cache and model.cacheable and model.pinned,
    }
