"""The cost of explaining a run next to the cost of the run: CheckList's sentiment suite (``autocheck seeds
--requirements sentiment_checklist``, template cases and perturbations) run against a model with the
prediction cache off, then ``explain_run`` over its files, then optionally the minimal-edit search.

Prints wall and CPU seconds of each step, the explanation's share of the run's time, the features tried and
found significant, and for ``--minimal-edits N`` the model calls it used. Usage:
    python benchmarks/bench_explain.py [--model SPEC] [--max-cases N] [--minimal-edits N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def _timed(step):
    wall, cpu = time.perf_counter(), time.process_time()
    out = step()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _truncate(cases: Path, limit: int) -> int:
    """Keep the first ``limit`` cases, cut at a seed so no perturbation loses its original."""
    lines = cases.read_text(encoding="utf-8").splitlines(keepends=True)
    keep = len(lines)
    for i in range(limit, len(lines)):
        if '"kind": "seed"' in lines[i]:
            keep = i
            break
    cases.write_text("".join(lines[:keep]), encoding="utf-8")
    return keep


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=str(SHARED / "models" / "mini-bert-sst2"))
    parser.add_argument("--max-cases", type=int, default=0, help="the first N cases of the suite (0: all)")
    parser.add_argument("--minimal-edits", type=int, default=0, help="also search minimal edits, N calls")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AUTOCHECK_CACHE"] = str(Path(tmp) / "cache")  # empty: every prediction is computed
        from autocheck.cli import main as cli
        from autocheck.explain import explain_run, minimal_edits
        from autocheck.models import load_model
        from autocheck.run import run_suite
        from autocheck.suite import suite_task

        suite, run = Path(tmp) / "suite", Path(tmp) / "run"
        command = ["seeds", "--requirements", "sentiment_checklist", "--seed", str(args.seed)]
        if cli([*command, "--out", str(suite)]) != 0:
            sys.exit("could not build the suite")
        cases = _truncate(suite / "cases.jsonl", args.max_cases) if args.max_cases else None
        model = load_model(args.model, suite_task(suite))
        results, run_wall, run_cpu = _timed(lambda: run_suite(suite, [model], run))
        explained, wall, cpu = _timed(lambda: explain_run(run, results, top=None))
        caps = next(iter(explained.values()))
        tried = sum(c["features_tried"] for c in caps.values())
        significant = sum(c["significant"] for c in caps.values())
        n = cases or results["suite"]["cases"]
        print(f"suite: sentiment_checklist, {n:,} cases, {len(caps)} capabilities; model {args.model}")
        print(f"{'step':<16}{'wall s':>9}{'CPU s':>8}{'of run':>9}")
        print(f"{'run':<16}{run_wall:>9.2f}{run_cpu:>8.2f}{'':>9}")
        print(f"{'explain':<16}{wall:>9.2f}{cpu:>8.2f}{wall / run_wall:>9.1%}")
        if args.minimal_edits:
            found, m_wall, m_cpu = _timed(lambda: minimal_edits(run, model, max_calls=args.minimal_edits))
            print(f"{'minimal edits':<16}{m_wall:>9.2f}{m_cpu:>8.2f}{m_wall / run_wall:>9.1%}")
            print(
                f"minimal edits: {found['found']} of {found['candidates']} multi-change failures, "
                f"{found['calls']} model calls (cap {found['max_calls']})"
            )
        print(f"explain: {tried:,} features tried, {significant} significant (BH q < 0.05)")


if __name__ == "__main__":
    main()
