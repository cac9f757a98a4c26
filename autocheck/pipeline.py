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
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from . import __version__
from .records import SEED, TestCase
from .store import (
    InputError,
    JsonlWriter,
    atomic_write_json,
    content_hash,
    dumps,
    environment,
    load_json,
    prepare_output_dir,
)

log = logging.getLogger(__name__)

CASES = "cases.jsonl"
MANIFEST = "manifest.json"
STATE = "state.json"
TIMINGS = "timings.json"


@dataclass
class GenerateConfig:
    """Everything that decides a run's output (it is hashed to guard --resume and saved in the manifest)."""

    dataset: str | None  # None: only the capabilities written with templates
    task: str = "sentiment"
    capabilities: list[str] | None = None
    requirements: str | None = None  # a spec file or shipped spec name; default: requirements/<task>.json
    spec: dict[str, Any] | None = None  # a spec given inline (``autocheck perturb`` makes one)
    labelled: bool = True  # False: dataset rows need no label (INV/DIR perturbations of raw text)
    max_seeds: int | None = None
    max_rows: int | None = None  # dataset rows read at most
    max_variants: int | None = None  # template variants per seed (sampled); default: the spec's
    seed: int = 0
    lexicon: str = "sentiwordnet"
    # the original code's choices where they change results: SentiWordNet formula, shared fillers, LC10
    compat: bool = False
    text_column: str | None = None
    input_columns: dict[str, str] | None = None  # input field -> dataset column (tasks with several)
    label_column: str | None = None
    label_map: dict[str, str] | None = None
    split: str | None = None
    encoding: str | None = None  # of local dataset files; None: detected (the manifest says which)
    expand: bool = True
    parser: str = "benepar_en3"
    mlm: str = "bert-base-uncased"
    grammar: str = "ptb_sample"
    top_k: int = 5  # candidate expansions kept per seed (Algorithm 1), or per seed production
    top_k_per: str = "seed"  # "production": the original code's rule (always so with compat)
    # the best valid fills kept per template; None keeps every valid fill (the older ALiCT runs), 1 is ALiCT
    # HEAD. 3 keeps as many expansions per seed as the original's per-production top-5 did (alict60: 8.5
    # per seed case against its 7.25) with the paper's per-seed top-5, and no less diverse (RQ4 Self-BLEU)
    fills_per_mask: int | None = 3
    beam_size: int = 20  # CheckList used 100; a multi-mask fill costs about beam_size single ones
    top_n: int = 60
    # "tags": each mask filled only from words validation could keep there (expand/vocabulary.py); "all"
    vocabulary: str = "tags"
    first_beam: int | None = 4  # multi-mask templates: this beam first, the full beam only if short of fills
    # keep an expansion only if its PLL around the insertion is at least its seed's minus this; None: no
    # fluency check
    fluency_threshold: float | None = 1.0  # expand.fluency.DEFAULT_THRESHOLD
    chunk_size: int = 64  # seed cases per resume checkpoint
    unit_size: int = 8  # seed cases expanded together (parse/fill batches): the unit workers share out
    max_cases: int = 100_000  # per template: a larger Cartesian product is an error (use nsamples)

    def fingerprint(self) -> str:
        return content_hash(dumps(asdict(self)))


@dataclass
class CapabilityCounts:
    seeds: int = 0  # dataset sentences selected by the search
    seed_cases: int = 0  # after transforms (template variants), or written from templates
    perturbations: int = 0  # perturbed cases (INV/DIR)
    parsed: int = 0
    masked_templates: int = 0
    candidates: int = 0  # masked-LM fills proposed
    expansions: int = 0  # validated expansions written


@dataclass
class RunSummary:
    out: Path
    counts: dict[str, CapabilityCounts]
    dataset_stats: dict[str, Any]
    rejected: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def print_table(self) -> None:
        """The counts per capability, the skipped rows and the rejections, as a terminal table."""
        from rich.console import Console
        from rich.table import Table

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


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def __call__(self, stage: str) -> _Timer:
        self._stage = stage
        return self

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.seconds[self._stage] += time.perf_counter() - self._start


Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]


def expandable(task: Any, capabilities: Iterable[Any]) -> bool:
    """Grammar expansion applies to the MFT seeds of a one-field task's dataset search."""
    return len(task.inputs) == 1 and any(c.needs_dataset and c.test_type == "MFT" for c in capabilities)


def seed_cases(config: GenerateConfig, timer: _Timer | None = None, progress: Progress | None = None):
    """Search, templates and perturbations: returns (spec, capabilities, lexicon, dataset stats,
    per-capability seed counts, and a lazy, deterministic stream of source cases over all capabilities)."""
    report = progress or (lambda items, total, description: items)
    from .author.perturbed import perturbed_cases
    from .author.templates import template_cases
    from .requirements import load_spec
    from .sources.datasets import DatasetStats, load_examples
    from .sources.lexicon import load_lexicon
    from .sources.seeds import FillerPools, select_seeds, uses_contractions
    from .sources.transform import transform

    timer = timer or _Timer()
    with timer("load"):
        task = config.task if config.requirements is None and config.spec is None else None
        spec = load_spec(config.requirements, task, data=config.spec)
        capabilities = spec.select(config.capabilities)
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
        lexicon = load_lexicon(config.lexicon, compat=config.compat) if needed else None
        stats = DatasetStats()
    with timer("search"):  # the dataset is streamed: read, searched and dropped window by window
        selected: dict[str, list] = {}
        pools = FillerPools({})
        if any(c.needs_dataset for c in capabilities):

            def read():
                return load_examples(
                    config.dataset,
                    text_column=config.text_column,
                    label_column=config.label_column,
                    label_map=config.label_map,
                    split=config.split,
                    stats=stats,
                    encoding=config.encoding,
                    inputs=spec.task.inputs,
                    input_columns=config.input_columns,
                    labelled=config.labelled,
                    labels=spec.task.labels,
                    expand=uses_contractions(capabilities),
                    max_rows=config.max_rows,
                )

            read()  # resolve the source now: a missing file or column is an error before any work
            selected, pools, _ = select_seeds(
                read, capabilities, lexicon, max_seeds=config.max_seeds, seed=config.seed,
                compat=config.compat, progress=report, stats=stats,
            )  # fmt: skip
            if not stats.kept:
                raise InputError(f"{config.dataset}: no usable examples ({stats.skipped or 'empty'})")
            if not any(selected.values()) and not any(c.templates for c in capabilities):
                skipped = ", ".join(f"{n} {reason}" for reason, n in stats.skipped.items()) or "none"
                raise InputError(
                    f"{config.dataset}: no seeds, so the suite would test nothing: read {stats.read} rows, "
                    f"kept {stats.kept} (skipped: {skipped}), and no kept row satisfies the search of "
                    f"{', '.join(c.id for c in capabilities if c.needs_dataset)}"
                )
    with timer("templates"):  # template errors (a condition no value meets, ...) surface before any model
        written = {
            c.id: template_cases(c, spec.task, config.seed, max_cases=config.max_cases)
            for c in capabilities
            if c.templates
        }

    def sources(capability) -> Iterable[TestCase]:
        if capability.templates:
            return written[capability.id].cases(mlm=config.mlm)
        # fillers (LC7, LC8) come from the whole dataset, by label: the pools hold the drawn ones
        return transform(
            capability,
            selected[capability.id],
            pools,
            config.seed,
            max_variants=config.max_variants,
            compat=config.compat,
        )

    def stream() -> Iterator[TestCase]:
        for capability in capabilities:
            cases = sources(capability)
            yield from perturbed_cases(capability, cases, config.seed) if capability.perturb else cases

    seed_counts = {c.id: len(selected[c.id]) if c.needs_dataset else written[c.id].size for c in capabilities}
    return spec, capabilities, lexicon, stats, seed_counts, stream()


def _spooled(cases: Iterable[TestCase], out: Path) -> tuple[int, Iterator[TestCase]]:
    """The number of ``cases`` and the cases again, streamed back from an anonymous temporary file in
    ``out``: a list of all SST's 269k seed cases would hold about 250 MiB, growing with the seeds."""
    spool = tempfile.TemporaryFile(dir=out)
    n = 0
    for case in cases:
        spool.write((dumps(case.to_json()) + "\n").encode("utf-8"))
        n += 1
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

    ``workers`` processes expand chunks (``execute.local``), or with ``executor="ray"`` a pool of Ray
    actors (``execute.ray``; ``ray_address`` as for ``ray.init``, ``ray_actors`` default one per CPU or
    GPU); ``device`` and ``batch_size`` are where the masked LM runs and its rows per forward pass. None of
    these changes the suite's bytes on one device.
    """
    if workers < 1:
        raise InputError(f"--workers must be at least 1, not {workers}")
    if executor not in ("local", "ray"):
        raise InputError(f"--executor must be local or ray, not {executor!r}")
    if config.top_k_per not in ("seed", "production"):
        raise InputError(f"top_k_per must be 'seed' or 'production', not {config.top_k_per!r}")
    out = prepare_output_dir(out, resume=resume, overwrite=overwrite)
    state = _load_state(out, config) if resume else _fresh_state()
    timer = _Timer()
    spec, capabilities, lexicon, stats, seed_counts, cases = seed_cases(config, timer, progress)
    by_id = {capability.id: capability for capability in capabilities}

    counts = {cap_id: CapabilityCounts(seeds=n) for cap_id, n in seed_counts.items()}
    for cap_id, saved in state["counts"].items():
        counts[cap_id] = CapabilityCounts(**saved)
    rejected: Counter[str] = Counter(state["rejected"])

    expander = (
        _Expander(config, lexicon, by_id, timer)
        if config.expand and expandable(spec.task, capabilities)
        else None
    )
    if expander is not None:
        expander.device, expander.batch_size = device, batch_size
    cases_path = out / CASES
    if resume and cases_path.exists():
        with open(cases_path, "r+b") as f:  # drop what an interrupted chunk half-wrote
            f.truncate(state["offset"])
    total = 0
    if progress is not None:  # counting the seed cases gives the bar a total (spooled, not kept in memory)
        total, cases = _spooled(cases, out)
    first = state["chunks"]  # chunks finished before an interruption are not redone (nor counted again)
    chunks: Iterable[list[TestCase]] = islice(_chunks(cases, config.chunk_size), first, None)
    if progress is not None:  # the bar counts the chunks left, so its rate and ETA hold after --resume
        chunks = progress(chunks, max(0, -(-total // config.chunk_size) - first), "generate")
    bar = chunks
    pairs: Iterable[tuple[list[TestCase], ChunkResult | None]] = ((chunk, None) for chunk in chunks)
    ray_executor = None
    if expander is not None and executor == "ray":  # units expanded by Ray actors, merged in order
        from .execute.ray import RayExecutor

        ray_executor = RayExecutor(
            config, lexicon, by_id, expander.options(), address=ray_address, actors=ray_actors
        )
        pairs = ray_executor.map(chunks)
    elif expander is not None and workers > 1:  # chunks expanded in worker processes, merged in order
        from .execute.local import expand_in_processes

        pairs = expand_in_processes(chunks, workers, expander)
    calls: dict[str, dict] = {}  # worker process -> its model calls and stage times so far
    with JsonlWriter(cases_path, append=resume) as writer:
        for index, (chunk, result) in enumerate(pairs, start=first):
            for case in chunk:
                if case.kind == SEED:
                    counts[case.capability].seed_cases += 1
                else:
                    counts[case.capability].perturbations += 1
            if result is not None:
                expansions = result.apply(counts, rejected)
                calls.update(result.calls)
            else:
                expansions = expander.expand(chunk, counts, rejected) if expander else {}
            for case in chunk:
                writer.write(case.to_json())
                writer.write_all(expansions.get(case.id, ()))
            state = {
                "fingerprint": config.fingerprint(),
                "chunks": index + 1,
                "offset": writer.flush(),
                "counts": {k: asdict(v) for k, v in counts.items()},
                "rejected": dict(rejected),
            }
            atomic_write_json(out / STATE, state)
            if hasattr(bar, "set_postfix_str"):  # a bar or log lines: say where the run is
                done = counts[chunk[-1].capability]
                stages = ", ".join(  # where the time goes: parsing, differentiation, fill
                    f"{stage} {timer.seconds[stage]:.0f}s"
                    for stage in ("parse", "differentiate", "fill")
                    if stage in timer.seconds
                )
                bar.set_postfix_str(
                    f"{chunk[-1].capability}: {done.seed_cases} seed cases, {done.expansions} expansions"
                    + (f"; {stages}" if stages else "")
                )

    if ray_executor is not None:
        ray_executor.close()
    if calls:  # worker processes: their stage times and model calls, summed
        for worker in calls.values():
            for stage, seconds in worker.get("timings", {}).items():
                timer.seconds[stage] += seconds
    model_calls = _model_calls(expander, calls)
    summary = RunSummary(out, counts, asdict(stats), dict(rejected), dict(timer.seconds))
    _write_manifest(out, config, summary, spec, lexicon, expander)
    atomic_write_json(
        out / TIMINGS,
        {
            **{k: round(v, 3) for k, v in timer.seconds.items()},
            "model_calls": model_calls,
            "workers": workers,
        },
    )
    (out / STATE).unlink(missing_ok=True)  # a finished run needs no resume point
    return summary


@dataclass
class ChunkResult:
    """What expanding one chunk of seed cases adds: expansions by seed id (JSON lines, in order), counts
    by capability, rejections, and (for benchmarks, never in the outputs) model-call counters."""

    expansions: dict[str, list[str]]
    counts: dict[str, dict[str, int]]
    rejected: dict[str, int]
    calls: dict[str, float] = field(default_factory=dict)
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"expansions": self.expansions, "counts": self.counts, "rejected": self.rejected}

    @staticmethod
    def merge(results: list[ChunkResult]) -> ChunkResult:
        """The results of consecutive units of a chunk as one."""
        expansions: dict[str, list[str]] = {}
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        rejected: Counter[str] = Counter()
        for result in results:
            expansions.update(result.expansions)
            for capability, added in result.counts.items():
                counts[capability].update(added)
            rejected.update(result.rejected)
        calls: dict[str, Any] = {}
        for result in results:  # per worker process: its latest totals
            calls.update(result.calls)
        return ChunkResult(expansions, {k: dict(v) for k, v in counts.items()}, dict(rejected), calls)

    def apply(self, counts: dict[str, CapabilityCounts], rejected: Counter[str]) -> dict[str, list[str]]:
        for capability, added in self.counts.items():
            for name, n in added.items():
                setattr(counts[capability], name, getattr(counts[capability], name) + n)
        rejected.update(self.rejected)
        return self.expansions


class _Expander:
    """Parse → differentiate → fill for one chunk of seed cases. Models load once per process and only
    when a chunk needs them: a chunk whose result is cached (by the run's settings, the resources'
    checksums, the code and the chunk's cases) loads none."""

    def __init__(self, config: GenerateConfig, lexicon: Any, capabilities: dict, timer: _Timer):
        from .execute import bound_heap_growth
        from .expand.grammar import build_grammar, load_grammar
        from .expand.parsing import Parser
        from .sources.search import satisfies
        from .sources.transform import seed_text

        bound_heap_growth()  # in every process that expands: this one, its workers, Ray actors
        self.config, self.lexicon, self.capabilities, self.timer = config, lexicon, capabilities, timer
        self._satisfies, self._seed_text = satisfies, seed_text
        with timer("load"):
            # a directory is a treebank to build the reference PCFG from; otherwise a grammar file or name
            is_treebank = Path(config.grammar).is_dir()
            self.grammar = build_grammar(config.grammar) if is_treebank else load_grammar(config.grammar)
            self.context = _function_pairs(config.grammar, is_treebank)
            self.parser = Parser(config.parser)  # benepar itself loads on the first uncached parse
        self._differentiator = None
        self._mlm = None
        self.vocabulary = None
        self.fluency = None
        self.device = "auto"
        self.batch_size = 64
        self._identity: str | None = None

    @property
    def differentiator(self):
        if self._differentiator is None:
            from .expand.expansion import Differentiator

            self._differentiator = Differentiator(self.grammar)  # its candidate memo serves every seed
        return self._differentiator

    @property
    def mlm(self):
        """The masked LM, loaded on first use (with the vocabulary filter and the fluency scorer)."""
        if self._mlm is None:
            from .expand.fill import MaskedLM

            with self.timer("load"):
                self._mlm = MaskedLM.from_pretrained(self.config.mlm, device=self.device)
                self.vocabulary = _vocabulary_filter(self.config, self.grammar, self._mlm, self.lexicon)
            if self.config.fluency_threshold is not None:
                from .expand.fluency import Fluency, FluencyScorer

                self.fluency = Fluency(FluencyScorer(self._mlm), self.config.fluency_threshold)
        return self._mlm

    def options(self) -> dict[str, Any]:
        """Scheduling options a worker's expander takes over."""
        return {"device": self.device, "batch_size": self.batch_size}

    def identity(self) -> str:
        """What a chunk's result depends on besides its cases (no model is loaded to compute it)."""
        if self._identity is None:
            from .expand.identity import code_fingerprint, model_identity

            describe = getattr(self.lexicon, "describe", None)
            self._identity = content_hash(
                self.config.fingerprint(),
                code_fingerprint(),
                self.parser.identity,
                model_identity(self.config.mlm),
                dumps(self.grammar.provenance),
                dumps(self.context.provenance if self.context else None),
                dumps(describe() if describe else None),
                # the capabilities' specifications (requirements re-checked on every fill)
                *(dumps(_canonical(self.capabilities[c])) for c in sorted(self.capabilities)),
                self.device,
            )
        return self._identity

    def requirement(self, case: TestCase, new_text: str) -> bool:
        capability = self.capabilities[case.capability]
        return self._satisfies(capability, self._seed_text(case, new_text), case.label, self.lexicon)

    def _placement_check(self, case: TestCase, parse: Any) -> Callable[[tuple], bool]:
        """Whether a placement of masks can meet the case's requirement at all, told by filling each mask
        with a neutral word of its tag (every real fill is checked again in validation)."""
        from .records import MaskedTemplate

        def usable(masks: tuple[tuple[int, str], ...]) -> bool:
            words = [_PLACEHOLDERS.get(tag, "thing") for _, tag in masks]
            text, _ = MaskedTemplate("", case.id, parse, masks, "", (), (), 0.0).render(words)
            return self.requirement(case, text)

        return usable

    def expand(
        self, chunk: list[TestCase], counts: dict[str, CapabilityCounts], rejected: Counter[str]
    ) -> dict[str, list[str]]:
        """Expand ``chunk``, unit by unit, and add its counts: expansions by seed id, as JSON lines."""
        units = _units(chunk, self.config.unit_size)
        return ChunkResult.merge([self.expand_chunk(unit) for unit in units]).apply(counts, rejected)

    def cached(self, chunk: list[TestCase]) -> ChunkResult | None:
        """The chunk's cached result, if any (no model is loaded to tell)."""
        from .cache import Cache

        key = content_hash(self.identity(), *(dumps(case.to_json()) for case in chunk))
        cache = Cache("chunks")
        try:
            found = cache.get_many([key]).get(key)
        finally:
            cache.close()
        if found is None:
            return None
        return ChunkResult(found["expansions"], found["counts"], found["rejected"], cached=True)

    def expand_chunk(self, chunk: list[TestCase]) -> ChunkResult:
        """The chunk's result, from the chunk cache when it is there."""
        from .cache import Cache
        from .execute import release_free_memory

        key = content_hash(self.identity(), *(dumps(case.to_json()) for case in chunk))
        cache = Cache("chunks")
        try:
            found = cache.get_many([key]).get(key)
            if found is not None:
                return ChunkResult(found["expansions"], found["counts"], found["rejected"], cached=True)
            result = self._expand_uncached(chunk)
            release_free_memory()  # what the unit's batches freed, so the peak does not creep up
            cache.put_many({key: result.to_json()})
        finally:
            cache.close()
        return result

    def _expand_uncached(self, chunk: list[TestCase]) -> ChunkResult:
        # grammar expansion inserts words into dataset seeds of MFT tests (their editable spans)
        chunk = [case for case in chunk if case.kind == SEED and case.test_type == "MFT" and case.editable]
        counts: dict[str, CapabilityCounts] = defaultdict(CapabilityCounts)
        rejected: Counter[str] = Counter()
        if not chunk:
            return ChunkResult({}, {}, {})
        with self.timer("parse"):
            parses = self.parser.parse([case.text for case in chunk])
        templates = []
        with self.timer("differentiate"):
            for case, parse in zip(chunk, parses):
                if parse is None:
                    rejected["unparsable seed"] += 1
                    continue
                counts[case.capability].parsed += 1
                if _has_special_token(self.config.mlm, case.text, self):
                    rejected["seed with a special token of the masked LM"] += 1
                    continue
                found = self.differentiator.differentiate(
                    case.id,
                    parse,
                    top_k=self.config.top_k,
                    editable=case.editable,
                    per_production=self.config.compat or self.config.top_k_per == "production",
                    usable=None if self.config.compat else self._placement_check(case, parse),
                )
                counts[case.capability].masked_templates += len(found)
                templates.extend(found)
        by_seed = self._fill(chunk, templates, counts, rejected)
        if self._mlm is not None:
            self.timer.seconds["fill: masked-LM forward"] = self._mlm.forward_seconds  # part of "fill"
            if self.fluency is not None:
                self.timer.seconds["fill: fluency forward"] = self.fluency.scorer.forward_seconds
        counted = {
            capability: {name: n for name, n in asdict(c).items() if n} for capability, c in counts.items()
        }
        return ChunkResult(by_seed, counted, dict(rejected))

    def _fill(self, chunk, templates, counts, rejected) -> dict[str, list[str]]:
        if not templates:
            return {}
        from .expand.fill import FillStats, fill

        cases_by_id = {case.id: case for case in chunk}
        by_capability: dict[str, list] = defaultdict(list)
        for template in templates:
            by_capability[cases_by_id[template.case_id].capability].append(template)
        by_seed: dict[str, list[str]] = defaultdict(list)
        mlm = self.mlm
        for capability, group in by_capability.items():  # a chunk rarely spans two capabilities
            stats = FillStats()
            with self.timer("fill"):
                expansions = fill(
                    group,
                    cases_by_id,
                    mlm,
                    self.lexicon,
                    self.requirement,
                    fills_per_mask=self.config.fills_per_mask,
                    beam_size=self.config.beam_size,
                    top_n=self.config.top_n,
                    batch_size=self.batch_size,
                    stats=stats,
                    fluency=self.fluency,
                    context=self.context,
                    vocabulary=self.vocabulary,
                    first_beam=self.config.first_beam,
                )
                for expansion in expansions:
                    by_seed[expansion.seed_id].append(expansion.to_json())
            counts[capability].candidates += stats.proposed
            counts[capability].expansions += stats.kept
            rejected.update({f"fill: {reason}": n for reason, n in stats.rejected.items() if n})
        return dict(by_seed)

    def describe(self) -> dict[str, Any]:
        from .expand.identity import model_identity

        return {
            "grammar": self.grammar.provenance,
            "function_pairs": self.context.provenance if self.context else None,
            "parser": self.parser.identity,
            "mlm": {"identity": model_identity(self.config.mlm)},
        }


# A word of each word-level tag that no lexicon calls polar and that is no negation (placement checks).
_PLACEHOLDERS = {
    "CC": "and", "CD": "two", "DT": "the", "EX": "there", "FW": "etc", "IN": "of", "JJ": "other",
    "JJR": "older", "JJS": "oldest", "LS": "a", "MD": "can", "NN": "thing", "NNS": "things",
    "NNP": "John", "NNPS": "Americans", "PDT": "all", "POS": "'s", "PRP": "it", "PRP$": "its",
    "RB": "also", "RBR": "more", "RBS": "most", "RP": "up", "SYM": "&", "TO": "to", "UH": "oh",
    "VB": "do", "VBD": "did", "VBG": "doing", "VBN": "done", "VBP": "do", "VBZ": "does",
    "WDT": "which", "WP": "who", "WP$": "whose", "WRB": "where",
}  # fmt: skip


# A short chunk is cut into at least this many units, so that several workers share it.
MIN_UNITS = 4


def _units(chunk: list[TestCase], size: int) -> list[list[TestCase]]:
    """A chunk's units: consecutive runs of at most ``size`` cases, each expanded on its own; a short chunk
    is cut finer, into at least ``MIN_UNITS``, so that workers do not idle while one works through a large
    unit. The cut depends on the chunk and ``size`` alone, never on how many workers or actors share it:
    a unit's cases are batched together, and the masked LM's scores change in their last bits with the
    batch they are computed in (a logit by 7.6e-6 when a row is scored with others, even of its own
    length), which changed a rounded score between one and two workers on the alict60 seeds."""
    if size < 1:
        raise InputError(f"unit_size must be at least 1, not {size}")
    size = min(size, max(1, -(-len(chunk) // MIN_UNITS)))
    return [chunk[i : i + size] for i in range(0, len(chunk), size)] or [[]]


def _model_calls(expander: _Expander | None, workers: dict[str, dict]) -> dict[str, int]:
    """Masked-LM forward passes and rows (fills and fluency), over this process and the workers."""
    sources = list(workers.values())
    if expander is not None and expander._mlm is not None:
        mlm, fluency = expander._mlm, expander.fluency
        sources.append(
            {
                "mlm_passes": mlm.forward_passes,
                "mlm_rows": mlm.forward_rows,
                **(
                    {
                        "fluency_passes": fluency.scorer.forward_passes,
                        "fluency_rows": fluency.scorer.forward_rows,
                    }
                    if fluency is not None
                    else {}
                ),
            }
        )
    totals: Counter[str] = Counter()
    for calls in sources:
        totals.update({k: v for k, v in calls.items() if k != "timings"})
    return dict(totals)


def _canonical(value: Any) -> Any:
    """A JSON-able form of a spec object that is the same in every process (sets sorted, patterns as
    their source), for content hashes."""
    import dataclasses
    import re

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return [type(value).__name__, {f.name: _canonical(getattr(value, f.name)) for f in fields}]
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=dumps)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, re.Pattern):
        return ["re", value.pattern, value.flags]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _has_special_token(mlm_name: str, text: str, expander: _Expander) -> bool:
    """Whether ``text`` holds a special token of the masked LM (a literal [MASK] would be filled as a
    mask). Texts without any bracket-like character need no tokenizer to tell."""
    if not any(ch in text for ch in "[<"):
        return False
    return expander.mlm.has_special_token(text)


def _vocabulary_filter(config: GenerateConfig, grammar: Any, mlm: Any, lexicon: Any):
    """The fill vocabulary filter of ``config.vocabulary`` ("tags": by the grammar's lexicon and the
    tagger's dictionary, neutral words only; "all": none)."""
    if config.vocabulary == "all":
        return None
    if config.vocabulary != "tags":
        raise InputError(f"vocabulary must be 'tags' or 'all', not {config.vocabulary!r}")
    from .expand.vocabulary import TagDictionary, VocabularyFilter
    from .tagging import is_single_token, proper_noun, tagger_dictionary

    return VocabularyFilter(
        mlm.words,
        TagDictionary(grammar.lexical_counts, tagger_dictionary()),
        lexicon,
        proper_noun=proper_noun,
        single_token=is_single_token,
        identity=mlm.identity,
    )


def _function_pairs(grammar: str, is_treebank: bool):
    """The context check's word pairs: built from a treebank directory, shipped with a named grammar
    (``grammars/<name>.function_pairs.json``), or None (no check) for a grammar file without them."""
    from .expand.context import build_function_pairs, load_function_pairs

    if is_treebank:
        return build_function_pairs(grammar)
    path = Path(grammar)
    beside = path.with_suffix(".function_pairs.json") if path.suffix else None
    if beside is not None and not beside.exists():
        log.info("%s: no function-word pairs beside the grammar; the context check is off", grammar)
        return None
    return load_function_pairs(beside or grammar)


def _fresh_state() -> dict[str, Any]:
    """The resume point of a run that has finished no chunk yet."""
    return {"chunks": 0, "offset": 0, "counts": {}, "rejected": {}}


def _load_state(out: Path, config: GenerateConfig) -> dict[str, Any]:
    path = out / STATE
    if not path.exists():
        if (out / MANIFEST).exists():
            raise InputError(f"{out}: this run already finished; nothing to resume")
        return _fresh_state()
    state = load_json(path, "resume state")
    if state.get("fingerprint") != config.fingerprint():
        raise InputError.hint(
            f"{path}: the run in this directory used other settings; resume it with the same options "
            "or write to a new {out}",
            out="out=DIR",
        )
    return state


def _write_manifest(
    out: Path,
    config: GenerateConfig,
    summary: RunSummary,
    spec: Any,
    lexicon: Any,
    expander: _Expander | None,
) -> None:
    manifest = {
        "autocheck": __version__,
        "kind": "suite",
        "task": spec.task.to_json(),
        "capabilities": {c.id: _describe(c) for c in spec.capabilities if c.id in summary.counts},
        "settings": asdict(config),
        "fingerprint": config.fingerprint(),
        "environment": environment(),
        "resources": {
            **({"lexicon": lexicon.describe()} if lexicon else {}),
            **(expander.describe() if expander else {}),
        },
        "dataset": summary.dataset_stats,
        "counts": {k: asdict(v) for k, v in summary.counts.items()},
        "rejected": summary.rejected,
        "files": {"cases": CASES},
    }
    atomic_write_json(out / MANIFEST, manifest)


def _describe(capability: Any) -> dict[str, Any]:
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
