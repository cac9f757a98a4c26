"""RQ4 ablation: the generator without grammar expansion, with other top-k reference productions and fills
per mask, and with the original code's quirks (``--compat``) vs the fixed method: test cases made, failures
found (seeds, expansions, pass→fail) and Self-BLEU of seeds+expansions.

    python experiments/rq4_ablation.py --out OUT [--quick]
"""

from __future__ import annotations

import common
import matplotlib.pyplot as plt
import numpy as np

from autocheck.metrics import diversity, load_groups, sample_trials

# name → extra `autocheck generate` options (defaults: top-k 5, 3 fills per mask, fixed method)
VARIANTS = {
    "full (fixed)": (),
    "no expansion": ("--no-expand",),
    "top-k 1": ("--top-k", "1"),
    "top-k 10": ("--top-k", "10"),
    "fills/mask 1 (ALiCT HEAD)": ("--fills-per-mask", "1"),
    "compat (original quirks)": ("--compat",),
}


def main() -> None:
    p = common.parser(__doc__.splitlines()[0], quick_seeds=8)
    p.add_argument("--variant", action="append", choices=list(VARIANTS), help="only these (repeatable)")
    p.add_argument("--trials", type=int, default=5)
    args = p.parse_args()
    res = common.setup(args)
    if args.quick and not args.capability:
        args.capabilities = ["LC2", "LC4", "LC8"]  # one vocabulary, one negation, one SRL capability
    model = next(iter(res.models))
    rows = []
    for variant in args.variant or list(VARIANTS):
        suite = common.generate_for(args, res, *VARIANTS[variant])
        caps = common.run(args.work, suite, {model: res.models[model]})["models"][model]["capabilities"]
        groups = load_groups(suite)
        totals = {
            "seeds": 0,
            "expansions": 0,
            "seed_fail": 0,
            "exp_fail": 0,
            "seed_n": 0,
            "exp_n": 0,
            "p2f": 0,
        }
        for lc in args.capabilities:
            if lc not in caps:
                continue
            c = caps[lc]
            totals["seeds"] += c["seeds"]["cases"]
            totals["expansions"] += c["expansions"]["cases"]
            totals["seed_fail"] += c["seeds"]["failures"]
            totals["exp_fail"] += c["expansions"]["failures"]
            totals["seed_n"] += c["seeds"]["applicable"]
            totals["exp_n"] += c["expansions"]["applicable"]
            totals["p2f"] += c["transitions"]["pass_to_fail"]
        bleus = [
            diversity(sample_trials(groups[lc], args.max_seeds or 1000, args.trials, args.seed, lc, True))[
                "self_bleu"
            ]
            for lc in args.capabilities
            if len(groups.get(lc, {})) >= 2
        ]
        rows.append(
            {
                "variant": variant,
                "seeds": totals["seeds"],
                "expansions": totals["expansions"],
                "seed fail %": 100 * totals["seed_fail"] / totals["seed_n"] if totals["seed_n"] else None,
                "exp fail %": 100 * totals["exp_fail"] / totals["exp_n"] if totals["exp_n"] else None,
                "all fail %": 100
                * (totals["seed_fail"] + totals["exp_fail"])
                / (totals["seed_n"] + totals["exp_n"])
                if totals["seed_n"] + totals["exp_n"]
                else None,
                "pass→fail": totals["p2f"],
                "Self-BLEU seed+exp (median over LCs)": round(float(np.median(bleus)), 3) if bleus else None,
            }
        )
    title = f"RQ4 ablation ({model}; {', '.join(args.capabilities)}; {args.max_seeds} seeds/LC)"
    print(common.write_table(args.out, "rq4_ablation", rows, title))

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    names = [r["variant"] for r in rows]
    left.barh(names, [r["expansions"] for r in rows])
    left.set(xlabel="expansions generated", title="test cases added by expansion")
    right.barh(names, [r["pass→fail"] for r in rows])
    right.set(xlabel="seed pass → expansion fail", title=f"failures found by expansion ({model})")
    common.save_plot(fig, args.out / "rq4_ablation.png")


if __name__ == "__main__":
    main()
