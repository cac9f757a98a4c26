"""The whole generator on the offline stand-ins: per-stage time, model share, throughput, peak memory.

    python benchmarks/bench_generate.py [--max-seeds 20] [--max-variants 1] [--out /tmp/bench-generate]

20 seeds for each of the ten capabilities with one template variant each is 200 seed cases. The parser,
the masked LM and the POS tagger are the model forward passes; the report gives their share of the wall
time after loading. Caches are off, so every model call is really made.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import time
from pathlib import Path

SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared/data"))


def stand_in_config(**settings):
    """A ``GenerateConfig`` on the offline stand-ins (SST table, opinion lexicon, stand-in benepar, mini BERT
    masked LM) with ``settings`` (further fields); bench_gpu.py and bench_validity.py use it too."""
    from autocheck.config import GenerateConfig

    return GenerateConfig(
        dataset=str(SHARED / "datasets/sst/derived_sentence_labels"),
        lexicon="opinion",
        parser=str(SHARED / "models/benepar_ptbsample_charlstm"),
        mlm=str(SHARED / "models/mini-bert-mlm"),
        **settings,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=20)
    parser.add_argument("--max-variants", type=int, default=1)
    parser.add_argument("--beam-size", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-generate"))
    args = parser.parse_args()
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ["AUTOCHECK_CACHE"] = "off"
    import torch

    torch.set_num_threads(1)
    from autocheck.expand import fill
    from autocheck.generate import generate

    tag_seconds = [0.0]

    def timed(function):
        def wrapper(*args):
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                tag_seconds[0] += time.perf_counter() - start

        return wrapper

    fill.pos_tag_sents = timed(fill.pos_tag_sents)  # the tagger calls of validation
    fill.pos_tag_from = timed(fill.pos_tag_from)
    config = stand_in_config(
        max_seeds=args.max_seeds, max_variants=args.max_variants, beam_size=args.beam_size
    )
    shutil.rmtree(args.out, ignore_errors=True)
    rss_after_chunk: list[float] = []

    def record_memory(chunks, total, description):  # generate's progress hook: RSS after each chunk
        if description != "generate":  # the hook also sees loading and search
            yield from chunks
            return
        for chunk in chunks:
            yield chunk
            rss_after_chunk.append(current_rss_mib())

    start = time.perf_counter()
    summary = generate(config, args.out, progress=record_memory)
    wall = time.perf_counter() - start
    seeds = sum(c.seed_cases for c in summary.counts.values())
    templates = sum(c.masked_templates for c in summary.counts.values())
    expansions = sum(c.expansions for c in summary.counts.values())
    print(
        f"seed cases {seeds:,}, masked templates {templates:,}, expansions {expansions:,}, wall {wall:.1f} s"
    )
    for stage, seconds in sorted(
        summary.timings.items(), key=lambda kv: -kv[1]
    ):  # "fill: …" is part of "fill"
        print(f"  {stage:<26}{seconds:8.2f} s  {seconds / wall:6.1%}")
    parse = summary.timings.get("parse", 0.0)
    mlm = summary.timings.get("fill: masked-LM forward", 0.0)
    model = parse + mlm + tag_seconds[0]
    after_load = wall - summary.timings.get("load", 0.0)
    print(
        f"model forward passes: parser {parse:.1f} s + masked LM {mlm:.1f} s + tagger {tag_seconds[0]:.1f} s"
        f" = {model:.1f} s = {model / after_load:.1%} of the wall time after loading"
    )
    print(f"throughput: {seeds / wall:.2f} seed cases/s, {expansions / wall:.2f} expansions/s")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    quarters = [rss_after_chunk[max(0, len(rss_after_chunk) * q // 4 - 1)] for q in (1, 2, 3, 4)]
    print("RSS after 1/4, 1/2, 3/4, all chunks: " + ", ".join(f"{m:,.0f} MiB" for m in quarters))


def current_rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


if __name__ == "__main__":
    main()
