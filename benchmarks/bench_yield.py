"""Bug-finding yield: the new failures each generator setting finds on a panel of models nobody here wrote.

    pip install -e ".[yield]"
    python benchmarks/bench_yield.py [--max-seeds 15] [--max-variants 2] [--seed 20261127]
        [--models vader textblob ...] [--out /tmp/bench-yield] [--write-sample N] [--rounds N]

One sample of seeds (SST, LC1-LC10, the offline stand-ins: stand-in benepar, mini BERT masked LM, opinion
lexicon unless ``--lexicon`` names another) expanded under each setting (``SETTINGS``):

* ``baseline``: the defaults of 9b0ddbd, frozen: made by 9b0ddbd's own code with ``--baseline-src
  CHECKOUT`` (``git archive 9b0ddbd | tar -x -C CHECKOUT``), else by this code with ``--insertions
  modifiers --spread off`` (one adjective or adverb, with this code's word checks);
* ``any``: ``--insertions any``, every tag the grammar proposes (the paper's way);
* ``defaults``: today's defaults (``GenerateConfig()``);
* ``typos``, ``neutral phrase``: CheckList-style perturbations of the baseline's seed cases (the shipped
  ``typos`` and ``append_phrase`` with neutral phrases), 3 versions per seed case, as MFT cases with the
  seed's label;
* ``fuzz``, ``BAE-I`` (``GUIDED``, issue #38): searches guided by one target model, run once per panel
  model as the target, ``--queries`` per seed: ``autocheck fuzz`` with its defaults, and the BAE-I-style
  insertion attack of ``bench_fuzz.py`` (same masked LM, no grammar, no validation), its failures written
  as a suite. Each runs in a fresh process, as ``generate`` does, and its CPU-seconds leave out loading
  the target (which ``generate``'s never include); its new failures are counted on its target, and its
  failures that also fail on the other models (among those whose seed they pass) are its transfer.

Each suite runs on every panel model (``panel.py``). Per setting the suite's spread (expansions, distinct
inserted strings, tag patterns, productions, the share of multi-word insertions, the most frequent word's
share of expansions), and per (model, setting): cases, failures, new failures (the seed passes, the case
fails), distinct seeds broken, distinct inserted strings and productions among new failures, the CPU-seconds
of making the cases (one ``autocheck generate`` process each: start-up, model loading, caches off; the
perturbations in this process), new failures per CPU-second. The panel's
median model is the median of the models' new failures per CPU-second. ``--rounds N`` makes each
generated suite N times, the settings by turns, and takes the mean CPU-seconds (a setting's CPU-seconds
move by up to a fifth between runs); every round must make the same bytes.

``--write-sample N`` draws N new-failure rows of the ``defaults`` setting at random (over all models, one
row per case) into ``benchmarks/yield_sample.jsonl`` and N of its expansions into
``benchmarks/yield_kept_sample.jsonl`` (``--sample-files NEW KEPT`` elsewhere), drawn with ``--sample-seed``
(default ``--seed``), for blind reading: the texts and the seed's label, no verdict. ``--exclude
EARLIER.jsonl ...`` leaves out the cases and texts of earlier samples, so a fresh sample holds no row
already read; ``yield_blind.py`` shuffles the two files into reading sheets and scores the labels.
``--intensifier-sample N SEED PATH`` also draws N of the defaults' intensifier expansions
(docs/yield-history.md, ninth round), none of the other samples', for their own reading.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import stand_in_config  # noqa: E402  (sibling scripts, not a package)
from panel import NAMES, SHARED, load_panel, new_failures  # noqa: E402

SAMPLE = Path(__file__).with_name("yield_sample.jsonl")  # new failures of the defaults, unlabelled
KEPT_SAMPLE = Path(__file__).with_name("yield_kept_sample.jsonl")  # expansions the defaults keep
# 9b0ddbd's defaults where they differ from today's: the frozen baseline
BASELINE = {"insertions": "modifiers", "spread": "off"}
SETTINGS: dict[str, dict[str, Any]] = {"baseline": BASELINE, "any": {"insertions": "any"}, "defaults": {}}
REPO = Path(__file__).resolve().parents[1]
NEUTRAL_PHRASES = (  # sentiment-free sentences about a film, as CheckList's neutral additions
    "I saw it on Tuesday.",
    "It was released last year.",
    "We watched it at home.",
    "The screening started at eight.",
    "It is about two hours long.",
    "My brother came with me.",
)
PERTURBATIONS = {"typos": {}, "neutral phrase": {"phrases": list(NEUTRAL_PHRASES)}}
VERSIONS = 3  # perturbed versions per seed case
GUIDED = ("fuzz", "BAE-I")  # one search per target model


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def machine() -> str:
    model = next(
        (line.split(":", 1)[1].strip() for line in subprocess.run(
            ["lscpu"], capture_output=True, text=True
        ).stdout.splitlines() if line.startswith("Model name")),
        "unknown CPU",
    )  # fmt: skip
    return f"{model}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"


def generated(name: str, settings: dict[str, Any], args, out: Path) -> float:
    """Generate the setting's suite into ``out`` with ``autocheck generate`` in its own process (the
    baseline with ``--baseline-src``'s code when given); its CPU-seconds, start-up and model loading
    included, caches off."""
    config = stand_in_config(max_seeds=args.max_seeds, max_variants=args.max_variants, seed=args.seed)
    command = [sys.executable, "-m", "autocheck", "generate", "--out", str(out), "--dataset", config.dataset,
               "--lexicon", args.lexicon, "--parser", config.parser, "--mlm", config.mlm,
               "--max-seeds", str(args.max_seeds), "--max-variants", str(args.max_variants),
               "--seed", str(args.seed)]  # fmt: skip
    src = args.baseline_src if name == "baseline" and args.baseline_src else REPO
    for option, value in settings.items() if src == REPO else ():  # 9b0ddbd: its own defaults
        command += [f"--{option}", value]
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(src), "AUTOCHECK_CACHE": "off", "OMP_NUM_THREADS": "1"}
    start = cpu_seconds()
    # run from the checkout: ``python -m`` puts the working directory first on the path
    subprocess.run(
        command, env=env, cwd=src, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return cpu_seconds() - start


def perturbed(name: str, options: dict[str, Any], seeds_from: Path, out: Path, seed: int) -> float:
    """The baseline suite's seed cases and ``VERSIONS`` perturbations of each into ``out``; CPU-seconds."""
    import numpy as np

    from autocheck.author.perturb import perturb
    from autocheck.records import PERTURBATION, SEED, TestCase
    from autocheck.store import content_hash, read_jsonl
    from autocheck.suite import CASES, MANIFEST, write_suite

    start = cpu_seconds()
    seeds = [TestCase.from_json(d) for d in read_jsonl(seeds_from / CASES) if d["kind"] == SEED]
    function = "typos" if name == "typos" else "append_phrase"
    cases = []
    for case in seeds:
        rng = np.random.default_rng([seed, int(content_hash(case.id, length=8), 16)])
        cases.append(case)
        for version in perturb(function, case.inputs, rng, n=VERSIONS, **options):
            cases.append(
                TestCase(
                    id=f"{case.id}-p{content_hash(version.inputs['text'], length=8)}",
                    capability=case.capability,
                    kind=PERTURBATION,
                    inputs=version.inputs,
                    expected=case.expected,
                    test_type="MFT",
                    label=case.label,
                    seed_id=case.id,
                    provenance={"perturbation": name},
                )
            )
    shutil.rmtree(out, ignore_errors=True)
    write_suite(out, cases, json.loads((seeds_from / MANIFEST).read_text()))
    return cpu_seconds() - start


def guided(name: str, target: str, args: argparse.Namespace, out: Path) -> float:
    """``name``'s search against ``target`` (a panel model) in a fresh process, its suite into ``out``: the
    CPU-seconds of that process less loading the target, which the child prints last."""
    command = [sys.executable, __file__, "--guided-one", name, target, str(out), "--lexicon", args.lexicon,
               "--max-seeds", str(args.max_seeds), "--max-variants", str(args.max_variants),
               "--seed", str(args.seed), "--queries", str(args.queries)]  # fmt: skip
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "AUTOCHECK_CACHE": "off", "OMP_NUM_THREADS": "1"}
    start = cpu_seconds()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{name} against {target} failed:\n{done.stderr[-3000:]}")
    return cpu_seconds() - start - float(done.stdout.split()[-1])


def guided_one(name: str, target: str, args: argparse.Namespace, out: Path) -> None:
    """The child of ``guided``: load ``target``, search the sample's seeds against it, write the suite, and
    print the CPU-seconds loading the target took."""
    from dataclasses import replace

    from bench_fuzz import bae_i

    from autocheck.config import FUZZ_EXPANSION
    from autocheck.expand.mlm import MaskedLM
    from autocheck.fuzz import SearchConfig, fuzz, mft_answers
    from autocheck.generate import describe_capability, seed_cases
    from autocheck.outputs import FAIL
    from autocheck.records import SEED
    from autocheck.suite import write_suite

    config = replace(
        stand_in_config(max_seeds=args.max_seeds, max_variants=args.max_variants, seed=args.seed),
        lexicon=args.lexicon,
    )
    start = cpu_seconds()
    model = load_panel([target])[target]
    loading = cpu_seconds() - start
    if name == "fuzz":
        fuzz(replace(config, **FUZZ_EXPANSION), model, out, search=SearchConfig(queries=args.queries))
    else:
        spec, capabilities, _, _, _, cases = seed_cases(config)
        seeds = [c for c in cases if c.kind == SEED and c.test_type == "MFT" and c.editable]
        ask = mft_answers(model, spec.task)
        mlm = MaskedLM.from_pretrained(config.mlm, device="cpu")
        passing = [s for s, (_, outcome) in zip(seeds, ask(seeds)) if outcome not in (FAIL, None)]
        found = [bae_i(seed, ask, mlm, args.queries)[0] for seed in passing]
        manifest = {
            "task": spec.task.to_json(),
            "capabilities": {c.id: describe_capability(c) for c in capabilities},
            "settings": {"method": "BAE-I", "queries": args.queries, "target": target},
        }
        write_suite(out, [*seeds, *(f for f in found if f is not None)], manifest)
    print(loading)


def suite_of(args: argparse.Namespace, name: str) -> Path:
    """Where a setting's suite goes (``fuzz@vader``: fuzz's against vader)."""
    return args.out / "suites" / name.replace(" ", "-").replace("@", "-")


def transfer_of(suite: Path, found: Any, models: dict[str, Any], target: str) -> dict[str, str]:
    """``bench_fuzz.transfer`` of the target's new failures ``found`` in ``suite``: per other model, those
    that fail on it too, among those whose seed it passes."""
    from bench_fuzz import transfer

    from autocheck.records import SEED, TestCase
    from autocheck.store import read_jsonl

    cases = [TestCase.from_json(c) for c in read_jsonl(suite / "cases.jsonl")]
    new = {row["case"] for row in found.rows}
    seeds = {c.id: c for c in cases if c.kind == SEED}
    return transfer([c for c in cases if c.id in new], seeds, models, target)


def insertion(case: dict[str, Any]) -> tuple[str, str, str] | None:
    """(inserted string, tag pattern, production) of an expansion; None for any other case."""
    provenance = case.get("provenance", {})
    inserted = provenance.get("inserted")
    if not inserted:
        return None
    production = provenance["production"]
    return (
        " ".join(i["word"].lower() for i in inserted),
        " ".join(i["tag"] for i in inserted),
        f"{production['lhs']} -> {' '.join(production['to'])}",
    )


def spread(suite: Path) -> dict[str, Any]:
    from autocheck.store import read_jsonl

    found = [i for i in map(insertion, read_jsonl(suite / "cases.jsonl")) if i]
    words = Counter(w for string, _, _ in found for w in set(string.split()))
    top, count = words.most_common(1)[0] if words else ("-", 0)
    return {
        "expansions": len(found),
        "strings": len({s for s, _, _ in found}),
        "patterns": len({t for _, t, _ in found}),
        "productions": len({p for _, _, p in found}),
        "multi-word": sum(" " in s for s, _, _ in found) / max(1, len(found)),
        "top word": f"{top} {count / max(1, len(found)):.1%}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=15)
    parser.add_argument("--max-variants", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--models", nargs="+", default=list(NAMES), choices=NAMES)
    parser.add_argument("--settings", nargs="+", default=[*SETTINGS, *PERTURBATIONS])
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-yield"))
    parser.add_argument(
        "--lexicon",
        default="opinion",
        help="the polarity lexicon of every generated suite (default opinion; autocheck's own default, "
        "SentiWordNet, by path: a file the baseline's code reads too, docs/reference/resources.md)",
    )
    parser.add_argument("--write-sample", type=int, default=0)
    parser.add_argument("--sample-seed", type=int, help="the seed of the sample's draw (default: --seed)")
    parser.add_argument(
        "--sample-files", nargs=2, type=Path, default=[SAMPLE, KEPT_SAMPLE], metavar=("NEW", "KEPT"),
        help="where the new-failure and the kept rows go (default: benchmarks/yield_sample.jsonl, ...)",
    )  # fmt: skip
    parser.add_argument(
        "--exclude", nargs="*", type=Path, default=[],
        help="earlier samples (jsonl): their cases and texts are not drawn again",
    )  # fmt: skip
    parser.add_argument(
        "--intensifier-sample", nargs=3, metavar=("N", "SEED", "PATH"),
        help="with --write-sample: also N of the defaults' intensifier expansions drawn with SEED, none "
        "of the other samples', into PATH",
    )  # fmt: skip
    parser.add_argument("--reuse", action="store_true", help="keep the generated suites --out holds already")
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="make each generated suite this many times, the settings by turns (baseline, defaults, "
        "baseline, ...): its CPU-seconds are the mean, and each round's cases must be the first's bytes",
    )  # fmt: skip
    parser.add_argument(
        "--baseline-src", type=Path, help="a checkout of 9b0ddbd: the baseline made by its code, its defaults"
    )
    parser.add_argument("--queries", type=int, default=50, help="fuzz's and BAE-I's queries per seed")
    parser.add_argument("--guided-one", nargs=3, metavar=("SETTING", "TARGET", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.guided_one:
        os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
        name, target, out = args.guided_one
        return guided_one(name, target, args, Path(out))
    if Path(args.lexicon).is_file():  # the baseline's process runs in its own checkout
        args.lexicon = str(Path(args.lexicon).resolve())
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    import torch

    torch.set_num_threads(1)
    print(f"machine: {machine()}")
    print(
        f"sample: SST, LC1-LC10, stand-ins, --max-seeds {args.max_seeds} --max-variants {args.max_variants} "
        f"--seed {args.seed}"
    )
    cpu: dict[str, float] = {}
    cache = os.environ.get("AUTOCHECK_CACHE")
    os.environ["AUTOCHECK_CACHE"] = "off"  # every parse and fill really made, for the CPU figures
    baseline = args.out / "suites/baseline"
    rounds: dict[str, list[float]] = {}
    for name in [n for _ in range(args.rounds) for n in args.settings if n in SETTINGS]:
        suite = args.out / "suites" / name.replace(" ", "-")
        spent = suite.with_suffix(".cpu")  # a suite's CPU-seconds, for --reuse
        if args.reuse and spent.is_file():
            cpu[name] = float(spent.read_text())
            continue
        first = (suite / "cases.jsonl").read_bytes() if name in rounds else None
        rounds.setdefault(name, []).append(generated(name, SETTINGS[name], args, suite))
        if first is not None and (suite / "cases.jsonl").read_bytes() != first:
            raise SystemExit(f"{name}: round {len(rounds[name])} made other cases than the first")
        cpu[name] = statistics.mean(rounds[name])
        spent.write_text(f"{cpu[name]:.2f}\n")
    for name, spent_by_round in rounds.items():
        if len(spent_by_round) > 1:
            print(f"{name}: CPU-s by round {', '.join(f'{c:.1f}' for c in spent_by_round)} (identical cases)")
    for name in [n for n in args.settings if n in PERTURBATIONS]:  # of the baseline's seeds
        if not baseline.is_dir():
            cpu["baseline"] = generated("baseline", BASELINE, args, baseline)
        suite = args.out / "suites" / name.replace(" ", "-")
        cpu[name] = perturbed(name, PERTURBATIONS[name], baseline, suite, args.seed)
    for name in [n for n in args.settings if n in GUIDED]:  # a search per target
        for model in args.models:
            cpu[f"{name}@{model}"] = guided(name, model, args, suite_of(args, f"{name}@{model}"))
    if cache is None:
        del os.environ["AUTOCHECK_CACHE"]
    else:
        os.environ["AUTOCHECK_CACHE"] = cache

    # a guided setting's suites and CPU-seconds are per target: "fuzz@vader"
    suites = [n for n in args.settings if n not in GUIDED]
    suites += [f"{n}@{m}" for n in args.settings if n in GUIDED for m in args.models]
    print(f"\n{'setting':<32}{'CPU s':>7}{'expansions':>11}{'strings':>9}{'patterns':>9}{'productions':>12}"
          f"{'multi-word':>11}  top word")  # fmt: skip
    for name in suites:
        s = spread(suite_of(args, name))
        print(
            f"{name:<32}{cpu[name]:>7.1f}{s['expansions']:>11}{s['strings']:>9}{s['patterns']:>9}"
            f"{s['productions']:>12}{s['multi-word']:>11.1%}  {s['top word']}"
        )

    models = load_panel(args.models)
    results = {
        name: new_failures(suite_of(args, name), models, args.out / "runs" / name.replace(" ", "-"))
        for name in args.settings
        if name not in GUIDED
    }
    for name in [n for n in args.settings if n in GUIDED]:  # each target's new failures, on its own suite
        results[name] = {}
        for model in args.models:
            key = f"{name}@{model}"
            runs = args.out / "runs" / key
            results[name][model] = new_failures(suite_of(args, key), {model: models[model]}, runs)[model]
            print(f"{key} transfer: {transfer_of(suite_of(args, key), results[name][model], models, model)}")

    def spent(name: str, model: str) -> float:
        return cpu[f"{name}@{model}" if name in GUIDED else name]

    print(
        f"\n{'model':<24}{'setting':<16}{'cases':>7}{'fail':>7}{'new':>6}{'seeds':>7}{'strings':>9}"
        f"{'prods':>7}{'new/CPU s':>11}"
    )
    for model in args.models:
        for name in args.settings:
            y = results[name][model]
            found = [i for i in (insertion({"provenance": r["provenance"]}) for r in y.rows) if i]
            print(
                f"{model:<24}{name:<16}{y.cases:>7}{y.failures:>7}{len(y.rows):>6}{y.seeds_broken:>7}"
                f"{len({s for s, _, _ in found}):>9}{len({p for _, _, p in found}):>7}"
                f"{len(y.rows) / spent(name, model):>11.2f}"
            )

    def median_rate(name: str, cpu_s: float | None = None) -> float:
        """The panel median of the setting's new failures per CPU-second (had it taken ``cpu_s``)."""
        return statistics.median(
            len(results[name][m].rows) / (spent(name, m) if cpu_s is None else cpu_s) for m in args.models
        )

    print("\npanel median (over models)")
    for name in args.settings:
        seeds = statistics.median(results[name][m].seeds_broken for m in args.models)
        rate = median_rate(name)
        print(f"  {name:<16} new failures per CPU-second {rate:.2f}, distinct seeds broken {seeds:g}")
    if len(rounds.get("baseline", ())) > 1:  # how far the machine moves the ratio: each round's own CPU-s
        print("panel median new failures per CPU-second against the baseline's, by round")
        for name in [n for n in args.settings if n != "baseline" and n in rounds]:
            ratios = []
            for before, spent in zip(rounds["baseline"], rounds[name]):
                base = median_rate("baseline", before)
                ratios.append(f"{median_rate(name, spent) / base:.2f}x" if base else "n/a")
            print(f"  {name:<16} {', '.join(ratios)}")
    if args.write_sample:
        draw = args.seed if args.sample_seed is None else args.sample_seed
        write_samples(
            results["defaults"],
            args.out / "suites/defaults",
            args.write_sample,
            draw,
            args.sample_files,
            args.exclude,
        )
        if args.intensifier_sample:
            n, draw, path = args.intensifier_sample
            exclude = [*args.exclude, *args.sample_files]
            write_intensifier_sample(args.out / "suites/defaults", int(n), int(draw), Path(path), exclude)


def write_samples(
    found: dict[str, Any], suite: Path, n: int, seed: int, paths: list[Path], exclude: list[Path]
) -> None:
    """``n`` new-failure rows (over all models, one per case) and ``n`` kept expansions of ``suite``, drawn
    at random, for blind reading: the texts and the seed's label, never a model's answer or a check's.
    A case or a text of an ``exclude`` sample is not drawn again."""
    cases, fresh = _unread(suite, exclude)
    failing = sorted({r["case"] for y in found.values() for r in y.rows} & set(fresh))
    expansions = sorted(i for i in fresh if cases[i]["kind"] == "expansion")
    rng = random.Random(seed)
    for path, pool in zip(paths, (failing, expansions)):
        _write_rows(path, [_reading_row(cases, case) for case in rng.sample(pool, min(n, len(pool)))])


def write_intensifier_sample(suite: Path, n: int, seed: int, path: Path, exclude: list[Path]) -> None:
    """``n`` of ``suite``'s expansions that insert an intensifier (``insertions.INTENSIFIERS``), none of an
    ``exclude`` sample's cases or texts, in the suite's order shuffled with ``seed``: their validity read
    apart from the kept sample, where they are a few rows."""
    from autocheck.expand.insertions import INTENSIFIERS

    cases, fresh = _unread(suite, exclude)
    rows = [
        _reading_row(cases, i)
        for i in fresh
        if cases[i]["kind"] == "expansion"
        and any(w["word"].lower() in INTENSIFIERS for w in cases[i]["provenance"]["inserted"])
    ]
    random.Random(seed).shuffle(rows)
    _write_rows(path, rows[:n])


def _unread(suite: Path, exclude: list[Path]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """``suite``'s cases by id, and the ids (in the suite's order) of those whose id and text no
    ``exclude`` sample holds."""
    from autocheck.store import read_jsonl

    cases = {c["id"]: c for c in read_jsonl(suite / "cases.jsonl")}
    earlier = [row for path in exclude for row in read_jsonl(path)]
    seen = {row["case"] for row in earlier} | {row["text"] for row in earlier}
    return cases, [i for i, c in cases.items() if i not in seen and c["text"] not in seen]


def _reading_row(cases: dict[str, dict[str, Any]], case: str) -> dict[str, Any]:
    """A row of a reading sample: the case, its seed's text, its own and the label it expects."""
    seed_case = cases[cases[case]["seed_id"]]
    return {
        "case": case, "seed_text": seed_case["text"], "text": cases[case]["text"],
        "seed_label": seed_case["expected"],
    }  # fmt: skip


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"wrote {len(rows)} unlabelled rows to {path}")


if __name__ == "__main__":
    main()
