"""Same work as the original implementation's measured run: ../shared/bench/alict60 (LC2, LC4, LC9, 20 SST
rows each), start-up and model loading included, as ONE ``autocheck generate`` process for the three
capabilities (the headline: one start-up, one set of models, one pool of workers) and as one process per
capability (the second line, the form the original and earlier versions were measured in).

    python benchmarks/bench_alict60.py [--workers 2] [--src CHECKOUT] [--count-shim] [--account]
        [--original-settings] [--baseline CHECKOUT [--rounds 2]] [--precisions fp32,bf16]
        [--forms one,three] [--capabilities LC2,LC4] [--cache DIR | --index-warm] [-- extra generate args]

The one-process form reads the 60 rows as one JSON Lines dataset (the rows as autocheck reads them, each
with the folder it came from as a column) and a copy of the sentiment spec whose LC2/LC4/LC9 searches each
keep only their own folder's rows (``meta``), so each capability searches the same 20 rows as in its own
process. Prints per capability and in total: wall, CPU-s (the process and its workers), peak RSS (the
process tree, sampled every 50 ms), masked-LM forward passes and rows (fills; fluency), candidates scored,
expansions per seed case and per CPU-second, rows and candidates per kept expansion, fluency rows per kept
expansion, against the original's figures (837.6 s, 435 expansions of 60 seeds, 821 masked sentences). In
the one-process form each capability's row shows its own stage seconds (parse + differentiate + fill,
summed over workers, from timings.json); wall and CPU-s are the process's, in the total.

``--original-settings`` adds the line closest to the original's settings (one process: ``--compat
--beam-size 100 --fills-per-mask 1 --fluency-threshold off --vocabulary all``; minutes, not seconds). Caches
are off unless --cache DIR is given (run twice with the same DIR for the fully cached rerun);
``--index-warm`` runs each generate with caches on, as by default, in a new folder that holds only
transformers' module index (``autocheck/import_index.py``), left there by an untimed process that imports
what a generate process does: a user's run on data no earlier run saw. ``--baseline
CHECKOUT`` runs the one-process form of each line asked for (the default settings unless ``--forms`` leaves
out ``one``; ``--original-settings``) in that checkout and in ``--src`` by turns, ``--rounds`` times
(baseline, src, baseline, src: both see the same load), and prints each run's CPU-s, the ratio of the means
and whether the cases are byte-identical (and how many of their lines are the baseline's); it is how a speed
ratio between two versions is measured (``docs/speed.md``). With ``--account`` each of those runs is also
timed as below and its line gives the share of its CPU-s in imports and loading; the medians of the
baseline's and src's shares follow (one run varies by more than a few points). ``--precisions fp32,bf16``
runs src once per masked-LM precision (``--precision P``), the baseline at its own;
``benchmarks/explain_bf16.py`` says why bf16's kept cases differ from fp32's. ``--src`` runs another
checkout (e.g. the commit before this work) and ``--count-shim`` counts its forward rows by wrapping the
model calls (for code that does not report them in timings.json). Printed first: the CPU model, its cores
and the load average. ``--account`` runs the one-process form with every import and every load of a model or
resource (the parser, the masked LM, WordNet, the POS tagger, the grammar, the lexicon) timed in each
process, each its own CPU-s (an import inside a load counts as an import), and prints their share of the
run's CPU-s. Last, the import floor: one process that only imports what a generate process must (autocheck's
CLI, torch, the tokenizer's and the masked LM's modules, benepar), the way it does (Python's collector off
while importing, what is alive frozen at exit); bench_startup.py measures a real run up to its first model
call.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared/data"))
BENCH = Path(os.environ.get("AUTOCHECK_ALICT60", REPO.parent / "shared/bench/alict60"))
ORIGINAL = {"wall": 837.6, "expansions": 435, "seeds": 60, "masked": 821}
CAPABILITIES = ("LC2", "LC4", "LC9")
# the settings closest to the original's (README of alict60: beam 100, first valid fill, no fluency filter)
ORIGINAL_SETTINGS = [
    "--compat", "--beam-size", "100", "--fills-per-mask", "1", "--fluency-threshold", "off",
    "--vocabulary", "all",
]  # fmt: skip

# as a generate process imports them: the collector off meanwhile, what is alive frozen at exit
FLOOR = """import gc; gc.disable(); import autocheck.cli, torch, transformers.models.auto.tokenization_auto
import autocheck.expand.bert  # a plain BERT's masked LM without transformers' model classes, since 2026-11-28
try:  # benepar without its spaCy plugin, as generate imports it since cefcc09
    from autocheck.expand.parsing import benepar_nltk; benepar_nltk()
except ImportError:
    import benepar
gc.freeze()"""
SHIM = r"""
import atexit, json, os, sys
from autocheck.expand import fluency, mlm as masked_lm
calls = {"mlm_passes": 0, "mlm_rows": 0, "fluency_passes": 0, "fluency_rows": 0}
real_mlm, real_pll = masked_lm.MaskedLM._mask_log_probs, fluency.FluencyScorer._log_probs
def mlm(self, ids, *a, **k):
    calls["mlm_passes"] += 1; calls["mlm_rows"] += len(ids); return real_mlm(self, ids, *a, **k)
def pll(self, batch, *a, **k):
    calls["fluency_passes"] += 1; calls["fluency_rows"] += len(batch); return real_pll(self, batch, *a, **k)
masked_lm.MaskedLM._mask_log_probs, fluency.FluencyScorer._log_probs = mlm, pll
atexit.register(lambda: json.dump(calls, open(os.environ["BENCH_CALLS"], "w")))
from autocheck.cli import main
sys.exit(main(sys.argv[1:]))
"""


def machine() -> str:
    """The CPU model (lscpu's, from /proc/cpuinfo), its cores and the load average: figures depend on all
    three, and the benchmark machine may be shared."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            names = (line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
            model = next(names, model)
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"CPU: {model}, {os.cpu_count()} cores; load average (1, 5, 15 min) {load}"


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return total


# --account: the CPU-s each process (a worker's own, from its fork) spends importing and loading each model
# or resource, each event's own (an import inside a load is counted as an import). ``_find_and_load`` is what
# the interpreter calls for a module not yet imported; the loads are autocheck's loading functions, wrapped
# where the run calls them (not importing torch before the workers fork), and what the main process prepares
# of the masked LM's loading for its workers before they fork (transformers' table of checkpoint renamings)
ACCOUNT_SHIM = r"""
import json, os, resource, sys
import _frozen_importlib as bootstrap
path, stack, spent = os.environ["BENCH_ACCOUNT"], [], {}
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def accounted(kind, fn):
    def wrapper(*args, **kwargs):
        start = cpu()
        stack.append(0.0)
        try:
            return fn(*args, **kwargs)
        finally:
            inner, took = stack.pop(), cpu() - start
            spent[kind] = spent.get(kind, 0.0) + took - inner
            if stack:
                stack[-1] += took
            elif sum(spent.values()) > 1e-3:  # written between events (the workers fork there), not
                with open(path, "a") as f:  # after each look-up of a model already loaded
                    f.write(json.dumps({"pid": os.getpid(), **spent}) + "\n")
                spent.clear()
    return wrapper
bootstrap._find_and_load = accounted("imports", bootstrap._find_and_load)
from autocheck import generate, tagging
from autocheck.expand import job, parsing
from autocheck.sources import lexicon
parsing._load_benepar = accounted("parser", parsing._load_benepar)
job.Expander.mlm = property(accounted("masked LM", job.Expander.mlm.fget))
lexicon._wordnet = accounted("WordNet", lexicon._wordnet)
generate.load_lexicon = accounted("lexicon", generate.load_lexicon)
tagging._tagger = accounted("POS tagger", tagging._tagger)
job.load_grammar = accounted("grammar", job.load_grammar)
job._vocabulary_filter = accounted("fill vocabulary", job._vocabulary_filter)
from autocheck.execute import local  # what the main process loads for the workers before they fork
local._preload = accounted("masked LM", local._preload)
from autocheck.cli import main
sys.exit(main(sys.argv[1:]))
"""
LOADS = ("parser", "masked LM", "WordNet", "lexicon", "POS tagger", "grammar")


def measure(
    argv: list[str], log: Path, env: dict, state: Path | None = None, cwd: Path | None = None
) -> dict:
    """Wall, CPU-s (the process and its children) and peak tree RSS of one CLI run (stderr to ``log``);
    with ``state`` (the run's state.json, rewritten after every chunk) also the RSS samples by chunks
    finished."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    trace: list[tuple[int, int]] = []  # (chunks finished, RSS)
    with open(log, "w") as err:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0
        while process.poll() is None:
            rss = tree_rss(process.pid)
            peak = max(peak, rss)
            if state is not None:
                trace.append((chunks_done(state), rss))
            time.sleep(0.05)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode:
        raise SystemExit(f"failed ({process.returncode}), see {log}: {' '.join(argv)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak": peak, "trace": trace}


def chunks_done(state: Path) -> int:
    try:
        return json.loads(state.read_text())["chunks"]
    except (OSError, ValueError, KeyError):  # not written yet, or being replaced
        return 0


def combined(out: Path, capabilities: list[str]) -> tuple[Path, Path]:
    """The rows of ``capabilities``' folders as one JSON Lines dataset (each row's folder in ``bench_lc``)
    and a sentiment spec whose searches keep their own folder's rows only: one process does each
    capability's work."""
    from autocheck.requirements import load_spec
    from autocheck.sources.datasets import load_examples
    from autocheck.sources.seeds import uses_contractions

    spec = load_spec(None, "sentiment")
    data = json.loads(Path(spec.path).read_text())
    data["capabilities"] = [c for c in data["capabilities"] if c["id"] in capabilities]
    for capability in data["capabilities"]:
        for group in capability["search"]:
            group["meta"] = {"bench_lc": [capability["id"]]}
    dataset, spec_file = out / "alict60.jsonl", out / "alict60-spec.json"
    with open(dataset, "w") as f:
        for lc in capabilities:
            rows = load_examples(
                str(BENCH / lc / "SSTB_train.csv"), inputs=spec.task.inputs, labels=spec.task.labels,
                expand=uses_contractions(spec.select([lc])),
            )  # fmt: skip
            for example in rows:
                f.write(json.dumps({"text": example.text, "label": example.label, "bench_lc": lc}) + "\n")
    spec_file.write_text(json.dumps(data))
    return dataset, spec_file


WARM_INDEX = """try:
    from autocheck.import_index import index_transformers_imports
except ImportError:  # a checkout from before the index
    pass
else:
    index_transformers_imports()"""


def warm_index(folder: Path, src: Path, env: dict) -> Path:
    """A new cache folder holding only transformers' module index, as an untimed process importing what a
    generate process does leaves it (``autocheck/import_index.py``; nothing in a checkout without it)."""
    shutil.rmtree(folder, ignore_errors=True)
    code = f"{WARM_INDEX}\n{FLOOR}\nimport transformers.models.bert"
    env = {**env, "AUTOCHECK_CACHE": str(folder)}
    subprocess.run([sys.executable, "-c", code], env=env, cwd=src, check=True)
    return folder


def run(name: str, data: list[str], args, out: Path, env: dict, extra: list[str]) -> dict[str, dict]:
    """One generate process: its figures as a row per capability (counts, model calls, own stage seconds)
    and a ``total`` row (wall, CPU-s and peak of the process tree)."""
    command = [
        "generate", *data, "--lexicon", "opinion",
        "--parser", str(SHARED / "models/benepar_ptbsample_charlstm"),
        "--mlm", str(SHARED / "models/mini-bert-mlm"), "--max-variants", "1", "--seed", "1",
        "--workers", str(args.workers), "--out", str(out / name), "--overwrite", *extra,
    ]  # fmt: skip
    calls_file = out / f"{name}.calls.json"
    if args.index_warm:
        env = {**env, "AUTOCHECK_CACHE": str(warm_index(out / f"{name}.cache", args.src, env))}
    if args.account:
        argv = [sys.executable, "-c", ACCOUNT_SHIM, *command]
    elif args.count_shim:
        argv = [sys.executable, "-c", SHIM, *command]
    else:
        argv = [sys.executable, "-m", "autocheck", *command]
    env = {**env, "BENCH_CALLS": str(calls_file), "BENCH_ACCOUNT": str(out / f"{name}.account.jsonl")}
    figures = measure(argv, out / f"{name}.log", env, cwd=args.src)
    manifest = json.loads((out / name / "manifest.json").read_text())
    timings = json.loads((out / name / "timings.json").read_text())
    calls = json.loads(calls_file.read_text()) if args.count_shim else timings.get("model_calls", {})
    own = timings.get("capabilities", {})
    rows = {
        lc: {**counts, "stages": sum(own.get(lc, {}).get(s, 0.0) for s in ("parse", "differentiate", "fill"))}
        for lc, counts in manifest["counts"].items()
    }
    total = {k: sum(r.get(k, 0) for r in rows.values()) for k in next(iter(rows.values()))}
    rows["total"] = {
        **total,
        "wall": figures["wall"],
        "cpu": figures["cpu"],
        "peak": figures["peak"],
        **calls,
    }
    return rows


def one_process(args, out: Path, env: dict, extra: list[str], name: str = "one") -> dict[str, dict]:
    dataset, spec = combined(out, args.capabilities)
    data = ["--dataset", str(dataset), "--text-column", "text", "--label-column", "label"]
    data += ["--requirements", str(spec), *(a for lc in args.capabilities for a in ("--capability", lc))]
    return run(name, data, args, out, env, extra)


def three_processes(args, out: Path, env: dict, extra: list[str]) -> dict[str, dict]:
    rows = {}
    for lc in args.capabilities:
        data = ["--dataset", str(BENCH / lc / "SSTB_train.csv"), "--capability", lc]
        got = run(lc, data, args, out, env, extra)
        rows[lc] = {**got[lc], **{k: got["total"][k] for k in ("wall", "cpu", "peak")}}
        rows[lc].update({k: v for k, v in got["total"].items() if k.endswith(("_passes", "_rows"))})
    total = {k: sum(r.get(k, 0) for r in rows.values()) for k in rows[args.capabilities[0]] if k != "peak"}
    rows["total"] = {**total, "peak": max(r["peak"] for r in rows.values())}
    return rows


def interleaved(args, out: Path, env: dict, extra: list[str], line: str) -> None:
    """The one-process form in ``--baseline`` and in ``--src`` (once per ``--precisions``) by turns
    (baseline, src, baseline, src...), so that all see the same machine load: each run's CPU-s and wall, the
    ratio of the mean CPU-s, and how many of each src run's cases are the baseline's (byte-identical lines;
    ``explain_bf16.py`` says why the others differ)."""
    runs = {"baseline": (args.baseline.resolve(), [])}  # the baseline at its own (fp32) arithmetic
    runs.update({f"src{p and '-'}{p}": (args.src, precision_args(p)) for p in args.precisions})
    cpu: dict[str, list[float]] = {who: [] for who in runs}
    shares: dict[str, list[float]] = {who: [] for who in runs}  # with --account
    print(f"{line} line, interleaved ({args.rounds} rounds; baseline {runs['baseline'][0]}):")
    for round_ in range(args.rounds):
        for who, (src, precision) in runs.items():
            name = f"{line}-{who}-{round_}"
            run_args = argparse.Namespace(**{**vars(args), "src": src})
            env_src = {**env, "PYTHONPATH": str(src)}
            total = one_process(run_args, out, env_src, [*extra, *precision], name=name)["total"]
            cpu[who].append(total["cpu"])
            same = ""
            if who != "baseline":
                ours, theirs = (out / f"{line}-{w}-{round_}" / "cases.jsonl" for w in (who, "baseline"))
                kept = set(theirs.read_bytes().splitlines())
                lines = ours.read_bytes().splitlines()
                same = (
                    f", cases.jsonl identical to the baseline's: {ours.read_bytes() == theirs.read_bytes()} "
                    f"({sum(x in kept for x in lines)} of {len(lines)} lines the baseline's)"
                )
            if args.account:
                shares[who].append(share(spent_by_process(out / f"{name}.account.jsonl"), total["cpu"]))
                same += f", imports and loading {shares[who][-1]:.0%} of its CPU-s"
            print(
                f"  {who:9} {total['cpu']:7.1f} CPU-s {total['wall']:7.1f} s wall, {total['expansions']} "
                f"expansions, {total.get('mlm_rows', 0)} masked-LM rows{same}; load "
                f"{os.getloadavg()[0]:.2f}",
                flush=True,
            )
    mean = {who: sum(values) / len(values) for who, values in cpu.items()}
    for who in runs:
        if who != "baseline":
            print(f"  baseline/{who} CPU-s (means): {mean['baseline'] / mean[who]:.2f}x")
    if args.account:
        medians = ", ".join(f"{who} {statistics.median(values):.0%}" for who, values in shares.items())
        print(f"  imports and loading, median share of a run's CPU-s: {medians}")


def precision_args(precision: str) -> list[str]:
    """``--precision P``, or nothing for generate's default (a checkout too old to know the option)."""
    return ["--precision", precision] if precision else []


def spent_by_process(events: Path) -> list[dict[str, float]]:
    """``--account``'s events summed per process (the main process first): CPU-s by import or load kind."""
    spent: dict[int, dict[str, float]] = {}
    for line in events.read_text().splitlines():
        event = json.loads(line)
        kinds = spent.setdefault(event.pop("pid"), {})
        for kind, seconds in event.items():
            kinds[kind] = kinds.get(kind, 0.0) + seconds
    return list(spent.values())


def summed(processes: list[dict[str, float]], kinds: tuple[str, ...]) -> float:
    return sum(process.get(kind, 0.0) for process in processes for kind in kinds)


def share(processes: list[dict[str, float]], cpu: float) -> float:
    """The share of the run's CPU-s spent importing and loading."""
    return summed(processes, ("imports", *LOADS)) / cpu


def account(events: Path, cpu: float) -> None:
    """``--account``'s figures: each process's CPU-s in imports and in each load, and their share of the
    run's CPU-s (the process tree's)."""
    processes = spent_by_process(events)
    print(f"imports and loading (--account), of the run's {cpu:.2f} CPU-s:")
    for n, kinds in enumerate(processes):
        shown = ", ".join(
            f"{kind} {seconds:.2f}" for kind, seconds in sorted(kinds.items(), key=lambda i: -i[1])
        )
        print(f"  {'main process' if n == 0 else f'worker {n}'}: {shown}")
    imports, loads = summed(processes, ("imports",)), summed(processes, LOADS)
    vocabulary = summed(processes, ("fill vocabulary",))
    print(
        f"  imports {imports:.2f} CPU-s ({imports / cpu:.0%}), loading models and data {loads:.2f} "
        f"({loads / cpu:.0%}): {imports + loads:.2f} CPU-s, {share(processes, cpu):.0%} of the run; "
        f"building the fill vocabulary {vocabulary:.2f} ({vocabulary / cpu:.0%}) more"
    )


def table(title: str, rows: dict[str, dict]) -> None:
    print(title)
    print(
        f"{'':7}{'wall s':>8}{'CPU-s':>8}{'peak MiB':>9}{'seeds':>6}{'tmpl':>6}{'cands':>7}{'exp':>5}"
        f"{'exp/seed':>9}{'exp/CPU-s':>10}{'MLM pass':>9}{'MLM rows':>9}{'PLL rows':>9}"
        f"{'rows/exp':>9}{'PLL/exp':>8}{'cand/exp':>9}{'stage s':>8}"
    )
    for name, r in rows.items():
        expansions = r["expansions"]
        if "wall" not in r:  # a capability of the one-process form: its own stage seconds only
            figures = f"{'':8}{'':8}{'':9}"
            rates = f"{expansions / max(1, r['seed_cases']):9.2f}{'':10}{'':9}{'':9}{'':9}{'':9}{'':8}"
        else:
            rows_all = r.get("mlm_rows", 0) + r.get("fluency_rows", 0)
            figures = f"{r['wall']:8.1f}{r['cpu']:8.1f}{r['peak'] / 2**20:9.0f}"
            rates = (
                f"{expansions / max(1, r['seed_cases']):9.2f}{expansions / max(r['cpu'], 1e-9):10.2f}"
                f"{r.get('mlm_passes', 0):9}{r.get('mlm_rows', 0):9}{r.get('fluency_rows', 0):9}"
                f"{rows_all / max(1, expansions):9.1f}{r.get('fluency_rows', 0) / max(1, expansions):8.2f}"
            )
        print(
            f"{name:7}{figures}{r['seed_cases']:6}{r['masked_templates']:6}{r['candidates']:7}{expansions:5}"
            f"{rates}{r['candidates'] / max(1, expansions):9.1f}{r.get('stages', 0.0):8.1f}"
        )
    total = rows["total"]
    print(
        "  stage s: parse + differentiate + fill seconds (timings.json), summed over the workers; "
        f"templates {total['masked_templates']} against the original's {ORIGINAL['masked']}; "
        f"wall ratio original/this: {ORIGINAL['wall'] / total['wall']:.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--src", type=Path, default=REPO, help="checkout to run (default: this one)")
    parser.add_argument("--count-shim", action="store_true", help="count forward rows by wrapping calls")
    parser.add_argument(
        "--account",
        action="store_true",
        help="CPU-s in imports and in loading, per process (one-process form)",
    )
    parser.add_argument("--cache", type=Path, help="cache directory (default: caches off)")
    parser.add_argument(
        "--index-warm",
        action="store_true",
        help="each run with caches on in a new folder holding only transformers' module index",
    )
    parser.add_argument("--out", type=Path, help="suite directories (default: a temporary directory)")
    parser.add_argument("--forms", default="one,three", help="one (process), three (processes), or both")
    parser.add_argument("--original-settings", action="store_true", help="add the closest-to-original line")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout, run interleaved with --src on each line asked for"
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --baseline: baseline, src pairs")
    parser.add_argument(
        "--precisions",
        default="",
        help="--precision of the src runs, one run each: fp32, bf16 or fp32,bf16 (default: generate's own)",
    )
    parser.add_argument(
        "--capabilities", default=",".join(CAPABILITIES), help="a part of the workload (e.g. LC2,LC4)"
    )
    parser.add_argument("extra", nargs="*", help="more generate options (after --)")
    args = parser.parse_args()
    args.capabilities = args.capabilities.split(",")
    args.precisions = args.precisions.split(",")
    if args.index_warm and args.cache:
        parser.error("--index-warm gives each run its own new cache folder: not with --cache")
    if not set(args.capabilities) <= set(CAPABILITIES):
        parser.error(f"--capabilities: the workload's are {', '.join(CAPABILITIES)}")
    # absolute: the runs start in --src, and their --out, PYTHONPATH and cache must name the same places
    args.src = args.src.resolve()
    env = {**os.environ, "NLTK_DATA": str(SHARED / "nltk_data"), "PYTHONPATH": str(args.src)}
    env["AUTOCHECK_CACHE"] = str(args.cache.resolve()) if args.cache else "off"
    out = (args.out or Path(tempfile.mkdtemp(prefix="bench-alict60-"))).resolve()
    out.mkdir(parents=True, exist_ok=True)
    forms = args.forms.split(",")
    print(machine())
    print(f"src {args.src}, --workers {args.workers}, extra {args.extra or 'none'}, suites in {out}")
    if args.baseline is not None:
        lines = {"default": list(args.extra)} if "one" in forms else {}
        if args.original_settings:
            lines["original-settings"] = [*ORIGINAL_SETTINGS, *args.extra]
        for line, extra in lines.items():
            interleaved(args, out, env, extra, line)
        return
    if "one" in forms:
        rows = one_process(args, out, env, args.extra)
        table("one process for LC2, LC4, LC9 (the default settings):", rows)
        if args.account:
            account(out / "one.account.jsonl", rows["total"]["cpu"])
    if "three" in forms:
        table(
            "one process per capability (the default settings):", three_processes(args, out, env, args.extra)
        )
    if args.original_settings:
        for p in args.precisions:
            extra = [*ORIGINAL_SETTINGS, *precision_args(p), *args.extra]
            rows = one_process(args, out, env, extra, name=f"original-settings{p and '-'}{p}")
            table(f"one process, closest to the original's settings ({' '.join(extra)}):", rows)
    print(
        f"original (README of alict60): {ORIGINAL['wall']} s, {ORIGINAL['expansions']} expansions of "
        f"{ORIGINAL['seeds']} seeds ({ORIGINAL['expansions'] / ORIGINAL['seeds']:.2f} per seed), "
        f"{ORIGINAL['masked']} masked sentences"
    )
    # what no generate process can avoid: starting Python and importing the libraries its models need
    floor = measure([sys.executable, "-c", FLOOR], out / "floor.log", env, cwd=args.src)
    print(
        f"import floor (python -c: autocheck's CLI, torch, BERT, benepar): {floor['wall']:.1f} s wall, "
        f"{floor['cpu']:.1f} CPU-s per "
        "process, paid once by the one-process form and three times by the other"
    )
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
