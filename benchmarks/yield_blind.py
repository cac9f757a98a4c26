"""The blind reading of a yield sample: shuffle it into reading sheets, then score the readers' labels.

    python benchmarks/yield_blind.py split NEW KEPT --prefix /tmp/blind --seed 2028 [--readers 4]
    python benchmarks/yield_blind.py score --prefix /tmp/blind [--store benchmarks/%s_round3.jsonl]
    python benchmarks/yield_blind.py draw SUITE_A SUITE_B --n 80 --seed 2059 --out /tmp/arms
    python benchmarks/yield_blind.py compare SUITE_A SUITE_B --labelled benchmarks/yield17_arm_*.jsonl

``split`` shuffles the rows of ``bench_yield.py --write-sample``'s two files (new failures, kept
expansions) together and deals them round-robin into ``PREFIX-{0..readers-1}.jsonl``: each row only its
shuffled ``id``, the seed's text (``original``), the expansion's (``edited``) and the seed's label, never
which file it came from, a model's answer or a check's verdict; ``PREFIX-key.json`` keeps each id's file
and case. Each reader, told only the labelling scheme, writes ``PREFIX-{i}.labels.jsonl`` ({"id",
"grammatical", "natural", "label_kept"} a line).

``score`` joins the labels with the key and prints, per file, the share of rows read grammatical, natural
and label kept with Wilson 95 % intervals and the sample size; ``--store`` writes the labelled rows (the
sample's fields plus the three labels) beside the earlier rounds', ``%s`` standing for the file's stem.

Two designs compared by one reading (an A/B reading): ``draw`` writes ``n`` expansions drawn at random from
each suite's ``cases.jsonl`` (two suites of the same seeds, made by each design) in the sample format,
``arm_{suite}.jsonl``, for ``split`` to shuffle together, so that the same readers read both designs'
rows without knowing which is which. ``compare`` pools every label a text got, from any arm, and splits
the texts by which suites make them: both, only the first, only the second. The rows only one design makes
are what the choice between them changes.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from autocheck.stats import wilson

LABELS = ("grammatical", "natural", "label_kept")


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def split(files: list[Path], prefix: str, seed: int, readers: int) -> None:
    rows = [(path, row) for path in files for row in read(path)]
    random.Random(seed).shuffle(rows)
    sheets: list[list[str]] = [[] for _ in range(readers)]
    key = []
    for n, (path, row) in enumerate(rows):
        label = row["seed_label"]
        label = label if isinstance(label, str) else " or ".join(label)
        shown = {"id": n, "original": row["seed_text"], "edited": row["text"], "original_label": label}
        sheets[n % readers].append(json.dumps(shown))
        key.append({"id": n, "src": path.stem, "path": str(path), "case": row["case"]})
    for i, sheet in enumerate(sheets):
        Path(f"{prefix}-{i}.jsonl").write_text("\n".join(sheet) + "\n", encoding="utf-8")
    Path(f"{prefix}-key.json").write_text(json.dumps(key), encoding="utf-8")
    print(f"{len(rows)} rows shuffled into {readers} sheets {prefix}-*.jsonl, key {prefix}-key.json")


def print_shares(rows: list[dict]) -> None:
    """The share of ``rows`` read grammatical, natural and label kept, each with its Wilson 95 % interval."""
    for field in LABELS:
        yes = sum(bool(r[field]) for r in rows)
        low, high = wilson(yes, len(rows)) or (0.0, 0.0)
        print(f"  {field:<12}{yes / max(1, len(rows)):>7.1%}  ({low:.1%}-{high:.1%})")


def score(prefix: str, store: str | None) -> None:
    key = {k["id"]: k for k in json.loads(Path(f"{prefix}-key.json").read_text(encoding="utf-8"))}
    labels = {r["id"]: r for path in sorted(Path(prefix).parent.glob(f"{Path(prefix).name}-*.labels.jsonl"))
              for r in read(path)}  # fmt: skip
    missing = sorted(set(key) - set(labels))
    if missing:
        raise SystemExit(f"{len(missing)} rows have no label yet (ids {missing[:10]} ...)")
    for path in sorted({k["path"] for k in key.values()}):
        by_case = {row["case"]: row for row in read(Path(path))}
        rows = [
            {**by_case[k["case"]], **{f: labels[i][f] for f in LABELS}}
            for i, k in key.items()
            if k["path"] == path
        ]
        print(f"{Path(path).stem}: n = {len(rows)}")
        print_shares(rows)
        if store:
            out = Path(store.replace("%s", Path(path).stem))
            out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            print(f"  labelled rows written to {out}")


def cases_by_id(suite: Path) -> dict[str, dict]:
    cases = read(suite / "cases.jsonl")
    return {c["id"]: c for c in cases}


def draw(suites: list[Path], n: int, seed: int, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for suite in suites:
        by_id = cases_by_id(suite)
        drawn = random.Random(seed).sample([c for c in by_id.values() if c["kind"] == "expansion"], n)
        rows = [
            {"case": c["id"], "seed_text": by_id[c["seed_id"]]["text"], "text": c["text"],
             "seed_label": by_id[c["seed_id"]]["expected"]}
            for c in drawn
        ]  # fmt: skip
        (out / f"arm_{suite.name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
        print(f"{suite.name}: {n} of its expansions drawn into {out / f'arm_{suite.name}.jsonl'}")


def compare(first: Path, second: Path, labelled: list[Path]) -> None:
    made = [{c["text"] for c in cases_by_id(s).values() if c["kind"] == "expansion"} for s in (first, second)]
    labels: dict[str, list[dict]] = {}
    for path in labelled:
        for row in read(path):
            labels.setdefault(row["text"], []).append(row)
    groups = {
        "made by both": made[0] & made[1],
        f"only by {first.name}": made[0] - made[1],
        f"only by {second.name}": made[1] - made[0],
    }
    for name, texts in groups.items():
        read_texts = texts & labels.keys()
        rows = [row for text in read_texts for row in labels[text]]
        print(f"{name}: {len(texts)} expansions, {len(rows)} labels on {len(read_texts)} of them")
        print_shares(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    cut = commands.add_parser("split")
    cut.add_argument("files", nargs="+", type=Path)
    cut.add_argument("--prefix", required=True)
    cut.add_argument("--seed", type=int, required=True)
    cut.add_argument("--readers", type=int, default=4)
    drawn = commands.add_parser("draw")
    drawn.add_argument("suites", nargs="+", type=Path)
    drawn.add_argument("--n", type=int, required=True)
    drawn.add_argument("--seed", type=int, required=True)
    drawn.add_argument("--out", type=Path, required=True)
    compared = commands.add_parser("compare")
    compared.add_argument("suites", nargs=2, type=Path)
    compared.add_argument("--labelled", nargs="+", type=Path, required=True)
    scored = commands.add_parser("score")
    scored.add_argument("--prefix", required=True)
    scored.add_argument("--store", help="write the labelled rows to this path, %%s for the sample's stem")
    args = parser.parse_args()
    if args.command == "split":
        split(args.files, args.prefix, args.seed, args.readers)
    elif args.command == "draw":
        draw(args.suites, args.n, args.seed, args.out)
    elif args.command == "compare":
        compare(*args.suites, args.labelled)
    else:
        score(args.prefix, args.store)


if __name__ == "__main__":
    main()
