"""Process parallelism of ``generate``: the same run with ``--workers 1`` and ``--workers N``, end to end.

    python benchmarks/bench_workers.py [--max-seeds 20] [--workers 2] [--out DIR]

Runs ``autocheck generate`` on the offline stand-ins (SST table, opinion lexicon, stand-in benepar, mini
BERT masked LM; ``--max-seeds`` seeds for each of the ten capabilities, one template variant, seed 1) once
per worker count, in a fresh process each, caches off, start-up and model loading included. Prints wall,
CPU-s (the process and its workers), seed cases, expansions, the speed-up over one worker, and whether
``cases.jsonl`` is byte-identical across worker counts (it must be). One worker runs torch with every
core; N workers with cores / N threads each. A third run, one worker with one torch thread
(``OMP_NUM_THREADS=1``), gives the scaling per core: torch's own threads already keep more than one core
busy in a single worker.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alict60 import SHARED, measure  # noqa: E402  (a sibling script, not a package)


def run(workers: int, args, out: Path, env: dict) -> dict:
    command = [
        sys.executable, "-m", "autocheck", "generate",
        "--dataset", str(SHARED / "datasets/sst/derived_sentence_labels"), "--lexicon", "opinion",
        "--parser", str(SHARED / "models/benepar_ptbsample_charlstm"),
        "--mlm", str(SHARED / "models/mini-bert-mlm"), "--max-seeds", str(args.max_seeds),
        "--max-variants", "1", "--seed", "1", "--workers", str(workers), "--out", str(out), "--overwrite",
    ]  # fmt: skip
    figures = measure(command, out.with_suffix(".log"), env)
    cases = (out / "cases.jsonl").read_bytes()
    seeds = sum(b'"kind":"seed"' in line for line in cases.splitlines())
    expansions = sum(b'"kind":"expansion"' in line for line in cases.splitlines())
    return {**figures, "cases": cases, "seeds": seeds, "expansions": expansions}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="suite directories (default: a temporary directory)")
    args = parser.parse_args()
    env = {**os.environ, "NLTK_DATA": str(SHARED / "nltk_data"), "AUTOCHECK_CACHE": "off"}
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-workers-"))
    out.mkdir(parents=True, exist_ok=True)
    rows = {str(n): run(n, args, out / f"workers-{n}", env) for n in (1, args.workers)}
    rows["1, 1 thread"] = run(1, args, out / "workers-1-thread-1", {**env, "OMP_NUM_THREADS": "1"})
    print(f"generate, {args.max_seeds} seeds x 10 LCs, 1 variant, stand-ins, caches off; suites in {out}")
    print(f"{'workers':>12}{'wall s':>9}{'CPU-s':>9}{'seed cases':>11}{'expansions':>11}{'speed-up':>9}")
    for name, r in rows.items():
        speedup = rows["1"]["wall"] / r["wall"]
        print(f"{name:>12}{r['wall']:9.1f}{r['cpu']:9.1f}{r['seeds']:11}{r['expansions']:11}{speedup:8.2f}x")
    per_core = rows["1, 1 thread"]["wall"] / rows[str(args.workers)]["wall"]
    print(f"{args.workers} workers over 1 worker with 1 thread: {per_core:.2f}x")
    same = len({r["cases"] for r in rows.values()}) == 1
    print(f"cases.jsonl byte-identical across worker counts: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
