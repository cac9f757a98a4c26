"""One unit of generation work: parse → differentiate → fill for a few seed cases, with the models loaded
once per process (``Expander``), and the unit cut that every executor shares (``units``)."""

from __future__ import annotations

import inspect
import logging
import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cache import Cache
from ..config import GenerateConfig
from ..memory import bound_heap_growth, release_free_memory
from ..records import SEED, MaskedTemplate, TestCase
from ..resources import nltk_data_identity
from ..sources.lexicon import Lexicon, load_lexicon
from ..sources.search import satisfies
from ..sources.transform import seed_text
from ..store import InputError, canonical, code_fingerprint, content_hash, dumps
from ..tagging import is_single_token, proper_noun, tagger_dictionary
from .agreement import Agreement
from .context import build_function_pairs, load_function_pairs
from .expansion import Differentiator
from .grammar import build_grammar, load_grammar
from .identity import model_identity
from .insertions import (
    INSERTABLE,
    INTENSIFYING,
    SPREAD_CAP,
    carries,
    checks_for,
    insertion_lexicon,
    intensifier_sites,
    intensifies,
    seed_sites,
    vocabulary_limits,
)
from .parsing import Parser
from .reparse import Reparse
from .validate import FillStats, tag_seeds, users_check
from .vocabulary import TagDictionary, VocabularyFilter

if TYPE_CHECKING:
    from ..requirements import Capability
    from .context import FunctionPairs
    from .fluency import Fluency
    from .mlm import MaskedLM
    from .slot import SlotRule

log = logging.getLogger(__name__)


class Timer:
    """Seconds spent per stage, summed over the ``with timer("stage"):`` blocks; with a capability
    (``timer("fill", "LC2")``) also under ``"LC2/fill"``, that capability's share (``by_capability``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._open: list[tuple[str, str | None, float]] = []  # a stack: blocks may nest (a model loads)

    def __call__(self, stage: str, capability: str | None = None) -> Timer:
        self._next = (stage, capability)
        return self

    def __enter__(self) -> None:
        self._open.append((*self._next, time.perf_counter()))

    def __exit__(self, *exc: object) -> None:
        stage, capability, start = self._open.pop()
        seconds = time.perf_counter() - start
        self.seconds[stage] += seconds
        if capability is not None:
            self.seconds[f"{capability}/{stage}"] += seconds


def by_capability(seconds: dict[str, float]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """A ``Timer``'s seconds split into the stages' totals and each capability's own shares."""
    totals: dict[str, float] = {}
    shares: dict[str, dict[str, float]] = defaultdict(dict)
    for key, value in seconds.items():
        capability, _, stage = key.rpartition("/")
        if capability:
            shares[capability][stage] = value
        else:
            totals[key] = value
    return totals, dict(shares)


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
class ChunkResult:
    """What expanding one chunk of seed cases adds: expansions by seed id (JSON lines, in order), counts
    by capability, rejections, and (for benchmarks, never in the outputs) model-call counters."""

    expansions: dict[str, list[dict[str, Any]]]  # each a case's JSON record
    counts: dict[str, dict[str, int]]
    rejected: dict[str, int]
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # by worker process
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"expansions": self.expansions, "counts": self.counts, "rejected": self.rejected}

    @staticmethod
    def merge(results: list[ChunkResult]) -> ChunkResult:
        """The results of consecutive units of a chunk as one."""
        expansions: dict[str, list[dict[str, Any]]] = {}
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        rejected: Counter[str] = Counter()
        for result in results:
            expansions.update(result.expansions)
            for capability, added in result.counts.items():
                counts[capability].update(added)
            rejected.update(result.rejected)
        calls: dict[str, dict[str, Any]] = {}
        for result in results:  # per worker process: its latest totals
            calls.update(result.calls)
        return ChunkResult(expansions, {k: dict(v) for k, v in counts.items()}, dict(rejected), calls)

    def apply(
        self, counts: dict[str, CapabilityCounts], rejected: Counter[str]
    ) -> dict[str, list[dict[str, Any]]]:
        for capability, added in self.counts.items():
            for name, n in added.items():
                setattr(counts[capability], name, getattr(counts[capability], name) + n)
        rejected.update(self.rejected)
        return self.expansions


class Expander:
    """Parse → differentiate → fill for one chunk of seed cases. Models load once per process and only
    when a chunk needs them: a chunk whose result is cached (by the run's settings, the resources'
    checksums, the code and the chunk's cases) loads none."""

    def __init__(
        self,
        config: GenerateConfig,
        lexicon: Any,
        capabilities: dict[str, Capability],
        timer: Timer | None = None,
        *,
        device: str = "auto",
        batch_size: int = 64,
    ):
        bound_heap_growth()  # in every process that expands: this one, its workers, Ray actors
        self.config, self.lexicon, self.capabilities = config, lexicon, capabilities
        self.timer = timer = timer if timer is not None else Timer()
        self.device, self.batch_size = device, batch_size  # where the masked LM runs, its rows per pass
        # checked at start-up (no model loaded): what --precision auto means here, for the chunk cache key
        # and the manifest; workers on another machine check again
        self.precision = _resolved_precision(config.precision, device)
        self._satisfies = satisfies
        self._seed_text = seed_text
        self.checks = [users_check(name)() for name in config.checks]  # a user's own, after ours
        self.reparse = config.reparse == "on"  # the parser's check, after a user's, before fluency
        self.agreement = config.agreement == "on"
        self.word_checks = [] if config.compat else checks_for(config.insertions)  # insertions.py, words.py
        # the intensifiers the fill vocabulary admits (``vocabulary_limits``) kept where they keep the label
        mode = "any" if config.compat else config.insertions
        self.domain_lexicons = tuple(_domain_lexicon(name) for name in config.domain_lexicons or ())
        self.polarity_exempt = intensifies(lexicon, self.domain_lexicons) if mode in INTENSIFYING else None
        # what judges an inserted word's polarity (the requirement reads ``lexicon`` itself)
        self.insertion_lexicon = insertion_lexicon(lexicon, mode, self.domain_lexicons, config.adjectives)
        self.intensify = intensifier_sites(lexicon) if mode in INTENSIFYING else None
        with timer("load"):
            # a directory is a treebank to build the reference PCFG from; otherwise a grammar file or name
            is_treebank = Path(config.grammar).is_dir()
            self.grammar = build_grammar(config.grammar) if is_treebank else load_grammar(config.grammar)
            self.context = _function_pairs(config.grammar, is_treebank)
            self.parser = Parser(config.parser)  # benepar itself loads on the first uncached parse
        self._differentiator: Differentiator | None = None
        self._mlm: MaskedLM | None = None
        self._calls_before = (0, 0, 0.0)  # the masked LM's counters when this expander took it
        self.worker: str | None = None  # the process id of a worker's expander (``start_expander``)
        self.vocabulary: VocabularyFilter | None = None
        self.fluency: Fluency | None = None
        self.slot: SlotRule | None = None  # the slot rule, with the vocabulary filter it needs
        self._identity: str | None = None

    @property
    def differentiator(self) -> Differentiator:
        if self._differentiator is None:
            self._differentiator = Differentiator(self.grammar)  # its candidate memo serves every seed
        return self._differentiator

    @property
    def loaded_mlm(self) -> MaskedLM | None:
        """The masked LM if a unit has loaded it, else None (loading nothing)."""
        return self._mlm

    @property
    def mlm(self) -> MaskedLM:
        """The masked LM, loaded on first use (with the vocabulary filter and the fluency scorer)."""
        if self._mlm is None:
            from .mlm import shared_masked_lm

            with self.timer("load"):  # loaded once per process: a second generate call reuses it
                mlm = self._mlm = shared_masked_lm(
                    self.config.mlm, device=self.device, precision=self.precision
                )
                # the shared model's counters so far: this expander reports its own calls
                self._calls_before = (mlm.forward_passes, mlm.forward_rows, mlm.forward_seconds)
                self.vocabulary = _vocabulary_filter(self.config, self.grammar, mlm, self.insertion_lexicon)
                if self.config.slot_threshold is not None and self.vocabulary is not None:
                    from .slot import SlotRule

                    try:
                        self.slot = SlotRule(self.config.slot_threshold)
                    except ValueError as e:
                        raise InputError(f"--slot-threshold: {e}") from None
            if self.config.fluency_threshold is not None:
                from .fluency import Fluency, FluencyScorer

                threshold = self.config.fluency_threshold  # the scorer gives up on certain rejections
                scorer = FluencyScorer(mlm, window=self.config.fluency_window, floor=-threshold)
                self.fluency = Fluency(scorer, threshold)
        return self._mlm

    def options(self) -> dict[str, Any]:
        """The constructor's scheduling options, for a worker's expander to take over."""
        return {"device": self.device, "batch_size": self.batch_size}

    def identity(self) -> str:
        """What a chunk's result depends on besides its cases (no model is loaded to compute it)."""
        if self._identity is None:
            describe = getattr(self.lexicon, "describe", None)
            self._identity = content_hash(
                self.config.fingerprint(),
                code_fingerprint(),
                nltk_data_identity(),  # validation tags every fill and reads lemmas
                self.parser.identity,
                model_identity(self.config.mlm),
                dumps(self.grammar.provenance),
                dumps(self.context.provenance if self.context else None),
                dumps(describe() if describe else None),
                *(dumps(domain.describe()) for domain in self.domain_lexicons),
                # the capabilities' specifications (requirements re-checked on every fill)
                *(dumps(canonical(self.capabilities[c])) for c in sorted(self.capabilities)),
                self.device,
                *(() if self.precision == "fp32" else (self.precision,)),
                *(_source(check) for check in self.checks),  # a user's check: its code
            )
        return self._identity

    def requirement(self, case: TestCase, new_text: str) -> bool:
        capability = self.capabilities[case.capability]
        return self._satisfies(capability, self._seed_text(case, new_text), case.label, self.lexicon)

    def _placement_check(self, case: TestCase, parse: Any) -> Callable[[tuple[tuple[int, str], ...]], bool]:
        """Whether a placement of masks can meet the case's requirement at all, told by filling each mask
        with a neutral word of its tag (every real fill is checked again in validation), at a site whose
        seed words the ``--insertions`` mode accepts (``insertions.seed_sites``)."""

        sites = seed_sites(self.config.insertions, parse.tokens)

        def usable(masks: tuple[tuple[int, str], ...]) -> bool:
            if sites is not None and not sites(masks):
                return False
            words = [_PLACEHOLDERS.get(tag, "thing") for _, tag in masks]
            text, _ = MaskedTemplate("", case.id, parse, masks, "", (), (), 0.0).render(words)
            return self.requirement(case, text)

        return usable

    def cached(self, chunk: list[TestCase]) -> ChunkResult | None:
        """The chunk's cached result, if any (no model is loaded to tell)."""
        with Cache("chunks") as cache:
            found = cache.get(self._chunk_key(chunk))
        if found is None:
            return None
        return ChunkResult(found["expansions"], found["counts"], found["rejected"], cached=True)

    def expand_chunk(self, chunk: list[TestCase]) -> ChunkResult:
        """The chunk's result, from the chunk cache when it is there."""
        key = self._chunk_key(chunk)
        with Cache("chunks") as cache:
            found = cache.get(key)
            if found is not None:
                return ChunkResult(found["expansions"], found["counts"], found["rejected"], cached=True)
            result = self._expand_uncached(chunk)
            release_free_memory()  # what the unit's batches freed, so the peak does not creep up
            cache.put_many({key: result.to_json()})
        return result

    def _chunk_key(self, chunk: list[TestCase]) -> str:
        return content_hash(self.identity(), *(dumps(case.to_json()) for case in chunk))

    def _expand_uncached(self, chunk: list[TestCase]) -> ChunkResult:
        # grammar expansion inserts words into dataset seeds of MFT tests (their editable spans)
        chunk = [case for case in chunk if case.kind == SEED and case.test_type == "MFT" and case.editable]
        counts: dict[str, CapabilityCounts] = defaultdict(CapabilityCounts)
        rejected: Counter[str] = Counter()
        if not chunk:
            return ChunkResult({}, {}, {})
        started = time.perf_counter()
        with self.timer("parse"):
            parses = self.parser.parse([case.text for case in chunk])
        # one batched parse: each capability's share by its number of cases (a unit rarely spans two)
        share = (time.perf_counter() - started) / len(chunk)
        for capability, n in Counter(case.capability for case in chunk).items():
            self.timer.seconds[f"{capability}/parse"] += share * n
        templates = []
        intensifiers_only: set[str] = set()  # templates of adjective sites alone (``fill``)
        # the tagger's tags of the seeds, which validation reads: made here for the adjective sites, and
        # handed on to validation (``fill``), which would tag the seeds again
        seed_tags: dict[str, list[Any]] = {}
        if self.intensify is not None:
            tag_seeds((p for p in parses if p is not None), seed_tags)
        for case, parse in zip(chunk, parses):
            with self.timer("differentiate", case.capability):
                if parse is None:
                    rejected["unparsable seed"] += 1
                    continue
                counts[case.capability].parsed += 1
                if _has_special_token(self.config.mlm, case.text, self):
                    rejected["seed with a special token of the masked LM"] += 1
                    continue
                usable = None if self.config.compat else self._placement_check(case, parse)
                found = self.differentiator.differentiate(
                    case.id,
                    parse,
                    top_k=self.config.kept_top_k,
                    editable=case.editable,
                    per_production=self.config.compat or self.config.top_k_per == "production",
                    usable=usable,
                    insertable=None if self.config.compat else INSERTABLE[self.config.insertions],
                    protect_names=not self.config.compat,
                    # a seed's ungraded attributive adjectives as sites only under ``modifiers``, fuzz's
                    # setting from its round 4 to 20 (docs/fuzz-history.md): ``phrases`` was read blind
                    # without them, in generate and in fuzz
                    attributive_phrases=not self.config.compat and self.config.insertions == "modifiers",
                )
                if self.intensify is not None:
                    # the adjectives carrying the seed's label, to grade with an intensifier
                    sites = self.differentiator.adjective_sites(
                        case.id,
                        parse,
                        partial(carries, self.lexicon, case.label),
                        editable=case.editable,
                        usable=usable,
                        protect_names=True,
                        tags=[tag for _, _, tags in seed_tags[parse.text] for tag in tags],
                    )
                    regular = {template.masks for template in found}
                    sites = [template for template in sites if template.masks not in regular]
                    intensifiers_only.update(template.id for template in sites)
                    found += sites
                counts[case.capability].masked_templates += len(found)
                templates.extend(found)
        by_seed = self._fill(chunk, templates, counts, rejected, intensifiers_only, seed_tags)
        if self._mlm is not None:
            self.timer.seconds["fill: masked-LM forward"] = self._mlm.forward_seconds - self._calls_before[2]
            if self.fluency is not None:
                self.timer.seconds["fill: fluency forward"] = self.fluency.scorer.forward_seconds
        counted = {
            capability: {name: n for name, n in asdict(c).items() if n} for capability, c in counts.items()
        }
        return ChunkResult(by_seed, counted, dict(rejected))

    def _fill(
        self,
        chunk: list[TestCase],
        templates: list[MaskedTemplate],
        counts: dict[str, CapabilityCounts],
        rejected: Counter[str],
        intensifiers_only: Collection[str] = (),
        seed_tags: dict[str, list[Any]] | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        if not templates:
            return {}
        from .fill import fill

        cases_by_id = {case.id: case for case in chunk}
        by_capability: dict[str, list[MaskedTemplate]] = defaultdict(list)
        for template in templates:
            by_capability[cases_by_id[template.case_id].capability].append(template)
        by_seed: dict[str, list[dict[str, Any]]] = defaultdict(list)
        mlm = self.mlm
        for capability, group in by_capability.items():  # a chunk rarely spans two capabilities
            stats = FillStats()
            with self.timer("fill", capability):
                expansions = fill(
                    group,
                    cases_by_id,
                    mlm,
                    self.insertion_lexicon,
                    self.requirement,
                    fills_per_mask=self.config.fills_per_mask,
                    adjective_fills=None if self.config.compat else self.config.adjective_fills,
                    beam_size=self.config.beam_size,
                    top_n=self.config.top_n,
                    batch_size=self.batch_size,
                    stats=stats,
                    fluency=self.fluency,
                    context=self.context,
                    vocabulary=self.vocabulary,
                    slot=self.slot,
                    first_beam=self.config.first_beam,
                    spread=self.config.spread == "words" and not self.config.compat,
                    spread_cap=SPREAD_CAP if self.config.insertions == "phrases" else None,
                    polarity_exempt=self.polarity_exempt,
                    word_checks=self.word_checks,
                    intensify=self.intensify,
                    intensifiers_only=intensifiers_only,
                    seed_tags=seed_tags,
                    checks=[
                        *self.checks,
                        *([Agreement()] if self.agreement else []),
                        *([Reparse(self.parser)] if self.reparse else []),
                    ],
                )
                for expansion in expansions:
                    assert expansion.seed_id is not None  # fill sets it on every expansion
                    by_seed[expansion.seed_id].append(expansion.to_json())
            counts[capability].candidates += stats.proposed
            counts[capability].expansions += stats.kept
            rejected.update({f"fill: {reason}": n for reason, n in stats.rejected.items() if n})
            if stats.slot:  # templates, not candidates: none of their fills was proposed
                rejected["fill: slot"] += stats.slot
        return dict(by_seed)

    def describe(self) -> dict[str, Any]:
        judge = getattr(self.insertion_lexicon, "describe", None)
        return {
            # what the polarity of inserted words was judged by, where it is not the lexicon itself
            **(
                {"insertion_lexicon": judge()} if self.insertion_lexicon is not self.lexicon and judge else {}
            ),
            "grammar": self.grammar.provenance,
            "function_pairs": self.context.provenance if self.context else None,
            "parser": self.parser.identity,
            "mlm": {"identity": model_identity(self.config.mlm), "precision": self.precision},
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


def start_expander(
    config: GenerateConfig, lexicon: Any, capabilities: dict[str, Any], options: dict[str, Any]
) -> Expander:
    """A worker process's expander (``execute.Work.start``): its results report the process's model calls."""
    expander = Expander(config, lexicon, capabilities, **options)
    expander.worker = str(os.getpid())
    return expander


def expand_unit(expander: Expander, unit: list[TestCase]) -> ChunkResult:
    """One unit expanded (``execute.Work.step``); a worker's result carries its process's model calls and
    stage times so far (the parent keeps the latest of each worker and sums them)."""
    result = expander.expand_chunk(unit)
    if expander.worker is not None:
        timings = dict(expander.timer.seconds)
        result.calls = {expander.worker: {**model_calls(expander, {}), "timings": timings}}
    return result


# A short chunk is cut into at least this many units, so that several workers share it.
MIN_UNITS = 4


def units(chunk: list[TestCase], size: int) -> list[list[TestCase]]:
    """A chunk's units: consecutive runs of at most ``size`` cases, each expanded on its own; a short chunk
    is cut finer, into at least ``MIN_UNITS``, so that workers do not idle while one works through a large
    unit. The cut depends on the chunk and ``size`` alone, never on how many workers or actors share it:
    a unit's cases are batched together, and the masked LM's scores change in their last bits with the
    batch they are computed in (even among rows of one length), which can change a rounded score."""
    if size < 1:
        raise InputError(f"unit_size must be at least 1, not {size}")
    size = min(size, max(1, -(-len(chunk) // MIN_UNITS)))
    return [chunk[i : i + size] for i in range(0, len(chunk), size)] or [[]]


def model_calls(expander: Expander | None, workers: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Masked-LM forward passes and rows (fills and fluency), over this process and the workers."""
    sources = list(workers.values())
    if expander is not None and expander.loaded_mlm is not None:
        mlm, fluency = expander.loaded_mlm, expander.fluency
        sources.append(
            {
                "mlm_passes": mlm.forward_passes - expander._calls_before[0],
                "mlm_rows": mlm.forward_rows - expander._calls_before[1],
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


def _has_special_token(mlm_name: str, text: str, expander: Expander) -> bool:
    """Whether ``text`` holds a special token of the masked LM (a literal [MASK] would be filled as a
    mask). Texts without any bracket-like character need no tokenizer to tell."""
    if not any(ch in text for ch in "[<"):
        return False
    return expander.mlm.has_special_token(text)


def _domain_lexicon(name_or_path: str) -> Lexicon:
    """``--domain-lexicon``: a file is built once per process for its bytes (``load_lexicon``), so the
    workers forked after the main process's expander find it built, and a notebook's second call reuses
    it; an error names the option."""
    try:
        return load_lexicon(name_or_path)
    except InputError as e:
        raise InputError(f"--domain-lexicon {e}") from None


def _vocabulary_filter(
    config: GenerateConfig, grammar: Any, mlm: MaskedLM, lexicon: Any
) -> VocabularyFilter | None:
    """The fill vocabulary filter of ``config.vocabulary`` ("tags": by the grammar's lexicon and the
    tagger's dictionary, neutral words only; "all": none)."""
    if config.vocabulary == "all":
        return None
    if config.vocabulary != "tags":
        raise InputError(f"vocabulary must be 'tags' or 'all', not {config.vocabulary!r}")
    closed, excluded, polar = vocabulary_limits("any" if config.compat else config.insertions)
    return VocabularyFilter(
        mlm.words,
        TagDictionary(grammar.lexical_counts, tagger_dictionary()),
        lexicon,
        proper_noun=proper_noun,
        single_token=is_single_token,
        identity=mlm.identity,
        closed=closed,
        excluded=excluded,
        polar=polar,
    )


def _resolved_precision(precision: str, device: str) -> str:
    """``precision`` with ``auto`` resolved for ``device`` (a one-line error for ``--device cuda`` without
    a GPU, as loading the model would give). fp32 and bf16 are told without importing torch: a fully cached
    run needs no model, nor torch, and a parent that imported torch spawns its workers instead of forking
    them (execute/local.py), each importing everything again."""
    if precision in ("fp32", "bf16"):
        return precision
    from .mlm import resolve_device, resolve_precision

    try:
        return resolve_precision(precision, resolve_device(device))
    except ValueError as e:
        raise InputError(f"--precision {precision}: {e}") from None


def _function_pairs(grammar: str, is_treebank: bool) -> FunctionPairs | None:
    """The context check's word pairs: built from a treebank directory, shipped with a named grammar
    (``grammars/<name>.function_pairs.json``), or None (no check) for a grammar file without them."""
    if is_treebank:
        return build_function_pairs(grammar)
    path = Path(grammar)
    beside = path.with_suffix(".function_pairs.json") if path.suffix else None
    if beside is not None and not beside.exists():
        log.info("%s: no function-word pairs beside the grammar; the context check is off", grammar)
        return None
    return load_function_pairs(beside or grammar)


def _source(check: Any) -> str:
    """A user's check as its class's source code (its qualified name where the source is not at hand), so
    a cached chunk is reused only while the check's code is the same."""
    kind = type(check)
    try:
        return inspect.getsource(kind)
    except (OSError, TypeError):
        return f"{kind.__module__}.{kind.__qualname__}"
