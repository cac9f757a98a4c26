"""Fill stage on the stand-in masked LM: suggestions/s and ms per template, batch 1 vs 64, and where the
time of a full fill (suggest + validate) goes.

Templates come from SST-2 dev sentences: one JJ mask (single) or RB+JJ masks (multi) before the first
noun that follows a determiner. The suggestion cache is off so every run computes.
Run: PYTHONPATH=. python benchmarks/bench_fill.py [--templates 256] [--beam 100] [--top-n 60] [--device cpu]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

SHARED = Path(
    os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)
os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
os.environ["AUTOCHECK_CACHE"] = "off"

import torch  # noqa: E402

from autocheck.expand.fill import fill  # noqa: E402  (NLTK_DATA and cache setting first)
from autocheck.expand.mlm import MaskedLM  # noqa: E402
from autocheck.expand.validate import FillStats  # noqa: E402
from autocheck.records import MaskedTemplate, Parse, TestCase  # noqa: E402
from autocheck.tagging import pos_tag_sents, tokenize  # noqa: E402


class OpinionLexicon:
    """Words of the NLTK opinion lexicon are polar, everything else neutral (a cheap stand-in)."""

    def __init__(self) -> None:
        from nltk.corpus import opinion_lexicon

        self.polar = set(opinion_lexicon.positive()) | set(opinion_lexicon.negative())

    def is_neutral(self, word: str, pos: str | None) -> bool:
        return word not in self.polar


def make_templates(n: int, masks: tuple[str, ...]) -> tuple[list[MaskedTemplate], dict[str, TestCase]]:
    lines = (SHARED / "datasets/sst/SST-2/dev.tsv").read_text(encoding="utf-8").splitlines()[1:]
    templates, cases = [], {}
    for number, line in enumerate(lines):
        text = line.split("\t")[0].strip()
        tokens = tokenize(text)
        tags = pos_tag_sents([tokens.words])[0]
        at = next((i for i in range(1, len(tags)) if tags[i] == "NN" and tags[i - 1] == "DT"), None)
        if at is None or len(tokens.words) > 40:
            continue
        case_id = f"sst2-dev:{number}"
        cases[case_id] = TestCase(case_id, "LC1", "seed", text, "positive", "MFT", "positive")
        parse = Parse(text, tokens.words, tokens.offsets, ("(S)",))
        templates.append(
            MaskedTemplate(
                f"{case_id}:{len(masks)}",
                case_id,
                parse,
                tuple((at, tag) for tag in masks),
                "NP",
                ("DT", "NN"),
                ("DT", *masks, "NN"),
                0.1,
            )  # fmt: skip
        )
        if len(templates) == n:
            break
    return templates, cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlm", default=str(SHARED / "models/mini-bert-mlm"))
    parser.add_argument("--templates", type=int, default=256)
    parser.add_argument("--multi-templates", type=int, default=64, help="two-mask templates (100x the work)")
    parser.add_argument("--batch1-templates", type=int, default=32, help="fewer for the slow batch-1 runs")
    parser.add_argument("--beam", type=int, default=100)
    parser.add_argument("--top-n", type=int, default=60)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lm = MaskedLM.from_pretrained(args.mlm, device=args.device)
    lexicon = OpinionLexicon()
    print(
        f"model {lm.identity} on {lm.device}, beam {args.beam}, top_n {args.top_n}, {args.threads} thread(s)"
    )
    for kind, masks, n in (
        ("single", ("JJ",), args.templates),
        ("multi", ("RB", "JJ"), args.multi_templates),
    ):
        templates, cases = make_templates(n, masks)
        lm.suggest(templates[:4], args.beam, args.top_n)  # warm-up
        for batch_size in (1, 64):
            subset = templates[: args.batch1_templates] if batch_size == 1 else templates
            passes, started = lm.forward_passes, time.perf_counter()
            fills = lm.suggest(subset, args.beam, args.top_n, batch_size=batch_size)
            seconds = time.perf_counter() - started
            rate, per_template = sum(map(len, fills)) / seconds, 1000 * seconds / len(subset)
            print(
                f"{kind:6s} batch {batch_size:2d}: {len(subset):4d} templates, {rate:8.0f} suggestions/s, "
                f"{per_template:7.2f} ms/template, {lm.forward_passes - passes} forward passes"
            )
        for fills_per_mask in (1, None):
            stats = FillStats()
            forward_before, started = lm.forward_seconds, time.perf_counter()
            out = list(
                fill(templates, cases, lm, lexicon, lambda case, text: True, fills_per_mask=fills_per_mask,
                     beam_size=args.beam, top_n=args.top_n, stats=stats)
            )  # fmt: skip
            total = time.perf_counter() - started
            forward = lm.forward_seconds - forward_before
            print(
                f"{kind:6s} fill(fills_per_mask={fills_per_mask}): {len(out)} expansions in {total:.2f} s; "
                f"forward passes {100 * forward / total:.0f}%, search+tagging+validation "
                f"{100 * (total - forward) / total:.0f}%; {stats.as_dict()}"
            )


if __name__ == "__main__":
    main()
