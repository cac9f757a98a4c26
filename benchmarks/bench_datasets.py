"""Dataset loading and the streamed seed search: rows per second and peak memory against the file size.

Generates CSV, TSV and JSONL files of about 10 MB and 100 MB (``--big``: also 1 GB, CSV) under ``--dir``
(default /tmp/autocheck_bench_datasets; kept for reruns) from SST-2's sentences as a user would have them
(detokenised prose with contractions, when ../shared/data is there; else generated sentences), and runs
each measurement in a fresh process, so its peak RSS (``ru_maxrss``) is its own:

* ``load``: ``load_examples`` streamed to the end (the task's labels checked, contractions expanded, as
  ``seeds`` reads a dataset for the sentiment LCs): rows/s and peak RSS;
* ``search``: the pipeline's streamed search (``sources.seeds.select_seeds``) of a label-and-length
  capability with ``--max-seeds 100`` over the whole file (two passes: count the matches, then collect the
  drawn ones): rows/s and peak RSS, which should not grow with the file (only the seeds kept are held).

It prints the CPU model and the load average before and after, each measurement's wall seconds, and per
mode the peak RSS of the largest file against the smallest's.

    python benchmarks/bench_datasets.py [--big] [--formats csv,tsv,jsonl] [--sizes 10,100]
        [--modes load,search]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared" / "data"))
LABELS = ("negative", "positive")


def sentences() -> list[str]:
    sst2 = SHARED / "datasets" / "sst" / "SST-2" / "train.tsv"
    if sst2.is_file():
        from autocheck.sources.datasets import normalize_text

        lines = sst2.read_text(encoding="utf-8").splitlines()[1:20001]
        return [normalize_text(line.split("\t")[0], expand=False) for line in lines]
    rng = random.Random(0)
    words = "the film is not a good bad story plot it's isn't great dull and but with of".split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(4, 25))) + "." for _ in range(20000)]


def make(path: Path, megabytes: int, texts: list[str]) -> None:
    if path.is_file() and path.stat().st_size >= megabytes * 2**20:
        return
    rng = random.Random(megabytes)
    tmp = path.with_suffix(path.suffix + ".part")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter="\t" if path.suffix == ".tsv" else ",", quoting=csv.QUOTE_MINIMAL)
        if path.suffix != ".jsonl":
            writer.writerow(["text", "label"])
        while f.tell() < megabytes * 2**20:
            for _ in range(10000):
                text, label = rng.choice(texts), rng.choice(LABELS)
                if path.suffix == ".jsonl":
                    f.write(json.dumps({"text": text, "label": label}) + "\n")
                else:
                    writer.writerow([text.replace("\t", " "), label])
    tmp.rename(path)


def measure(mode: str, path: str) -> None:
    """In the child process: stream, then print one JSON line."""
    from autocheck.sources.datasets import DatasetStats, load_examples

    stats = DatasetStats()

    def read():
        return load_examples(path, labels=("negative", "neutral", "positive"), stats=stats)

    start = time.perf_counter()
    if mode == "load":
        rows = sum(1 for _ in read())
    else:
        from autocheck.requirements import load_spec
        from autocheck.sources.seeds import select_seeds

        spec = load_spec(
            None,
            None,
            data={
                "task": "sentiment",
                "capabilities": [{
                    "id": "short-positive", "capability": "Vocabulary", "description": "short positive",
                    "test_type": "MFT", "search": [{"label": "positive", "length": {"max": 12}}],
                    "expected": {"positive": "positive"},
                }],
            },
        )  # fmt: skip
        chosen, _, rows = select_seeds(read, spec.capabilities, None, max_seeds=100, seed=0)
        assert len(chosen["short-positive"]) == 100
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"rows": rows, "seconds": seconds, "rss_mib": rss}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default="/tmp/autocheck_bench_datasets")
    parser.add_argument("--formats", default="csv,tsv,jsonl")
    parser.add_argument("--sizes", default="10,100", help="file sizes in MB")
    parser.add_argument("--big", action="store_true", help="also a 1 GB CSV (minutes)")
    parser.add_argument("--modes", default="load,search")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        measure(*args.child)
        return
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    texts = sentences()
    plan = [(fmt, int(mb)) for fmt in args.formats.split(",") for mb in args.sizes.split(",")]
    if args.big:
        plan.append(("csv", 1024))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_alict60 import machine  # a sibling script, not a package; not in the measured children

    print(machine())
    print(f"{'file':<22}{'MB':>6}{'mode':>8}{'rows':>12}{'seconds':>9}{'rows/s':>10}{'peak RSS MiB':>14}")
    peaks: dict[str, list[tuple[float, float]]] = {}
    for fmt, mb in plan:
        path = folder / f"data_{mb}mb.{fmt}"
        make(path, mb, texts)
        for mode in args.modes.split(","):
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            if (SHARED / "nltk_data").is_dir():  # the search tokenises with NLTK's sentence splitter
                env.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
            done = subprocess.run(
                [sys.executable, __file__, "--child", mode, str(path)],
                capture_output=True, text=True, env=env, check=True,
            )  # fmt: skip
            result = json.loads(done.stdout.strip().splitlines()[-1])
            rate = result["rows"] / result["seconds"]
            size = path.stat().st_size / 2**20
            print(
                f"{path.name:<22}{size:>6.0f}{mode:>8}{result['rows']:>12,}{result['seconds']:>9.1f}{rate:>10,.0f}"
                f"{result['rss_mib']:>14.0f}",
                flush=True,
            )
            peaks.setdefault(mode, []).append((size, result["rss_mib"]))
    for mode, sizes in peaks.items():
        (small, low), (big, high) = min(sizes), max(sizes)
        if big > small:
            ratio = f"{low:.0f} MiB at {small:.0f} MB, {high:.0f} MiB at {big:.0f} MB ({high / low:.3f}x)"
            print(f"{mode}: peak RSS {ratio}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
