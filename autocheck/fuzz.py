"""Fuzzing guided by the model under test: search each seed's valid expansions for the ones it gets wrong.

A generated suite is model-agnostic; ``fuzz`` is the other mode. For each MFT dataset seed that the target
model passes, it asks the model about the seed's expansions (the same parsing, production differentiation,
masked-LM fill and validation as ``generate``: ``expand.job.Expander``), scores each by how much
probability the model still puts on the expected label(s) (lower: nearer to failing), and goes on from
the ``beam`` lowest-scoring partial edits, which are parsed and expanded again (one more insertion per
``depth``), until a case fails, the seed's queries are spent or ``depth`` is reached. Every query is a
model input; the seed's own answer is its first. Only candidates validation kept are ever asked.

At each depth a seed's candidates are asked in two rounds: first the masked LM's best fill at each
insertion site, then the other fills, those of the sites whose first moved the model furthest first; a
seed that broke in the first round asks no more. Each seed has ``queries``; what a seed of the chunk
leaves unspent (it broke, or ran out of valid candidates) goes to the seeds of the same chunk that have
more candidates than queries left (``_Pool``), so ``queries`` is the chunk's average per seed.

Whatever it found is written as an ordinary suite: each fuzzed seed, the failures found for it and, for a
seed left unbroken, its nearest miss (a passing expansion: with its seed it also forms an INV test, as
every expansion does in ``run``). Each found case names how it was found in ``provenance["fuzz"]``: the
target model, its outcome there, the depth, the queries spent on its seed when it was asked, its score
(the probability the target put on the expected labels), and the edit path
(the production and words of each insertion). ``autocheck run`` reruns the suite on any other model.

The seeds come from a dataset search as in ``generate``, or from an existing suite (``seeds_from``:
its MFT seed cases, fuzzed with the settings given, which should be the suite's own).

Reproducible and resumable as ``generate`` is: seeds are taken in chunks of ``chunk_size``, all the
seeds of a chunk advance one depth together (their partial edits expanded in one call of the executor,
cut into the same units whatever the workers; their candidates asked in one batched model call), and a
chunk's cases are written and checkpointed before the next begins, so an interrupted fuzz resumes after
its last finished chunk with the same bytes. Expansions come from the chunk cache and answers from the
prediction cache, so a rerun does no model work it has done before. With ``workers`` the executor's
processes start once for the whole search, before a target given as a spec is loaded (so that they fork
from a process whose torch has not run).
"""

from __future__ import annotations

import logging
import math
import re
import string
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from . import __version__
from .config import FUZZ_EXPANSION, GenerateConfig
from .execute import expand_chunks, expansion_work, make_executor
from .execute.local import THREADS, limit_threads
from .expand.job import Expander, Timer
from .expect import mft_outcome
from .generate import Progress, describe_capability, expandable, seed_cases
from .models import Model, as_model
from .outputs import FAIL, allowed
from .records import EXPANSION, SEED, TestCase
from .requirements import load_spec
from .resources import ResourceMissing
from .run import input_of
from .sources.lexicon import NEGATIONS, NEUTRAL, Lexicon, load_lexicon, relational_adjectives
from .store import InputError, content_hash, dumps, environment, prepare_output_dir
from .suite import CASES, MANIFEST, STATE, SUITE_FILES, SuiteWriter, iter_cases, load_state, read_manifest

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchConfig:
    """How far the fuzzer searches each seed (hashed with the generation settings to guard --resume)."""

    queries: int = 50  # model inputs per seed, its own answer included (on average over a chunk: _Pool)
    beam: int = 3  # partial edits a seed's search goes on from, at each depth
    depth: int = 2  # inserted words' steps at most (each step one expansion of the previous edit)
    max_queries: int | None = None  # in total: no chunk is started once this many were spent

    def __post_init__(self) -> None:
        for name in ("queries", "beam", "depth"):
            if getattr(self, name) < 1:
                raise InputError(f"--{name} must be at least 1, not {getattr(self, name)}")


@dataclass
class FuzzCounts:
    seeds: int = 0  # MFT seed cases the target was asked about
    already_failing: int = 0  # seeds the target fails (or cannot answer): nothing to search
    broken: int = 0  # seeds for which a failing expansion was found
    failures: int = 0  # failing expansions found
    near_misses: int = 0  # nearest passing expansions of the seeds left unbroken
    # why the others were left unbroken: validation kept no candidate (no insertion site, or every fill
    # rejected); every valid candidate was asked, to --depth; queries ran out with candidates left
    no_candidate: int = 0
    exhausted: int = 0
    out_of_queries: int = 0
    queries: int = 0  # model inputs asked, seeds included
    errors: int = 0  # inputs without an answer (never a failure)


@dataclass
class FuzzSummary:
    out: Path
    counts: dict[str, FuzzCounts]
    timings: dict[str, float] = field(default_factory=dict)
    # the failures inserting a descriptive adjective, and those adjectives, most frequent first (None:
    # WordNet absent)
    descriptive: tuple[int, tuple[str, ...]] | None = None

    def print_table(self) -> None:
        # a row per count, a column per capability: the counts' names stay whole in a narrow terminal
        table = Table(title=f"fuzz suite written to {self.out}")
        names = list(asdict(FuzzCounts()))
        columns = {cap_id: asdict(counts) for cap_id, counts in self.counts.items()}
        if len(columns) > 1:
            columns["all"] = {name: sum(c[name] for c in columns.values()) for name in names}
        table.add_column("")
        for cap_id in columns:
            table.add_column(cap_id, justify="right")
        for name in names:
            table.add_row(name.replace("_", " "), *(f"{c[name]:,}" for c in columns.values()))
        console = Console()
        console.print(table)
        short = sum(c.out_of_queries for c in self.counts.values())
        if short:
            seeds = "seed" if short == 1 else "seeds"
            console.print(f"{short:,} unbroken {seeds} had candidates left when their --queries ran out")
        if self.descriptive and self.descriptive[0]:
            found, words = self.descriptive
            failures = sum(c.failures for c in self.counts.values())
            shown = ", ".join(repr(word) for word in words[:5]) + (", ..." if len(words) > 5 else "")
            console.print(
                f"{found:,} of the {failures:,} failures insert a descriptive adjective ({shown}), a word "
                "that can judge though the lexicon leaves it unscored: check that those keep the label "
                "(docs/fuzz.md)"
            )


@dataclass
class _Search:
    """One seed's search: what it spent, what it saw, where it goes on from and what it found."""

    seed: TestCase
    budget: int
    spent: int = 1  # the seed's own answer
    seen: set[str] = field(default_factory=set)
    frontier: list[TestCase] = field(default_factory=list)  # the partial edits it goes on from
    failures: list[TestCase] = field(default_factory=list)
    nearest: tuple[float, TestCase] | None = None
    pending: list[tuple[Site, TestCase]] = field(default_factory=list)  # this depth's, not yet asked


@dataclass
class _Pool:
    """The queries a chunk's finished seeds (broken, or out of candidates) left unspent, for the seeds
    that still have more candidates than queries: a short seed's budget goes where the search can use it.
    Granted in seed order, so the same chunk shares the same way whatever the workers."""

    queries: int = 0

    def release(self, done: list[_Search]) -> None:
        for s in done:
            self.queries += s.budget - s.spent
            s.budget = s.spent

    def grant(self, wants: list[tuple[_Search, int]]) -> None:
        """Equal shares to the seeds that want more queries than they have left, none more than it wants."""
        short = [(s, n - (s.budget - s.spent)) for s, n in wants if n > s.budget - s.spent]
        while self.queries and short:
            share, still = max(1, self.queries // len(short)), []
            for s, need in short:
                given = min(share, need, self.queries)
                s.budget += given
                self.queries -= given
                if need > given:
                    still.append((s, need - given))
            short = still


Site = tuple[str, str, int]  # where a candidate inserts: its seed, production and first offset in the seed
Answers = Callable[[list[TestCase]], list[tuple[float, str | None]]]  # per case: (score, outcome or None)
Expand = Callable[[list[TestCase]], dict[str, list[dict[str, Any]]]]


def fuzz_config(**settings: Any) -> GenerateConfig:
    """A ``GenerateConfig`` with fuzz's own defaults (``config.FUZZ_EXPANSION``: more candidates per
    partial edit than a suite keeps), as ``autocheck fuzz`` makes it."""
    return GenerateConfig(**{**FUZZ_EXPANSION, **settings})


def fuzz(
    config: GenerateConfig,
    model: Any,
    out: str | Path,
    *,
    search: SearchConfig = SearchConfig(),
    seeds_from: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: Progress | None = None,
    workers: int = 1,
    device: str = "auto",
    batch_size: int = 64,
    executor: str = "local",
    ray_address: str | None = None,
    ray_actors: int | None = None,
    model_batch_size: int = 32,
) -> FuzzSummary:
    """Fuzz the MFT dataset seeds ``config`` selects (or those of the suite directory ``seeds_from``)
    against ``model`` (any form ``models.as_model`` takes; a spec such as a directory or a hub id is loaded
    with ``model_batch_size`` inputs per batch, on ``device``) and write what was found into ``out`` as a
    suite; the scheduling options are ``generate``'s."""
    started, cpu_started = time.perf_counter(), time.process_time()
    scheduler = make_executor(executor, workers=workers, address=ray_address, actors=ray_actors)
    with closing(scheduler):  # its worker processes serve every depth of every chunk, then stop
        out = prepare_output_dir(
            out, resume=resume, overwrite=overwrite, files=SUITE_FILES, manifest=MANIFEST
        )
        timer = Timer()
        if seeds_from is None:
            spec, capabilities, lexicon, _, _, cases = seed_cases(config, timer, progress)
        else:
            spec, capabilities, lexicon, cases = suite_seeds(config, Path(seeds_from))
        if not expandable(spec.task, capabilities) or not config.expand:
            raise InputError(
                f"{spec.path}: fuzz expands the MFT seeds of a one-field task's dataset search; none of "
                f"{', '.join(c.id for c in capabilities)} has any"
            )
        expander = Expander(
            config, lexicon, {c.id: c for c in capabilities}, timer, device=device, batch_size=batch_size
        )
        if isinstance(model, str):  # a spec loads below, running torch: the workers fork first
            getattr(scheduler, "prepare", lambda work: None)(expansion_work(expander))
        # the target's answers must not depend on --workers or --executor: torch sums in another order
        # with another number of threads (a score of 0.897713 with one, 0.897712 with two), and the main
        # process of a one-worker run expands on THREADS; so the target always runs on THREADS too
        limit_threads(THREADS)
        target = as_model(model, spec.task, batch_size=model_batch_size, device=device)
        source = () if seeds_from is None else (str(Path(seeds_from).resolve()),)
        fingerprint = content_hash(config.fingerprint(), dumps(asdict(search)), target.identity, *source)
        state: dict[str, Any] = {"chunks": 0, "offset": 0, "counts": {}}
        if resume:
            state = _resume_point(out, fingerprint)
        counts = {c.id: FuzzCounts(**state["counts"].get(c.id, {})) for c in capabilities}

        def expand(nodes: list[TestCase]) -> dict[str, list[dict[str, Any]]]:
            found: dict[str, list[dict[str, Any]]] = {}
            for _, result in expand_chunks(scheduler, [nodes], expander):
                found.update(result.expansions)
            return found

        answers = mft_answers(target, spec.task)
        prior = label_word_distance(lexicon)
        fuzzable = (c for c in cases if c.kind == SEED and c.test_type == "MFT" and c.editable)
        chunks: Iterable[list[TestCase]] = islice(_chunks(fuzzable, config.chunk_size), state["chunks"], None)
        if progress is not None:
            chunks = progress(chunks, None, "fuzz")
        with SuiteWriter(out, offset=state["offset"] if resume else None) as writer:
            for index, chunk in enumerate(chunks, start=state["chunks"]):
                spent = sum(c.queries for c in counts.values())
                if search.max_queries is not None and spent >= search.max_queries:
                    log.info("fuzz: %d queries spent (--max-queries %d); stopping", spent, search.max_queries)
                    break
                for found in search_chunk(chunk, search, expand, answers, target.identity, counts, prior):
                    writer.write_all(case.to_json() for case in found)
                writer.checkpoint(
                    {
                        "fingerprint": fingerprint,
                        "chunks": index + 1,
                        "counts": {k: asdict(v) for k, v in counts.items()},
                    }
                )
            timings = {
                **{stage: round(seconds, 3) for stage, seconds in timer.seconds.items() if "/" not in stage},
                "wall": round(time.perf_counter() - started, 3),
                "cpu_main_process": round(time.process_time() - cpu_started, 3),
                "workers": workers,
            }
            writer.finish(
                {
                    "autocheck": __version__,
                    "task": spec.task.to_json(),
                    "capabilities": {c.id: describe_capability(c) for c in capabilities},
                    "settings": config.settings(),
                    "fuzz": {**asdict(search), "target": {"name": target.name, "identity": target.identity}},
                    "fingerprint": fingerprint,
                    "environment": environment(),
                    "resources": {
                        **({"lexicon": lexicon.describe()} if lexicon else {}),
                        **expander.describe(),
                    },
                    "counts": {k: asdict(v) for k, v in counts.items()},
                },
                timings,
            )
        return FuzzSummary(out, counts, timings, _descriptive_failures(out / CASES, spec.task))


def _descriptive_failures(cases: Path, task: Any) -> tuple[int, tuple[str, ...]] | None:
    """How many of a fuzz suite's failures insert a descriptive adjective, one WordNet does not call
    relational (``lexicon.relational_adjectives``), and those adjectives, the most frequent first: such
    words can judge though the lexicon leaves them unscored ("the [predictable] characters"), and most
    label-lost failures read blind insert one (docs/fuzz.md), so the summary names them to check. None
    without WordNet."""
    try:
        relational = relational_adjectives()
    except ResourceMissing:
        return None
    found, words = 0, Counter[str]()
    for case in iter_cases(cases, task):
        if case.kind != EXPANSION or case.provenance.get("fuzz", {}).get("outcome") != FAIL:
            continue
        descriptive = {
            item["word"].lower()
            for item in case.provenance.get("inserted", ())
            if item["tag"].startswith("JJ") and item["word"].lower() not in relational
        }
        found += bool(descriptive)
        words.update(descriptive)
    return found, tuple(word for word, _ in sorted(words.items(), key=lambda item: (-item[1], item[0])))


def suite_seeds(config: GenerateConfig, suite: Path) -> tuple[Any, list[Any], Any, Iterator[TestCase]]:
    """The seed cases of an existing suite, with the spec, capabilities and lexicon ``config`` names
    (the capabilities the suite holds among those selected): fuzz's other case source."""
    spec = load_spec(
        config.requirements, config.task if config.requirements is None else None, data=config.spec
    )
    held = set(read_manifest(suite).get("capabilities") or ())
    capabilities = [c for c in spec.select(config.capabilities) if c.id in held]
    if not capabilities:
        raise InputError(
            f"{suite / MANIFEST}: none of its capabilities ({', '.join(sorted(held)) or 'none recorded'}) "
            f"is among those selected from {spec.path}"
        )
    lexicon = load_lexicon(spec.task.polarity_lexicon(config.lexicon), compat=config.compat)
    ids = {c.id for c in capabilities}
    return (
        spec,
        capabilities,
        lexicon,
        (c for c in iter_cases(suite / CASES, spec.task) if c.capability in ids),
    )


def search_chunk(
    chunk: list[TestCase],
    search: SearchConfig,
    expand: Expand,
    answers: Answers,
    target: str,
    counts: dict[str, FuzzCounts],
    prior: Callable[[TestCase], float] = lambda case: 0.0,
) -> Iterator[list[TestCase]]:
    """Search one chunk's seeds together, depth by depth; per seed, the cases to write (in seed order).
    ``prior`` orders a depth's first round (lowest first), before any answer says where the model moves."""
    first = answers(chunk)
    searches = []
    for seed, (_, outcome) in zip(chunk, first):
        tally = counts[seed.capability]
        tally.seeds += 1
        tally.queries += 1
        tally.errors += outcome is None
        if outcome is None or outcome == FAIL:  # nothing to search: the flip must be pass -> fail
            tally.already_failing += 1
        else:
            searches.append(_Search(seed, search.queries, seen={seed.text}, frontier=[seed]))
    pool = _Pool()
    site_scores: dict[Site, float] = {}  # the lowest score a site's fills got, at any depth
    for depth in range(1, search.depth + 1):
        active = [s for s in searches if s.frontier and not s.failures]
        if not active:
            break
        pool.release([s for s in searches if s not in active])
        children = expand([_as_seed(node) for s in active for node in s.frontier])
        for s in active:
            s.pending = []
            for node in s.frontier:  # the most promising partial edit's candidates first
                for child in children.get(node.id, ()):
                    case = _rooted(TestCase.from_json(child), node, s.seed)
                    if case.text not in s.seen:
                        s.seen.add(case.text)
                        s.pending.append((_site(child, node, s.seed), case))
            s.frontier = []
        scored: dict[int, list[tuple[float, TestCase]]] = {}
        for first_round in (True, False):
            live = [s for s in active if not s.failures]
            pool.release([s for s in active if s.failures])
            wanted = {id(s): _round(s.pending, site_scores, first_round, prior) for s in live}
            pool.grant([(s, len(wanted[id(s)])) for s in live])
            asked: list[tuple[_Search, Site, TestCase, int]] = []  # with the seed's queries
            for s in live:
                taken = wanted[id(s)][: s.budget - s.spent]
                for site, case in taken:
                    s.spent += 1
                    asked.append((s, site, case, s.spent))
                asked_now = {id(case) for _, case in taken}
                s.pending = [item for item in s.pending if id(item[1]) not in asked_now]
            for (s, site, case, queries), (score, outcome) in zip(
                asked, answers([case for _, _, case, _ in asked])
            ):
                tally = counts[s.seed.capability]
                tally.queries += 1
                if outcome is None:
                    tally.errors += 1
                    continue
                site_scores[site] = min(score, site_scores.get(site, score))
                found = _found(
                    case, target=target, depth=depth, queries=queries, score=score, outcome=outcome
                )
                if outcome == FAIL:
                    s.failures.append(found)
                else:
                    scored.setdefault(id(s), []).append((score, found))
                    if s.nearest is None or score < s.nearest[0]:
                        s.nearest = (score, found)
        for s in active:  # the lowest scores go on, ties in the order they were asked
            ranked = sorted(scored.get(id(s), ()), key=lambda pair: pair[0])
            s.frontier = [case for _, case in ranked[: search.beam]]
    by_id = {s.seed.id: s for s in searches}
    for seed in chunk:
        done = by_id.get(seed.id)
        if done is None:
            yield [seed]
            continue
        log.debug(
            "fuzz: seed %s: %d of %d queries spent, %d candidates left unasked, lowest score %s",
            seed.id,
            done.spent,
            done.budget,
            len(done.pending),
            None if done.nearest is None else round(done.nearest[0], 6),
        )
        tally = counts[seed.capability]
        tally.broken += bool(done.failures)
        tally.failures += len(done.failures)
        if not done.failures:
            tally.out_of_queries += bool(done.pending)
            tried = done.spent > 1  # a candidate asked, beyond the seed's own answer
            tally.no_candidate += not done.pending and not tried
            tally.exhausted += not done.pending and tried
        near = [] if done.failures or done.nearest is None else [done.nearest[1]]
        tally.near_misses += len(near)
        yield [seed, *done.failures, *near]


def _as_seed(node: TestCase) -> TestCase:
    """A partial edit as a seed the expander takes (its search record left out: the expansion of a
    text does not depend on the model that led there, so the chunk cache serves every target)."""
    if node.kind == SEED:
        return node
    provenance = {k: v for k, v in node.provenance.items() if k != "fuzz"}
    return replace(node, kind=SEED, seed_id=None, provenance=provenance)


def mft_answers(model: Model, task: Any) -> Answers:
    """What the search asks the model: per case, the probability it puts on the case's allowed labels
    (lower: nearer to failing) and the case's MFT outcome as ``run`` reads it (None: no answer, which is
    never a failure; an unreadable reply fails, as in ``run``). One batched call per list of cases."""

    def ask(cases: list[TestCase]) -> list[tuple[float, str | None]]:
        if not cases:
            return []
        outputs = model.predict([input_of(case, task) for case in cases])
        probs, labels = model.read(outputs)
        found: list[tuple[float, str | None]] = []
        for i, case in enumerate(cases):
            if i in outputs.errors:
                found.append((float("nan"), None))
            elif i in outputs.invalid:
                found.append((0.0, FAIL))
            else:
                kept = [task.labels.index(label) for label in allowed(case.expected)]
                found.append((float(probs[i, kept].sum()), mft_outcome(task, case.expected, str(labels[i]))))
        return found

    return ask


def label_word_distance(lexicon: Lexicon) -> Callable[[TestCase], float]:
    """How many words a candidate's insertion lies from the nearest word that carries the seed's label (a
    polar word of the lexicon, or a negation): BAE ranks positions by how much deleting each word moves
    the model, a query per word (half the budget of a long seed), and on sentiment the words that move it
    are these; a lexicon model's negation and booster windows are a few words wide (VADER: 3)."""

    def carries_label(word: str) -> bool:
        word = word.strip(string.punctuation).lower()
        return word in NEGATIONS or lexicon.polarity(word, None) not in (None, NEUTRAL)

    def distance(case: TestCase) -> float:
        inserted = {item["offset"] for item in case.provenance.get("inserted", ())}
        words = [(m.start(), m.group()) for m in re.finditer(r"\S+", case.text)]
        at = [i for i, (offset, _) in enumerate(words) if offset in inserted]
        anchors = [
            i for i, (start, word) in enumerate(words) if start not in inserted and carries_label(word)
        ]
        return min((abs(a - b) for a in anchors for b in at), default=math.inf)

    return distance


def _site(child: dict[str, Any], parent: TestCase, seed: TestCase) -> Site:
    """Where ``child`` inserts, in the seed's text: the same site whatever partial edit it grew from, so
    what a site did at one depth orders it at the next (the edits of two sites add up: BAE-I's greedy
    path), and a depth measures each site once rather than once per partial edit of its beam."""
    provenance = child["provenance"]
    at = provenance["inserted"][0]["offset"]
    earlier = parent.provenance.get("inserted", ()) if parent is not seed else ()
    at -= sum(len(item["word"]) + 1 for item in earlier if item["offset"] < at)
    return (seed.id, dumps(provenance.get("production")), at)


def _round(
    pending: list[tuple[Site, TestCase]],
    best: dict[Site, float],
    first: bool,
    prior: Callable[[TestCase], float],
) -> list[tuple[Site, TestCase]]:
    """A depth's candidates in two rounds: first each insertion site's first (the masked LM's best fill
    there), those of the sites that moved the model furthest at an earlier depth first, then the new
    sites by ``prior`` (a seed with more sites than queries asks only some); then the others, the sites
    whose fills moved the model furthest toward failing first (BAE's insight that where a word goes
    matters more than which word, measured here by the inserted words themselves rather than by deleting
    words, whose queries validation could never keep)."""
    if first:
        firsts: dict[Site, tuple[Site, TestCase]] = {}
        for item in pending:
            firsts.setdefault(item[0], item)
        # stable: the expander's order within
        return sorted(firsts.values(), key=lambda item: (best.get(item[0], math.inf), prior(item[1])))
    return sorted(pending, key=lambda item: best.get(item[0], math.inf))  # stable: the LM's order within


def _rooted(child: TestCase, parent: TestCase, seed: TestCase) -> TestCase:
    """An expansion of a partial edit as an expansion of the seed itself: its id and seed id the seed's,
    its inserted words those of every step (offsets into its own text), its edit path one step longer."""
    prov = dict(child.provenance)
    step = {
        "production": prov.get("production"),
        "words": [item["word"] for item in prov.get("inserted", ())],
    }
    path = [*parent.provenance.get("fuzz", {}).get("path", ()), step]
    if parent is not seed:  # the parent's words move right past the ones inserted before them
        added = [(item["offset"], len(item["word"]) + 1) for item in prov["inserted"]]
        moved = [
            {
                **item,
                "offset": item["offset"]
                + sum(size for at, size in _in_parent(added) if at <= item["offset"]),
            }
            for item in parent.provenance["inserted"]
        ]
        prov["inserted"] = sorted([*moved, *prov["inserted"]], key=lambda item: item["offset"])
    prov["fuzz"] = {"path": path}
    # a partial edit carries its seed's capability, expectation and label: the child has them too
    return replace(child, id=f"{seed.id}-x{content_hash(child.text)[:10]}", seed_id=seed.id, provenance=prov)


def _in_parent(added: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Insertions (offset in the new text, size) as offsets in the text they were inserted into."""
    out, shift = [], 0
    for at, size in sorted(added):
        out.append((at - shift, size))
        shift += size
    return out


def _found(case: TestCase, *, target: str, depth: int, queries: int, score: float, outcome: str) -> TestCase:
    """``case`` with how the search found it and what the target made of it."""
    how = {"target": target, "outcome": outcome, "depth": depth, "queries": queries, "score": round(score, 6)}
    provenance = {**case.provenance, "fuzz": {**how, **case.provenance["fuzz"]}}
    return replace(case, provenance=provenance)


def _chunks(items: Iterable[TestCase], size: int) -> Iterator[list[TestCase]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _resume_point(out: Path, fingerprint: str) -> dict[str, Any]:
    state = load_state(out, "fuzz resume state")
    if state is None:
        if (out / MANIFEST).exists():
            raise InputError(f"{out}: this fuzz already finished; nothing to resume")
        return {"chunks": 0, "offset": 0, "counts": {}}
    if state.get("fingerprint") != fingerprint:
        raise InputError.hint(
            f"{out / STATE}: the fuzz in this directory used other settings or another target model; resume "
            "it with the same options or write to a new {out}",
            out="out=DIR",
        )
    return state
