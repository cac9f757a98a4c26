"""Fast Self-BLEU vs NLTK's sentence_bleu loop on SST-2 train sentences (200 and 1000 sentences).

Run: PYTHONPATH=. python benchmarks/bench_metrics.py [--sizes 200 1000] [--sst2 PATH/train.tsv]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)
os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))

from autocheck.metrics import self_bleu, self_bleu_nltk, tokenize  # noqa: E402  (NLTK_DATA first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--sst2", default=str(SHARED / "datasets/sst/SST-2/train.tsv"))
    args = parser.parse_args()
    lines = Path(args.sst2).read_text(encoding="utf-8").splitlines()[1:]
    texts = [line.split("\t")[0] for line in lines]
    for size in args.sizes:
        sentences = tokenize(
            random.Random(size).choices(texts, k=size)
            if size > len(texts)
            else random.Random(size).sample(texts, size)
        )
        start = time.perf_counter()
        fast = self_bleu(sentences)
        fast_s = time.perf_counter() - start
        start = time.perf_counter()
        slow = self_bleu_nltk(sentences)
        slow_s = time.perf_counter() - start
        print(
            f"n={size}: fast {fast_s:.3f} s, NLTK {slow_s:.2f} s, speed-up x{slow_s / fast_s:.0f}, "
            f"|difference| {abs(fast - slow):.1e} (Self-BLEU {fast:.4f})"
        )


if __name__ == "__main__":
    main()
