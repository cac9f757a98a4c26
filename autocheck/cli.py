"""The ``autocheck`` command line: thin commands over the library's stages."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .cache import NAMESPACES, cache_dir, clear, usage
from .config import DATASET, DEFAULT_MLM, EXPAND, FUZZ_EXPANSION, SEEDS, GenerateConfig, options
from .import_index import index_transformers_imports
from .resources import ResourceMissing, import_nltk_lean
from .store import (
    InputError,
    atomic_write_json,
    atomic_write_text,
    check_output_file,
    cli_flag,
    load_json,
    prepare_output_dir,
)

log = logging.getLogger("autocheck")


def _label_map(value: str) -> dict[str, str]:
    """``0=negative,1=positive`` → {"0": "negative", "1": "positive"}."""
    pairs = [item.split("=", 1) for item in value.split(",") if item.strip()]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(
            "expected RAW=LABEL pairs separated by commas, e.g. 0=negative,1=positive"
        )
    return {raw.strip(): label.strip() for raw, label in pairs}


# Every number an option takes is checked as the command line is read, before any work: argparse names
# the flag in its one-line error (see _Parser), so a 0 or -1 never reaches a loop, a model or numpy.


def _whole(minimum: int) -> Callable[[str], int]:
    """A whole number of at least ``minimum``."""

    def parse(value: str) -> int:
        try:
            number = int(value.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number of at least {minimum}, not {number}")
        return number

    return parse


# how many of something (at least 1); a seed, retries or "0 = all" (at least 0); seconds, rates (finite)
_pos, _nat = _whole(1), _whole(0)


def _real(minimum: float, *, strict: bool = False) -> Callable[[str], float]:
    """A finite number of at least (``strict``: above) ``minimum``."""

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {value!r}") from None
        if not math.isfinite(number) or number < minimum or (strict and number == minimum):
            bound = f"above {minimum:g}" if strict else f"at least {minimum:g}"
            raise argparse.ArgumentTypeError(f"expected a finite number {bound}, not {value!r}")
        return number

    return parse


_posf, _natf = _real(0, strict=True), _real(0)


def _fills(value: str) -> int | None:
    return None if value == "all" else _pos(value)


def _threshold(value: str) -> float | None:
    if value.lower() == "off":
        return None
    try:
        return _natf(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a non-negative number or 'off', not {value!r}") from None


def _probability(value: str) -> float | None:
    """A probability in (0, 1], or 'off' (None)."""
    if value.lower() == "off":
        return None
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0 < number <= 1:
        raise argparse.ArgumentTypeError(f"expected a probability in (0, 1] or 'off', not {value!r}")
    return number


def _sizes(value: str) -> tuple[int, ...]:
    """``200,400,600`` → (200, 400, 600)."""
    try:
        return tuple(_pos(item) for item in value.split(","))
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(
            f"expected whole numbers of at least 1 separated by commas ({e})"
        ) from None


def _ratios(value: str) -> tuple[float, ...]:
    """``8:1:1`` → (8.0, 1.0, 1.0): three finite non-negative numbers, not all zero."""
    try:
        ratios = tuple(_natf(item) for item in value.split(":"))
    except argparse.ArgumentTypeError:
        ratios = ()
    if len(ratios) != 3 or not sum(ratios) > 0:
        raise argparse.ArgumentTypeError(
            f"expected three ratios like 8:1:1 (train:validation:test), not {value!r}"
        )
    return ratios


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line, naming the command (the usage is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _model_dir_holds(path: Path) -> str | None:
    """What a local model directory holds, from its config.json: a benepar parser, a masked LM or a
    sequence classifier; None when it cannot tell (then the loader's own error speaks)."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    if not isinstance(config, dict):
        return "a benepar parser" if (path / "benepar_model.bin").is_file() else None
    if "benepar" in config or (path / "benepar_model.bin").is_file():
        return "a benepar parser"
    architectures = " ".join(a for a in config.get("architectures") or () if isinstance(a, str))
    if "MaskedLM" in architectures:
        return "a masked LM"
    if "SequenceClassification" in architectures:
        return "a sequence classifier"
    return None


def _check_text(args: argparse.Namespace) -> None:
    """No value may hold a NUL character: no file can be named so, and the OS refuses it mid-run."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str | Path) and "\x00" in str(v) for v in values):
            raise InputError(f"{cli_flag(name)}: the value holds a NUL character")


def _check_model_dirs(args: argparse.Namespace) -> None:
    """A local --mlm must hold a masked LM and a local --parser a benepar parser: given the other's folder
    (they are easy to swap), say what the folder holds before anything loads."""
    for flag, attr, wanted, other in (
        ("--mlm", "mlm", "a masked LM", "--parser"),
        ("--parser", "parser", "a benepar parser", "--mlm"),
    ):
        value = getattr(args, attr, None)
        if not isinstance(value, str) or not value:
            continue
        path = Path(value)
        if path.is_file():
            raise InputError(f"{flag} {value}: is a file; give {wanted}'s directory or name")
        holds = _model_dir_holds(path) if path.is_dir() else None
        if holds is not None and holds != wanted:
            hint = f" (is it the {other}?)" if holds in ("a masked LM", "a benepar parser") else ""
            raise InputError(f"{flag} {value}: the directory holds {holds}, not {wanted}{hint}")


# the parsers GenerateConfig's options name (config.option's ``parse``)
_PARSERS: dict[str, Callable[[str], Any]] = {
    "positive": _pos,
    "natural": _nat,
    "fills": _fills,
    "threshold": _threshold,
    "probability": _probability,
    "pairs": _label_map,
    "treebank": lambda value: "ptb_sample" if value == "nltk" else value,
}


def _add_config_options(
    p: argparse.ArgumentParser, *groups: str, defaults: dict[str, Any] | None = None
) -> None:
    """``GenerateConfig``'s options of these groups, each with the field's default (or the command's own,
    ``defaults``) and help."""
    for f in options(*groups):
        meta = f.metadata
        kwargs: dict[str, Any] = {"dest": f.name, "help": meta["help"]}
        default = (defaults or {}).get(f.name, f.default)
        if meta["repeat"]:
            kwargs.update(action="append", metavar=meta["repeat"])
        elif isinstance(f.default, bool):
            kwargs["action"] = "store_true"
        else:
            kwargs["default"] = default
            if not meta["choices"]:
                kwargs["metavar"] = meta["flag"].lstrip("-").replace("-", "_").upper()
            if default is not None:
                kwargs["help"] += f" (default {'nltk' if meta['parse'] == 'treebank' else default})"
            elif meta["parse"] == "fills" and f.name in (defaults or {}):
                kwargs["help"] += " (default all)"
            elif meta["shown_default"]:
                kwargs["help"] += f" (default {meta['shown_default']})"
        if meta["parse"]:
            kwargs["type"] = _PARSERS[meta["parse"]]
        if meta["choices"]:
            kwargs["choices"] = meta["choices"]
        p.add_argument(meta["flag"], **kwargs)


def _add_seed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, type=Path, help="suite directory to write")
    _add_config_options(p, SEEDS, DATASET)
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")


def _add_dataset_options(p: argparse.ArgumentParser) -> None:
    """Where a dataset's fields are: the options of every command that reads one."""
    _add_config_options(p, DATASET)


def _add_expansion_options(
    p: argparse.ArgumentParser, *, ablation: bool = True, defaults: dict[str, Any] | None = None
) -> None:
    _add_config_options(p, EXPAND, defaults=defaults)
    p.add_argument(
        "--workers",
        type=_pos,
        help="processes expanding chunks, each with its own models and one torch thread (default, and at "
        "most: one per core this process may use); output is the same",
    )
    p.add_argument(
        "--force-workers", action="store_true", help="start --workers processes even beyond the usable cores"
    )
    p.add_argument(
        "--device", default="auto", choices=["auto", "cpu", "cuda"], help="where the masked LM runs"
    )
    p.add_argument(
        "--batch-size", type=_pos, default=64, help="masked-LM rows per forward pass at most (default 64)"
    )
    p.add_argument(
        "--executor",
        default="local",
        help="local processes (--workers), Ray actors (ray: pip install 'autocheck[ray]') or a plug-in's "
        "executor; same output",
    )
    p.add_argument("--ray-address", help="Ray cluster to join (default: start a local one)")
    if ablation:
        p.add_argument("--no-expand", action="store_true", help="seeds only (the no-expansion ablation)")


def _config(args: argparse.Namespace, expand: bool):
    """The run's ``GenerateConfig`` from the options (those a command does not take keep their default)."""
    given = {f.name: getattr(args, f.name) for f in options(SEEDS, DATASET, EXPAND) if hasattr(args, f.name)}
    if given.get("checks") is not None:
        given["checks"] = tuple(given["checks"])
    return GenerateConfig(**{k: v for k, v in given.items() if v is not None or k != "checks"}, expand=expand)


def cmd_generate(args: argparse.Namespace, expand: bool) -> int:
    from .execute.local import usable_workers
    from .generate import generate

    import_nltk_lean()
    config = _config(args, expand and not getattr(args, "no_expand", False))
    summary = generate(
        config,
        args.out,
        resume=args.resume,
        overwrite=args.overwrite,
        progress=_progress,
        workers=usable_workers(getattr(args, "workers", None), force=getattr(args, "force_workers", False)),
        device=getattr(args, "device", "auto"),
        batch_size=getattr(args, "batch_size", 64),
        executor=getattr(args, "executor", "local"),
        ray_address=getattr(args, "ray_address", None),
    )
    summary.print_table()
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .execute.local import default_workers
    from .fuzz import SearchConfig, fuzz

    import_nltk_lean()
    config = _config(args, expand=True)
    search = SearchConfig(args.queries, args.beam, args.depth, args.max_queries)  # bad values: before loading
    summary = fuzz(
        config,
        args.model,  # loaded by fuzz once its worker processes have started
        args.out,
        search=search,
        seeds_from=args.seeds_from,
        resume=args.resume,
        overwrite=args.overwrite,
        progress=_progress,
        workers=args.workers or default_workers(),
        device=args.device,
        batch_size=args.batch_size,
        executor=args.executor,
        ray_address=args.ray_address,
        model_batch_size=args.model_batch_size,
    )
    summary.print_table()
    return 0


def _progress(items, total, description):
    """A bar on a terminal, periodic log lines otherwise (CI logs, nohup)."""
    from .progress import stages

    return stages(items, total, description)


def cmd_grammar_build(args: argparse.Namespace) -> int:
    from .expand.grammar import build_grammar

    check_output_file(args.out, overwrite=args.overwrite)
    grammar = build_grammar(args.treebank)
    grammar.save(args.out)
    print(f"grammar written to {args.out}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .doctor import FOUND, MISSING, check

    rows = check(
        args.task,
        args.model,
        getattr(args, "for"),
        lexicon=args.lexicon,
        parser=args.parser,
        mlm=args.mlm,
        grammar=args.grammar,
    )
    what = getattr(args, "for") or "generate and run"
    table = Table(title=f"autocheck doctor: what {what} will use (task {args.task})")
    for column in ("resource", "status", "where / instead / how to get it"):
        table.add_column(column, overflow="fold")
    colours = {FOUND: "green", MISSING: "red"}
    for row in rows:
        status = row.status if row.required or row.status != MISSING else f"{row.status} (optional)"
        table.add_row(row.name, f"[{colours.get(row.status, 'yellow')}]{status}[/]", row.detail)
    Console(width=max(120, Console().width)).print(table)
    failing = [row for row in rows if not row.ok]
    if failing:
        print(
            f"autocheck: doctor: {len(failing)} required resource{'s' * (len(failing) != 1)} missing: "
            + ", ".join(row.name for row in failing),
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .doctor import parts

    table = Table(title="autocheck plugins: every registered part (a plug-in adds one by an entry point)")
    for column in ("kind", "name", "from"):
        table.add_column(column)
    for kind, name, origin in parts():
        table.add_row(kind, name, origin)
    Console(width=max(100, Console().width)).print(table)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    directory = cache_dir()
    if directory is None:
        print("caching is off (AUTOCHECK_CACHE=off): nothing is stored")
        return 0
    if args.clear is not None:
        unknown = sorted(set(args.clear) - NAMESPACES.keys())
        if unknown:
            raise InputError(
                f"--clear {' '.join(unknown)}: no such cache; the caches: {', '.join(NAMESPACES)}"
            )
        freed = clear(directory, args.clear or NAMESPACES)
        for namespace, size in freed.items():
            print(f"cleared {namespace} ({size / 2**20:,.1f} MiB)")
        print(
            f"{directory}: {sum(freed.values()) / 2**20:,.1f} MiB freed"
            if freed
            else f"{directory}: nothing to clear"
        )
        return 0
    table = Table(title=f"autocheck's caches in {directory} (AUTOCHECK_CACHE; --clear NAME clears one)")
    for column, justify in (("cache", "left"), ("holds", "left"), ("entries", "right"), ("MiB", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    found = usage(directory) if directory.is_dir() else []
    for namespace, entries, size in found:
        table.add_row(namespace, NAMESPACES[namespace], f"{entries:,}", f"{size / 2**20:,.1f}")
    table.add_row(
        "all", "", f"{sum(e for _, e, _ in found):,}", f"{sum(b for _, _, b in found) / 2**20:,.1f}"
    )
    Console(width=max(100, Console().width)).print(table)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .ci import Gate, judge
    from .models import load_model
    from .report import format_table
    from .requirements import load_spec, task_spec
    from .run import RESULTS, RUN_FILES, run_suite
    from .schemas import check
    from .suite import MANIFEST, suite_task

    # a bad threshold fails before any model loads
    gate = Gate.from_options(args.fail_above, args.max_errors, junit=bool(args.junit))
    if args.junit:
        check_output_file(args.junit, overwrite=args.overwrite)
    task = load_spec(task_spec(args.task)).task if args.task else suite_task(args.suite)
    out = prepare_output_dir(args.out, overwrite=args.overwrite, files=RUN_FILES, manifest=RESULTS)
    remote = {
        "timeout": args.timeout,
        "retries": args.retries,
        "concurrency": args.concurrency,
        "api_key_env": args.api_key_env,
        "api_key_file": args.api_key_file,
        "verify_tls": not args.insecure,
        "max_tokens": args.max_tokens,
        "system_prompt": args.system_prompt,
    }
    versions = args.model_version or []
    if versions and len(versions) != len(args.model):
        raise InputError(
            f"--model-version: {len(versions)} given for {len(args.model)} --model; "
            "give one per --model, in order"
        )
    models = [
        load_model(
            spec, task, batch_size=args.batch_size, device=args.device, version=version or None, **remote
        )
        for spec, version in zip(args.model, versions or [None] * len(args.model))
    ]
    timings: dict[str, float] = {}
    results = run_suite(
        args.suite,
        models,
        out,
        batch_size=args.batch_size,
        task=task,
        executor=args.executor,
        ray_address=args.ray_address,
        timings=timings,
        use_cache=not args.no_cache,
    )
    print(format_table(results))
    ran = check("run manifest", load_json(out / MANIFEST, "run manifest"), out / MANIFEST)
    for name, record in ran["models"].items():
        reuse = "reused across runs" if record["reused_across_runs"] else "kept for this run only"
        cached = f"{record['from_cache']} of {record['inputs']}"
        print(f"{name}: {cached} answers from the prediction cache ({reuse})")
    print(f"results written to {args.out}")
    status, problems = judge(results, gate, args.junit, timings)
    if args.junit:
        print(f"JUnit XML written to {args.junit}")
    for problem in problems:
        print(f"autocheck: {problem.line()}", file=sys.stderr)
    return status


def cmd_report(args: argparse.Namespace) -> int:
    from .ci import Gate, verdict
    from .report import format_table, load_results, summary_json, write_html
    from .report.html import plot_files

    for target in (args.html, args.markdown):  # refuse before any work
        if target:
            check_output_file(target, overwrite=args.overwrite)
    for plot in plot_files(args.html) if args.html and not args.no_plots else []:  # the PNGs beside the page
        check_output_file(plot, overwrite=args.overwrite)
    # the Markdown and the page's verdict are judged as 'run --junit' judges: by default any failure fails
    gate = Gate.from_options(args.fail_above, args.max_errors, junit=True)
    thresholds = gate.fail_above
    checklist = load_results(args.checklist) if args.checklist else None
    results = load_results(args.results)
    if args.json:
        from .explain import add_explanations

        summary = add_explanations(summary_json(results, checklist), args.results, results)
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print(format_table(results, checklist))
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    if args.markdown:
        from .ci import markdown_summary
        from .report.html import collect_failures

        failing, _ = collect_failures(args.results, results, args.max_failures or None)
        atomic_write_text(args.markdown, markdown_summary(results, gate, failing))
        say(f"Markdown summary written to {args.markdown}")
    if args.html:
        write_html(
            args.results,
            args.html,
            checklist_dir=args.checklist,
            max_failures=args.max_failures,
            plots=not args.no_plots,
            thresholds=thresholds,
        )
        say(f"HTML report written to {args.html}" + ("" if args.no_plots else " (plots beside it as PNG)"))
    # as 'run' without a gate: results that tested nothing (no model, or nothing applicable) are an error
    untested = verdict(results, Gate())
    for problem in untested:
        print(f"autocheck: {problem.line()}", file=sys.stderr)
    return 1 if untested else 0


def cmd_explain(args: argparse.Namespace) -> int:
    from .explain import MINIMAL_EDITS, explain_run, format_explanations, minimal_edits

    if args.top < 0:
        raise InputError(f"--top {args.top}: expected 0 (all) or a positive number")
    if args.minimal_edits is not None:
        if args.minimal_edits < 1:
            raise InputError(
                f"--minimal-edits {args.minimal_edits}: expected a positive number of model calls"
            )
        if not args.model:
            raise InputError(
                "--minimal-edits needs --model (the model of the run, to ask about smaller edits)"
            )
        target = check_output_file(args.results / MINIMAL_EDITS, overwrite=args.overwrite)
    explained = explain_run(args.results, top=args.top or None)
    if args.json:
        print(json.dumps({"models": explained}, indent=2, ensure_ascii=False))
    else:
        print(format_explanations(explained))
    if args.minimal_edits is not None:
        from .models import load_model
        from .report import load_results
        from .suite import suite_task

        results = load_results(args.results)
        suite = (results.get("suite") or {}).get("dir", "")
        model = load_model(args.model, suite_task(suite), batch_size=args.batch_size, device=args.device)
        found = minimal_edits(args.results, model, max_calls=args.minimal_edits)
        atomic_write_json(target, found)
        print(
            f"minimal failing edits: {found['found']} of {found['candidates']} multi-change failures, "
            f"{found['calls']} model calls (cap {found['max_calls']}); written to {target}",
            file=sys.stderr if args.json else sys.stdout,
        )
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .report.compare import (
        compare_runs,
        comparison_markdown,
        format_comparison,
        parse_regression_rules,
        regression_line,
        regressions,
        write_comparison_html,
    )

    rules = parse_regression_rules(args.fail_on_regression or [])  # a bad rule fails before any work
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha {args.alpha}: expected a significance level between 0 and 1, e.g. 0.05")
    for target in (args.html, args.markdown):  # refuse before any work
        if target:
            check_output_file(target, overwrite=args.overwrite)
    result = compare_runs(args.run_a, args.run_b)
    found = regressions(result, rules, args.alpha) if rules else []
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(format_comparison(result, alpha=args.alpha))
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    if args.html:
        write_comparison_html(result, args.html, max_cases=args.max_cases, rules=rules, alpha=args.alpha)
        say(f"comparison written to {args.html}")
    if args.markdown:
        atomic_write_text(args.markdown, comparison_markdown(result, rules=rules, alpha=args.alpha))
        say(f"Markdown comparison written to {args.markdown}")
    for line in result["untested"]:
        print(f"autocheck: {line}", file=sys.stderr)
    for item in found:
        print(f"autocheck: regression: {regression_line(result, item, args.alpha)}", file=sys.stderr)
    return 1 if found or result["untested"] else 0


def cmd_checklist(args: argparse.Namespace) -> int:
    from .sources.checklist import convert_checklist
    from .suite import MANIFEST, SUITE_FILES

    out = prepare_output_dir(args.out, overwrite=args.overwrite, files=SUITE_FILES, manifest=MANIFEST)
    counts = convert_checklist(
        args.source, out, trust_pickle=args.trust_pickle, max_per_test=args.max_per_test, task=args.task
    )
    print(f"CheckList suite written to {args.out}: {counts}")
    return 0


def _label_space(value: str | None) -> tuple[str, ...] | None:
    """--labels: binary / three (sentiment's), task (the suite task's default), or a comma list."""
    from .export import BINARY, THREE_CLASS

    named = {"binary": BINARY, "three": THREE_CLASS, "task": None}
    if value is None or value in named:
        return named.get(value or "task")
    return tuple(label.strip() for label in value.split(",") if label.strip())


def cmd_export(args: argparse.Namespace) -> int:
    from .export import export_inputs, export_suite

    if args.inputs is not None:  # the suite's inputs, for predictions computed elsewhere
        count = export_inputs(args.suite, args.inputs, overwrite=args.overwrite)
        print(f"{count} distinct inputs written to {args.inputs}")
        if args.out is None:
            return 0
    if args.out is None:
        raise InputError(
            "export: give --out DIR (retraining data), --inputs FILE (the suite's inputs), or both"
        )
    summary = export_suite(
        args.suite,
        args.out,
        format=args.format,
        split=args.split,
        seed=args.seed,
        label_space=_label_space(args.labels),
        set_label_rule=args.set_labels,
        overwrite=args.overwrite,
    )
    print(json.dumps({k: summary[k] for k in ("totals", "left_out")}, indent=2))
    print(f"export written to {args.out} (details: export_summary.json)")
    return 0


def cmd_retrain(args: argparse.Namespace) -> int:
    from .retrain import RETRAIN_FILES, results_table, retrain

    prepare_output_dir(args.out, overwrite=args.overwrite, files=RETRAIN_FILES)
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
        suite=args.suite,
    )
    print(results_table(results))
    return 0


def cmd_metrics(args: argparse.Namespace) -> int:
    from .metrics import format_metrics, suite_metrics

    metrics = suite_metrics(
        args.suite, sample_sizes=args.sample_sizes, trials=args.trials, seed=args.seed, parser=args.parser
    )
    print(format_metrics(metrics))
    return 0


def cmd_suggest(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .author.suggest import suggest
    from .expand.mlm import MaskedLM
    from .sources.lexicon import load_lexicon

    lexicon = None
    if args.lexicon != "none":
        try:
            lexicon = load_lexicon(args.lexicon or "sentiwordnet")
        except ResourceMissing as e:
            if args.lexicon is not None:  # asked for by name: an error
                raise
            Console(stderr=True).print(f"note: no polarity column ({e}); pass --lexicon opinion|vader|PATH")
    # a word list to rank needs no masked LM unless one is named
    related = args.synonyms_of or args.antonyms_of
    mlm = None if related and args.mlm is None else MaskedLM.from_pretrained(args.mlm or DEFAULT_MLM)
    rows = suggest(
        args.template,
        mlm,
        args.n,
        lexicon=lexicon,
        synonyms_of=args.synonyms_of,
        antonyms_of=args.antonyms_of,
    )
    table = Table(title=args.template)
    for column in ("#", "words", "score", "POS", "polarity", "sentence"):
        table.add_column(column, justify="right" if column in ("#", "score") else "left")
    for rank, row in enumerate(rows, 1):
        polarity = " ".join(p or "?" for p in row.polarity) if lexicon else ""
        table.add_row(
            str(rank),
            " ".join(row.words),
            "" if row.score is None else f"{row.score:.2f}",
            " ".join(row.tags),
            polarity,
            row.text,
        )
    Console().print(table)
    return 0


def cmd_perturb(args: argparse.Namespace) -> int:
    from .generate import generate

    options = dict(_option(item) for item in args.option or [])
    capability = {
        "id": args.perturbation,
        "capability": "Robustness",
        "description": f"{args.perturbation} of the dataset's texts",
        "test_type": "DIR" if args.direction else "INV",
        "search": [{}],
        "perturb": {"name": args.perturbation, "options": options},
    }
    if args.direction:
        capability["direction"] = {"direction": args.direction, "tolerance": args.tolerance}
        if args.dir_label:
            capability["direction"]["label"] = args.dir_label
    config = GenerateConfig(
        dataset=args.dataset,
        spec={"task": args.task, "capabilities": [capability]},
        max_seeds=args.max_examples,
        seed=args.seed,
        text_column=args.text_column,
        input_columns=args.input_columns,
        label_column=args.label_column,
        split=args.split,
        encoding=args.encoding,
        max_rows=args.max_rows,
        expand=False,
        labelled=False,
    )
    summary = generate(config, args.out, resume=args.resume, overwrite=args.overwrite, progress=_progress)
    summary.print_table()
    return 0


def _option(item: str) -> tuple[str, object]:
    """``n=2`` → ("n", 2); ``phrases=["a", "b"]`` → a list (JSON values); anything else as text."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--option {item!r}: expected KEY=VALUE")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


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
    parser = _Parser(prog="autocheck", description=__doc__)
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

    p = commands.add_parser(
        "fuzz",
        help="search the seeds' valid expansions for the ones a model gets wrong; writes them as a suite",
    )
    p.add_argument(
        "--model", required=True, help="the target model: HF id or directory, module:function, ..."
    )
    _add_seed_options(p)
    _add_expansion_options(p, ablation=False, defaults=FUZZ_EXPANSION)
    p.add_argument(
        "--queries",
        type=_pos,
        default=50,
        help="model inputs per seed, its own included; a seed's unspent ones go to the others of its "
        "chunk (default 50)",
    )
    p.add_argument(
        "--beam", type=_pos, default=3, help="partial edits searched on from, per seed and depth (default 3)"
    )
    p.add_argument("--depth", type=_pos, default=2, help="insertion steps at most (default 2)")
    p.add_argument(
        "--max-queries", type=_pos, help="no further chunk of seeds once this many inputs were asked"
    )
    p.add_argument(
        "--model-batch-size", type=_pos, default=32, help="target model inputs per batch (default 32)"
    )
    p.add_argument(
        "--seeds-from",
        type=Path,
        metavar="SUITE",
        help="fuzz the MFT seeds of this suite directory instead of searching --dataset (give the "
        "suite's own --lexicon and --requirements)",
    )
    p.set_defaults(func=cmd_fuzz)

    grammar = commands.add_parser("grammar", help="reference grammar tools").add_subparsers(
        dest="grammar_command", required=True, metavar="COMMAND"
    )
    p = grammar.add_parser("build", help="build a PCFG from a treebank and save it as JSON")
    p.add_argument("--treebank", default="nltk", help="'nltk' (PTB sample) or a directory of .mrg files")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.set_defaults(func=cmd_grammar_build)

    p = commands.add_parser(
        "doctor",
        help="pre-flight: check what generate and run will need (exit 1 when something required is missing)",
    )
    p.add_argument("--task", default="sentiment", help="the task to check for (default: sentiment)")
    p.add_argument(
        "--model", action="append", help="a model run will test: checked by its config, never its weights"
    )
    p.add_argument("--for", choices=["generate", "run"], help="check only what this command needs")
    p.add_argument(
        "--lexicon", help="generate's --lexicon (default: the task's own lexicon, else sentiwordnet)"
    )
    p.add_argument("--parser", default="benepar_en3", help="generate's --parser (default benepar_en3)")
    p.add_argument("--mlm", default=DEFAULT_MLM, help=f"generate's --mlm (default {DEFAULT_MLM})")
    p.add_argument("--grammar", default="ptb_sample", help="generate's --grammar (default ptb_sample)")
    p.set_defaults(func=cmd_doctor)

    p = commands.add_parser("plugins", help="list every registered part (task, output kind, model form, ...)")
    p.set_defaults(func=cmd_plugins)

    p = commands.add_parser("cache", help="what the cache holds ($AUTOCHECK_CACHE), and clearing it")
    p.add_argument(
        "--clear",
        nargs="*",
        metavar="NAME",
        help=f"delete these caches (all when none is named): {', '.join(NAMESPACES)}; nothing else in the "
        "folder is touched",
    )
    p.set_defaults(func=cmd_cache)

    p = commands.add_parser("run", help="run a suite against one or more models")
    p.add_argument("suite", type=Path, help="suite directory (cases.jsonl)")
    p.add_argument(
        "--model", action="append", required=True, help="HF id or directory, module:function, file:PATH"
    )
    p.add_argument("--out", required=True, type=Path, help="results directory")
    p.add_argument("--batch-size", type=_pos, default=32)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument(
        "--overwrite", action="store_true", help="replace the files of an earlier run in --out (and --junit)"
    )
    p.add_argument("--task", help="the suite's task (default: the one its manifest records, or sentiment)")
    p.add_argument(
        "--executor",
        default="local",
        help="predict in this process (local), with Ray actors that each load the model (ray: pip install "
        "'autocheck[ray]') or with a plug-in's executor; same output",
    )
    p.add_argument("--ray-address", help="Ray cluster to join (default: start a local one)")
    p.add_argument(
        "--fail-above",
        action="append",
        metavar="[CAP=]RATE",
        help="exit 1 when a failure rate is above RATE (0..1): the overall rate and every capability "
        "without a limit of its own, or CAP=RATE for one capability",
    )
    p.add_argument(
        "--max-errors",
        metavar="RATE",
        help="exit 1 when the share of cases without a prediction is above RATE (0..1), overall or in a "
        "capability (default 0 when --fail-above, --max-errors or --junit is given)",
    )
    p.add_argument(
        "--junit",
        type=Path,
        help="write JUnit XML: one test per capability × model, the same verdict as the exit status",
    )
    p.add_argument(
        "--model-version",
        action="append",
        metavar="VERSION",
        help="the version of each --model (in order; '' for none): pins a callable's or endpoint's answers "
        "so later runs reuse them from the cache (without it they are kept for this run only)",
    )
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the prediction cache")
    remote = p.add_argument_group("remote models (http://…, openai:MODEL[@BASE_URL])")
    remote.add_argument(
        "--timeout",
        type=_posf,
        default=30.0,
        help="seconds for a whole request, its reply read to the end (default 30)",
    )
    remote.add_argument("--retries", type=_nat, default=3, help="retries per batch, backing off (default 3)")
    remote.add_argument("--concurrency", type=_pos, default=1, help="requests in flight (default 1)")
    remote.add_argument(
        "--api-key-env",
        help="environment variable holding the API key (chat models default to OPENAI_API_KEY; an HTTP "
        "endpoint gets a key only when one is named)",
    )
    remote.add_argument(
        "--api-key-file", type=Path, help="file holding the API key (instead of the variable)"
    )
    remote.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    remote.add_argument(
        "--max-tokens", type=_pos, help="chat models: the longest reply to ask for (default: the server's)"
    )
    remote.add_argument("--system-prompt", help="chat models: a system message sent before the task's prompt")
    p.set_defaults(func=cmd_run)

    p = commands.add_parser("report", help="print results and write an HTML report")
    p.add_argument("results", type=Path, help="results directory written by 'autocheck run'")
    p.add_argument("--html", type=Path, help="write a self-contained HTML report here")
    p.add_argument(
        "--checklist", type=Path, help="results of the CheckList suite, shown beside each mapped LC"
    )
    p.add_argument(
        "--markdown",
        type=Path,
        help="write a Markdown summary for a pull-request comment: per capability its rate, errors, limit "
        "and verdict, and up to --max-failures failing cases of each failing capability",
    )
    p.add_argument(
        "--fail-above",
        action="append",
        metavar="[CAP=]RATE",
        help="the failure-rate limits of the Markdown's and the page's verdict, as for 'run' (default 0: any "
        "failure fails)",
    )
    p.add_argument(
        "--max-errors",
        metavar="RATE",
        help="--markdown: the error-rate limit, as for 'run' (default 0: any error fails)",
    )
    p.add_argument(
        "--json", action="store_true", help="print the machine-readable summary instead of the table"
    )
    p.add_argument(
        "--max-failures",
        type=_nat,
        default=100,
        help="failing cases listed per capability and model in the page and the Markdown "
        "(default 100; 0: all)",
    )
    p.add_argument("--no-plots", action="store_true", help="no plots in the page and no PNG files beside it")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --html or --markdown file")
    p.set_defaults(func=cmd_report)

    p = commands.add_parser(
        "explain", help="which case features (slot values, inserted words, perturbations...) predict failure"
    )
    p.add_argument("results", type=Path, help="results directory written by 'autocheck run'")
    p.add_argument("--json", action="store_true", help="print the explanations as JSON")
    p.add_argument("--top", type=_nat, default=5, help="features shown per capability (default 5; 0: all)")
    p.add_argument("--model", help="the run's model (a spec as for 'run'), for --minimal-edits")
    p.add_argument(
        "--minimal-edits",
        type=_nat,
        metavar="N",
        help="search the smallest failing part of multi-word changes with at most N extra model inputs; "
        "written to RESULTS/minimal-edits.json (shown by 'report --html')",
    )
    p.add_argument("--batch-size", type=_pos, default=32, help="the model's inputs per batch (default 32)")
    p.add_argument("--device", default="auto")
    p.add_argument("--overwrite", action="store_true", help="replace an existing minimal-edits.json")
    p.set_defaults(func=cmd_explain)

    p = commands.add_parser(
        "compare", help="compare two runs of a suite: failure-rate changes and the cases that flipped"
    )
    p.add_argument("run_a", type=Path, help="results directory of the first run (before)")
    p.add_argument("run_b", type=Path, help="results directory of the second run (after)")
    p.add_argument("--html", type=Path, help="write the comparison as a self-contained HTML page")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON instead of a table")
    p.add_argument(
        "--max-cases",
        type=_nat,
        default=200,
        help="flipped cases listed in the page per capability and direction (default 200; 0: all)",
    )
    p.add_argument(
        "--fail-on-regression",
        action="append",
        metavar="[CAP=]POINTS",
        help="exit 1 when a capability's failure rate rose by more than POINTS percentage points and "
        "significantly (McNemar p < --alpha): every capability, or CAP=POINTS for one (repeatable)",
    )
    p.add_argument(
        "--alpha", type=float, default=0.05, help="significance level of the regression gate (default 0.05)"
    )
    p.add_argument("--markdown", type=Path, help="write the comparison as Markdown (a pull-request comment)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --html or --markdown file")
    p.set_defaults(func=cmd_compare)

    p = commands.add_parser(
        "checklist", help="convert a CheckList released suite (JSON) into a suite directory"
    )
    p.add_argument(
        "source", type=Path, help="e.g. sentiment_suite.tests.json (or a .pkl with --trust-pickle)"
    )
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--trust-pickle", action="store_true", help="allow loading a pickle (it can run code)")
    p.add_argument("--max-per-test", type=_pos, help="keep the first N items of each CheckList test")
    p.add_argument("--task", help="sentiment, qqp or squad (default: what the data shows)")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.set_defaults(func=cmd_checklist)

    p = commands.add_parser(
        "export", help="export a suite as retraining data (train/validation/test), or its inputs (--inputs)"
    )
    p.add_argument("suite", type=Path)
    p.add_argument("--out", type=Path, help="directory of the retraining data")
    p.add_argument(
        "--inputs",
        type=Path,
        metavar="FILE",
        help="write the suite's distinct inputs to FILE for a model run elsewhere: .jsonl with the ids a "
        "prediction file names (file:PATH), else one input per line (CheckList's to_raw_file)",
    )
    p.add_argument(
        "--format", default="jsonl", choices=["jsonl", "csv", "hf", "conll"], help="conll: an NER suite"
    )
    p.add_argument(
        "--split", type=_ratios, default="8:1:1", help="train:validation:test ratio (default 8:1:1)"
    )
    p.add_argument(
        "--labels",
        help="the model's label space: binary or three (sentiment), task (default: the task's binary poles "
        "or all its labels), or a comma-separated list",
    )
    p.add_argument(
        "--set-labels",
        default="hard",
        choices=["hard", "drop", "soft"],
        help="a label set like 'neutral or positive': its one label in the space (hard), dropped, or soft",
    )
    p.add_argument("--seed", type=_nat, default=0)
    p.add_argument("--overwrite", action="store_true", help="replace an earlier export in --out")
    p.set_defaults(func=cmd_export)

    p = commands.add_parser("retrain", help="fine-tune a classifier on exported cases; evaluate before/after")
    p.add_argument("--model", required=True, help="HF id or directory of a sequence classifier")
    p.add_argument("--data", required=True, type=Path, help="directory written by 'autocheck export'")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--epochs", type=_pos, default=1)
    p.add_argument("--batch-size", type=_pos, default=16)
    p.add_argument("--seed", type=_nat, default=0)
    p.add_argument("--sst2-dev", help="SST-2 dev.tsv for the before/after accuracy")
    p.add_argument("--lr", type=_posf, default=2e-5)
    p.add_argument("--max-steps", type=_pos, help="stop after N optimizer steps")
    p.add_argument(
        "--suite",
        type=Path,
        help="also run this suite before and after, and compare the runs (OUT/run-before, run-after, "
        "compare.html)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.set_defaults(func=cmd_retrain)

    p = commands.add_parser("metrics", help="diversity of a suite: Self-BLEU and production-rule coverage")
    p.add_argument("suite", type=Path)
    p.add_argument("--sample-sizes", type=_sizes, default="200,400,600,800,1000")
    p.add_argument("--trials", type=_pos, default=5)
    p.add_argument("--seed", type=_nat, default=0)
    p.add_argument("--parser", help="benepar model for rule coverage (omit to skip coverage)")
    p.set_defaults(func=cmd_metrics)

    p = commands.add_parser("suggest", help="masked-LM suggestions for a {mask} in a sentence, for templates")
    p.add_argument("template", help='a sentence with {mask} placeholders, e.g. "I really {mask} the flight."')
    p.add_argument(
        "--mlm",
        help="masked LM: HF hub id or directory (default bert-base-uncased; "
        "with --synonyms-of/--antonyms-of, none: WordNet's words unranked)",
    )
    p.add_argument("-n", type=_pos, default=30, help="how many suggestions (default 30)")
    p.add_argument(
        "--lexicon",
        help="polarity lexicon for the table (default: sentiwordnet where installed), or 'none'",
    )
    p.add_argument("--synonyms-of", metavar="WORD", help="only WordNet synonyms of WORD")
    p.add_argument("--antonyms-of", metavar="WORD", help="only WordNet antonyms of WORD")
    p.set_defaults(func=cmd_suggest)

    p = commands.add_parser("perturb", help="perturb a dataset's texts into an INV (or DIR) suite")
    p.add_argument("dataset", help="CSV/TSV/JSONL file, SST folder or HF id; labels are not needed")
    p.add_argument("--perturbation", required=True, help="typos, contractions, change_names, ... (README)")
    p.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="an option of the perturbation (JSON value), repeatable",
    )
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--task", default="sentiment", help="the task of the models to test (default sentiment)")
    p.add_argument("--direction", choices=["up", "down"], help="a DIR test: the task's score goes up/down")
    p.add_argument("--dir-label", help="DIR on P(label) instead of the task's score")
    p.add_argument("--tolerance", type=_natf, default=0.1, help="DIR tolerance (default 0.1)")
    p.add_argument("--max-examples", type=_pos, help="at most N examples, sampled with --seed")
    p.add_argument("--seed", type=_nat, default=0)
    _add_dataset_options(p)
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an existing --out")
    p.set_defaults(func=cmd_perturb)

    p = commands.add_parser("demo", help="the main job end to end: generate a suite, run it, write a report")
    p.add_argument("--out", type=Path, default=Path("runs/demo"))
    p.add_argument(
        "--shared", type=Path, help="folder with the offline data/models (default: ../shared/data)"
    )
    p.add_argument("--max-seeds", type=_pos, default=5, help="seeds per capability (default 5)")
    p.add_argument("--max-variants", type=_pos, default=2, help="template variants per seed (default 2)")
    p.add_argument("--seed", type=_nat, default=0)
    p.add_argument("--overwrite", action="store_true", help="replace the files of a previous demo in --out")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version, or a bad option (its one line is already printed)
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    from .progress import LogHandler

    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        handlers=[LogHandler(sys.stderr)],  # above a progress bar, never inside its line
    )
    if args.offline:
        os.environ["AUTOCHECK_OFFLINE"] = os.environ["HF_HUB_OFFLINE"] = "1"
    index_transformers_imports()  # about 1 CPU-s less in each command that imports transformers
    try:
        _check_text(args)
        _check_model_dirs(args)
        return args.func(args)
    except InputError as e:
        print(f"autocheck: error: {e.cli}", file=sys.stderr)
        return 2
    except ResourceMissing as e:
        print(f"autocheck: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"autocheck: interrupted; {_after_interrupt(args)}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped early (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # the machine, not the input: a full disk, a permission, a vanished folder
        where = f"{e.filename}: " if e.filename else ""
        reason = e.strerror or str(e)
        print(f"autocheck: error: {where}{reason}; then {_after_interrupt(args)}", file=sys.stderr)
        return 1


def run() -> NoReturn:
    """The ``autocheck`` program: ``main`` on the command line's arguments, then exit with its status."""
    status = main()
    # What is still alive is left to the system: Python's collections at exit would otherwise walk every
    # object torch and transformers made, 0.5-0.8 s of each command that imported them.
    gc.freeze()
    sys.exit(status)


def _after_interrupt(args: argparse.Namespace) -> str:
    """What to do next, naming only options the interrupted command has."""
    if args.command == "demo":
        return "run the same command again to continue where it stopped"
    if hasattr(args, "resume"):
        return "continue with the same command and --resume"
    if hasattr(args, "overwrite"):
        return "its output is incomplete; run the same command again with --overwrite"
    return "run the same command again"


if __name__ == "__main__":
    run()
