"""Seed stage over the whole SST (11,855 sentences): search + transforms for all ten capabilities.

Prints per-stage seconds, sentences/s and peak memory, twice in one process on a fresh cache: cold, then
with the search's result cached (``sources/search_cache.py``; the second run's search reads no row), and
the cache's size on disk. Usage:
    python benchmarks/bench_seeds.py [--sst PATH] [--lexicon opinion] [--max-seeds N]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sst", default=str(SHARED / "datasets/sst/derived_sentence_labels"))
    parser.add_argument("--lexicon", default="opinion")
    parser.add_argument("--max-seeds", type=int, help="seeds per capability (default: every match)")
    args = parser.parse_args()
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    with tempfile.TemporaryDirectory() as cache:
        os.environ["AUTOCHECK_CACHE"] = cache
        for name in ("cold", "search cached"):
            measure(name, args)
        size = sum(p.stat().st_size for p in Path(cache).iterdir())
        print(f"cache on disk: {size / 2**20:,.1f} MiB")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


def measure(name: str, args: argparse.Namespace) -> None:
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Timer
    from autocheck.generate import seed_cases

    timer = Timer()
    start, cpu = time.perf_counter(), time.process_time()
    _, capabilities, _, stats, seeds, cases = seed_cases(
        GenerateConfig(dataset=args.sst, lexicon=args.lexicon, max_seeds=args.max_seeds), timer
    )
    with timer("transform"):
        per_capability: dict[str, int] = {}
        for case in cases:  # streamed: nothing is kept
            per_capability[case.capability] = per_capability.get(case.capability, 0) + 1
    total = time.perf_counter() - start
    n = stats.kept
    print(f"{name}: sentences: {n:,}  capabilities: {len(capabilities)}  lexicon: {args.lexicon}")
    for stage, seconds in timer.seconds.items():
        print(f"  {stage:<10} {seconds:7.2f} s")
    print(f"  {'total':<10} {total:7.2f} s   ({n / total:,.0f} sentences/s through search + transforms)")
    print(f"  CPU-s      {time.process_time() - cpu:7.2f}")
    print(f"{'capability':<11}{'seeds':>8}{'seed cases':>12}")
    for cap_id in seeds:
        print(f"{cap_id:<11}{seeds[cap_id]:>8,}{per_capability.get(cap_id, 0):>12,}")


if __name__ == "__main__":
    main()
