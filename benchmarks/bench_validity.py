"""Validity of expansions on a fixed sample: program-detectable defects, fluency scores, the filter's
precision and recall against hand labels.

    python benchmarks/bench_validity.py [--max-seeds 10] [--seed 1] [--out /tmp/bench-validity]
        [--labels benchmarks/fluency_labels.jsonl] [--write-sample N]

Generates the same sample twice on the offline stand-ins (SST table, opinion lexicon, stand-in benepar,
mini BERT masked LM; ``--max-seeds`` seeds per capability, one template variant, ``--seed``): once with
the fluency filter off, once with it at its default threshold. For both it prints the share of
expansions with each defect a program can detect (all must be 0):

- glued: the expansion does not tokenise into the seed's tokens plus the inserted words;
- casing: a lone lower-case "i"; an insertion at a capitalised sentence start left lower-case, or the old
  capital after it kept (it is not "I", an acronym or a proper noun); a proper-noun fill in lower case;
- doubled: an inserted word repeats its neighbour;
- seed changed: removing the inserted words (and undoing the recorded re-casing) does not give the seed;
- outside span: an inserted word outside the expansion's editable spans, or template text changed;
- negation: an inserted word is a negation.

Then the fluency score (the masked-LM pseudo-log-likelihood around the insertion minus its seed's, as the
filter computes it at the default window; the filter is off by default, ``DEFAULT_THRESHOLD`` being the
threshold chosen for that window on the tuning half of the validity sample) before and after the
filter, the expansions kept per seed case, and, against the hand-labelled file (natural / odd =
grammatical but odd / ungrammatical), the filter's precision and recall at several thresholds.
``--write-sample N`` writes N unlabelled expansions of the unfiltered run for labelling.

Last (alone with ``--sample-only``), every optional check scored on ``validity_labels.jsonl``: 220
expansions of a run on the stand-ins (8 seeds per LC, one variant, seed 1) with every optional check off
(``--reparse off --fluency-threshold off``, agreement off): 22 drawn at random from each of the ten LCs
(numpy ``default_rng(24)``), labelled by reading them (``fluency``: natural / odd = grammatical but odd /
ungrammatical; ``keeps_label``: the seed's label still holds), and split once at random into a
``tune`` half (used to choose the re-parse check's variant) and a ``held-out`` half (only reported). Each
row holds what re-running a check needs: the seed, its trees, the masks, the production and the words.
Each check runs on its own on every held-out row (not in cascade): its precision, recall and AUC for
keeping grammatical and natural expansions, its CPU per row (uncached), then the whole validator as the
defaults run it; then the fluency study (``fluency_study``): each window's score and a frequency-normalised
one, with its AUC on both halves and its masked-LM rows per candidate, and the one the tuning half picks.
``--parser``/``--mlm`` score the re-parse and fluency checks with other models (the seeds are then parsed
by that parser too).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import SHARED, stand_in_config  # noqa: E402  (a sibling script, not a package)

LABELS = Path(__file__).with_name("fluency_labels.jsonl")
SAMPLE = Path(__file__).with_name("validity_labels.jsonl")
KEPT = Path(__file__).with_name("kept_labels.jsonl")
PARSER = str(SHARED / "models/benepar_ptbsample_charlstm")  # the parser the sample was drawn with
DEFECTS = ("glued", "casing", "doubled", "seed changed", "outside span", "negation")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-seeds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-validity"))
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--write-sample", type=int, default=0)
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="hand-labelled validity sample")
    parser.add_argument("--sample-only", action="store_true", help="only score the checks on --sample")
    parser.add_argument("--parser", default=PARSER, help="the re-parse check's (default: the stand-in)")
    parser.add_argument("--mlm", default=str(SHARED / "models/mini-bert-mlm"), help="the fluency scorer's")
    args = parser.parse_args()
    os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    os.environ["AUTOCHECK_CACHE"] = str(args.out / "cache")  # the second run reuses parses and fills
    import torch

    torch.set_num_threads(1)
    if args.sample_only:
        score_checks(args.sample, args.out, args.parser, args.mlm)
        kept_shares(KEPT)
        return
    from autocheck.config import GenerateConfig
    from autocheck.expand.fluency import DEFAULT_THRESHOLD, FluencyScorer
    from autocheck.expand.mlm import MaskedLM
    from autocheck.generate import generate
    from autocheck.records import TestCase
    from autocheck.store import read_jsonl

    def config(threshold: float | None) -> GenerateConfig:
        return stand_in_config(
            max_seeds=args.max_seeds, max_variants=1, seed=args.seed, fluency_threshold=threshold
        )

    runs: dict[str, list[TestCase]] = {}
    for name, threshold in (("filter off", None), (f"filter {DEFAULT_THRESHOLD}", DEFAULT_THRESHOLD)):
        out = args.out / name.replace(" ", "-")
        shutil.rmtree(out, ignore_errors=True)
        generate(config(threshold), out)
        runs[name] = [TestCase.from_json(d) for d in read_jsonl(out / "cases.jsonl")]

    print(
        f"sample: SST, opinion lexicon, stand-ins, {args.max_seeds} seeds per LC, 1 variant, seed {args.seed}"
    )
    print(f"{'run':<14}{'seed cases':>11}{'expansions':>11}" + "".join(f"{d:>14}" for d in DEFECTS))
    for name, cases in runs.items():
        seeds = {c.id: c for c in cases if c.kind == "seed"}
        expansions = [c for c in cases if c.kind == "expansion"]
        found = Counter(d for e in expansions for d in defects(e, seeds[e.seed_id]))
        shares = "".join(f"{found[d] / max(1, len(expansions)):>14.1%}" for d in DEFECTS)
        print(f"{name:<14}{len(seeds):>11}{len(expansions):>11}{shares}")

    mlm = MaskedLM.from_pretrained(SHARED / "models/mini-bert-mlm", device="cpu")
    scorer = FluencyScorer(mlm)
    print(
        f"\nfluency = the filter's score: the mean PLL of the inserted tokens and {scorer.window} each side,"
        f" minus those neighbours' in the seed (threshold {DEFAULT_THRESHOLD}):"
    )
    for name, cases in runs.items():
        seeds = {c.id: c for c in cases if c.kind == "seed"}
        expansions = [c for c in cases if c.kind == "expansion"]
        deltas = scorer.deltas([(e.text, seeds[e.seed_id].text) for e in expansions])
        per_seed = Counter(e.seed_id for e in expansions)
        kept = [per_seed.get(s, 0) for s in seeds]
        print(
            f"  {name:<12} n={len(deltas):>5}  " + quantiles(deltas)
            + f"  | kept per seed case: mean {statistics.mean(kept):.2f}, median {statistics.median(kept):g},"
            f" none {sum(k == 0 for k in kept) / len(kept):.0%}"
        )  # fmt: skip
    off = runs["filter off"]
    seeds_off = {c.id: c for c in off if c.kind == "seed"}
    off_deltas = scorer.deltas([(e.text, seeds_off[e.seed_id].text) for e in off if e.kind == "expansion"])
    print(
        "  share of the unfiltered expansions within the threshold: "
        + ", ".join(f"{t:g}: {sum(d >= -t for d in off_deltas) / len(off_deltas):.0%}" for t in THRESHOLDS)
    )

    if args.write_sample:
        write_sample(off, seeds_off, off_deltas, args.write_sample, args.out / "to_label.jsonl", args.seed)
    if args.labels.exists():
        report_labels(scorer, args.labels, DEFAULT_THRESHOLD)
    score_checks(args.sample, args.out, args.parser, args.mlm)
    print(f"\nthreshold {DEFAULT_THRESHOLD}; cache and suites in {args.out}")


# window 1's scores are differences near 0; window 0's (the default) the inserted tokens' PLL, near -5
THRESHOLDS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0)


def quantiles(values: list[float]) -> str:
    if not values:
        return "no expansions"
    cuts = statistics.quantiles(values, n=10, method="inclusive") if len(values) > 1 else values * 9
    median = statistics.median(values)
    return f"min {min(values):6.2f}  p10 {cuts[0]:6.2f}  median {median:6.2f}  p90 {cuts[-1]:6.2f}"


def defects(expansion, seed) -> list[str]:
    from autocheck.sources.lexicon import NEGATIONS
    from autocheck.sources.transform import seed_text
    from autocheck.tagging import PROPER_TAGS, _tagger, pos_tag_sents, tokenize

    tagdict = _tagger().tagdict

    found = []
    inserted = sorted(expansion.provenance["inserted"], key=lambda i: i["offset"])
    text = expansion.text
    # seed changed: take the words out again and undo the recorded re-casing
    restored = text
    for at in expansion.provenance.get("lowered", ()):
        restored = restored[:at] + restored[at].upper() + restored[at + 1 :]
    for item in reversed(inserted):
        start, end = item["offset"], item["offset"] + len(item["word"])
        if restored[end : end + 1] == " ":
            restored = restored[:start] + restored[end + 1 :]
        else:
            restored = restored[: start - 1] + restored[end:]
    if restored != seed.text:
        found.append("seed changed")
    # glued: the expansion's tokens are the seed's tokens plus the inserted words
    tokens = tokenize(text)
    starts = {a for a, _ in tokens.offsets}
    seed_words = [w.lower() for w in tokenize(seed.text).words]
    rest = [
        w.lower()
        for (a, _), w in zip(tokens.offsets, tokens.words)
        if a not in {i["offset"] for i in inserted}
    ]
    if any(i["offset"] not in starts for i in inserted) or rest != seed_words:
        found.append("glued")
    # casing
    seed_tokens = tokenize(seed.text)
    seed_tags = [t for a, b in seed_tokens.sentences for t in pos_tag_sents([seed_tokens.words[a:b]])[0]]
    sentence_starts = {seed_tokens.offsets[a][0] for a, _ in seed_tokens.sentences}
    sentence_starts |= {  # after an opening quote
        b
        for (a, b), w in zip(seed_tokens.offsets, seed_tokens.words)
        if w in ('"', "``") and (a == 0 or seed.text[a - 1] == " ")
    }
    casing = any(w == "i" for w in tokens.words)
    casing |= any(i["tag"] in PROPER_TAGS and i["word"][:1].islower() for i in inserted)
    shift = 0
    seed_index = {a: k for k, (a, _) in enumerate(seed_tokens.offsets)}
    at_seed_offset: dict[int, list[dict]] = {}  # words inserted before one seed offset, in order
    for item in inserted:
        at_seed_offset.setdefault(item["offset"] - shift, []).append(item)
        shift += len(item["word"]) + 1
    for at, items in at_seed_offset.items():
        k = seed_index.get(at) if at in sentence_starts else None
        if k is None or not seed_tokens.words[k][:1].isupper():
            continue
        # the first inserted word starts the sentence; the seed's old first word follows the last one
        item, last = items[0], items[-1]
        following = text[last["offset"] + len(last["word"]) + 1 :].split(" ", 1)[0]
        word, after = seed_tokens.words[k], seed_tokens.words[k + 1 : k + 2] or [""]
        # "I", an acronym, a known name, or the first word of a name ("Samuel Beckett", "Jacquot's")
        keep_capital = word == "I" or word.isupper() or tagdict.get(word) in PROPER_TAGS
        keep_capital |= seed_tags[k] in PROPER_TAGS and (after[0][:1].isupper() or after[0] == "'s")
        if item["word"][:1].islower() or (following[:1].isupper() and not keep_capital):
            casing = True
    if casing:
        found.append("casing")
    lowered_words = [w.lower() for w in tokens.words]
    positions = {a: k for k, (a, _) in enumerate(tokens.offsets)}
    if any(
        (k := positions.get(i["offset"])) is not None
        and any(0 <= j < len(lowered_words) and lowered_words[j] == lowered_words[k] for j in (k - 1, k + 1))
        for i in inserted
    ):
        found.append("doubled")
    try:
        seed_text(seed, text)
        outside = not all(any(a <= i["offset"] < b for a, b in expansion.editable) for i in inserted)
    except ValueError:
        outside = True
    if outside:
        found.append("outside span")
    if any(i["word"].lower() in NEGATIONS for i in inserted):
        found.append("negation")
    return found


def write_sample(cases, seeds, deltas, n, path, seed) -> None:
    import numpy as np

    expansions = [c for c in cases if c.kind == "expansion"]
    chosen = sorted(
        np.random.default_rng(seed).choice(len(expansions), size=min(n, len(expansions)), replace=False)
    )
    with open(path, "w") as f:
        for i in chosen:
            e = expansions[i]
            row = {
                "id": e.id, "capability": e.capability, "seed": seeds[e.seed_id].text, "text": e.text,
                "inserted": [x["word"] for x in e.provenance["inserted"]], "label": None,
            }  # fmt: skip
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(chosen)} expansions to label: {path}")


def report_labels(scorer, path: Path, default: float) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    labels = Counter(r["label"] for r in rows)
    deltas = scorer.deltas([(r["text"], r["seed"]) for r in rows])
    print(
        f"\nhand labels ({path.name}): {len(rows)} expansions: "
        + ", ".join(f"{k} {labels[k]}" for k in ("natural", "odd", "ungrammatical"))
    )
    rejected = context_rejections(rows)
    print(
        "  the context check (function-word pairs) rejects: "
        + ", ".join(f"{k} {sum(r and row['label'] == k for r, row in zip(rejected, rows))}" for k in labels)
    )
    for good_labels, name in (
        (("natural", "odd"), "grammatical (natural or odd)"),
        (("natural",), "natural"),
    ):
        print(f"  the filter as a detector of {name} expansions:")
        good = [r["label"] in good_labels for r in rows]
        base = sum(good) / len(good)
        header = f"    {'threshold':>10}{'kept':>8}{'precision':>11}{'recall':>8}"
        print(f"{header}   (no filter: precision {base:.0%})")
        for t in (*sorted({*THRESHOLDS, default}), None):
            keep = [True] * len(rows) if t is None else [d >= -t for d in deltas]
            tp = sum(k and g for k, g in zip(keep, good))
            precision = tp / max(1, sum(keep))
            recall = tp / max(1, sum(good))
            mark = f"  <- the default window's ({scorer.window})" if t == default else ""
            shown = "off" if t is None else f"{t:g}"
            print(f"    {shown:>10}{sum(keep) / len(keep):>8.0%}{precision:>11.0%}{recall:>8.0%}{mark}")


def context_rejections(rows: list[dict]) -> list[bool]:
    """Whether the context check would reject each labelled expansion (inserted words found by aligning
    its tokens with its seed's, tagged in context)."""
    from autocheck.expand.context import load_function_pairs
    from autocheck.tagging import pos_tag_sents, tokenize

    pairs = load_function_pairs("ptb_sample")
    out = []
    for row in rows:
        tokens = tokenize(row["text"]).words
        words = [w.lower() for w in tokens]
        tags = pos_tag_sents([tokens])[0]
        seed = [w.lower() for w in tokenize(row["seed"]).words]
        inserted, j = [], 0
        for i, word in enumerate(words):
            if j < len(seed) and word == seed[j]:
                j += 1
            else:
                inserted.append(i)
        neighbours = [
            (words[i - 1] if i else None, words[i + 1] if i + 1 < len(words) else None) for i in inserted
        ]
        out.append(not all(pairs.allows(tags[i], a, words[i], b) for i, (a, b) in zip(inserted, neighbours)))
    return out


def row_template(row: dict):
    """A labelled row's masked template: its seed (tokenised, with its stored trees), masks and production."""
    from autocheck.records import MaskedTemplate, Parse
    from autocheck.tagging import tokenize

    tokens = tokenize(row["seed"])
    parse = Parse(row["seed"], tokens.words, tokens.offsets, tuple(row["seed_trees"]))
    masks = tuple((index, tag) for index, tag in row["masks"])
    return MaskedTemplate("", "", parse, masks, row["lhs"], tuple(row["from"]), tuple(row["to"]), 0.0)


def score_checks(path: Path, out: Path, parser_model: str, mlm_model: str) -> None:
    """Each optional check run on its own on every row of the hand-labelled sample (expansions that passed
    the standard checks, drawn before the optional ones), scored on the held-out part against the labels:
    precision, recall and AUC of keeping grammatical (natural or odd) and natural expansions, CPU per row,
    and the shares among what the whole validator (every check on by default, in cascade) keeps."""
    import time
    from dataclasses import replace

    from autocheck.config import GenerateConfig
    from autocheck.expand.agreement import agrees
    from autocheck.expand.expansion import placements
    from autocheck.expand.fluency import DEFAULT_THRESHOLD, FluencyScorer
    from autocheck.expand.insertions import INSERTABLE, Adverbs, Determinatives
    from autocheck.expand.mlm import MaskedLM
    from autocheck.expand.names import Protected
    from autocheck.expand.parsing import Parser
    from autocheck.expand.reparse import reparse_keeps
    from autocheck.expand.slot import DEFAULT_THRESHOLD as SLOT_THRESHOLD
    from autocheck.languages.en.words import article
    from autocheck.tagging import pos_tag_sents, tokenize

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    held = [r for r in rows if r["part"] == "held-out"]
    templates = [row_template(r) for r in held]
    # uncached, as in a run: each check's cost is timed on texts it has not seen
    out.mkdir(parents=True, exist_ok=True)
    os.environ["AUTOCHECK_CACHE"] = tempfile.mkdtemp(prefix="validity-", dir=out)
    parser = Parser(parser_model)
    parser.parse(["A warm-up sentence ."])  # the model loads outside the timing
    seeds = templates
    if parser_model != PARSER:  # compared with the seeds as that parser reads them (same production)
        seeds = [
            replace(t, parse=p or t.parse) for t, p in zip(templates, parser.parse([r["seed"] for r in held]))
        ]
    cpu = time.process_time()
    reparsed = parser.parse([r["text"] for r in held])
    reparse = [reparse_keeps(t, p) for t, p in zip(seeds, reparsed)]
    reparse_cpu = time.process_time() - cpu
    cpu = time.process_time()
    names = [all(Protected(t.parse).allows(i, tag) for i, tag in t.masks) for t in templates]
    names_cpu = time.process_time() - cpu

    def insertable(mode: str, t) -> bool:  # the template's production and placement (its masks' tags)
        rule = INSERTABLE[mode]
        tags = [tag for _, tag in t.masks]
        return rule is None or any(
            rule(t.lhs, t.rhs_from, where)
            for where in placements(t.rhs_from, t.rhs_to, frozenset(tags))
            if [tag for _, tag in where] == tags
        )

    cpu = time.process_time()
    content = [insertable("content", t) for t in templates]
    content_cpu = time.process_time() - cpu
    # what the word checks read of a fill (validate.Candidate): its template, words and the seed's tags,
    # tagged outside the timing as a run tags each seed once for the POS check
    fills = []
    for t, r in zip(templates, held):
        sentences = tokenize(r["seed"]).sentences
        tags = pos_tag_sents([t.parse.tokens[a:b] for a, b in sentences])
        seed_tags = [(a, b, tagged) for (a, b), tagged in zip(sentences, tags)]
        fills.append(SimpleNamespace(template=t, words=tuple(r["words"]), seed_tags=seed_tags))
    cpu = time.process_time()
    word_checks = [Determinatives().passes(fills), Adverbs().passes(fills)]
    modifiers = [insertable("modifiers", t) and all(k) for t, *k in zip(templates, *word_checks)]
    modifiers_cpu = time.process_time() - cpu
    article("hour")  # inflect's engine is built outside the timing
    cpu = time.process_time()
    agreement = [agrees(t, r["words"]) for t, r in zip(templates, held)]
    agreement_cpu = time.process_time() - cpu
    mlm = MaskedLM.from_pretrained(mlm_model, device="cpu")
    slot_mass, slot_cpu = score_slot(rows, mlm)
    scorer = FluencyScorer(mlm)
    scorer.deltas([("A warm-up sentence .", "A sentence .")])
    cpu = time.process_time()
    deltas = scorer.deltas([(r["text"], r["seed"]) for r in held])
    fluency_cpu = time.process_time() - cpu
    labels = Counter(r["fluency"] for r in rows)
    print(
        f"\nvalidity sample ({path.name}): {len(rows)} expansions drawn before the optional checks, "
        + ", ".join(f"{k} {labels[k]}" for k in ("natural", "odd", "ungrammatical"))
        + f"; held-out part {len(held)} (tuning part {len(rows) - len(held)})"
    )
    grammatical = [r["fluency"] != "ungrammatical" for r in held]
    natural = [r["fluency"] == "natural" for r in held]
    fluent = [d >= -DEFAULT_THRESHOLD for d in deltas]
    on = GenerateConfig()
    held_mass = [m for m, r in zip(slot_mass, rows) if r["part"] == "held-out"]
    slot = [m >= math.log(SLOT_THRESHOLD) for m in held_mass]
    whole = [
        n
        and (c or on.insertions != "content")
        and (m or on.insertions != "modifiers")
        and (s or on.slot_threshold is None)
        and (a or on.agreement == "off")
        and (k or on.reparse == "off")
        and (f or on.fluency_threshold is None)
        for n, c, m, s, a, k, f in zip(names, content, modifiers, slot, agreement, reparse, fluent)
    ]
    checks = {
        "names (placement)": (names, [float(k) for k in names], names_cpu),
        "content words (placement)": (content, [float(k) for k in content], content_cpu),
        "modifiers (placement+word)": (modifiers, [float(k) for k in modifiers], modifiers_cpu),
        f"slot (threshold {SLOT_THRESHOLD:g})": (slot, held_mass, slot_cpu),
        "agreement": (agreement, [float(k) for k in agreement], agreement_cpu),
        "reparse": (reparse, [float(k) for k in reparse], reparse_cpu),
        f"fluency (threshold {DEFAULT_THRESHOLD:g})": (fluent, deltas, fluency_cpu),
        "whole validator (defaults)": (whole, [float(k) for k in whole], None),
    }
    print(
        f"  held-out: {sum(grammatical) / len(held):.0%} grammatical, {sum(natural) / len(held):.0%} natural"
    )
    print(
        f"  {'check':<28}{'kept':>6}{'gram. P':>9}{'R':>6}{'AUC':>6}{'nat. P':>8}{'R':>6}{'AUC':>6}"
        f"{'CPU ms/row':>11}"
    )
    for name, (keep, score, seconds) in checks.items():
        figures = []
        for good in (grammatical, natural):
            tp = sum(k and g for k, g in zip(keep, good))
            figures.append(f"{tp / max(1, sum(keep)):>9.0%}"[(1 if figures else 0) :])
            figures.append(f"{tp / max(1, sum(good)):>6.0%}{auc(score, good):>6.2f}")
        cost = "" if seconds is None else f"{1000 * seconds / len(held):>11.1f}"
        print(f"  {name:<28}{sum(keep) / len(held):>6.0%}{''.join(figures)}{cost}")
    causes: Counter[str] = Counter()
    for r, n, m, c, s, a, k in zip(held, names, modifiers, content, slot, agreement, reparse):
        if r["fluency"] != "natural":
            causes[
                "a name edited" if not n else "a function word or name inserted" if not c
                else "a noun, verb or determinative inserted, or a modifier out of place" if not m
                else "a slot the masked LM gives its tag little" if not s
                else "agreement" if not a
                else "a production the parser does not read" if not k
                else "none of the checks (the masked LM's word, the parser's tree)"
            ] += 1  # fmt: skip
    print(
        f"  not natural ({sum(causes.values())} held-out rows), by the first check that flags them: "
        + ", ".join(f"{cause} {n / sum(causes.values()):.0%}" for cause, n in causes.most_common())
    )
    kept = [r for r, k in zip(held, whole) if k]
    shares = Counter(r["fluency"] for r in kept)
    print(
        f"  kept by the whole validator: {len(kept)} of {len(held)}: "
        f"{(shares['natural'] + shares['odd']) / max(1, len(kept)):.0%} grammatical, "
        f"{shares['natural'] / max(1, len(kept)):.0%} natural, "
        f"{sum(r['keeps_label'] for r in kept) / max(1, len(kept)):.0%} keep their label"
    )
    fluency_study(rows, mlm, parser_model)


# the fluency scores compared by fluency_study: a window of tokens each side of every insertion (None: the
# whole sentence, this filter's first version), the inserted tokens normalised by their frequency, and the
# parser's chart score
WINDOWS = (0, 1, 2, 3, None)
AUC_NOISE = 0.02  # the cheapest score within this of the best tuning AUC is chosen


def fluency_study(rows: list[dict], mlm, parser_model: str | None = None) -> None:
    """Each fluency score, chosen on the ``tune`` half and reported on the held-out one: its AUC for
    grammatical and natural expansions on both halves, the masked-LM rows it computes per candidate
    (uncached, seeds' rows included; in a run a one-word fill's own row comes free from the fill search)
    and its CPU per candidate (uncached, seeds included), the cut with the best Youden's J (recall of
    grammatical minus that of ungrammatical) on the tuning half and the held-out precision and recall at
    that cut. The default is the cheapest masked-LM score whose tuning AUC for grammatical expansions is
    within ``AUC_NOISE`` of the best of them; the parser's chart score (another model: it would be another
    check) is shown beside them."""
    import time

    from autocheck.expand.fluency import DEFAULT_WINDOW, FluencyScorer

    os.environ["AUTOCHECK_CACHE"] = "off"  # every score's rows counted, none taken from another's
    parts = {part: [r for r in rows if r["part"] == part] for part in ("tune", "held-out")}
    pairs = {part: [(r["text"], r["seed"]) for r in chosen] for part, chosen in parts.items()}

    def windowed(window: int | None, chosen: list[tuple[str, str]]) -> tuple[list[float], int]:
        scorer = FluencyScorer(mlm, window=window)  # a new one per half: no seed rows kept from the other
        return scorer.deltas(chosen), scorer.forward_rows

    def chart(chosen: list[tuple[str, str]], per_word: bool) -> tuple[list[float], int]:
        found = chart_scores(parser_model, chosen)
        return [t / n - s / m if per_word else t - s for t, s, n, m in found], 0

    scorers = {
        ("whole sentence" if w is None else f"window {w}"): (lambda c, w=w: windowed(w, c)) for w in WINDOWS
    }
    scorers["inserted PLL - unconditional"] = lambda c: frequency_normalised(mlm, c)
    if parser_model is not None:  # no masked-LM row: a parse of each text and seed (cached seeds in a run)
        scorers["parser's chart score"] = lambda c: chart(c, per_word=False)
        scorers["parser's chart score per word"] = lambda c: chart(c, per_word=True)
    results = {}  # name -> (masked-LM rows per candidate, CPU ms per candidate, {part: scores})
    for name, score in scorers.items():
        values, computed, cpu = {}, 0, time.process_time()
        for part, chosen in pairs.items():
            values[part], n = score(chosen)
            computed += n
        cpu = time.process_time() - cpu
        results[name] = (computed / len(rows), 1000 * cpu / len(rows), values)

    good = {
        part: {
            "grammatical": [r["fluency"] != "ungrammatical" for r in chosen],
            "natural": [r["fluency"] == "natural" for r in chosen],
        }
        for part, chosen in parts.items()
    }
    tune_auc = {name: auc(s["tune"], good["tune"]["grammatical"]) for name, (_, _, s) in results.items()}
    # the filter's own score (the masked LM's): the parser's is another check, shown for comparison
    filters = [name for name in results if not name.startswith("parser")]
    best = max(tune_auc[name] for name in filters)
    chosen_name = min(
        (name for name in filters if tune_auc[name] >= best - AUC_NOISE), key=lambda n: results[n][0]
    )
    print(
        f"\nfluency scores (chosen on the tuning half, {len(parts['tune'])} rows; reported on the held-out"
        f" half, {len(parts['held-out'])}): AUC for grammatical (gram.) and natural (nat.) expansions,"
        " masked-LM rows per candidate, the cut with the best Youden's J on the tuning half and the held-out"
        " precision/recall of keeping grammatical expansions at it"
    )
    print(
        f"  {'score':<30}{'rows/cand.':>11}{'CPU ms':>7}{'tune gram.':>11}{'nat.':>6}{'held gram.':>11}"
        f"{'nat.':>6}{'cut':>8}{'held P':>8}{'R':>6}"
    )
    for name, (cost, cpu, s) in results.items():
        cut = youden_cut(s["tune"], good["tune"]["grammatical"])
        keep = [v >= cut for v in s["held-out"]]
        held = good["held-out"]["grammatical"]
        tp = sum(k and g for k, g in zip(keep, held))
        mark = "  <- chosen" if name == chosen_name else ""
        mark += "  (the default window)" if name == f"window {DEFAULT_WINDOW}" else ""
        print(
            f"  {name:<30}{cost:>11.2f}{cpu:>7.1f}{tune_auc[name]:>11.2f}"
            f"{auc(s['tune'], good['tune']['natural']):>6.2f}"
            f"{auc(s['held-out'], held):>11.2f}{auc(s['held-out'], good['held-out']['natural']):>6.2f}"
            f"{cut:>8.2f}{tp / max(1, sum(keep)):>8.0%}{tp / max(1, sum(held)):>6.0%}{mark}"
        )
    print(
        f"  rule: the fewest rows per candidate among the masked-LM scores within {AUC_NOISE} of their best"
        " tuning AUC for grammatical expansions; a delta's cut c is --fluency-threshold -c"
    )
    overall = max(results, key=lambda n: tune_auc[n])
    print(
        f"  the best tuning AUC of all: {overall} ({tune_auc[overall]:.2f}; held-out"
        f" {auc(results[overall][2]['held-out'], good['held-out']['grammatical']):.2f})"
    )


def frequency_normalised(mlm, pairs: list[tuple[str, str]]) -> tuple[list[float], int]:
    """Per ``(text, seed)``: the mean over the inserted tokens of their PLL minus their log-probability
    with every other token masked too (how likely the word is in the sentence, beyond how likely it is at
    all: a frequent word is not fluent for being frequent); and the masked-LM rows computed."""
    import torch

    from autocheck.expand.fluency import FluencyScorer, _align

    scorer = FluencyScorer(mlm, window=0)  # the mean PLL of the inserted tokens, nothing subtracted
    pll = scorer.deltas(pairs)
    tokenizer = mlm.tokenizer
    special = set(tokenizer.all_special_ids) - {tokenizer.unk_token_id}
    out, computed = [], scorer.forward_rows
    for (text, seed), value in zip(pairs, pll):
        ids, seed_ids = (
            tokenizer(t, truncation=True, max_length=mlm.max_length)["input_ids"] for t in (text, seed)
        )
        own = [p for p, tok in enumerate(ids) if tok not in special]
        lowered = [w.lower() for w in tokenizer.convert_ids_to_tokens(ids)]
        seed_lowered = [w.lower() for w in tokenizer.convert_ids_to_tokens(seed_ids)]
        seed_own = [p for p, tok in enumerate(seed_ids) if tok not in special]
        inserted, _ = _align(own, seed_own, lowered, seed_lowered)
        inserted = inserted if inserted else own
        masked = torch.tensor([[tokenizer.mask_token_id if p in own else tok for p, tok in enumerate(ids)]])
        masked = masked.repeat(len(inserted), 1)
        log_probs = mlm.log_probs_at(masked, torch.ones_like(masked), torch.tensor(inserted))
        targets = torch.tensor([ids[p] for p in inserted]).unsqueeze(1)
        computed += len(inserted)
        out.append(value - log_probs.cpu().gather(1, targets).mean().item())
    return out, computed


def chart_scores(parser_model: str, pairs: list[tuple[str, str]]) -> list[tuple[float, float, int, int]]:
    """Per ``(text, seed)``: the score the parser gives its best tree of each (the sum over the tree's spans
    of their label's score above the empty label, benepar's own CKY objective, summed over sentences), and
    their word counts."""
    import benepar
    import numpy as np
    from benepar.ptb_unescape import ptb_unescape

    from autocheck.expand.parsing import _escape, _load_benepar, _quiet_torch_struct, locate_model
    from autocheck.tagging import tokenize

    parser = _load_benepar(locate_model(parser_model), 32)
    chart = parser._parser
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    inputs, owner = [], []
    for text in texts:
        tokens = tokenize(text)
        for start, end in tokens.sentences:
            words = tokens.words[start:end]
            spaces = [a[1] < b[0] for a, b in zip(tokens.offsets[start:end], tokens.offsets[start + 1 : end])]
            sentence = benepar.InputSentence(
                words=ptb_unescape(words),
                space_after=[*spaces, True],
                escaped_words=[_escape(w) for w in words],
            )
            inputs.append(parser._with_missing_fields_filled(sentence))
            owner.append(text)
    total = dict.fromkeys(texts, 0.0)
    words = dict.fromkeys(texts, 0)
    with _quiet_torch_struct():
        for at in range(0, len(inputs), 32):
            batch = inputs[at : at + 32]
            for i, scores in enumerate(chart.parse(batch, return_scores=True), start=at):
                total[owner[i]] += best_tree_score(np.asarray(scores))
                words[owner[i]] += len(inputs[i].words)
    return [(total[t], total[s], words[t], words[s]) for t, s in pairs]


def best_tree_score(scores) -> float:
    """The score of the best tree of a (words, words, labels) span-score chart (``scores[left, right - 1]``,
    label 0 the empty one), as benepar's CKY decoder finds it: the root must take a label."""
    import numpy as np

    n = scores.shape[0]
    labelled = scores - scores[:, :, :1]
    best = labelled.max(-1)
    best[0, n - 1] = labelled[0, n - 1, 1:].max()
    chart = np.zeros((n + 1, n + 1))
    for length in range(1, n + 1):
        for left in range(n + 1 - length):
            right = left + length
            split = (
                0.0 if length == 1 else (chart[left, left + 1 : right] + chart[left + 1 : right, right]).max()
            )
            chart[left, right] = best[left, right - 1] + split
    return float(chart[0, n])


def youden_cut(scores: list[float], good: list[bool]) -> float:
    """The cut (keep a score at least it) with the largest recall of good rows minus recall of bad ones;
    the highest such cut on a tie."""
    pos, neg = max(1, sum(good)), max(1, len(good) - sum(good))

    def j(cut: float) -> float:
        kept = [s >= cut for s in scores]
        return (
            sum(k and g for k, g in zip(kept, good)) / pos
            - sum(k and not g for k, g in zip(kept, good)) / neg
        )

    return max(sorted(set(scores), reverse=True), key=j)


SLOT_GRID = (0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3)  # probabilities the threshold is chosen from


def slot_features(rows: list[dict], mlm) -> tuple[list[dict[str, float]], list[float]]:
    """For each row, the slot rule's score and its cheap siblings, computed as the fill search does: the
    masked LM's log-probabilities at each mask of the masked template (the earlier masks holding the row's
    words, as along its beam), restricted to the words the generator's vocabulary filter admits for the
    mask's tag. Each feature is the worst over the masks: ``mass`` (log of the probability of the tag's
    words: the slot rule), ``mass vs top tag`` (minus the largest such mass over all word tags), ``word``
    (the chosen word's log-probability), ``word rank`` (minus its rank among the admitted words), ``word
    vs best`` (minus the log-probability of the best whole word of any tag). Also the CPU seconds the
    slot mass adds to each row's forward passes (a log-sum-exp per mask: the rule's whole cost in a run)."""
    import time

    import torch

    from autocheck.expand.fill import WORD_TAGS
    from autocheck.expand.grammar import load_grammar
    from autocheck.expand.insertions import insertion_lexicon
    from autocheck.expand.job import _vocabulary_filter
    from autocheck.expand.slot import SlotRule
    from autocheck.sources.lexicon import load_lexicon

    config = stand_in_config()  # the grammar and lexicon the sample was drawn with
    judge = insertion_lexicon(load_lexicon(config.lexicon), config.insertions)  # as ``generate`` judges
    vocabulary = _vocabulary_filter(config, load_grammar(config.grammar), mlm, judge)
    size = getattr(mlm.model.config, "vocab_size", None) or len(mlm.tokenizer)  # the logits' width
    allowed = {}  # tag -> 0 where admitted, -inf elsewhere (as the fill search adds them)
    for tag in sorted(WORD_TAGS):
        ids = [i for i in vocabulary.allowed(tag) if i in mlm.words]
        if ids:
            allowed[tag] = torch.full((size,), float("-inf"))
            allowed[tag][ids] = 0.0
    words = torch.tensor(sorted(mlm.words))
    ids_of = {word: i for i, word in mlm.words.items()}
    features, seconds = [], []
    for r in rows:
        template = row_template(r)
        ids = torch.tensor([mlm.tokenizer(mlm.masked_text(template))["input_ids"]])
        positions = (ids[0] == mlm.tokenizer.mask_token_id).nonzero().flatten().tolist()
        steps, extra = [], 0.0
        for position, tag, word in zip(positions, template.tags, r["words"]):
            log_probs = mlm.log_probs_at(ids, torch.ones_like(ids), torch.tensor([position]))[0]
            cpu = time.process_time()
            mass = SlotRule.log_mass(log_probs + allowed[tag]).item()
            extra += time.process_time() - cpu
            word_id = ids_of[word.lower()]
            chosen = log_probs[word_id].item()
            admitted = log_probs + allowed[tag]
            top_tag = max(SlotRule.log_mass(log_probs + row).item() for row in allowed.values())
            steps.append({
                "mass": mass,
                "mass vs top tag": mass - top_tag,
                "word": chosen,
                "word rank": -float((admitted > chosen).sum().item() + 1),
                "word vs best": chosen - log_probs[words].max().item(),
            })  # fmt: skip
            ids[0, position] = word_id  # the next mask sees this word, as along the fill's beam
        features.append({name: min(step[name] for step in steps) for name in steps[0]})
        seconds.append(extra)
    return features, seconds


def score_slot(rows: list[dict], mlm) -> tuple[list[float], float]:
    """The slot features on every row: their AUC on both halves, the threshold the tuning half chooses
    (best F1 for keeping grammatical expansions over ``SLOT_GRID``), and its precision and recall on the
    held-out half. Returns the slot mass of every row and the rule's CPU seconds on the held-out rows."""
    from autocheck.expand.slot import DEFAULT_THRESHOLD as SLOT_THRESHOLD

    features, seconds = slot_features(rows, mlm)
    parts = {part: [i for i, r in enumerate(rows) if r["part"] == part] for part in ("tune", "held-out")}
    print(f"\nslot features ({mlm.identity}; the worst mask of each fill): AUC, grammatical / natural")
    print(f"  {'feature':<18}" + "".join(f"{part + ' gram.':>16}{'nat.':>6}" for part in parts))
    for name in features[0]:
        line = f"  {name:<18}"
        for index in parts.values():
            score = [features[i][name] for i in index]
            grammatical = [rows[i]["fluency"] != "ungrammatical" for i in index]
            natural = [rows[i]["fluency"] == "natural" for i in index]
            line += f"{auc(score, grammatical):>16.2f}{auc(score, natural):>6.2f}"
        print(line)
    mass = [f["mass"] for f in features]
    held = parts["held-out"]
    rng = random.Random(0)  # a bootstrap over the held-out rows: how far 110 rows pin the AUC down
    resampled = sorted(
        auc([mass[i] for i in draw], [rows[i]["fluency"] != "ungrammatical" for i in draw])
        for draw in ([rng.choice(held) for _ in held] for _ in range(1000))
    )
    print(f"  slot mass, held-out AUC for grammatical: 95 % of 1,000 bootstrap resamples in "
          f"{resampled[25]:.2f}–{resampled[974]:.2f}")  # fmt: skip
    for part, index in parts.items():
        grammatical = [rows[i]["fluency"] != "ungrammatical" for i in index]
        figures = []
        for p in SLOT_GRID:
            keep = [mass[i] >= math.log(p) for i in index]
            tp = sum(k and g for k, g in zip(keep, grammatical))
            precision, recall = tp / max(1, sum(keep)), tp / max(1, sum(grammatical))
            figures.append((2 * precision * recall / max(1e-9, precision + recall), p, precision, recall))
        if part == "tune":
            best = max(figures)
            mark = "" if best[1] == SLOT_THRESHOLD else f" (the default is {SLOT_THRESHOLD:g})"
            print(f"  threshold chosen on the tuning half: {best[1]:g}{mark}")
        f1, p, precision, recall = next(f for f in figures if f[1] == SLOT_THRESHOLD)
        print(
            f"  {part} at {p:g}: grammatical precision {precision:.0%}, recall {recall:.0%}, F1 {f1:.2f} "
            "(" + ", ".join(f"{g[1]:g}: {g[0]:.2f}" for g in figures) + ")"
        )
    return mass, sum(seconds[i] for i in parts["held-out"])


def kept_shares(path: Path) -> None:
    """The shares of grammatical and natural expansions among what generation KEEPS, read directly:
    expansions drawn at random from each run in ``kept_labels.jsonl`` (the stand-ins, 8 seeds per LC, one
    variant, seed 1, the settings in ``drawn_with``), labelled by reading them. The held-out figures above
    estimate the same shares from rows drawn before the checks; a rule that swaps in other templates
    (``--insertions content``) keeps rows that sample never held, which only a direct sample measures."""
    from autocheck.stats import wilson

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    print(
        f"\nwhat generation keeps ({path.name}, read directly; 95 % Wilson intervals; 'tuning' samples were"
        " read to design --insertions modifiers, the defaults' sample was drawn after it):"
    )
    for drawn_with in dict.fromkeys(r["drawn_with"] for r in rows):
        labels = Counter(r["fluency"] for r in rows if r["drawn_with"] == drawn_with)
        n = sum(labels.values())
        shares = [("grammatical", labels["natural"] + labels["odd"]), ("natural", labels["natural"])]
        cells = []
        for name, k in shares:
            low, high = wilson(k, n) or (0.0, 0.0)  # n > 0: every group has rows
            cells.append(f"{name} {k / n:.0%} ({low:.0%}–{high:.0%})")
        print(f"  {drawn_with}: {n} expansions, {', '.join(cells)}")


def auc(scores: list[float], good: list[bool]) -> float:
    """The probability that a good row scores above a bad one (ties count half): the area under the ROC
    curve of keeping by ``scores``."""
    pos = [s for s, g in zip(scores, good) if g]
    neg = [s for s, g in zip(scores, good) if not g]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


if __name__ == "__main__":
    main()
