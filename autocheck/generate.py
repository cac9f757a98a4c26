"""The generation job: dataset → seeds → seed cases → (parse → differentiate → fill) → suite directory.

Stages are the modules named in DESIGN.md; this module only wires them, streams the cases to
``cases.jsonl`` chunk by chunk, and keeps the run resumable and reproducible:

- the case stream is deterministic for a configuration (``--seed`` included), so a resumed run skips the
  chunks it finished (``state.json`` records them with the byte offset of ``cases.jsonl``) and truncates a
  half-written tail; its output is byte-identical to an uninterrupted run;
- models are loaded once, every model call is batched over a chunk, and parses and masked-LM suggestions
  are cached by content hash (``autocheck.cache``), so a re-run does no model work it has done before.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from . import __version__
from .author.templates import template_cases
from .config import GenerateConfig
from .execute import expand_chunks, make_executor
from .expand.job import CapabilityCounts, ChunkResult, Expander, Timer, by_capability, model_calls
from .expand.validate import users_check
from .outputs import kind_of
from .records import SEED, TestCase
from .requirements import load_spec
from .sources.cases import SourceContext, capability_cases, check_source
from .sources.datasets import DatasetStats, load_examples
from .sources.lexicon import load_lexicon
from .sources.search_cache import cached_search, search_key, store_search
from .sources.seeds import FillerPools, select_seeds, uses_contractions
from .store import (
    InputError,
    dumps,
    environment,
    prepare_output_dir,
)
from .suite import MANIFEST, STATE, SUITE_FILES, SuiteWriter, load_state

log = logging.getLogger(__name__)


@dataclass
class RunSummary:
    out: Path
    counts: dict[str, CapabilityCounts]
    dataset_stats: dict[str, Any]
    rejected: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    empty: dict[str, str] = field(default_factory=dict)  # capability -> why it has no case

    def print_table(self) -> None:
        """The counts per capability, the skipped rows and the rejections, as a terminal table."""
        table = Table(title=f"suite written to {self.out}")
        columns = ["seeds", "seed_cases"]
        if any(counts.perturbations for counts in self.counts.values()):
            columns.append("perturbations")
        if any(counts.parsed or counts.masked_templates for counts in self.counts.values()):  # expanded
            columns += ["parsed", "masked_templates", "candidates", "expansions"]
        table.add_column("capability")
        for column in columns:
            table.add_column(column.replace("_", " "), justify="right")
        for cap_id, counts in self.counts.items():
            table.add_row(cap_id, *(f"{getattr(counts, c):,}" for c in columns))
        Console().print(table)
        skipped = self.dataset_stats.get("skipped") or {}
        if skipped:
            Console().print(f"dataset rows skipped: {skipped}")
        if self.rejected:
            Console().print(f"rejected: {dict(sorted(self.rejected.items()))}")


def empty_capabilities(
    counts: dict[str, CapabilityCounts], by_id: dict[str, Any], rows: int
) -> dict[str, str]:
    """Why each capability that got no test case got none (``rows``: the dataset rows searched): a suite
    leaves nothing out silently."""
    empty = {}
    for cap_id, n in counts.items():
        if n.seed_cases or n.perturbations or n.expansions:
            continue
        capability = by_id[cap_id]
        if not n.seeds:
            if capability.needs_dataset:
                why = f"none of the {rows:,} dataset rows satisfies its search"
            elif capability.source:
                why = f"its case source '{capability.source.name}' gave no case"
            else:
                why = "its templates gave no case"
        elif capability.perturb:
            why = f"the perturbation '{capability.perturb.name}' changes none of its {n.seeds:,} source texts"
        else:
            why = f"its {n.seeds:,} seeds gave no case"
        empty[cap_id] = why
    return empty


Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]


def expands(capability: Any) -> bool:
    """Whether grammar expansion applies to the capability's seeds: an MFT dataset search."""
    return bool(capability.needs_dataset and capability.test_type == "MFT")


def expandable(task: Any, capabilities: Iterable[Any]) -> bool:
    """Grammar expansion applies to the MFT seeds of a one-field task's dataset search, when the task's
    expectations are not located in the text: an NER seed's entity offsets would not follow the inserted
    words (its kind has ``carry``)."""
    located = hasattr(kind_of(task), "carry")
    return len(task.inputs) == 1 and not located and any(expands(c) for c in capabilities)


@dataclass
class _Estimate:
    """How many cases a generation will write: its seed cases, known up front, and the expansions of the
    ``expanded`` ones, estimated from the first chunk that holds any (expansions per expanded seed case)."""

    seed_cases: int
    expanded: int
    per_seed: float | None = None

    def before(self) -> str:
        if not self.expanded:
            return f"writing {self.seed_cases:,} seed cases"
        return (
            f"writing {self.seed_cases:,} seed cases, and the expansions of {self.expanded:,} of them "
            "(estimated after the first chunk)"
        )

    def measure(self, chunk: list[TestCase], expansions: dict[str, list], by_id: dict[str, Any]) -> bool:
        """Take the rate from the first chunk with expanded seed cases; True when it did now."""
        seeds = [case for case in chunk if case.kind == SEED and expands(by_id[case.capability])]
        if self.per_seed is not None or not self.expanded or not seeds:
            return False
        self.per_seed = sum(len(expansions.get(case.id, ())) for case in seeds) / len(seeds)
        return True

    def after(self) -> str:
        assert self.per_seed is not None
        return (
            f"about {self.seed_cases + round(self.per_seed * self.expanded):,} cases in all: "
            f"{self.seed_cases:,} seed cases and about {self.per_seed:.1f} expansions for each of the "
            f"{self.expanded:,} expanded (the rate of the first chunk)"
        )


def seed_cases(config: GenerateConfig, timer: Timer | None = None, progress: Progress | None = None):
    """The case sources (``sources.cases``): the dataset search and the templates' fillings prepared once,
    then each capability's chain of sources. Returns (spec, capabilities, lexicon, dataset stats,
    per-capability seed counts, and a lazy, deterministic stream of source cases over all capabilities)."""
    report = progress or (lambda items, total, description: items)
    timer = timer or Timer()
    with timer("load"):
        task = config.task if config.requirements is None and config.spec is None else None
        spec = load_spec(config.requirements, task, data=config.spec)
        capabilities = spec.select(config.capabilities)
        for capability in capabilities:  # an unknown source, or a wrong option: before any work
            check_source(capability, f"{spec.path}: capability {capability.id}")
        if not config.dataset:
            skipped = [c.id for c in capabilities if c.needs_dataset]
            capabilities = [c for c in capabilities if not c.needs_dataset]
            if not capabilities:
                raise InputError.hint(
                    f"{spec.path}: every selected capability searches a dataset: pass {{dataset}}",
                    dataset="dataset=SOURCE",
                )
            if skipped:
                log.warning("no --dataset: skipping %s (they search a dataset)", ", ".join(skipped))
        # the polarity lexicon is loaded only for a search by word class or an expansion's validation
        uses_lexicon = any(g.uses_lexicon for c in capabilities for g in c.search)
        needed = uses_lexicon or (config.expand and expandable(spec.task, capabilities))
        lexicon_name = spec.task.polarity_lexicon(config.lexicon)
        lexicon = load_lexicon(lexicon_name, compat=config.compat) if needed else None
        stats = DatasetStats()
    with timer("search"):  # the dataset is streamed: read, searched and dropped window by window
        selected: dict[str, list] = {}
        pools = FillerPools({})
        # (without a dataset, the capabilities that search one were dropped above)
        if config.dataset and any(c.needs_dataset for c in capabilities):
            source = config.dataset
            options = {
                "text_column": config.text_column,
                "label_column": config.label_column,
                "label_map": config.label_map,
                "split": config.split,
                "encoding": config.encoding,
                "inputs": spec.task.inputs,
                "input_columns": config.input_columns,
                "labelled": config.labelled,
                "labels": spec.task.labels,
                "expand": uses_contractions(capabilities),
                "max_rows": config.max_rows,
                "entities": spec.task.output == "entities",  # labels are spans into the text as given
            }

            def read():
                return load_examples(source, stats=stats, **options)

            read()  # resolve the source now: a missing file or column is an error before any work
            key = search_key(
                source, options, capabilities, lexicon,
                max_seeds=config.max_seeds, seed=config.seed, compat=config.compat,
            )  # fmt: skip
            found = cached_search(key, capabilities, stats) if key else None
            if found is not None:
                selected, pools = found
            else:
                selected, pools, _ = select_seeds(
                    read, capabilities, lexicon, max_seeds=config.max_seeds, seed=config.seed,
                    compat=config.compat, progress=report, stats=stats,
                )  # fmt: skip
                if key:
                    store_search(key, selected, pools, stats)
            if not stats.kept:
                raise InputError(f"{config.dataset}: no usable examples ({stats.skipped or 'empty'})")
            if not any(selected.values()) and all(c.needs_dataset for c in capabilities):
                reasons = ", ".join(f"{n} {reason}" for reason, n in stats.skipped.items()) or "none"
                raise InputError(
                    f"{config.dataset}: no seeds, so the suite would test nothing: read {stats.read} rows, "
                    f"kept {stats.kept} (skipped: {reasons}), and no kept row satisfies the search of "
                    f"{', '.join(c.id for c in capabilities if c.needs_dataset)}"
                )
    with timer("templates"):  # template errors (a condition no value meets, ...) surface before any model
        written = {
            c.id: template_cases(c, spec.task, config.seed, max_cases=config.max_cases)
            for c in capabilities
            if c.templates
        }

    def masked_lm():
        from .expand.mlm import MaskedLM  # torch: loaded only when a template has a {mask}

        return MaskedLM.from_pretrained(config.mlm)

    # fillers (LC7, LC8) come from the whole dataset, by label: the pools hold the drawn ones
    context = SourceContext(
        spec.task, config.seed, config.compat, config.max_variants, masked_lm, selected, pools, written
    )

    def stream() -> Iterator[TestCase]:
        for capability in capabilities:
            yield from capability_cases(capability, context)

    # a search's seeds, a template's fillings; another source has no seeds apart from its cases (counted
    # as seed cases as they are written)
    seed_counts = {
        c.id: len(selected[c.id]) if c.needs_dataset else written[c.id].size if c.templates else 0
        for c in capabilities
    }
    return spec, capabilities, lexicon, stats, seed_counts, stream()


def _spooled(cases: Iterable[TestCase], out: Path) -> tuple[Counter[str], Iterator[TestCase]]:
    """The number of ``cases`` of each capability and the cases again, streamed back from an anonymous
    temporary file in ``out``: a list of all SST's 269k seed cases would hold about 250 MiB, growing with
    the seeds."""
    spool = tempfile.TemporaryFile(dir=out)
    n: Counter[str] = Counter()
    for case in cases:
        spool.write((dumps(case.to_json()) + "\n").encode("utf-8"))
        n[case.capability] += 1
    spool.seek(0)

    def read() -> Iterator[TestCase]:
        with spool:
            for line in spool:
                yield TestCase.from_json(json.loads(line))

    return n, read()


def _chunks(items: Iterable[TestCase], size: int) -> Iterator[list[TestCase]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def generate(
    config: GenerateConfig,
    out: str | Path,
    *,
    resume: bool = False,
    overwrite: bool = False,
    progress: Progress | None = None,
    workers: int = 1,
    device: str = "auto",
    batch_size: int = 64,
    executor: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
) -> RunSummary:
    """Run the whole generation job into ``out`` (a suite directory) and return its summary.

    The ``executor`` (a name in ``execute.EXECUTORS``) schedules the units: ``local`` in this process or
    ``workers`` processes, ``ray`` on Ray actors (``ray_address`` as for ``ray.init``, ``ray_actors``
    default one per CPU or GPU); ``device`` and ``batch_size`` are where the masked LM runs and its rows
    per forward pass. None of these changes the suite's bytes on one device.
    """
    scheduler = make_executor(executor, workers=workers, address=ray_address, actors=ray_actors)
    if config.checks:  # a name no check has is an error before anything is written
        for name in config.checks:
            users_check(name)
    if config.top_k_per not in ("seed", "production"):
        raise InputError(f"top_k_per must be 'seed' or 'production', not {config.top_k_per!r}")
    out = prepare_output_dir(out, resume=resume, overwrite=overwrite, files=SUITE_FILES, manifest=MANIFEST)
    state = _load_state(out, config) if resume else _fresh_state()
    timer = Timer()
    spec, capabilities, lexicon, stats, seed_counts, cases = seed_cases(config, timer, progress)
    by_id = {capability.id: capability for capability in capabilities}

    counts = {cap_id: CapabilityCounts(seeds=n) for cap_id, n in seed_counts.items()}
    for cap_id, saved in state["counts"].items():
        counts[cap_id] = CapabilityCounts(**saved)
    rejected: Counter[str] = Counter(state["rejected"])

    expander = None
    if config.expand and expandable(spec.task, capabilities):
        expander = Expander(config, lexicon, by_id, timer, device=device, batch_size=batch_size)
    total = 0
    estimate = None
    if progress is not None:  # counting the seed cases gives the bar a total (spooled, not kept in memory)
        per_capability, cases = _spooled(cases, out)
        total = sum(per_capability.values())
        estimate = _Estimate(total, sum(per_capability[c] for c in by_id if expander and expands(by_id[c])))
        log.info("%s", estimate.before())
    first = state["chunks"]  # chunks finished before an interruption are not redone (nor counted again)
    chunks: Iterable[list[TestCase]] = islice(_chunks(cases, config.chunk_size), first, None)
    bar: Any = None

    def on_unit(done: int, units: int) -> None:  # a chunk's units are reported too
        if hasattr(bar, "set_postfix_str"):
            stages = _stage_times(timer)
            bar.set_postfix_str(
                f"chunk {state['chunks'] + 1}: {done}/{units} units" + (f"; {stages}" if stages else "")
            )

    pairs: Iterable[tuple[list[TestCase], ChunkResult | None]] = ((chunk, None) for chunk in chunks)
    if expander is not None:  # units expanded where the executor puts them, merged in chunk order
        pairs = expand_chunks(scheduler, chunks, expander, on_unit)
    if progress is not None:
        # the bar counts the chunks left (so its rate and ETA hold after --resume) as they come back
        # finished, not as the executor takes them: worker processes and Ray actors read ahead
        pairs = bar = progress(pairs, max(0, -(-total // config.chunk_size) - first), "generate")
    calls: dict[str, dict] = {}  # worker process -> its model calls and stage times so far
    # the executor's worker processes stop with the loop, however it ends
    with closing(scheduler), SuiteWriter(out, offset=state["offset"] if resume else None) as writer:
        for index, (chunk, result) in enumerate(pairs, start=first):
            for case in chunk:
                if case.kind == SEED:
                    counts[case.capability].seed_cases += 1
                else:
                    counts[case.capability].perturbations += 1
            expansions = {}
            if result is not None:
                expansions = result.apply(counts, rejected)
                calls.update(result.calls)
            for case in chunk:
                writer.write(case.to_json())
                writer.write_all(expansions.get(case.id, ()))
            if estimate is not None and estimate.measure(chunk, expansions, by_id):
                log.info("%s", estimate.after())
            state = {
                "fingerprint": config.fingerprint(),
                "chunks": index + 1,
                "counts": {k: asdict(v) for k, v in counts.items()},
                "rejected": dict(rejected),
            }
            writer.checkpoint(state)
            if hasattr(bar, "set_postfix_str"):  # a bar or log lines: say where the run is
                done = counts[chunk[-1].capability]
                stage_note = _stage_times(timer)
                bar.set_postfix_str(  # shown with the chunk's count, which the bar takes next
                    f"{chunk[-1].capability}: {done.seed_cases} seed cases, {done.expansions} expansions"
                    + (f"; {stage_note}" if stage_note else ""),
                    refresh=False,
                )

        if calls:  # worker processes: their stage times and model calls, summed
            for worker in calls.values():
                for stage, seconds in worker.get("timings", {}).items():
                    timer.seconds[stage] += seconds
        stages, shares = by_capability(timer.seconds)
        summary = RunSummary(out, counts, asdict(stats), dict(rejected), stages)
        summary.empty = empty_capabilities(counts, by_id, stats.kept)
        for cap_id, why in summary.empty.items():
            log.warning("%s: no test case written: %s", cap_id, why)
        timings = {
            **{k: round(v, 3) for k, v in stages.items()},
            "model_calls": model_calls(expander, calls),
            "workers": workers,
            # each capability's parse, differentiate and fill seconds, summed over the workers (its counts
            # are the manifest's): what one capability of a many-capability run costs
            "capabilities": {c: {k: round(v, 3) for k, v in shares.get(c, {}).items()} for c in counts},
        }
        writer.finish(_manifest(config, summary, spec, lexicon, expander), timings)
    return summary


def _stage_times(timer: Timer) -> str:
    """Where the time goes: parsing, differentiation, fill (this process's share)."""
    stages = [stage for stage in ("parse", "differentiate", "fill") if stage in timer.seconds]
    return ", ".join(f"{stage} {timer.seconds[stage]:.0f}s" for stage in stages)


def _fresh_state() -> dict[str, Any]:
    """The resume point of a run that has finished no chunk yet."""
    return {"chunks": 0, "offset": 0, "counts": {}, "rejected": {}}


def _load_state(out: Path, config: GenerateConfig) -> dict[str, Any]:
    state = load_state(out)
    if state is None:
        if (out / MANIFEST).exists():
            raise InputError(f"{out}: this run already finished; nothing to resume")
        return _fresh_state()
    if state.get("fingerprint") != config.fingerprint():
        raise InputError.hint(
            f"{out / STATE}: the run in this directory used other settings; resume it with the same "
            "options or write to a new {out}",
            out="out=DIR",
        )
    return state


def _manifest(
    config: GenerateConfig, summary: RunSummary, spec: Any, lexicon: Any, expander: Expander | None
) -> dict[str, Any]:
    return {
        "autocheck": __version__,
        "task": spec.task.to_json(),
        "capabilities": {c.id: describe_capability(c) for c in spec.capabilities if c.id in summary.counts},
        "settings": config.settings(),
        "fingerprint": config.fingerprint(),
        "environment": environment(),
        "resources": {
            **({"lexicon": lexicon.describe()} if lexicon else {}),
            **(expander.describe() if expander else {}),
        },
        "dataset": summary.dataset_stats,
        "counts": {k: asdict(v) for k, v in summary.counts.items()},
        "empty": summary.empty,
        "rejected": summary.rejected,
    }


def describe_capability(capability: Any) -> dict[str, Any]:
    """What a report shows of a capability: its group, description, test type and expectation."""
    out = {
        "capability": capability.capability,
        "description": capability.description,
        "test_type": capability.test_type,
    }
    if capability.perturb:
        out["perturb"] = {"name": capability.perturb.name, "options": capability.perturb.options}
    if capability.direction:
        out["direction"] = capability.direction
    if capability.expected:
        out["expected"] = {label: list(v) if isinstance(v, tuple) else v for label, v in capability.expected}
    return out
