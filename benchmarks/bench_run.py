"""Runner overhead vs bare batched forward passes, and a rerun served from the prediction cache.

    PYTHONPATH=. python benchmarks/bench_run.py [--model DIR] [--per-test N] [--batch-size B]

Suite: CheckList's released sentiment suite, first N items per test (default 10). The bare baseline
tokenises and runs the same distinct texts, in the same (length-sorted) batches, with nothing else.
Targets: runner overhead <= 25 %, cached rerun >= 10x faster than the first run.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import torch

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=str(SHARED / "models" / "mini-bert-sst2"))
    parser.add_argument("--checklist", default=str(SHARED / "checklist" / "sentiment_suite.tests.json"))
    parser.add_argument("--per-test", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    torch.set_num_threads(1)
    work = Path(tempfile.mkdtemp(prefix="bench_run_"))
    os.environ["AUTOCHECK_CACHE"] = str(work / "cache")  # a fresh cache: the first run predicts everything

    from autocheck.models import load_model
    from autocheck.run import run_suite
    from autocheck.sources.checklist import convert_checklist

    counts = convert_checklist(args.checklist, work / "suite", max_per_test=args.per_test)
    model = load_model(args.model, batch_size=args.batch_size, device="cpu")
    texts = sorted({json.loads(line)["text"] for line in open(work / "suite" / "cases.jsonl")}, key=len)

    network = model.network  # the weights load here, outside the timed passes
    start = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), args.batch_size):
            batch = network.tokenizer(
                texts[i : i + args.batch_size], padding=True, truncation=True,
                max_length=network.max_length, return_tensors="pt",
            )  # fmt: skip
            torch.softmax(network.model(**batch).logits, dim=-1).numpy()
    bare = time.perf_counter() - start

    start = time.perf_counter()
    run_suite(work / "suite", [model], work / "run1")
    first = time.perf_counter() - start
    start = time.perf_counter()
    run_suite(work / "suite", [model], work / "run2")
    cached = time.perf_counter() - start

    same = (work / "run1" / "results.json").read_bytes() == (work / "run2" / "results.json").read_bytes()
    name = Path(args.model).name
    print(f"suite: {counts['cases']} cases, {len(texts)} distinct texts; model {name}, 1 thread")
    print(f"bare batched forward passes : {bare:7.2f} s")
    overhead = 100 * (first / bare - 1)
    print(f"run_suite, empty cache      : {first:7.2f} s  overhead {overhead:+.1f} % (target <= 25 %)")
    print(f"run_suite, cached rerun     : {cached:7.2f} s  {first / cached:.1f}x faster (target >= 10x)")
    print(f"results identical across runs: {same}")


if __name__ == "__main__":
    main()
