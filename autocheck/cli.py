"""The ``autocheck`` command line: thin commands over the library's stages."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .resources import ResourceMissing
from .store import InputError, prepare_output_dir

log = logging.getLogger("autocheck")


def _label_map(value: str) -> dict[str, str]:
    """``0=negative,1=positive`` → {"0": "negative", "1": "positive"}."""
    pairs = [item.split("=", 1) for item in value.split(",") if item.strip()]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(
            "expected RAW=LABEL pairs separated by commas, e.g. 0=negative,1=positive"
        )
    return {raw.strip(): label.strip() for raw, label in pairs}


def _fills(value: str) -> int | None:
    return None if value == "all" else int(value)


def _threshold(value: str) -> float | None:
    if value.lower() == "off":
        return None
    threshold = float(value)
    if not threshold >= 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative number or 'off', not {value!r}")
    return threshold


def _add_seed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--task", default="sentiment", help="task whose capability specs to use (default: sentiment)"
    )
    p.add_argument(
        "--dataset", required=True, help="dataset: SST folder/table, CSV/TSV/JSONL file, or HF hub id"
    )
    p.add_argument("--out", required=True, type=Path, help="suite directory to write")
    p.add_argument("--capability", action="append", metavar="LC", help="only these capabilities (repeatable)")
    p.add_argument("--requirements", help="capability spec JSON (default: requirements/<task>.json)")
    p.add_argument("--max-seeds", type=int, help="at most N seeds per capability, sampled with --seed")
    p.add_argument(
        "--max-variants", type=int, help="at most N template variants per seed, sampled with --seed"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed; same inputs + seed = identical output")
    p.add_argument("--lexicon", default="sentiwordnet", help="sentiwordnet | opinion | vader | PATH")
    p.add_argument("--compat", action="store_true", help="reproduce the original ALiCT code's quirks")
    p.add_argument("--text-column", help="text column of a CSV/TSV/JSONL/HF dataset")
    p.add_argument("--label-column", help="label column of a CSV/TSV/JSONL/HF dataset")
    p.add_argument("--label-map", type=_label_map, help="raw label → label, e.g. 0=negative,1=positive")
    p.add_argument("--split", help="dataset split (train/dev/test; HF split name)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.add_argument("--chunk-size", type=int, default=64, help="seed cases per batch/checkpoint (default 64)")


def _add_expansion_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--parser", default="benepar_en3", help="benepar model name or directory")
    p.add_argument("--mlm", default="bert-base-uncased", help="masked LM: HF hub id or directory")
    p.add_argument(
        "--treebank",
        default="nltk",
        help="reference grammar: 'nltk' (shipped PTB-sample PCFG), a grammar JSON, or a PTB .mrg directory",
    )
    p.add_argument(
        "--top-k",
        type=int,
        default=5,
        help="candidate expansions kept per seed, ranked together (per seed production with --compat)",
    )
    p.add_argument(
        "--fills-per-mask", type=_fills, default=1, help="validated fills kept per masked template, or 'all'"
    )
    p.add_argument(
        "--beam-size", type=int, default=20, help="beam width for multi-mask fills (CheckList: 100)"
    )
    p.add_argument("--top-n", type=int, default=60, help="masked-LM suggestions considered per template")
    p.add_argument(
        "--fluency-threshold",
        type=_threshold,
        default=0.15,
        help="keep an expansion whose masked-LM pseudo-log-likelihood per token is at most this far below "
        "its seed's (default 0.15); 'off' keeps all",
    )
    p.add_argument("--workers", type=int, default=1, help="CPU threads for model forward passes")
    p.add_argument("--no-expand", action="store_true", help="seeds only (the no-expansion ablation)")


def _config(args: argparse.Namespace, expand: bool):
    from .pipeline import GenerateConfig

    config = GenerateConfig(
        dataset=args.dataset,
        task=args.task,
        capabilities=args.capability,
        requirements=args.requirements,
        max_seeds=args.max_seeds,
        max_variants=args.max_variants,
        seed=args.seed,
        lexicon=args.lexicon,
        compat=args.compat,
        text_column=args.text_column,
        label_column=args.label_column,
        label_map=args.label_map,
        split=args.split,
        expand=expand,
        chunk_size=args.chunk_size,
    )
    if expand:
        config.parser, config.mlm = args.parser, args.mlm
        config.grammar = "ptb_sample" if args.treebank == "nltk" else args.treebank
        config.top_k, config.fills_per_mask = args.top_k, args.fills_per_mask
        config.beam_size, config.top_n = args.beam_size, args.top_n
        config.fluency_threshold = args.fluency_threshold
    return config


def cmd_generate(args: argparse.Namespace, expand: bool) -> int:
    from .pipeline import generate

    if getattr(args, "workers", None):
        import torch

        torch.set_num_threads(max(1, args.workers))
    config = _config(args, expand and not getattr(args, "no_expand", False))
    summary = generate(config, args.out, resume=args.resume, overwrite=args.overwrite, progress=_progress)
    _print_counts(summary)
    return 0


def _progress(items, total, description):
    from tqdm import tqdm

    return tqdm(items, total=total, desc=description, unit="chunk", disable=None)


def _print_counts(summary) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"suite written to {summary.out}")
    columns = ["seeds", "seed_cases"]
    if any(counts.parsed or counts.masked_templates for counts in summary.counts.values()):  # expanded
        columns += ["parsed", "masked_templates", "candidates", "expansions"]
    table.add_column("capability")
    for column in columns:
        table.add_column(column.replace("_", " "), justify="right")
    for cap_id, counts in summary.counts.items():
        table.add_row(cap_id, *(f"{getattr(counts, c):,}" for c in columns))
    Console().print(table)
    skipped = summary.dataset_stats.get("skipped") or {}
    if skipped:
        Console().print(f"dataset rows skipped: {skipped}")
    if summary.rejected:
        Console().print(f"rejected: {dict(sorted(summary.rejected.items()))}")


def cmd_grammar_build(args: argparse.Namespace) -> int:
    from .expand.grammar import build_grammar

    grammar = build_grammar(args.treebank)
    grammar.save(args.out)
    print(f"grammar written to {args.out}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import check_resources

    rows = check_resources()
    from rich.console import Console
    from rich.table import Table

    table = Table(title="autocheck resources")
    for column in ("resource", "status", "where / how to get it"):
        table.add_column(column)
    for row in rows:
        table.add_row(row.name, "[green]found[/]" if row.found else "[red]missing[/]", row.detail)
    Console().print(table)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .models import load_model
    from .report import format_table
    from .run import run_suite

    out = prepare_output_dir(args.out, overwrite=args.overwrite)
    models = [load_model(spec, batch_size=args.batch_size, device=args.device) for spec in args.model]
    results = run_suite(args.suite, models, out, batch_size=args.batch_size)
    print(format_table(results))
    print(f"results written to {args.out}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import format_table, load_results, write_html

    checklist = load_results(args.checklist) if args.checklist else None
    print(format_table(load_results(args.results), checklist))
    if args.html:
        write_html(args.results, args.html, checklist_dir=args.checklist)
        print(f"HTML report written to {args.html}")
    return 0


def cmd_checklist(args: argparse.Namespace) -> int:
    from .sources.checklist import convert_checklist

    out = prepare_output_dir(args.out, overwrite=args.overwrite)
    counts = convert_checklist(
        args.source, out, trust_pickle=args.trust_pickle, max_per_test=args.max_per_test
    )
    print(f"CheckList suite written to {args.out}: {counts}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .export import BINARY, THREE_CLASS, export_suite

    try:
        split = tuple(float(x) for x in args.split.split(":"))
    except ValueError:
        raise InputError(f"--split {args.split!r}: expected ratios like 8:1:1") from None
    summary = export_suite(
        args.suite,
        args.out,
        format=args.format,
        split=split,
        seed=args.seed,
        label_space=THREE_CLASS if args.labels == "three" else BINARY,
        set_label_rule=args.set_labels,
        overwrite=args.overwrite,
    )
    print(json.dumps({k: summary[k] for k in ("totals", "left_out")}, indent=2))
    print(f"export written to {args.out} (details: export_summary.json)")
    return 0


def cmd_retrain(args: argparse.Namespace) -> int:
    from .retrain import results_table, retrain

    results = retrain(
        args.model,
        args.data,
        args.out,
        epochs=args.epochs,
        batch_size=args.batch_size,
        seed=args.seed,
        eval_sst2=args.sst2_dev,
        lr=args.lr,
        max_steps=args.max_steps,
    )
    print(results_table(results))
    return 0


def cmd_metrics(args: argparse.Namespace) -> int:
    from .metrics import format_metrics, suite_metrics

    sizes = tuple(int(x) for x in args.sample_sizes.split(","))
    metrics = suite_metrics(
        args.suite, sample_sizes=sizes, trials=args.trials, seed=args.seed, parser=args.parser
    )
    print(format_metrics(metrics))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(
        args.out,
        shared=args.shared,
        max_seeds=args.max_seeds,
        max_variants=args.max_variants,
        seed=args.seed,
        overwrite=args.overwrite,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autocheck", description=__doc__)
    parser.add_argument("--version", action="version", version=f"autocheck {__version__}")
    parser.add_argument(
        "--offline", action="store_true", help="never download; a missing resource is an error"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("seeds", help="search a dataset and write the capability seed cases")
    _add_seed_options(p)
    p.set_defaults(func=lambda a: cmd_generate(a, expand=False))

    p = commands.add_parser("generate", help="seeds + grammar-based expansion (the whole generator)")
    _add_seed_options(p)
    _add_expansion_options(p)
    p.set_defaults(func=lambda a: cmd_generate(a, expand=True))

    grammar = commands.add_parser("grammar", help="reference grammar tools").add_subparsers(
        dest="grammar_command", required=True, metavar="COMMAND"
    )
    p = grammar.add_parser("build", help="build a PCFG from a treebank and save it as JSON")
    p.add_argument("--treebank", default="nltk", help="'nltk' (PTB sample) or a directory of .mrg files")
    p.add_argument("--out", required=True, type=Path)
    p.set_defaults(func=cmd_grammar_build)

    p = commands.add_parser("doctor", help="list every resource, where it was found or how to get it")
    p.set_defaults(func=cmd_doctor)

    p = commands.add_parser("run", help="run a suite against one or more models")
    p.add_argument("suite", type=Path, help="suite directory (cases.jsonl)")
    p.add_argument(
        "--model", action="append", required=True, help="HF id or directory, module:function, file:PATH"
    )
    p.add_argument("--out", required=True, type=Path, help="results directory")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.set_defaults(func=cmd_run)

    p = commands.add_parser("report", help="print results and write an HTML report")
    p.add_argument("results", type=Path, help="results directory written by 'autocheck run'")
    p.add_argument("--html", type=Path, help="write a self-contained HTML report here")
    p.add_argument(
        "--checklist", type=Path, help="results of the CheckList suite, shown beside each mapped LC"
    )
    p.set_defaults(func=cmd_report)

    p = commands.add_parser(
        "checklist", help="convert CheckList's released suite (JSON) into a suite directory"
    )
    p.add_argument("source", type=Path, help="sentiment_suite.tests.json (or a .pkl with --trust-pickle)")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--trust-pickle", action="store_true", help="allow loading a pickle (it can run code)")
    p.add_argument("--max-per-test", type=int, help="keep the first N items of each CheckList test")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.set_defaults(func=cmd_checklist)

    p = commands.add_parser("export", help="export a suite as retraining data (train/validation/test)")
    p.add_argument("suite", type=Path)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--format", default="jsonl", choices=["jsonl", "csv", "hf"])
    p.add_argument("--split", default="8:1:1", help="train:validation:test ratio (default 8:1:1)")
    p.add_argument("--labels", default="binary", choices=["binary", "three"], help="the model's label space")
    p.add_argument(
        "--set-labels",
        default="hard",
        choices=["hard", "drop", "soft"],
        help="a label set like 'neutral or positive': its one label in the space (hard), dropped, or soft",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--overwrite", action="store_true", help="replace an earlier export in --out")
    p.set_defaults(func=cmd_export)

    p = commands.add_parser("retrain", help="fine-tune a classifier on exported cases; evaluate before/after")
    p.add_argument("--model", required=True, help="HF id or directory of a sequence classifier")
    p.add_argument("--data", required=True, type=Path, help="directory written by 'autocheck export'")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sst2-dev", help="SST-2 dev.tsv for the before/after accuracy")
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--max-steps", type=int, help="stop after N optimizer steps")
    p.set_defaults(func=cmd_retrain)

    p = commands.add_parser("metrics", help="diversity of a suite: Self-BLEU and production-rule coverage")
    p.add_argument("suite", type=Path)
    p.add_argument("--sample-sizes", default="200,400,600,800,1000")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--parser", help="benepar model for rule coverage (omit to skip coverage)")
    p.set_defaults(func=cmd_metrics)

    p = commands.add_parser("demo", help="the main job end to end: generate a suite, run it, write a report")
    p.add_argument("--out", type=Path, default=Path("runs/demo"))
    p.add_argument(
        "--shared", type=Path, help="folder with the offline data/models (default: ../shared/data)"
    )
    p.add_argument("--max-seeds", type=int, default=5, help="seeds per capability (default 5)")
    p.add_argument("--max-variants", type=int, default=2, help="template variants per seed (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--overwrite", action="store_true", help="replace the files of a previous demo in --out")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    if args.offline:
        os.environ["AUTOCHECK_OFFLINE"] = os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        return args.func(args)
    except (InputError, ResourceMissing) as e:
        print(f"autocheck: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autocheck: interrupted; continue with the same command and --resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
