"""Masked-LM throughput on a GPU: templates/s, expansions/s and masked-LM rows/s of the fill stage, for the
stand-in masked LM and a model of bert-base's size, with the figure bench_paper_scale.py takes.

    python benchmarks/bench_gpu.py [--max-seeds 20] [--precision auto|fp32|bf16] [--batch-size 256]
        [--models stand-in,bert-base] [--device cuda]

Generates ``--max-seeds`` seeds × the ten LCs (one variant each) with caches off, once per masked LM:
the stand-in (mini BERT) and a randomly initialised model of bert-base-uncased's architecture
(``BertConfig()``, saved once under ``--out``; nothing downloaded). A random model's fills are not a real
model's, so its expansions are not what bert-base would keep; its forward passes cost what bert-base's do,
so its masked-LM rows per second (fills and fluency rows over their forward seconds) are the paper-size
figure: pass it to ``bench_paper_scale.py --gpu-rows-per-s``. Without CUDA it prints that it skipped and
exits 0; ``--device cpu`` runs the same measurement on the CPU (a check that the script works).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import SHARED, stand_in_config  # noqa: E402  (sibling scripts, not a package)
from bench_precision import save_bert_base  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--precision", default="auto", choices=["auto", "fp32", "bf16"])
    parser.add_argument("--models", default="stand-in,bert-base", help="stand-in, bert-base, or both")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-gpu"))
    args = parser.parse_args()
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("bench_gpu: SKIPPED: no CUDA device visible to torch (no GPU figures measured)")
        return
    if args.device == "cpu":
        torch.set_num_threads(1)  # a check on a possibly shared machine: threads that do not contend
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ["AUTOCHECK_CACHE"] = "off"
    from autocheck.expand.mlm import resolve_precision
    from autocheck.generate import generate

    device = torch.device(args.device)
    name = torch.cuda.get_device_name() if device.type == "cuda" else "CPU"
    print(f"device {name}, --precision {args.precision} ({resolve_precision(args.precision, device)} here)")
    if device.type == "cuda":  # CUDA's context and cuBLAS start once per process: not the first model's cost
        (torch.ones(64, 64, device=device) @ torch.ones(64, 64, device=device)).sum().item()
    models = {"stand-in": SHARED / "models/mini-bert-mlm"}
    if "bert-base" in args.models:
        models["bert-base"] = save_bert_base(args.out / "random-bert-base", models["stand-in"])
    for label, mlm in models.items():
        if label not in args.models:
            continue
        out = args.out / label
        config = stand_in_config(max_seeds=args.max_seeds, max_variants=1, precision=args.precision)
        config = replace(config, mlm=str(mlm))
        shutil.rmtree(out, ignore_errors=True)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        summary = generate(config, out, device=args.device, batch_size=args.batch_size)
        wall = time.perf_counter() - start
        timings = json.loads((out / "timings.json").read_text())
        calls = timings["model_calls"]
        rows = calls.get("mlm_rows", 0) + calls.get("fluency_rows", 0)
        forward = timings.get("fill: masked-LM forward", 0.0) + timings.get("fill: fluency forward", 0.0)
        templates = sum(c.masked_templates for c in summary.counts.values())
        expansions = sum(c.expansions for c in summary.counts.values())
        seeds = sum(c.seed_cases for c in summary.counts.values())
        fill = summary.timings.get("fill", 0.0)
        print(f"{label} ({mlm}):")
        print(f"  seed cases {seeds}, masked templates {templates}, expansions {expansions}, {wall:.1f} s")
        rates = f"{templates / fill:.1f} templates/s, {expansions / fill:.2f} expansions/s"
        print(f"  fill ({fill:.1f} s): {rates}")
        passes = calls.get("mlm_passes", 0) + calls.get("fluency_passes", 0)
        print(
            f"  masked-LM rows (fills + fluency) {rows:,} in {passes:,} forward passes"
            f" ({rows / passes:.1f} rows each), {forward:.2f} s: {rows / forward:,.0f} rows/s"
        )
        stages = [f"{k} {v:.1f} s" for k, v in timings.items() if isinstance(v, float) and ":" not in k]
        print(f"  stages: {', '.join(stages)}")
        print(f"  whole run: {seeds / wall:.2f} seed cases/s, {expansions / wall:.2f} expansions/s")
        if device.type == "cuda":
            print(f"  peak GPU memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB (this process)")


if __name__ == "__main__":
    main()
