"""Masked-LM throughput on a GPU: templates/s and expansions/s of the fill stage, with the GPU throughput
formula used by bench_paper_scale.py.

    python benchmarks/bench_gpu.py [--max-seeds 20] [--precision auto|fp32|bf16|fp16] [--batch-size 256]

Generates 20 seeds × the ten LCs (one variant each) on ``--device cuda`` with caches off and prints the
masked templates and expansions per second of fill time and of the whole run. Without CUDA it prints that
it skipped and exits 0 (nothing is measured on the CPU here; bench_alict60.py is the CPU benchmark).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import SHARED, stand_in_config  # noqa: E402  (a sibling script, not a package)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-gpu"))
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("bench_gpu: SKIPPED: no CUDA device visible to torch (no GPU figures measured)")
        return
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ["AUTOCHECK_CACHE"] = "off"
    from autocheck.generate import generate

    config = stand_in_config(max_seeds=args.max_seeds, max_variants=1)
    shutil.rmtree(args.out, ignore_errors=True)
    start = time.perf_counter()
    summary = generate(config, args.out, device="cuda", batch_size=args.batch_size)
    wall = time.perf_counter() - start
    templates = sum(c.masked_templates for c in summary.counts.values())
    expansions = sum(c.expansions for c in summary.counts.values())
    seeds = sum(c.seed_cases for c in summary.counts.values())
    fill = summary.timings.get("fill", 0.0)
    print(f"device {torch.cuda.get_device_name()}, precision auto (bf16 where supported)")
    print(f"seed cases {seeds}, masked templates {templates}, expansions {expansions}, wall {wall:.1f} s")
    print(f"fill: {templates / fill:.1f} templates/s, {expansions / fill:.2f} expansions/s ({fill:.1f} s)")
    print(f"whole run: {seeds / wall:.2f} seed cases/s, {expansions / wall:.2f} expansions/s")
    print(f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB (this process)")


if __name__ == "__main__":
    main()
