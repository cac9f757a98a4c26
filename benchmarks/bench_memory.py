"""Memory stays flat in the number of seeds: peak RSS of ``autocheck seeds`` and ``autocheck generate``
(one template variant per seed) at about 1,000 and 20,000 seed cases of SST, which should agree within 10 %.

    python benchmarks/bench_memory.py [--sizes 1000 20000] [--stages seeds generate] [-- extra generate args]

Each run is the real CLI in a subprocess (start-up and model loading included, caches off); the resident
memory of its process tree is sampled every 50 ms (``measure`` of bench_alict60.py). N seed cases are
selected with ``--max-seeds K --max-variants 1`` over the whole SST: the whole dataset is loaded and
searched in every run, so only the number of seed cases streamed differs between sizes, and K is the
smallest cap reaching N (from the per-capability seed counts of an uncapped ``seeds`` run).

A 20k-seed-case generate with the stand-in models takes hours on a 2-core machine; extra generate
arguments after ``--`` make its per-seed model work small, e.g. ``-- --top-k 0`` (parse every seed case,
differentiate, keep no template: the masked LM is then never loaded, so the peak is the streaming path's,
parser included, without the masked LM's weights). Prints every command it ran, then per stage and size:
seed cases, wall, CPU-s, peak RSS, and the peak ratio of the largest size to the smallest.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alict60 import SHARED, measure  # noqa: E402  (a sibling script, not a package)

SST = SHARED / "datasets/sst/derived_sentence_labels"


def halves(trace: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Peak RSS while the first half of the chunks ran, and while the second half ran: memory that
    accumulates per seed case makes the second larger."""
    total = max((done for done, _ in trace), default=0)
    first = [rss for done, rss in trace if done < total / 2]
    second = [rss for done, rss in trace if done >= total / 2]
    return (max(first), max(second)) if total >= 2 and first and second else None


def cap_for(target: int, seeds: dict[str, int]) -> int:
    """The smallest --max-seeds K whose capped seed counts sum to at least ``target`` (one variant each)."""
    if sum(seeds.values()) < target:
        raise SystemExit(f"SST has only {sum(seeds.values()):,} seeds at one variant each, not {target:,}")
    low, high = 1, max(seeds.values())
    while low < high:  # bisection: the capped total grows with the cap
        middle = (low + high) // 2
        if sum(min(n, middle) for n in seeds.values()) < target:
            low = middle + 1
        else:
            high = middle
    return low


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000], help="seed cases")
    parser.add_argument("--stages", nargs="+", default=["seeds", "generate"], choices=["seeds", "generate"])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, help="suite directories and logs (default: a temporary one)")
    parser.add_argument("extra", nargs="*", help="more generate options (after --)")
    args = parser.parse_args()
    env = {**os.environ, "NLTK_DATA": str(SHARED / "nltk_data"), "AUTOCHECK_CACHE": "off"}
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-memory-"))
    out.mkdir(parents=True, exist_ok=True)
    cli = [sys.executable, "-m", "autocheck"]
    common = ["--dataset", str(SST), "--lexicon", "opinion", "--max-variants", "1", "--seed", "1"]
    common.append("--overwrite")

    # per-capability seed counts: at one variant per seed, seed cases = seeds
    measure([*cli, "seeds", *common, "--out", str(out / "all")], out / "all.log", env)
    counts = json.loads((out / "all/manifest.json").read_text())["counts"]
    seeds = {lc: c["seeds"] for lc, c in counts.items()}
    model_args = {
        "seeds": [],
        "generate": [
            "--parser", str(SHARED / "models/benepar_ptbsample_charlstm"),
            "--mlm", str(SHARED / "models/mini-bert-mlm"), "--workers", str(args.workers), *args.extra,
        ],
    }  # fmt: skip
    rows = []
    for stage in args.stages:
        for size in args.sizes:
            k = cap_for(size, seeds)
            name = f"{stage}-{size}"
            argv = [*cli, stage, *common, "--max-seeds", str(k), "--out", str(out / name), *model_args[stage]]
            print(f"$ uptime: {os.getloadavg()[0]:.2f}; AUTOCHECK_CACHE=off {' '.join(argv[1:])}", flush=True)
            state = out / name / "state.json" if stage == "generate" else None
            figures = measure(argv, out / f"{name}.log", env, state)
            counts = json.loads((out / name / "manifest.json").read_text())["counts"].values()
            figures["cases"] = sum(c["seed_cases"] for c in counts)
            figures["expansions"] = sum(c.get("expansions", 0) for c in counts)
            rows.append((stage, size, figures))
    print(f"suites and logs in {out}; extra generate args: {args.extra or 'none'}")
    print(f"{'stage':<9}{'seed cases':>11}{'exp':>7}{'wall s':>8}{'CPU-s':>8}{'peak MiB':>9}")
    for stage, _, r in rows:
        print(
            f"{stage:<9}{r['cases']:>11,}{r['expansions']:>7,}{r['wall']:8.1f}{r['cpu']:8.1f}"
            f"{r['peak'] / 2**20:9.0f}"
        )
    for stage, size, r in rows:
        if split := halves(r["trace"]):
            print(
                f"{stage} at {size:,}: peak RSS while the first half of the chunks ran "
                f"{split[0] / 2**20:,.0f} MiB, the second half {split[1] / 2**20:,.0f} MiB "
                f"(ratio {split[1] / split[0]:.3f})"
            )
    for stage in args.stages:
        peaks = [r["peak"] for s, _, r in rows if s == stage]
        ratio = peaks[-1] / peaks[0]
        verdict = "flat" if abs(ratio - 1) <= 0.10 else "NOT flat"
        sizes = f"{args.sizes[-1]:,} / {args.sizes[0]:,}"
        print(f"{stage}: peak RSS ratio {sizes} seed cases = {ratio:.3f} ({verdict}: within ±10 % is flat)")


if __name__ == "__main__":
    main()
