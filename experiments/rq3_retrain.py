"""RQ3 retraining: fine-tune each model on generated cases (8:1:1 split by seed group, 1 epoch,
batch 16, hard labels) and compare SST-2 dev accuracy and the held-out generated cases before vs after.

    python experiments/rq3_retrain.py --out OUT [--quick]

The original code trained per capability on all cases (no held-out split) with ×0.5 soft labels and never
published results; the setup here is the ASE'22 draft's (see ``autocheck/retrain.py``). Cases whose
expectation has no binary label (plain neutral: LC1, LC5) are left out; see ``export_summary.json``.
"""

from __future__ import annotations

import json

import common
import matplotlib.pyplot as plt
import numpy as np
import torch

from autocheck.export import export_suite
from autocheck.retrain import retrain
from autocheck.store import content_hash


def main() -> None:
    p = common.parser(__doc__.splitlines()[0], quick_seeds=20)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--max-steps", type=int, help="stop after N optimizer steps")
    args = p.parse_args()
    res = common.setup(args)
    torch.set_num_threads(1 if args.quick else torch.get_num_threads())
    models = dict(list(res.models.items())[:1]) if args.quick else res.models
    suite = common.generate_for(args, res)
    data = args.work / "exports" / content_hash(str(suite), str(args.seed))
    if not (data / "export_summary.json").is_file():
        summary = export_suite(suite, data, split=(8, 1, 1), seed=args.seed)
    else:
        summary = json.loads((data / "export_summary.json").read_text())
    print(f"export: {summary['totals']}; left out: {summary['left_out']}")

    rows = []
    for name, spec in models.items():
        settings = (spec, str(data), args.epochs, args.batch_size, args.lr, args.seed, args.max_steps)
        out = args.work / "retrain" / content_hash(*map(str, settings))
        results_file = out / "retrain_results.json"
        if results_file.is_file():
            results = json.loads(results_file.read_text())
        else:
            results = retrain(
                spec,
                data,
                out,
                epochs=args.epochs,
                batch_size=args.batch_size,
                lr=args.lr,
                seed=args.seed,
                eval_sst2=res.sst2_dev,
                max_steps=args.max_steps,
            )
        before, after = results["before"], results["after"]
        rows.append(
            {
                "model": name,
                "evaluation": "SST-2 dev accuracy %",
                "n": 872,
                "before": 100 * before["sst2_dev_accuracy"],
                "after": 100 * after["sst2_dev_accuracy"],
            }
        )
        rows.append(
            {
                "model": name,
                "evaluation": "generated test failure %",
                "n": sum(c["n"] for c in before["test_per_capability"].values()),
                "before": 100 - 100 * before["test_accuracy"],
                "after": 100 - 100 * after["test_accuracy"],
            }
        )
        for cap, cb in before["test_per_capability"].items():
            ca = after["test_per_capability"][cap]
            rows.append(
                {
                    "model": name,
                    "evaluation": f"{cap} failure %",
                    "n": cb["n"],
                    "before": 100 * cb["failure_rate"],
                    "after": 100 * ca["failure_rate"],
                }
            )
    title = f"RQ3 retraining (train {summary['totals']['train']} cases, 8:1:1, {args.epochs} epoch)"
    print(common.write_table(args.out, "rq3_retrain", rows, title))

    fig, axes = plt.subplots(1, len(models), figsize=(9 * len(models), 4), squeeze=False)
    for ax, name in zip(axes[0], models):
        mine = [r for r in rows if r["model"] == name]
        x = np.arange(len(mine))
        ax.bar(x - 0.2, [r["before"] for r in mine], 0.4, label="before")
        ax.bar(x + 0.2, [r["after"] for r in mine], 0.4, label="after")
        ax.set_xticks(
            x, [r["evaluation"].replace(" failure %", "").replace(" %", "") for r in mine], rotation=30
        )
        ax.set(ylabel="%", title=f"{name}: before vs after retraining", ylim=(0, 100))
        ax.legend()
    common.save_plot(fig, args.out / "rq3_retrain.png")


if __name__ == "__main__":
    main()
