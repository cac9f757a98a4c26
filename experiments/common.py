"""Shared pieces of the experiment scripts: resources (offline stand-ins for ``--quick``, the paper's models
otherwise), the ``autocheck`` CLI through ``subprocess``, the CheckList baseline suite, tables and plots.

Generated suites and model results are reused when their directory already holds a finished run, so the
scripts can share one ``--work`` directory (default ``OUT/work``) and be re-run cheaply.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # the scripts run from a checkout, installed or not
    sys.path.insert(0, str(REPO))

from autocheck.store import content_hash  # noqa: E402

SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared" / "data"))
CAPABILITIES = tuple(f"LC{k}" for k in range(1, 11))
log = logging.getLogger("experiments")


@dataclasses.dataclass(frozen=True)
class Resources:
    dataset: str
    lexicon: str
    parser: str
    mlm: str
    models: dict[str, str]  # short name → HF id or directory
    sst2_dev: str
    checklist: str


def resources(quick: bool) -> Resources:
    """Offline stand-ins from ``../shared/data`` for ``--quick``; the paper's resources otherwise."""
    if quick:
        if not (SHARED / "models").is_dir():
            sys.exit(f"--quick needs the offline stand-ins in {SHARED} (set AUTOCHECK_SHARED_DATA)")
        return Resources(
            dataset=str(SHARED / "datasets/sst/derived_sentence_labels"),
            lexicon="opinion",
            parser=str(SHARED / "models/benepar_ptbsample_charlstm"),
            mlm=str(SHARED / "models/mini-bert-mlm"),
            models={
                "mini-bert": str(SHARED / "models/mini-bert-sst2"),
                "mini-bert-scratch": str(SHARED / "models/mini-bert-sst2-scratch"),
            },
            sst2_dev=str(SHARED / "datasets/sst/SST-2/dev.tsv"),
            checklist=str(SHARED / "checklist/sentiment_suite.tests.json"),
        )
    return Resources(
        dataset="SetFit/sst5",  # SST's sentences; five classes cut the scores at the paper's 0.4/0.6
        lexicon="sentiwordnet",
        parser="benepar_en3",
        mlm="bert-base-uncased",
        models={
            "BERT": "textattack/bert-base-uncased-SST-2",
            "RoBERTa": "textattack/roberta-base-SST-2",
            "DistilBERT": "distilbert-base-uncased-finetuned-sst-2-english",
        },
        sst2_dev=os.environ.get("SST2_DEV", str(SHARED / "datasets/sst/SST-2/dev.tsv")),
        checklist=os.environ.get("CHECKLIST_JSON", str(SHARED / "checklist/sentiment_suite.tests.json")),
    )


def parser(description: str, *, quick_seeds: int = 8) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", required=True, type=Path, help="directory for the table (.md/.csv) and plot")
    p.add_argument("--quick", action="store_true", help="offline stand-ins, few seeds: a few minutes")
    p.add_argument("--work", type=Path, help="where suites and runs are kept (default OUT/work)")
    p.add_argument("--capability", action="append", help="only these capabilities (repeatable)")
    p.add_argument(
        "--max-seeds", type=int, help=f"seeds per capability (default: {quick_seeds} with --quick)"
    )
    p.add_argument(
        "--max-variants", type=int, help="template variants per seed (default: all; 2 with --quick)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-expand", action="store_true", help="seeds only (e.g. without a masked LM)")
    p.set_defaults(quick_seeds=quick_seeds)
    return p


def setup(args: argparse.Namespace) -> Resources:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    args.work = args.work or args.out / "work"
    args.capabilities = args.capability or list(CAPABILITIES)
    if args.quick:
        args.max_seeds = args.quick_seeds if args.max_seeds is None else args.max_seeds
        args.max_variants = 2 if args.max_variants is None else args.max_variants
    res = resources(args.quick)
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    if args.quick:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return res


def autocheck(*args: str) -> None:
    """Run ``autocheck ARGS`` (this checkout's CLI); exit with a clear message if the command is missing."""
    command = [sys.executable, "-m", "autocheck.cli", *args]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    log.info("$ autocheck %s", " ".join(args))
    done = subprocess.run(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        if "invalid choice" in done.stderr or "No module named 'autocheck" in done.stderr:
            sys.exit(f"`autocheck {args[0]}` is not available in this checkout yet:\n{tail}")
        sys.exit(f"`autocheck {' '.join(args)}` failed (exit {done.returncode}):\n{tail}")


def generate(
    work: Path, res: Resources, capabilities: Sequence[str], max_seeds: int | None, seed: int, *extra: str
) -> Path:
    """A suite generated with these settings under ``work/suites`` (reused when already finished)."""
    args = ["generate", "--task", "sentiment", "--dataset", res.dataset]
    if res.dataset == "SetFit/sst5":
        args += ["--label-map", "0=negative,1=negative,2=neutral,3=positive,4=positive"]
    args += ["--lexicon", res.lexicon, "--parser", res.parser, "--mlm", res.mlm, "--seed", str(seed)]
    args += [a for lc in capabilities for a in ("--capability", lc)]
    if max_seeds is not None:
        args += ["--max-seeds", str(max_seeds)]
    args += extra
    out = work / "suites" / content_hash(*args)
    if (out / "manifest.json").is_file() and (out / "cases.jsonl").is_file():
        log.info("reusing suite %s", out)
        return out
    autocheck(*args, "--out", str(out), *(["--resume"] if out.exists() else []))
    return out


def generate_for(args: argparse.Namespace, res: Resources, *extra: str) -> Path:
    """The suite of a script's common options (capabilities, seeds, seed, --no-expand) plus ``extra``."""
    options = ["--no-expand"] if args.no_expand else []
    if args.max_variants is not None:
        options += ["--max-variants", str(args.max_variants)]
    return generate(args.work, res, args.capabilities, args.max_seeds, args.seed, *options, *extra)


def run(work: Path, suite: Path, models: dict[str, str]) -> dict[str, Any]:
    """``results.json`` of running ``suite`` against ``models`` (kept under ``work/runs``, reused); its model
    keys are replaced by the short names."""
    out = work / "runs" / content_hash(str(suite), *models.values())
    results = out / "results.json"
    if not results.is_file():
        autocheck(
            "run", str(suite), *(a for spec in models.values() for a in ("--model", spec)), "--out", str(out)
        )
    data = json.loads(results.read_text(encoding="utf-8"))
    by_spec = {spec: name for name, spec in models.items()}
    renamed = {}
    for key, value in data["models"].items():
        name = by_spec.get(key) or next((n for s, n in by_spec.items() if key in (s, Path(s).name)), key)
        renamed[name] = value
    data["models"] = renamed
    return data


def checklist_suite(
    work: Path, res: Resources, capabilities: Sequence[str], max_cases: int | None, seed: int
) -> Path:
    """The CheckList tests mapped to ``capabilities`` as a suite whose capability ids are the LC
    ids; at most ``max_cases`` random cases per test."""
    from autocheck.sources.checklist import LC_MAP, load_checklist, test_cases
    from autocheck.store import JsonlWriter, atomic_write_json, rng_for

    out = work / "checklist" / content_hash(res.checklist, *capabilities, str(max_cases), str(seed))
    if (out / "manifest.json").is_file():
        return out
    tests = {test["name"]: test for test in load_checklist(res.checklist)}
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    with JsonlWriter(out / "cases.jsonl") as writer:
        for lc in capabilities:
            cases = test_cases(tests[LC_MAP[lc]], f"{res.checklist}: {LC_MAP[lc]!r}")
            if max_cases is not None and len(cases) > max_cases:
                keep = sorted(rng_for(seed, f"checklist:{lc}").choice(len(cases), max_cases, replace=False))
                cases = [cases[k] for k in keep]
            counts[lc] = len(cases)
            writer.write_all(dataclasses.replace(c, capability=lc).to_json() for c in cases)
    atomic_write_json(out / "manifest.json", {"kind": "suite", "source": "checklist", "counts": counts})
    return out


def write_table(out_dir: Path, name: str, rows: list[dict[str, Any]], title: str = "") -> str:
    """``name.csv`` and ``name.md`` from rows of equal keys; returns the Markdown."""
    columns = list(rows[0]) if rows else []
    with open(out_dir / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)

    def cell(value: Any) -> str:
        if isinstance(value, float):  # percentages with 2 decimals, scores such as Self-BLEU with 3
            return f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.3f}"
        return "" if value is None else str(value)

    lines = [f"## {title}", ""] if title else []
    lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    markdown = "\n".join(lines) + "\n"
    (out_dir / f"{name}.md").write_text(markdown, encoding="utf-8")
    log.info("wrote %s.md/.csv in %s", name, out_dir)
    return markdown


def percent(rate: float | None) -> float | None:
    return None if rate is None else 100 * rate


def save_plot(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    log.info("wrote %s", path)
