"""What each word check rejects among the blind-labelled yield rows (the tuning rows of issue #35).

    python benchmarks/yield_checks.py [--show CHECK]

The rows store texts, not templates, so each row is rebuilt as the check sees a fill: the seed's tokens
and their tags (tagged in context, as a run tags its seeds), the inserted words found by aligning the
expansion's tokens with the seed's, each with the coarse tag (``JJ``, ``RB``) the expansion's tagging
gives it (the mask's tag in a run). Each check of ``checks_for("phrases")`` then runs alone on every row;
per check: rows rejected, how many of them readers called grammatical (false rejections) and how many
ungrammatical rows it catches. Rows whose insertion is not one or more JJ/RB words are left out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

from autocheck.expand.insertions import _misplaced, _neighbours, checks_for
from autocheck.tagging import pos_tag_sents, tokenize

HERE = Path(__file__).parent
ROWS = ("yield_sample", "yield_kept_sample", "yield_sample_round2", "yield_kept_sample_round2")
LABELLED = sorted(p.stem for p in HERE.glob("yield*_sample*.jsonl"))  # every reading, for --rows
COARSE = {"JJ": "JJ", "JJR": "JJ", "JJS": "JJ", "RB": "RB", "RBR": "RB", "RBS": "RB"}


def candidate(row: dict) -> SimpleNamespace | None:
    """The row as a fill of a template of its seed, or None where its insertion is not JJ/RB words."""
    seed, text = tokenize(row["seed_text"]), tokenize(row["text"])
    seed_tags = [
        (a, b, tags)
        for (a, b), tags in zip(seed.sentences, pos_tag_sents([seed.words[a:b] for a, b in seed.sentences]))
    ]
    text_tags = [t for a, b in text.sentences for t in pos_tag_sents([text.words[a:b]])[0]]
    masks, words, j = [], [], 0
    for i, word in enumerate(text.words):
        if j < len(seed.words) and word == seed.words[j]:
            j += 1
        elif text_tags[i] in COARSE:
            masks.append((j, COARSE[text_tags[i]]))
            words.append(word)
        else:
            return None
    if j != len(seed.words) or not masks:
        return None
    parse = SimpleNamespace(tokens=seed.words)
    # the production is not in the row: the phrase check reads it as no demonstrative's
    template = SimpleNamespace(
        masks=tuple(masks), parse=parse, tags=tuple(t for _, t in masks), lhs=None, rhs_from=()
    )
    return SimpleNamespace(template=template, words=tuple(words), seed_tags=seed_tags, row=row)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", help="print the rows this check rejects")
    parser.add_argument("--rows", nargs="+", default=ROWS, choices=LABELLED, help="the labelled files read")
    args = parser.parse_args()
    rows = [json.loads(line) for name in args.rows for line in (HERE / f"{name}.jsonl").open()]
    fills = [c for c in map(candidate, rows) if c is not None]
    bad = sum(not c.row["grammatical"] for c in fills)
    natural = sum(c.row["natural"] for c in fills)
    print(
        f"{len(fills)} of {len(rows)} labelled rows insert JJ/RB words; {bad} read ungrammatical, "
        f"{natural} natural"
    )
    print(f"{'check':<16}{'rejects':>8}{'of them grammatical':>21}{'ungrammatical caught':>22}{'natural':>9}")
    for check in checks_for("phrases"):
        rejected = [c for c, ok in zip(fills, check.passes(fills)) if not ok]
        print(f"{check.name:<16}{counts(rejected)}")
        if check.name == "word order":  # each of its rules alone
            for rule, hits in sorted(rules(fills).items()):
                print(f"  {rule:<30}{counts(hits)}")
                if args.show == rule:
                    show(hits)
        if args.show == check.name:
            show(rejected)


def counts(rejected: list[SimpleNamespace]) -> str:
    good = sum(c.row["grammatical"] for c in rejected)
    natural = sum(c.row["natural"] for c in rejected)
    return f"{len(rejected):>8}{good:>21}{len(rejected) - good:>22}{natural:>9}"


def rules(fills: list[SimpleNamespace]) -> dict[str, list[SimpleNamespace]]:
    """The word order rule (``insertions._misplaced``) each fill breaks, fills by rule."""
    found: dict[str, list[SimpleNamespace]] = {}
    for c in fills:
        for reason in {_misplaced(*site) for site in _neighbours(c)} - {None}:
            found.setdefault(reason, []).append(c)
    return found


def show(fills: list[SimpleNamespace]) -> None:
    for c in fills:
        print("   ", "G" if c.row["grammatical"] else "-", c.words, c.row["text"][:150])


if __name__ == "__main__":
    main()
