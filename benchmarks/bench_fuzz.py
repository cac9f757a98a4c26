"""Fuzz against model-blind generate and a BAE-I-style baseline: same seeds, same masked LM, same target.

    pip install -e ".[yield]"
    python benchmarks/bench_fuzz.py [--capability LC2 ...] [--queries 50] [--target NAME] [--sample 30]

The seeds are the alict60 workload's (``shared/bench/alict60``: 20 SST sentences per capability), with the
stand-in parser and masked LM (``shared/data/models``); the models are the panel's (``panel.py``).

1. **generate** (model-blind): the suite of the seeds and their expansions, run on every panel model;
   its new failures (seed passes, expansion fails) per model. The target is the panel's median model by
   that count, unless ``--target`` names one.
2. **fuzz**: ``autocheck.fuzz`` on the target, ``--queries`` per seed.
3. **BAE-I**: Garg & Ramakrishnan (2020)'s insertion attack, written here after the paper because
   TextAttack's recipe needs the Universal Sentence Encoder from TF Hub (not reachable offline): words
   ranked by how much deleting each lowers P(expected) (one query each), then for each word in that
   order a [MASK] inserted left and right of it, the masked LM's top K=50 fills (whole words) asked
   best first; the first fill that makes the case fail wins, else the one that lowered P(expected) most
   is kept and the next word is tried; the same query budget per seed, the seed's own answer included.
   No USE similarity filter (no USE here) and no grammar or validation: what BAE-I does without USE.
   Run twice: with ``--queries`` per seed, and with each seed's unspent queries carried on to the next
   (the nearest BAE-I has to fuzz's sharing of a chunk's unspent queries); the blind sheet takes the
   second's failures.

Each method is timed on fresh caches (CPU-seconds of this process and its children, loading the masked
LM included), after an untimed warm-up generate of one seed that imports everything and loads the parser
(which the process keeps); the panel loads before any timing. With ``--search-once`` the warm-up also
searches each capability's seeds, and every method's fresh cache starts with that search's result
(``sources/search_cache.py``), so no method's CPU-seconds count the dataset search they share: the
methods' own cost, as a rerun on the same seeds pays it. Success rate: seeds broken among the seeds
the target passes; queries per success: the seed's queries when its first failure was asked; queries
asked: the total, the seeds' own answers included. Transfer: of
the failures found on the target, the share that also fail on each other panel model, among those whose
seed that model passes.

Why fuzz lost a seed: for each seed BAE-I breaks at equal queries and fuzz does not, what fuzz had there
(``why_unbroken``: no insertion site, sites whose every fill validation rejected, every valid candidate
asked without a flip, or its budget spent with candidates left).

Validity: ``--sample N`` draws N found failures of fuzz and of BAE-I (``default_rng(2026)``), shuffles
them together and writes them without their method to ``fuzz_reading.jsonl`` for a blind reader, who
fills ``grammatical``, ``natural`` and ``label_kept`` (true/false) into ``benchmarks/fuzz_labels.jsonl``
(the same rows); the shares are then printed per method with Wilson intervals. Every failure each method
found is also written to ``failures.jsonl`` (method, target, seed and text): ``fuzz_blind.py valid``
counts, per method, the seeds broken by a failure read grammatical with its label kept.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np
from bench_alict60 import machine
from panel import NAMES, SHARED, load_panel, new_failures

from autocheck.config import FUZZ_EXPANSION, GenerateConfig
from autocheck.expand.job import Expander, Timer
from autocheck.expect import FAIL
from autocheck.fuzz import SearchConfig, fuzz, mft_answers
from autocheck.generate import generate, seed_cases
from autocheck.records import EXPANSION, SEED, TestCase
from autocheck.report.summary import wilson
from autocheck.requirements import default_task
from autocheck.store import read_jsonl
from autocheck.suite import CASES

HERE = Path(__file__).resolve().parent
LABELS = HERE / "fuzz_labels.jsonl"
ALICT60 = SHARED.parent / "bench" / "alict60"
K = 50  # BAE's masked-LM candidates per insertion
BAE_EQUAL, BAE_CARRIED = "BAE-I", "BAE-I, carried"  # the two variants' names in failures.jsonl


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def fresh_cache(root: Path, name: str, searched: Path | None = None) -> None:
    """An empty cache for the next method: one a ``--work`` of an earlier run left is emptied first. It
    would answer the parses, fills and predictions that run computed: docs/fuzz.md's tenth- and
    eleventh-round panel tables were measured so, in work folders reused from earlier rounds. With
    ``searched`` (``--search-once``) the cache starts with that dataset search."""
    directory = root / f"cache-{name}"
    shutil.rmtree(directory, ignore_errors=True)  # the benchmark's own folder
    os.environ["AUTOCHECK_CACHE"] = str(directory)
    if searched is not None:
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(searched, directory / searched.name)


def bae_i(seed: TestCase, ask: Any, mlm: Any, budget: int) -> tuple[TestCase | None, int]:
    """BAE-I on one seed the target passes: (the failing case found or None, queries spent)."""
    words = seed.text.split()
    spent = 1  # the seed's own answer
    base = ask([seed])[0][0]

    def case(tokens: list[str]) -> TestCase:
        return replace(
            seed, id=f"{seed.id}-bae", kind=EXPANSION, seed_id=seed.id, inputs={"text": " ".join(tokens)}
        )

    deletions = [case(words[:i] + words[i + 1 :]) for i in range(len(words))][: budget - spent]
    spent += len(deletions)
    importance = [base - score for score, _ in ask(deletions)]
    order = sorted(range(len(importance)), key=lambda i: -importance[i])
    current, position, score = list(words), list(range(len(words))), base  # position: word i's index now
    for i in order:
        if spent >= budget:
            break
        at = position[i]
        sites = [at, at + 1]  # left and right of the word
        masked = [" ".join([*current[:s], mlm.tokenizer.mask_token, *current[s:]]) for s in sites]
        fills = mlm.suggest_texts(masked, beam_size=1, top_n=K)
        candidates = []
        for s, suggestions in zip(sites, fills):
            for words_, mlm_score in suggestions:
                word = words_[0]
                if word.isalpha():
                    candidates.append((-mlm_score, s, word))
        candidates.sort()  # best fill first, over both sides
        tried = [(s, word, [*current[:s], word, *current[s:]]) for _, s, word in candidates][: budget - spent]
        spent += len(tried)
        answers = ask([case(tokens) for _, _, tokens in tried])
        for j, ((_, _, tokens), (_, outcome)) in enumerate(zip(tried, answers)):
            if outcome == FAIL:  # asked best fill first: the queries until this one
                return case(tokens), spent - len(tried) + j + 1
        if answers:
            best = min(range(len(answers)), key=lambda j: answers[j][0])
            if answers[best][0] < score:
                s, _, current = tried[best]
                score = answers[best][0]
                position = [p + (p >= s) for p in position]
    return None, spent


class SeedTrace(logging.Handler):
    """fuzz's per-seed account (its debug line): seed id -> (queries spent, budget, candidates left
    unasked, lowest score asked)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seeds: dict[str, tuple[Any, ...]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("fuzz: seed %s:"):
            seed_id, *account = record.args  # type: ignore[misc]
            self.seeds[seed_id] = tuple(account)


def why_unbroken(seed: TestCase, config: GenerateConfig, trace: tuple[Any, ...]) -> str:
    """Why fuzz left a seed unbroken: no insertion site, sites whose every fill validation rejected (the
    checks that rejected most), its budget spent with candidates left, or every valid candidate asked
    without a flip. Sites and rejections are those of the seed expanded alone (in the chunk, --spread
    words also sets aside the words other seeds got, so the counts there differ a little)."""
    spent, budget, unasked, lowest = trace
    if lowest is None:  # no valid candidate was ever asked
        _, capabilities, lexicon, *_ = seed_cases(replace(config, max_seeds=1))
        timer = Timer()
        expander = Expander(config, lexicon, {c.id: c for c in capabilities}, timer, device="cpu")
        result = expander.expand_chunk([seed])
        counted = result.counts.get(seed.capability, {})
        if not counted.get("masked_templates"):
            return "no site"
        top = sorted(result.rejected.items(), key=lambda item: -item[1])[:3]
        reasons = ", ".join(f"{reason.removeprefix('fill: ')} {n}" for reason, n in top)
        return f"{counted['masked_templates']} sites, every fill rejected ({reasons})"
    if spent >= budget and unasked:
        return f"budget spent ({spent} queries, {unasked} candidates left; lowest score {lowest:.2f})"
    return f"every valid candidate asked ({spent} queries), none moved it enough (lowest score {lowest:.2f})"


def rate(found: int, n: int) -> str:
    pair = wilson(found, n)
    interval = f" [{pair[0]:.0%}–{pair[1]:.0%}]" if pair else ""
    return f"{found}/{n} = {found / n:.0%}{interval}" if n else "–"


def transfer(
    failures: list[TestCase], seeds: dict[str, TestCase], panel: dict[str, Any], target: str
) -> dict[str, str]:
    """Per other panel model: failures that fail on it too, among those whose seed it passes."""
    out = {}
    for name, model in panel.items():
        if name == target or not failures:
            continue
        ask = mft_answers(model, default_task())
        seed_outcome = dict(zip(seeds, (o for _, o in ask(list(seeds.values())))))
        kept = [f for f in failures if seed_outcome[str(f.seed_id)] not in (FAIL, None)]
        fails = sum(o == FAIL for _, o in ask(kept))
        out[name] = rate(fails, len(kept))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--capability", action="append", help="alict60 capabilities (default all)")
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--target", choices=NAMES)
    p.add_argument("--depth", type=int, default=SearchConfig.depth, help="fuzz's --depth")
    p.add_argument("--beam", type=int, default=SearchConfig.beam, help="fuzz's --beam")
    p.add_argument("--sample", type=int, default=30, help="failures per method for the blind reading")
    p.add_argument(
        "--generate-defaults",
        action="store_true",
        help="fuzz with generate's --top-k and --fills-per-mask, not fuzz's own (config.FUZZ_EXPANSION)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="fuzz with this generation setting changed (e.g. insertions=modifiers, spread=off)",
    )
    p.add_argument(
        "--sst-seeds",
        type=int,
        metavar="SEED",
        help="seeds drawn from all of SST with this --seed (--max-seeds 20 per capability), not alict60's: "
        "a draw no earlier reading used, for a held-out sample",
    )
    p.add_argument(
        "--search-once",
        action="store_true",
        help="search the seeds once, untimed, and start every method's cache with it: no method's CPU-s "
        "count the dataset search",
    )
    p.add_argument(
        "--lexicon",
        default="opinion",
        help="the polarity lexicon for the search and the neutral check (default opinion; autocheck's own "
        "default, sentiwordnet, needs SentiWordNet 3.0 installed: see docs/fuzz.md)",
    )
    p.add_argument(
        "--domain-lexicon",
        action="append",
        help="generate's and fuzz's --domain-lexicon, repeatable (docs/fuzz.md); BAE-I has none",
    )
    p.add_argument(
        "--adjectives",
        default="any",
        choices=("any", "relational"),
        help="generate's and fuzz's --adjectives (docs/fuzz.md); BAE-I has none",
    )
    p.add_argument("--work", type=Path, help="working directory (default: a temporary one)")
    args = p.parse_args()
    capabilities = args.capability or ["LC2", "LC4", "LC9"]
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-fuzz-"))
    print(machine())
    panel = load_panel()
    mlm_dir = str(SHARED / "models" / "mini-bert-mlm")

    def seeds_of(cap: str) -> dict[str, Any]:
        """alict60's rows of ``cap``, or a draw of 20 from all of SST (``--sst-seeds``)."""
        if args.sst_seeds is None:
            return {"dataset": str(ALICT60 / cap / "SSTB_train.csv"), "seed": 1}
        sst = SHARED / "datasets" / "sst" / "derived_sentence_labels"
        return {"dataset": str(sst), "seed": args.sst_seeds, "max_seeds": 20}

    configs = {
        cap: GenerateConfig(
            capabilities=[cap],
            lexicon=args.lexicon,
            domain_lexicons=args.domain_lexicon,
            adjectives=args.adjectives,
            max_variants=1,
            parser=str(SHARED / "models" / "benepar_ptbsample_charlstm"),
            mlm=mlm_dir,
            **seeds_of(cap),
        )
        for cap in capabilities
    }

    # a warm-up on one seed, untimed: the imports and the parser (kept loaded by the process) are not
    # charged to whichever method runs first; each method still loads its masked LM
    fresh_cache(work, "warm-up")
    first = next(iter(configs.values()))
    generate(replace(first, max_seeds=1), work / "warm-up", overwrite=True)
    searched = None
    if args.search_once:  # each capability's seeds searched once, untimed; each fresh cache starts with it
        fresh_cache(work, "search")
        for config in configs.values():
            seed_cases(config)
        searched = work / "cache-search" / "search.sqlite"

    # 1. model-blind generate, run on the whole panel
    fresh_cache(work, "generate", searched)
    started = cpu()
    for cap, config in configs.items():
        generate(config, work / f"generate-{cap}", overwrite=True)
    generate_cpu = cpu() - started
    blind: dict[str, int] = dict.fromkeys(panel, 0)
    seeds: dict[str, TestCase] = {}
    for cap in configs:
        for name, found in new_failures(
            work / f"generate-{cap}", panel, work / f"run-generate-{cap}"
        ).items():
            blind[name] += len(found.rows)
        seeds.update(
            (c["id"], TestCase.from_json(c))
            for c in read_jsonl(work / f"generate-{cap}" / CASES)
            if c["kind"] == SEED
        )
    ranked = sorted(panel, key=lambda name: (blind[name], name))
    target = args.target or ranked[len(ranked) // 2]
    model = panel[target]
    # the blind suite's cost on the target: generating it, then running it
    fresh_cache(work, "generate-run", searched)
    started = cpu()
    for cap in configs:
        new_failures(work / f"generate-{cap}", {target: model}, work / f"run-generate-target-{cap}")
    generate_cpu += cpu() - started
    print(f"new failures of the model-blind suite per panel model: {blind}; target (median): {target}")

    # 2. fuzz on the target
    fresh_cache(work, "fuzz", searched)
    changed = dict(item.split("=", 1) for item in args.set)
    trace = SeedTrace()
    logging.getLogger("autocheck.fuzz").addHandler(trace)
    logging.getLogger("autocheck.fuzz").setLevel(logging.DEBUG)
    started = cpu()
    fuzz_configs = {
        cap: replace(config if args.generate_defaults else replace(config, **FUZZ_EXPANSION), **changed)
        for cap, config in configs.items()
    }
    fuzzed = [
        fuzz(
            fuzz_configs[cap],
            model,
            work / f"fuzz-{cap}",
            search=SearchConfig(queries=args.queries, beam=args.beam, depth=args.depth),
            overwrite=True,
        )
        for cap, config in configs.items()
    ]
    fuzz_cpu = cpu() - started
    fuzz_cases = [TestCase.from_json(c) for cap in configs for c in read_jsonl(work / f"fuzz-{cap}" / CASES)]
    fuzz_failures = [c for c in fuzz_cases if c.kind == EXPANSION and c.provenance["fuzz"]["outcome"] == FAIL]
    passing = sum(s.seeds - s.already_failing for f in fuzzed for s in f.counts.values())
    first: dict[str, int] = {}
    for c in fuzz_failures:
        first[str(c.seed_id)] = min(first.get(str(c.seed_id), 10**9), c.provenance["fuzz"]["queries"])

    # 3. BAE-I on the target, the same seeds it passes
    from autocheck.expand.mlm import MaskedLM

    fresh_cache(work, "bae", searched)
    started = cpu()
    mlm = MaskedLM.from_pretrained(mlm_dir, device="cpu")
    ask = mft_answers(model, default_task())
    outcomes = dict(zip(seeds, ask(list(seeds.values()))))
    passing_seeds = [seed for seed_id, seed in seeds.items() if outcomes[seed_id][1] not in (FAIL, None)]
    bae_passing = len(passing_seeds)
    bae: dict[bool, tuple[list[TestCase], list[int], int]] = {}
    for carry in (False, True):  # as fuzz shares a chunk's unspent queries, BAE-I carries them on
        failures, queries, spent_in_all, unspent = [], [], 0, 0
        for seed in passing_seeds:
            budget = args.queries + unspent * carry
            found, spent = bae_i(seed, ask, mlm, budget)
            unspent, spent_in_all = budget - spent, spent_in_all + spent
            if found is not None:
                failures.append(found)
                queries.append(spent)
        bae[carry] = failures, queries, spent_in_all
    bae_cpu = (cpu() - started) / 2  # each variant's share (the masked LM loaded once for both)

    fuzz_queries = sum(s.queries for f in fuzzed for s in f.counts.values())
    rows = [
        ("generate (model-blind)", blind[target], None, None, None, generate_cpu),
        (
            "fuzz",
            len(fuzz_failures),
            rate(len(first), passing),
            median(first.values()) if first else None,
            fuzz_queries,
            fuzz_cpu,
        ),
    ]
    for carry, (failures, queries, spent_in_all) in bae.items():
        name = "BAE-I, unspent queries carried to the next seed" if carry else "BAE-I"
        broken = rate(len(failures), bae_passing)
        rows.append(
            (name, len(failures), broken, median(queries) if queries else None, spent_in_all, bae_cpu)
        )
    print(
        f"\ntarget {target}; {len(seeds)} seeds ({', '.join(capabilities)}); {args.queries} queries per seed"
    )
    print(
        "| method | new failures | seeds broken | median queries per success | queries asked | CPU-s "
        "| new failures/CPU-s |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, n, broken, queries, asked, seconds in rows:
        shown = "–" if queries is None else queries
        cells = [name, n, broken or "–", shown, asked or "–", f"{seconds:.1f}", f"{n / seconds:.3f}"]
        print("| " + " | ".join(map(str, cells)) + " |")
    bae_failures = bae[True][0]
    with open(work / "failures.jsonl", "w", encoding="utf-8") as f:  # every one, for fuzz_blind.py valid
        methods = (("fuzz", fuzz_failures), (BAE_EQUAL, bae[False][0]), (BAE_CARRIED, bae_failures))
        for method, cases in methods:
            for case in cases:
                seed = seeds[str(case.seed_id)]
                row = {"method": method, "target": target, "seed_id": seed.id, "seed_text": seed.text}
                f.write(json.dumps(row | {"text": case.text, "expected": case.expected}) + "\n")
    lost = sorted({str(f.seed_id) for f in bae[False][0]} - set(first))
    print(f"\nseeds BAE-I breaks (at equal queries) and fuzz does not: {len(lost)}")
    for seed_id in lost:
        seed = seeds[seed_id]
        print(f"  {seed.text!r}: {why_unbroken(seed, fuzz_configs[seed.capability], trace.seeds[seed_id])}")
    print("\ntransfer (fail on another panel model, among failures whose seed it passes):")
    print(f"  fuzz:  {transfer(fuzz_failures, seeds, panel, target)}")
    print(f"  BAE-I (carried): {transfer(bae_failures, seeds, panel, target)}")

    # 4. the blind reading
    rng = np.random.default_rng(2026)
    drawn = []
    for method, failures in (("fuzz", fuzz_failures), ("BAE-I", bae_failures)):
        picks = (
            rng.choice(len(failures), size=min(args.sample, len(failures)), replace=False) if failures else []
        )
        drawn += [(method, failures[int(i)]) for i in sorted(picks)]
    order = rng.permutation(len(drawn))
    reading = []
    for n, i in enumerate(order):
        method, found = drawn[i]
        seed_text = seeds[str(found.seed_id)].text
        reading.append(
            {
                "row": n,
                "method": method,
                "seed_text": seed_text,
                "text": found.text,
                "expected": found.expected,
            }
        )
    with open(work / "fuzz_reading.jsonl", "w", encoding="utf-8") as f:
        for row in reading:  # the reader's copy: without the method
            f.write(json.dumps({k: v for k, v in row.items() if k != "method"}) + "\n")
    print(f"\nblind reading sheet: {work / 'fuzz_reading.jsonl'} ({len(reading)} rows)")
    if LABELS.exists():
        labels = {(r["seed_text"], r["text"]): r for r in read_jsonl(LABELS)}
        for method in ("fuzz", "BAE-I"):
            read = [
                labels[(r["seed_text"], r["text"])]
                for r in reading
                if r["method"] == method and (r["seed_text"], r["text"]) in labels
            ]
            shares = ", ".join(
                f"{key} {rate(sum(bool(r[key]) for r in read), len(read))}"
                for key in ("grammatical", "natural", "label_kept")
            )
            print(f"  {method}: {shares}")
    json.dump(reading, open(work / "fuzz_reading_key.json", "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
