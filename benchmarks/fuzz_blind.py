"""The blind reading of fuzz's found failures beside BAE-I's: draw the sample, then score the labels.

    python benchmarks/bench_fuzz.py --target tfidf-lr --queries 50 --sample 40 --work W/final-tfidf-lr
    python benchmarks/bench_fuzz.py --target vader --queries 50 --sample 40 --work W/final-vader
    python benchmarks/fuzz_blind.py draw W/final-tfidf-lr=tfidf-lr W/final-vader=vader \\
        --prefix /tmp/blind-fuzz --seed 2033
    python benchmarks/fuzz_blind.py score --prefix /tmp/blind-fuzz --store benchmarks/fuzz_labels_roundN.jsonl
    python benchmarks/fuzz_blind.py valid W/final-* [--labels FILE ...] [--deal PREFIX]

``draw`` pools the distinct (seed text, failing text) pairs of each method over the work folders (fuzz's
failures from its suites, BAE-I's from ``fuzz_reading_key.json``, the variant that carries unspent
queries on), leaves out the pairs of ``benchmarks/fuzz_labels_round*.jsonl`` (rows read before, tuning rows
now), draws ``--per-method`` of each at random, shuffles them together and deals them into two sheets,
``PREFIX-a.jsonl`` and ``PREFIX-b.jsonl``: each row only its ``id``, the seed's text (``original``), the
failing text (``edited``) and the seed's label, never the method; ``PREFIX-key.json`` keeps each id's
method, target and case. Each reader, told only the labelling scheme, writes ``PREFIX-a.labels.jsonl``
(``{"id", "grammatical", "natural", "label_kept"}`` a line). ``score`` prints per method the shares with
Wilson 95 % intervals and the seeds with a failure read grammatical and label kept, and ``--store`` writes
the labelled rows. ``valid`` counts, per target and method, the seeds broken and those broken by a failure
read grammatical with its label kept, over every failure of the work folders (``failures.jsonl``); with
``--deal`` it deals the failures its labels lack into sheets (``--labels`` with no file: all of them, for
a census read afresh), which ``score`` then scores and stores.
"""

from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path

import numpy as np

from autocheck.stats import wilson

BENCHMARKS = Path(__file__).resolve().parent
LABELS = ("grammatical", "natural", "label_kept")
SHEETS = ("a", "b")


def draw(works: list[tuple[Path, str]], prefix: str, seed: int, per_method: int) -> None:
    pools: dict[str, dict[tuple[str, str], tuple[str, object, str | None]]] = {"fuzz": {}, "BAE-I": {}}
    for work, target in works:
        for path in sorted(glob.glob(f"{work}/fuzz-*/cases.jsonl")):
            cases = [json.loads(line) for line in open(path)]
            seeds = {c["id"]: c for c in cases if c["kind"] == "seed"}
            for c in cases:
                if c["kind"] == "expansion" and c["provenance"]["fuzz"]["outcome"] == "fail":
                    pair = (seeds[c["seed_id"]]["text"], c["text"])
                    pools["fuzz"].setdefault(pair, (target, c["expected"], c["id"]))
        for r in json.loads((work / "fuzz_reading_key.json").read_text()):
            if r["method"] == "BAE-I":
                pools["BAE-I"].setdefault((r["seed_text"], r["text"]), (target, r["expected"], None))
    read = set(labelled())
    rng = np.random.default_rng(seed)
    drawn = []
    for method, pool in pools.items():
        pairs = sorted(pair for pair in pool if pair not in read)
        picks = rng.choice(len(pairs), size=min(per_method, len(pairs)), replace=False)
        drawn += [(method, pairs[int(i)], pool[pairs[int(i)]]) for i in sorted(picks)]
    write_sheets(drawn, prefix, rng)
    counts = {m: sum(1 for d in drawn if d[0] == m) for m in pools}
    found = {m: len(pool) for m, pool in pools.items()}
    print(f"{counts} rows drawn from the distinct failures {found}, less the rows read in earlier rounds")
    print("(the rows are not printed: have them read blind)")


def write_sheets(drawn: list, prefix: str, rng: np.random.Generator) -> None:
    """Shuffle the drawn ``(method, (original, edited), (target, label, case))`` rows and deal them into the
    two sheets (no method shown) and the key."""
    key, rows = [], []
    for n, i in enumerate(rng.permutation(len(drawn))):
        method, (original, edited), (target, label, case) = drawn[i]
        label = label if isinstance(label, str) else " or ".join(label)
        rows.append({"id": n, "original": original, "edited": edited, "original_label": label})
        key.append({"id": n, "method": method, "target": target, "case": case})
    half = (len(rows) + 1) // 2
    for sheet, chunk in zip(SHEETS, (rows[:half], rows[half:])):
        Path(f"{prefix}-{sheet}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in chunk))
    Path(f"{prefix}-key.json").write_text(json.dumps(key, indent=1))


def is_valid(label: dict) -> bool:
    """A failure that is a bug: read grammatical, with the seed's label kept."""
    return bool(label["grammatical"] and label["label_kept"])


def labelled(paths: list[Path] | None = None) -> dict[tuple[str, str], dict]:
    """Every (seed text, failing text) read in ``paths`` (default: every round's labels), with its labels."""
    labels = {}
    for path in sorted(BENCHMARKS.glob("fuzz_labels_round*.jsonl")) if paths is None else paths:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            labels[(row["original"], row["edited"])] = row
    return labels


def count_valid(works: list[Path], paths: list[Path] | None, prefix: str | None, seed: int) -> None:
    """Per target and method (``failures.jsonl`` of each work folder): the seeds broken, and those broken by
    a failure read grammatical with its label kept, by the labels of ``paths`` (default: every round's).
    With ``prefix``, the failures those labels lack are dealt into sheets for a blind reading (all of them:
    a census, not a sample; with ``--labels`` and no file, every failure found)."""
    labels = labelled(paths)
    unread: dict[tuple[str, str], tuple[str, tuple[str, object, None]]] = {}
    columns = ("target", "method", "failures", "read", "seeds broken", "by a valid failure", "not settled")
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for work in works:
        rows = [json.loads(line) for line in open(work / "failures.jsonl")]
        for method in dict.fromkeys(r["method"] for r in rows):
            mine = [r for r in rows if r["method"] == method]
            seeds: dict[str, list[bool | None]] = {}
            for r in mine:
                pair = (r["seed_text"], r["text"])
                label = labels.get(pair)
                if label is None:
                    unread.setdefault(pair, (method, (r["target"], r["expected"], None)))
                seeds.setdefault(r["seed_id"], []).append(None if label is None else is_valid(label))
            settled = {s: True in v for s, v in seeds.items() if True in v or None not in v}
            read = sum(v is not None for found in seeds.values() for v in found)
            cells = [mine[0]["target"], method, len(mine), read, len(seeds), sum(settled.values())]
            print("| " + " | ".join(map(str, cells + [len(seeds) - len(settled)])) + " |")
    if prefix and unread:
        drawn = [(method, pair, rest) for pair, (method, rest) in sorted(unread.items())]
        write_sheets(drawn, prefix, np.random.default_rng(seed))
        print(f"{len(drawn)} unread failures dealt into {prefix}-a.jsonl and -b.jsonl (have them read blind)")


def score(prefix: str, store: str | None) -> None:
    key = {k["id"]: k for k in json.loads(Path(f"{prefix}-key.json").read_text())}
    rows = {r["id"]: r for s in SHEETS for r in map(json.loads, open(f"{prefix}-{s}.jsonl"))}
    labels = [json.loads(line) for s in SHEETS for line in open(f"{prefix}-{s}.labels.jsonl")]
    for method in dict.fromkeys(k["method"] for k in key.values()):
        mine = [label for label in labels if key[label["id"]]["method"] == method]
        print(f"{method}: n = {len(mine)}")
        if not mine:  # every failure of the method was read in an earlier round
            continue
        for field in LABELS:
            k = sum(label[field] for label in mine)
            low, high = wilson(k, len(mine))
            print(f"  {field:12} {k}/{len(mine)} = {k / len(mine):.1%} ({low:.1%}-{high:.1%})")
        valid: dict[tuple[str, str], bool] = {}
        for label in mine:
            seed = (key[label["id"]]["target"], rows[label["id"]]["original"])
            valid[seed] = valid.get(seed, False) or is_valid(label)
        print(f"  seeds with a failure read grammatical and label kept: {sum(valid.values())}/{len(valid)}")
    if store:
        with open(store, "w") as out:
            for label in labels:
                row = {**key[label["id"]], **rows[label["id"]], **{f: label[f] for f in LABELS}}
                out.write(json.dumps(row) + "\n")
        print(f"labelled rows written to {store}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    drawn = commands.add_parser("draw")
    drawn.add_argument(
        "works", nargs="+", metavar="WORK=TARGET", help="a bench_fuzz.py --work folder and its --target"
    )
    drawn.add_argument("--prefix", required=True)
    drawn.add_argument("--seed", type=int, required=True)
    drawn.add_argument("--per-method", type=int, default=40)
    counted = commands.add_parser("valid")
    counted.add_argument("works", nargs="+", type=Path, help="bench_fuzz.py --work folders")
    counted.add_argument("--labels", nargs="*", type=Path, help="labels to count by (default: all rounds')")
    counted.add_argument("--deal", metavar="PREFIX", help="deal the failures those labels lack into sheets")
    counted.add_argument("--seed", type=int, default=2050)
    scored = commands.add_parser("score")
    scored.add_argument("--prefix", required=True)
    scored.add_argument("--store", help="write the labelled rows here")
    args = parser.parse_args()
    if args.command == "draw":
        works = [(Path(work), target) for work, _, target in (w.rpartition("=") for w in args.works)]
        draw(works, args.prefix, args.seed, args.per_method)
    elif args.command == "valid":
        count_valid(args.works, args.labels, args.deal, args.seed)
    else:
        score(args.prefix, args.store)


if __name__ == "__main__":
    main()
