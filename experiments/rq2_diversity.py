"""RQ2 diversity (the paper's RQ1): Self-BLEU (lower = more diverse) and production-rule coverage
(higher = more diverse) of ALiCT seeds, seeds+expansions and the mapped CheckList test, per capability and
sample size (median over trials), and the median over capabilities that the paper plots.

    python experiments/rq2_diversity.py --out OUT [--quick]

Differences from the original: expansions are parsed themselves (the original derived their rules from the
seed's rules and the production it changed); samples come from seeded per-(capability, size, trial)
generators; a sample size above a capability's seed count uses all its seeds (column ``n``).
"""

from __future__ import annotations

import statistics

import common
import matplotlib.pyplot as plt

from autocheck.metrics import diversity, load_groups, parse_rules, sample_trials

SETS = ("ALiCT", "ALiCT+EXP", "CheckList")


def main() -> None:
    p = common.parser(__doc__.splitlines()[0], quick_seeds=20)
    p.add_argument(
        "--sample-sizes", default=None, help="comma-separated (default 200,...,1000; 5,10,20 quick)"
    )
    p.add_argument("--trials", type=int, default=None, help="default 5 (3 with --quick)")
    p.add_argument("--no-coverage", action="store_true", help="skip parsing (Self-BLEU only)")
    args = p.parse_args()
    res = common.setup(args)
    sizes = [
        int(s)
        for s in (args.sample_sizes or ("5,10,20" if args.quick else "200,400,600,800,1000")).split(",")
    ]
    trials = args.trials or (3 if args.quick else 5)
    suite = common.generate_for(args, res)
    baseline = common.checklist_suite(args.work, res, args.capabilities, None, args.seed)
    alict_groups, checklist_groups = load_groups(suite), load_groups(baseline)

    samples = {}  # (capability, set, size) → list of samples
    for lc in args.capabilities:
        if lc not in alict_groups:
            continue
        for size in sizes:
            samples[lc, "ALiCT", size] = sample_trials(alict_groups[lc], size, trials, args.seed, lc, False)
            samples[lc, "ALiCT+EXP", size] = sample_trials(
                alict_groups[lc], size, trials, args.seed, lc, True
            )
            # The same number of CheckList cases as ALiCT seeds in the sample.
            n = len(samples[lc, "ALiCT", size][0])
            samples[lc, "CheckList", size] = sample_trials(
                checklist_groups.get(lc, {}), n, trials, args.seed, f"checklist:{lc}", False
            )
    rules_of = None
    if not args.no_coverage:
        texts = {t for trial_samples in samples.values() for sample in trial_samples for t in sample}
        rules_of = parse_rules(texts, res.parser)

    rows = []
    for (lc, name, size), trial_samples in samples.items():
        if not trial_samples[0]:
            continue
        m = diversity(trial_samples, rules_of)
        rows.append({"capability": lc, "set": name, "size": size, "n": m["n"], "self_bleu": m["self_bleu"]})
        rows[-1]["rule_coverage"] = m.get("rule_coverage")
    medians = []
    for name in SETS:
        for size in sizes:
            mine = [r for r in rows if r["set"] == name and r["size"] == size]
            if mine:
                medians.append(
                    {
                        "capability": "median over LCs",
                        "set": name,
                        "size": size,
                        "n": statistics.median(r["n"] for r in mine),
                        "self_bleu": statistics.median(r["self_bleu"] for r in mine),
                        "rule_coverage": None
                        if rules_of is None
                        else statistics.median(r["rule_coverage"] for r in mine),
                    }
                )
    for row in rows + medians:
        row["self_bleu"] = round(row["self_bleu"], 3)  # as the original reports it
    title = f"RQ2 diversity ({'quick, stand-ins' if args.quick else 'paper setup'}, {trials} trials)"
    print(common.write_table(args.out, "rq2_diversity", medians + rows, title))

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for name in SETS:
        mine = [r for r in medians if r["set"] == name]
        left.plot([r["size"] for r in mine], [r["self_bleu"] for r in mine], marker="o", label=name)
        if rules_of is not None:
            right.plot([r["size"] for r in mine], [r["rule_coverage"] for r in mine], marker="o", label=name)
    left.set(xlabel="sample size (seeds)", ylabel="Self-BLEU (median over LCs)", title="Self-BLEU")
    right.set(xlabel="sample size (seeds)", ylabel="# production rules", title="Production-rule coverage")
    left.legend()
    common.save_plot(fig, args.out / "rq2_diversity.png")


if __name__ == "__main__":
    main()
