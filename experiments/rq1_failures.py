"""RQ1 (the icse24 effectiveness table): failure rates of seeds, seeds+expansions and the mapped
CheckList test, per capability and model, and pass→fail counts between a seed and its expansions.

    python experiments/rq1_failures.py --out OUT [--quick]
"""

from __future__ import annotations

import common
import matplotlib.pyplot as plt
import numpy as np


def main() -> None:
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument(
        "--checklist-cases", type=int, help="CheckList cases per test (default: all; 300 with --quick)"
    )
    args = p.parse_args()
    res = common.setup(args)
    checklist_cases = args.checklist_cases or (300 if args.quick else None)
    suite = common.generate_for(args, res)
    baseline = common.checklist_suite(args.work, res, args.capabilities, checklist_cases, args.seed)
    alict = common.run(args.work, suite, res.models)["models"]
    checklist = common.run(args.work, baseline, res.models)["models"]

    rows = []
    for model in res.models:
        for lc in args.capabilities:
            a = alict[model]["capabilities"].get(lc)
            c = checklist[model]["capabilities"].get(lc)
            if a is None:
                continue
            rows.append(
                {
                    "model": model,
                    "capability": lc,
                    "seeds": a["seeds"]["cases"],
                    "expansions": a["expansions"]["cases"],
                    "seed fail %": common.percent(a["seeds"]["failure_rate"]),
                    "exp fail %": common.percent(a["expansions"]["failure_rate"]),
                    "seed+exp fail %": common.percent(a["all"]["failure_rate"]),
                    "CheckList cases": c["all"]["cases"] if c else None,
                    "CheckList fail %": common.percent(c["all"]["failure_rate"]) if c else None,
                    "pass→fail": a["transitions"]["pass_to_fail"],
                }
            )
    setup = "quick, stand-in models" if args.quick else "paper setup"
    title = f"RQ1 failures ({setup}, {args.max_seeds or 'all'} seeds/LC)"
    print(common.write_table(args.out, "rq1_failures", rows, title))

    fig, axes = plt.subplots(len(res.models), 1, figsize=(10, 3.2 * len(res.models)), squeeze=False)
    bars = ("seed fail %", "seed+exp fail %", "CheckList fail %")
    for ax, model in zip(axes[:, 0], res.models):
        mine = [r for r in rows if r["model"] == model]
        x = np.arange(len(mine))
        for k, column in enumerate(bars):
            values = [np.nan if r[column] is None else r[column] for r in mine]
            ax.bar(x + (k - 1) * 0.27, values, 0.27, label=column.replace(" fail %", ""))
        ax.set_xticks(x, [r["capability"] for r in mine])
        ax.set_ylabel("failure rate %")
        ax.set_title(model)
        ax.set_ylim(0, 100)
    axes[0, 0].legend(ncol=3, fontsize=8)
    common.save_plot(fig, args.out / "rq1_failures.png")


if __name__ == "__main__":
    main()
