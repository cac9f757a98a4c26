"""New failures by what was inserted: of the (model, expansion) pairs whose seed the model passes, the
share that fail, per tag pattern of the inserted words and per inserted string.

    python benchmarks/yield_by_kind.py SUITE [--models vader tfidf-lr ...] [--top 20]

Runs the suite on the panel (``panel.py``; answers cached by the models' identities) into ``SUITE-panel``
and prints, for each tag pattern ("RB", "JJ", "RB JJ", ...), the pairs and the new failures among them,
then the inserted strings with the most new failures. Says whether some kind of insertion breaks models
more often than the others, which a model-blind generator could favour.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from bench_yield import insertion
from panel import NAMES, load_panel, seeded_outcomes

from autocheck.expect import FAIL, PASS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--models", nargs="+", choices=NAMES, help="panel models (default: all)")
    parser.add_argument("--top", type=int, default=20, help="inserted strings listed")
    args = parser.parse_args()
    models = load_panel(args.models)
    out = args.suite.parent / f"{args.suite.name}-panel"
    pairs: Counter[str] = Counter()
    new: Counter[str] = Counter()
    string_pairs: Counter[str] = Counter()
    string_new: Counter[str] = Counter()
    for _, case, _, seed_outcome, row in seeded_outcomes(args.suite, models, out):
        inserted = insertion(case)
        if inserted is None or seed_outcome != PASS:
            continue
        words, tags, _ = inserted
        pairs[tags] += 1
        string_pairs[words] += 1
        if row["outcome"] == FAIL:
            new[tags] += 1
            string_new[words] += 1
    total, found = sum(pairs.values()), sum(new.values())
    print(f"{args.suite}: {len(models)} models; {found} new failures of {total} pairs", end="")
    print(f" ({found / total:.1%})")
    print(f"{'inserted tags':<16}{'pairs':>8}{'new':>6}{'share':>8}")
    for tags, n in pairs.most_common():
        print(f"{tags:<16}{n:>8,}{new[tags]:>6}{new[tags] / n:>8.1%}")
    print(f"\n{'inserted string':<24}{'pairs':>8}{'new':>6}{'share':>8}")
    for words, n in string_new.most_common(args.top):
        print(f"{words:<24}{string_pairs[words]:>8,}{n:>6}{n / string_pairs[words]:>8.1%}")


if __name__ == "__main__":
    main()
