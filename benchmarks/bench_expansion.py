"""Grammar build/load time, seed parsing and production differentiation throughput, peak memory.

    PYTHONPATH=. python benchmarks/bench_expansion.py [--model DIR] [--sentences 200]

Parses SST dev sentences with the stand-in benepar model (cache off, 1 torch thread) and differentiates
their trees against the shipped sample grammar.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(SHARED / "models" / "benepar_ptbsample_charlstm"))
    ap.add_argument(
        "--sst", default=str(SHARED / "datasets" / "sst" / "derived_sentence_labels" / "SSTB_dev.csv")
    )
    ap.add_argument("--sentences", type=int, default=200)
    args = ap.parse_args()
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ["AUTOCHECK_CACHE"] = "off"  # measure the parser, not the cache

    import torch

    torch.set_num_threads(1)
    from autocheck.expand.expansion import Differentiator
    from autocheck.expand.grammar import build_grammar, load_grammar
    from autocheck.expand.parsing import Parser

    started = time.perf_counter()
    build_grammar("nltk")
    print(f"grammar build (NLTK PTB sample, 3,914 trees): {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    grammar = load_grammar("ptb_sample")
    print(f"grammar load (grammars/ptb_sample.json):      {time.perf_counter() - started:.3f} s")

    with open(args.sst, encoding="utf-8") as f:
        texts = [row["sentence"] for row in csv.DictReader(f)][: args.sentences]
    parser = Parser(args.model)
    parser.parse(texts[:2])  # load the model outside the timing
    started, cpu = time.perf_counter(), time.process_time()
    parses = [p for p in parser.parse(texts[2:]) if p is not None]
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    n_sents = sum(len(p.trees) for p in parses)
    print(
        f"parse: {len(texts) - 2} texts, {n_sents} sentences in {elapsed:.1f} s",
        f"= {n_sents / elapsed:.1f} sentences/s wall ({n_sents / cpu:.1f}/s CPU)",
    )

    differ = Differentiator(grammar)
    n_trees = sum(len(p.trees) for p in parses)
    for label, rounds in (("cold memo", 1), ("warm memo", 5)):
        wall, cpu = time.perf_counter(), time.process_time()
        templates = sum(
            len(differ.differentiate(f"c{i}", p)) for _ in range(rounds) for i, p in enumerate(parses)
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"differentiate ({label}): {rounds * n_trees / cpu:,.0f} trees/s CPU,",
            f"{rounds * n_trees / wall:,.0f} wall;",
            f"{templates / (rounds * len(parses)):.1f} templates/seed",
        )
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
