"""Start-up: CPU-seconds a ``generate`` run spends before its first model call, imports and model
loading included, and a fully cached rerun (no model loaded at all) against the cold run.

    python benchmarks/bench_startup.py [--capability LC9] [--workers N]

Runs the alict60 capability twice with ``--workers`` as given (default: generate's own default, one
process per core) and a fresh cache directory: cold, then again with the cache warm. Every process (the
main one and each forked worker) records its own events. For each it prints the CPU-s and wall seconds when
the first model load began
(benepar is the first model a run needs; masked LM second, before torch is imported for it if benepar did
not), when the first parse was done (benepar imported, loaded and run once), when the masked LM's first
forward pass began (torch and transformers imported, the model loaded), whether a model was loaded, and
the totals. The start-up floor is the CPU-s to the first masked-LM call, imports included: in one process,
its own; with workers, the main process's CPU-s when it forked them (a worker's count starts at the fork)
plus the first worker's to its first masked-LM call. Run it twice in a row for a warm OS page cache; the
figures are of the second.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alict60 import machine  # noqa: E402  (a sibling script, not a package)

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared/data"))
BENCH = Path(os.environ.get("AUTOCHECK_ALICT60", REPO.parent / "shared/bench/alict60"))

SHIM = r"""
import json, os, resource, sys, time
started = float(os.environ["BENCH_STARTED"])
events = []  # this process's (a forked worker starts with a copy of its parent's, cleared at its first note)
owner = [os.getpid()]
def note(what):
    if owner[0] != os.getpid():
        owner[0] = os.getpid()
        events.clear()
    r = resource.getrusage(resource.RUSAGE_SELF)
    event = {"event": what, "cpu_s": round(r.ru_utime + r.ru_stime, 3), "pid": os.getpid(),
             "wall_s": round(time.time() - started, 3), "torch_imported": "torch" in sys.modules}
    events.append(event)
    with open(os.environ["BENCH_EVENTS"], "a") as f:  # one line per event, from every process
        f.write(json.dumps(event) + "\n")
from autocheck.expand import parsing
real_parse = parsing.Parser._parse_uncached
def parse_uncached(self, texts):
    first = not any(e["event"] == "parser load begins" for e in events)
    if first:
        note("parser load begins")  # before benepar (and so torch) is imported
    try:
        return real_parse(self, texts)
    finally:
        if first:
            note("first parse done")
parsing.Parser._parse_uncached = parse_uncached
from autocheck.expand.job import Expander
real_mlm = Expander.mlm.fget
def mlm(self):
    if self._mlm is None:
        note("masked LM load begins")
        loaded = real_mlm(self)
        real_forward = type(loaded).log_probs_at  # patched once loaded: importing it would import torch
        def log_probs_at(self, *args):
            if not any(e["event"] == "first masked-LM call" for e in events):
                note("first masked-LM call")
            return real_forward(self, *args)
        type(loaded).log_probs_at = log_probs_at
    return real_mlm(self)
Expander.mlm = property(mlm)
from autocheck.execute import local
real_preload = local._preload
def preload(*args):
    real_preload(*args)
    note("workers forked")  # the imports the workers inherit done; the fork follows at once
local._preload = preload
from autocheck.cli import main
try:
    code = main(sys.argv[1:])
finally:
    note("end")
sys.exit(code)
"""


def run(args, out: Path, cache: Path, name: str) -> dict[int, list[dict]]:
    """Each process's events, the main process's first."""
    events = out / f"{name}.jsonl"
    env = {
        **os.environ,
        "NLTK_DATA": str(SHARED / "nltk_data"),
        "AUTOCHECK_CACHE": str(cache),
        "PYTHONPATH": str(REPO),
        "BENCH_EVENTS": str(events),
        "BENCH_STARTED": repr(time.time()),
    }
    command = [
        sys.executable, "-c", SHIM, "generate", "--dataset", str(BENCH / args.capability / "SSTB_train.csv"),
        "--capability", args.capability, "--lexicon", "opinion",
        "--parser", str(SHARED / "models/benepar_ptbsample_charlstm"),
        "--mlm", str(SHARED / "models/mini-bert-mlm"),
        "--max-variants", "1", "--seed", "1", "--out", str(out / name), "--overwrite",
        *(["--workers", str(args.workers)] if args.workers else []),
    ]  # fmt: skip
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    by_process: dict[int, list[dict]] = {}  # the main process writes the first line
    for line in events.read_text().splitlines():
        event = json.loads(line)
        by_process.setdefault(event["pid"], []).append(event)
    return by_process


def floor(events: dict[int, list[dict]]) -> dict | None:
    """CPU-s and wall seconds to the first masked-LM call: the main process's own, or with workers the main
    process's at the fork plus the first worker's (its count starts at the fork)."""
    main_events = next(iter(events.values()))
    first = [next((e for e in es if e["event"] == "first masked-LM call"), None) for es in events.values()]
    calls = [e for e in first if e is not None]
    if not calls:
        return None
    call = min(calls, key=lambda e: e["wall_s"])
    forked = next((e for e in main_events if e["event"] == "workers forked"), None)
    before = forked["cpu_s"] if forked is not None and call["pid"] != main_events[0]["pid"] else 0.0
    return {"cpu_s": before + call["cpu_s"], "wall_s": call["wall_s"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--capability", default="LC9")
    parser.add_argument("--workers", type=int, help="generate's --workers (default: generate's default)")
    args = parser.parse_args()
    print(machine())
    out = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    cache = out / "cache"
    runs, totals = {}, {}
    for name in ("cold", "cached"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs[name] = run(args, out, cache, name)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        totals[name] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"--workers {args.workers or 'default'}; CPU-s of a worker count from its fork")
    for name, processes in runs.items():
        print(f"{name}: {totals[name]:.2f} CPU-s in all, {len(processes)} process(es) with events")
        for n, events in enumerate(processes.values()):
            print(f"  {'main process' if n == 0 else f'worker {n}'}:")
            for e in events:
                print(
                    f"    {e['event']:<24} {e['cpu_s']:7.2f} CPU-s {e['wall_s']:7.2f} s wall"
                    f"  torch imported: {e['torch_imported']}"
                )
    found = floor(runs["cold"])
    if found is not None:
        print(
            f"start-up floor (cold run, to the first masked-LM call, imports and loading included): "
            f"{found['cpu_s']:.2f} CPU-s, {found['wall_s']:.2f} s wall"
        )
    loads = [e["event"] for events in runs["cached"].values() for e in events if "load" in e["event"]]
    speed = (
        next(iter(runs["cold"].values()))[-1]["wall_s"] / next(iter(runs["cached"].values()))[-1]["wall_s"]
    )
    cpu = totals["cold"] / totals["cached"]
    print(f"cached rerun: models loaded: {loads or 'none'}; {speed:.1f}x faster (wall), {cpu:.1f}x less CPU")
    same = all(
        (out / "cold" / f).read_bytes() == (out / "cached" / f).read_bytes()
        for f in ("cases.jsonl", "manifest.json")
    )
    print(f"cases.jsonl and manifest.json byte-identical: {same}")


if __name__ == "__main__":
    main()
