"""Why a ``--precision bf16`` suite keeps other expansions than the same run in fp32.

    python benchmarks/explain_bf16.py FP32_SUITE BF16_SUITE [--mlm DIR] [--beam-size 100] [--top-n 60]

Takes two suites of the same ``generate`` run but for ``--precision`` (e.g. ``bench_alict60.py
--original-settings --precisions fp32,bf16 --out DIR``'s) and, for each template (seed and template id)
whose kept fills differ, searches its masked text again in both precisions (the fill stage's searches: a
beam of ``--first-beam`` first for several masks, then ``--beam-size``; ``--top-n`` fills each) and scores
the two kept fills exactly, mask by mask, in both. A template's kept fill is the first valid one of its
list, so a difference is one of:

- a **swap**: both fills are in both runs' lists, in the other order;
- an **edge**: a fill one run examined and the other did not: below the other's top-n (``top-60 edge``),
  or the other's first beam kept another first word, and so searched other fills (``beam-4 edge``);
- **other**: neither (e.g. another template of the run kept the same text first).

For each it prints the fp32 gap (between the two fills, the fill and the other list's last, or the two
first words) and bf16's shift (how far bf16 moved those scores, summed). A **near-tie**: bf16's shift
reversed the order (gap at most the shift) and the gap is under twice the largest shift bf16 gives a kept
fill's score (measured on every 5th template both runs agree on, and printed): an order that bf16's
rounding, not the model, decided.

The masked text is the expansion's text with each inserted word replaced by the mask token (the model is
uncased, so a recased neighbour changes nothing); that it is the text the run searched is checked: each
kept fill's recorded score must come back. Prints one line per difference and the counts. Run with
``AUTOCHECK_CACHE=off`` or a cache of its own (the suggestions are recomputed, not read back).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path

import torch

from autocheck.expand.mlm import MaskedLM

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared/data"))
Fill = tuple[str, ...]


def kept_fills(suite: Path) -> dict[tuple[str, str], dict[Fill, dict]]:
    """Each template's kept fills (lower-cased words, in mask order) and their expansion records."""
    kept: dict[tuple[str, str], dict[Fill, dict]] = defaultdict(dict)
    with open(suite / "cases.jsonl") as f:
        for line in f:
            case = json.loads(line)
            if case["kind"] != "expansion":
                continue
            p = case["provenance"]
            words = tuple(i["word"].lower() for i in sorted(p["inserted"], key=lambda i: i["offset"]))
            kept[case["seed_id"], p["template_id"]][words] = case
    return kept


def masked_text(case: dict, mask: str) -> str:
    """The expansion's text with its inserted words replaced by ``mask``, right to left."""
    text = case["text"]
    for i in sorted(case["provenance"]["inserted"], key=lambda i: -i["offset"]):
        text = text[: i["offset"]] + mask + text[i["offset"] + len(i["word"]) :]
    return text


@torch.inference_mode()
def exact_score(mlm: MaskedLM, text: str, fill: Fill) -> float:
    """The search's score of ``fill`` (mean log-probability of its words, each given the words before it,
    as the beam computes it), one row at a time: no batch of other rows changes its last bits."""
    encoded = mlm.tokenizer(text, return_tensors="pt")
    ids, attention = encoded["input_ids"], encoded["attention_mask"]
    positions = (ids[0] == mlm.tokenizer.mask_token_id).nonzero().flatten().tolist()
    total = 0.0
    for position, word in zip(positions, fill):
        token = mlm.tokenizer.convert_tokens_to_ids(word)
        log_probs = mlm.log_probs_at(ids, attention, torch.tensor([position])) + mlm._disallowed
        total += float(log_probs[0, token])
        ids[0, position] = token
    return total / len(fill)


def first_mask_log_probs(mlm: MaskedLM, text: str) -> torch.Tensor:
    """The search's first step: every word's log-probability at the first mask."""
    encoded = mlm.tokenizer(text, return_tensors="pt")
    ids, attention = encoded["input_ids"], encoded["attention_mask"]
    first = int((ids[0] == mlm.tokenizer.mask_token_id).nonzero()[0, 0])
    return (mlm.log_probs_at(ids, attention, torch.tensor([first])) + mlm._disallowed)[0]


def searches(mlm: MaskedLM, texts: list[str], args) -> list[list[tuple[int, list[Fill]]]]:
    """Each text's searches as the fill stage runs them (fill.fill): a beam of ``--first-beam`` first for
    several masks, then ``--beam-size``; each (beam, its ``--top-n`` fills best first)."""
    first = mlm.suggest_texts(texts, args.first_beam, args.top_n)
    full = mlm.suggest_texts(texts, args.beam_size, args.top_n)
    out = []
    for text, a, b in zip(texts, first, full):
        lists = [(args.beam_size, [words for words, _ in b])]
        if text.count(mlm.tokenizer.mask_token) > 1:
            lists.insert(0, (args.first_beam, [words for words, _ in a]))
        out.append(lists)
    return out


def explain(
    models: dict[str, MaskedLM], text: str, a: Fill | None, b: Fill | None, runs
) -> tuple[str, float, float]:
    """(what kind of difference, the fp32 gap, bf16's shift) for fp32's kept fill ``a`` and bf16's ``b``
    (None: that run kept no fill of the template); ``runs``: each precision's searches of ``text``."""

    def score(p: str, fill: Fill) -> float:
        return exact_score(models[p], text, fill)

    examined = {p: [f for _, fills in lists for f in fills] for p, lists in runs.items()}
    if a is not None and b is not None and a in examined["bf16"] and b in examined["fp32"]:
        fills = (a, b)
        gap = score("fp32", a) - score("fp32", b)
        return "swap", gap, sum(abs(score("bf16", f) - score("fp32", f)) for f in fills)
    # a fill one run examined and the other did not: it fell below the other's top-n, or its first word
    # out of the other's first beam
    missing, kept_by, other = (
        (a, "fp32", "bf16") if a is not None and a not in examined["bf16"] else (b, "bf16", "fp32")
    )
    if missing is None:
        return "other", 0.0, 0.0
    search = next(s for s, (_, fills) in enumerate(runs[kept_by]) if missing in fills)
    beam, fills = runs[other][search]
    if search == 0 and len(runs[other]) > 1:
        # the first beam (several masks): the other run may have kept another first word, and so other fills
        first = {p: first_mask_log_probs(m, text) for p, m in models.items()}
        beams = {p: set(first[p].topk(beam).indices.tolist()) for p in models}
        if beams["fp32"] != beams["bf16"]:
            pair = [min(beams[p] - beams[q]) for p, q in (("fp32", "bf16"), ("bf16", "fp32"))]
            gap = abs(float(first["fp32"][pair[0]] - first["fp32"][pair[1]]))
            shift = sum(abs(float(first["bf16"][w] - first["fp32"][w])) for w in pair)
            return f"beam-{beam} edge", gap, shift
    last = fills[-1]
    gap = abs(score("fp32", missing) - score("fp32", last))
    shift = sum(abs(score("bf16", f) - score("fp32", f)) for f in (missing, last))
    return f"top-{len(fills)} edge", gap, shift


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fp32", type=Path, help="the fp32 run's suite directory")
    parser.add_argument("bf16", type=Path, help="the bf16 run's suite directory")
    parser.add_argument("--mlm", type=Path, default=SHARED / "models/mini-bert-mlm")
    parser.add_argument("--beam-size", type=int, default=100)
    parser.add_argument("--first-beam", type=int, default=4)
    parser.add_argument("--top-n", type=int, default=60)
    args = parser.parse_args()
    torch.set_num_threads(1)
    fp32, bf16 = kept_fills(args.fp32), kept_fills(args.bf16)
    templates = sorted(set(fp32) | set(bf16))
    differing = [t for t in templates if list(fp32.get(t, {})) != list(bf16.get(t, {}))]
    print(
        f"{len(templates)} templates with a kept fill; the same fills in {len(templates) - len(differing)}, "
        f"other fills in {len(differing)}"
    )
    models = {p: MaskedLM.from_pretrained(args.mlm, device="cpu", precision=p) for p in ("fp32", "bf16")}
    mask = models["fp32"].tokenizer.mask_token
    texts = [masked_text(next(iter((fp32.get(t) or bf16[t]).values())), mask) for t in differing]
    runs = {p: searches(m, texts, args) for p, m in models.items()}
    # how far bf16 moves a kept fill's score, over the fills both runs kept (every 5th template)
    same = [t for t in templates if t not in differing and t in fp32][::5]
    moved = sorted(
        abs(exact_score(models["bf16"], text, f) - exact_score(models["fp32"], text, f))
        for text, f in ((masked_text(next(iter(fp32[t].values())), mask), next(iter(fp32[t]))) for t in same)
    )
    bound = 2 * moved[-1]  # a gap below it: two fills' order that bf16's rounding can reverse
    print(
        f"bf16 moves a kept fill's score (mean log-probability per word) by {moved[len(moved) // 2]:.4f} "
        f"(median), {moved[int(0.95 * len(moved))]:.4f} (95th percentile), {moved[-1]:.4f} (largest) over "
        f"{len(moved)} fills both runs kept; two fills whose fp32 scores are less than {bound:.4f} apart "
        "can swap"
    )
    counts: dict[str, int] = defaultdict(int)
    for n, (template, text) in enumerate(zip(differing, texts)):
        a = next(iter(fp32.get(template, {})), None)  # fp32's kept fill (one per template at these settings)
        b = next(iter(bf16.get(template, {})), None)
        for cases, p in ((fp32.get(template, {}), "fp32"), (bf16.get(template, {}), "bf16")):
            for f, case in cases.items():  # the text searched is the run's: its recorded score comes back
                off = abs(exact_score(models[p], text, f) - case["provenance"]["mlm_score"])
                if off > 2e-3:
                    counts["not reconstructed"] += 1
                    print(f"  {template}: {p}'s score of {f} computed alone is {off:.4f} off the run's")
        kind, gap, shift = explain(models, text, a, b, {p: runs[p][n] for p in models})
        near = (
            0 <= gap <= min(shift, bound)
        )  # reversed by bf16 (the shift), and by no more than it moves scores
        counts[f"{kind}, {'near-tie' if near else 'NOT a near-tie'}"] += 1
        print(
            f"  {kind:14} {'near-tie' if near else 'NOT near':8} fp32 gap {gap:.4f}, bf16 shift {shift:.4f}: "
            f"fp32 kept {a}, bf16 kept {b} ({text!r})"
        )
    print("counts:", dict(counts))


if __name__ == "__main__":
    main()
