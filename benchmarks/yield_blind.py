"""The blind reading of a yield sample: shuffle it into reading sheets, then score the readers' labels.

    python benchmarks/yield_blind.py split NEW KEPT --prefix /tmp/blind --seed 2028 [--readers 4]
    python benchmarks/yield_blind.py score --prefix /tmp/blind [--store benchmarks/%s_round3.jsonl]

``split`` shuffles the rows of ``bench_yield.py --write-sample``'s two files (new failures, kept
expansions) together and deals them round-robin into ``PREFIX-{0..readers-1}.jsonl``: each row only its
shuffled ``id``, the seed's text (``original``), the expansion's (``edited``) and the seed's label, never
which file it came from, a model's answer or a check's verdict; ``PREFIX-key.json`` keeps each id's file
and case. Each reader, told only the labelling scheme, writes ``PREFIX-{i}.labels.jsonl`` ({"id",
"grammatical", "natural", "label_kept"} a line).

``score`` joins the labels with the key and prints, per file, the share of rows read grammatical, natural
and label kept with Wilson 95 % intervals and the sample size; ``--store`` writes the labelled rows (the
sample's fields plus the three labels) beside the earlier rounds', ``%s`` standing for the file's stem.
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
        for field in LABELS:
            yes = sum(bool(r[field]) for r in rows)
            low, high = wilson(yes, len(rows)) or (0.0, 0.0)
            print(f"  {field:<12}{yes / len(rows):>7.1%}  ({low:.1%}-{high:.1%})")
        if store:
            out = Path(store.replace("%s", Path(path).stem))
            out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            print(f"  labelled rows written to {out}")


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    cut = commands.add_parser("split")
    cut.add_argument("files", nargs="+", type=Path)
    cut.add_argument("--prefix", required=True)
    cut.add_argument("--seed", type=int, required=True)
    cut.add_argument("--readers", type=int, default=4)
    scored = commands.add_parser("score")
    scored.add_argument("--prefix", required=True)
    scored.add_argument("--store", help="write the labelled rows to this path, %%s for the sample's stem")
    args = parser.parse_args()
    if args.command == "split":
        split(args.files, args.prefix, args.seed, args.readers)
    else:
        score(args.prefix, args.store)


if __name__ == "__main__":
    main()
