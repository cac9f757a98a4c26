"""Building the shipped suites written with templates (NLI, QQP, SQuAD, CheckList's sentiment tests), no
dataset and no masked LM: one fresh process per suite, as a user runs ``autocheck seeds --requirements X``.

Prints per suite: cases written, wall and CPU seconds of the whole command (start-up and imports included),
cases per second, and peak memory. Usage:
    python benchmarks/bench_suites.py [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITES = ("nli", "qqp", "squad", "sentiment_checklist")
SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = {**os.environ, "AUTOCHECK_CACHE": "off"}
    env.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))  # WordNet relations and the tagger
    print(f"{'suite':<22}{'cases':>8}{'wall s':>9}{'CPU s':>8}{'cases/s':>10}{'peak MiB':>10}")
    totals = [0, 0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        for name in SUITES:
            out = Path(tmp) / name
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            command = [sys.executable, "-m", "autocheck.cli", "seeds", "--requirements", name]
            command += ["--seed", str(args.seed), "--out", str(out)]
            subprocess.run(command, env=env, check=True, capture_output=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            cases = sum(1 for _ in open(out / "cases.jsonl", encoding="utf-8"))
            peak = after.ru_maxrss / 1024  # the largest child so far
            json.loads((out / "manifest.json").read_text())  # written and complete
            print(f"{name:<22}{cases:>8,}{wall:>9.2f}{cpu:>8.2f}{cases / wall:>10,.0f}{peak:>10,.0f}")
            totals[0] += cases
            totals[1] += wall
            totals[2] += cpu
    print(f"{'all four':<22}{totals[0]:>8,}{totals[1]:>9.2f}{totals[2]:>8.2f}{totals[0] / totals[1]:>10,.0f}")


if __name__ == "__main__":
    main()
