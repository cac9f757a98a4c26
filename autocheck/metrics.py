"""Diversity metrics of the paper: Self-BLEU and production-rule coverage.

Self-BLEU scores each sentence (NLTK ``word_tokenize``) as a hypothesis against all the other sentences as
references with NLTK's ``sentence_bleu`` (weights 1/3, 1/3, 1/3; ``SmoothingFunction().method1``) and averages
over sentences. NLTK needs O(n²) n-gram work; :func:`self_bleu` gets the same numbers in O(total n-grams):
the clip count of an n-gram of hypothesis i is its largest count among the *other* sentences, which is the
largest count overall unless sentence i holds it, then the second largest, so one top-2 table per n-gram
suffices. The closest reference length comes from the length histogram without sentence i's own length.

Production-rule coverage counts the distinct non-lexical productions ``"LHS->RHS"`` (unary ones included,
``TAG->word`` excluded) in the parses of a sample.
"""

from __future__ import annotations

import logging
import math
import statistics
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from nltk import Tree, word_tokenize
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from autocheck.expand.parsing import Parser
from autocheck.records import EXPANSION, SEED, TestCase, display
from autocheck.resources import nltk_resource
from autocheck.store import InputError, rng_for

from .suite import CASES, iter_cases

log = logging.getLogger(__name__)

MAX_N = 3  # the paper's Self-BLEU uses uni- to trigrams with equal weights
EPSILON = 0.1  # SmoothingFunction().method1's default epsilon
SAMPLE_SIZES = (200, 400, 600, 800, 1000)


def tokenize(texts: Iterable[str]) -> list[list[str]]:
    """NLTK ``word_tokenize``, as the paper's Self-BLEU (its sentence splitter needs ``punkt_tab``)."""
    nltk_resource("tokenizers/punkt_tab/english", "punkt_tab")
    return [word_tokenize(text) for text in texts]


def self_bleu_nltk(sentences: Sequence[Sequence[str]]) -> float:
    """The reference O(n²) Self-BLEU with NLTK itself (for checks and benchmarks); token lists in."""
    if len(sentences) < 2:
        return math.nan
    smoothing = SmoothingFunction().method1
    weights = (1 / MAX_N,) * MAX_N
    scores = [
        sentence_bleu(
            [list(s) for j, s in enumerate(sentences) if j != i],
            list(hyp),
            weights=weights,
            smoothing_function=smoothing,
        )
        for i, hyp in enumerate(sentences)
    ]
    return sum(scores) / len(scores)


def self_bleu(sentences: Sequence[Sequence[str]]) -> float:
    """Self-BLEU of token lists, equal to :func:`self_bleu_nltk` (same float operations as NLTK's
    ``sentence_bleu``), in time linear in the number of n-grams. Fewer than 2 sentences: NaN (undefined)."""
    if len(sentences) < 2:
        return math.nan
    counts = [[Counter(zip(*(s[k:] for k in range(n)))) for n in range(1, MAX_N + 1)] for s in sentences]
    # Per n-gram: (largest count, index of a sentence holding it, second largest count over other sentences).
    top: list[dict[tuple[str, ...], list[int]]] = [{} for _ in range(MAX_N)]
    for i, per_n in enumerate(counts):
        for n, counter in enumerate(per_n):
            table = top[n]
            for gram, c in counter.items():
                entry = table.get(gram)
                if entry is None:
                    table[gram] = [c, i, 0]
                elif c > entry[0]:
                    table[gram] = [c, i, entry[0]]
                elif c > entry[2]:
                    entry[2] = c
    length_count = Counter(len(s) for s in sentences)
    lengths = sorted(length_count)
    weights = (1 / MAX_N,) * MAX_N
    total = 0.0
    for i, (sentence, per_n) in enumerate(zip(sentences, counts)):
        hyp_len = len(sentence)
        numerators = []
        for n, counter in enumerate(per_n):
            table = top[n]
            clipped = 0
            for gram, c in counter.items():
                best, holder, second = table[gram]
                clipped += min(c, second if holder == i else best)
            numerators.append(clipped)
        if numerators[0] == 0:  # NLTK returns 0 when no unigram matches (also for an empty hypothesis)
            continue
        log_sum = []
        for n, numerator in enumerate(numerators):
            denominator = max(1, hyp_len - n)
            p = numerator / denominator if numerator else (numerator + EPSILON) / denominator
            log_sum.append(weights[n] * math.log(p))
        ref_len = _closest_other_length(lengths, length_count, hyp_len)
        bp = 1 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
        total += bp * math.exp(math.fsum(log_sum))
    return total / len(sentences)


def _closest_other_length(lengths: list[int], length_count: Counter[int], own: int) -> int:
    """NLTK's closest reference length (ties to the shorter) among all lengths but one copy of ``own``."""
    if length_count[own] > 1:
        return own
    k = bisect_left(lengths, own)  # lengths[k] == own, which is not a reference length
    below = lengths[k - 1] if k > 0 else None
    above = lengths[k + 1] if k + 1 < len(lengths) else None
    if below is None:
        return above  # type: ignore[return-value]  # two or more sentences: one side exists
    if above is None or own - below <= above - own:
        return below
    return above


def production_rules(tree: str | Tree) -> set[str]:
    """Distinct non-lexical productions ``"LHS->RHS1 RHS2"`` of one bracketed tree (a TOP/ROOT wrapper
    with a single child is ignored)."""
    if isinstance(tree, str):
        tree = Tree.fromstring(tree)
    while tree.label() in ("", "TOP", "ROOT") and len(tree) == 1 and isinstance(tree[0], Tree):
        tree = tree[0]
    return {
        f"{p.lhs()}->{' '.join(str(s) for s in p.rhs())}" for p in tree.productions() if not p.is_lexical()
    }


def rule_coverage(trees: Iterable[str | Tree]) -> int:
    """Number of distinct non-lexical productions over all ``trees``."""
    rules: set[str] = set()
    for tree in trees:
        rules |= production_rules(tree)
    return len(rules)


def diversity(
    samples: Sequence[Sequence[str]], rules_of: dict[str, frozenset[str]] | None = None
) -> dict[str, float]:
    """Median over trials (``samples``: one list of texts per trial) of Self-BLEU and, when the rules of
    each text are given, of production-rule coverage."""
    token_cache: dict[str, list[str]] = {}
    bleus = []
    for sample in samples:
        new = [text for text in dict.fromkeys(sample) if text not in token_cache]
        token_cache.update(zip(new, tokenize(new)))
        bleus.append(self_bleu([token_cache[t] for t in sample]))
    out = {"n": len(samples[0]) if samples else 0, "self_bleu": statistics.median(bleus)}
    if rules_of is not None:
        coverages = [len(frozenset().union(*(rules_of.get(t, frozenset()) for t in s))) for s in samples]
        out["rule_coverage"] = statistics.median(coverages)
    return out


def parse_rules(texts: Iterable[str], parser: Any) -> dict[str, frozenset[str]]:
    """The production rules of each distinct text, parsed with ``parser`` (an object with
    ``parse(texts) -> list[Parse | None]``, or a benepar model name/directory for
    ``autocheck.expand.parsing``)."""
    if isinstance(parser, str | Path):
        parser = Parser(str(parser))
    unique = sorted(set(texts))
    rules: dict[str, frozenset[str]] = {}
    failed = 0
    for text, parse in zip(unique, parser.parse(unique)):
        if parse is None:
            failed += 1
            continue
        rules[text] = frozenset().union(*(production_rules(t) for t in parse.trees))
    if failed:
        log.warning("%d of %d texts could not be parsed; they add no rules", failed, len(unique))
    return rules


def load_groups(suite_dir: str | Path) -> dict[str, dict[str, list[str]]]:
    """Per capability, seed text → texts of its expansions, from ``SUITE_DIR/cases.jsonl``."""
    path = Path(suite_dir) / CASES
    if not path.is_file():
        raise InputError(f"{path}: suite cases not found")
    seeds: dict[str, TestCase] = {}
    expansions: dict[str, list[str]] = defaultdict(list)
    for case in iter_cases(path):  # validated: a damaged line is an error naming file, line and field
        if case.kind == SEED:
            seeds[case.id] = case
        elif case.kind == EXPANSION and case.seed_id is not None:
            expansions[case.seed_id].append(display(case.inputs))
    groups: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for case_id in sorted(seeds):
        case = seeds[case_id]
        groups[case.capability].setdefault(display(case.inputs), []).extend(expansions.get(case_id, ()))
    return dict(groups)


def sample_trials(
    groups: dict[str, list[str]], size: int, trials: int, seed: int, key: str, with_expansions: bool
) -> list[list[str]]:
    """``trials`` random samples of ``size`` seeds (all of them when fewer); with expansions, each sampled
    seed is replaced by one random element of {seed} ∪ its expansions."""
    population = sorted(groups)
    n = min(size, len(population))
    samples = []
    for trial in range(trials):
        rng = rng_for(seed, f"{key}:{size}:{trial}")
        picked = [population[k] for k in rng.choice(len(population), size=n, replace=False)]
        if with_expansions:
            picked = [options[rng.integers(len(options))] for options in ([s, *groups[s]] for s in picked)]
        samples.append(picked)
    return samples


def suite_metrics(
    suite_dir: str | Path,
    *,
    sample_sizes: Sequence[int] = SAMPLE_SIZES,
    trials: int = 5,
    seed: int = 0,
    parser: Any = None,
) -> dict[str, dict[str, dict[int, dict[str, float]]]]:
    """``{capability: {"ALiCT"|"ALiCT+EXP": {size: {"n", "self_bleu", "rule_coverage"?}}}}``, medians over
    ``trials`` deterministic samples; rule coverage only when a ``parser`` is given. Sizes are taken in
    increasing order up to the first that reaches a capability's seed count, which samples all its seeds
    (``n`` says how many): a larger size would repeat the same row."""
    groups_by_cap = load_groups(suite_dir)
    rules_of = None
    if parser is not None:
        texts = [t for groups in groups_by_cap.values() for s, exps in groups.items() for t in (s, *exps)]
        rules_of = parse_rules(texts, parser)
    out: dict[str, dict[str, dict[int, dict[str, float]]]] = {}
    for cap, groups in sorted(groups_by_cap.items()):
        out[cap] = {}
        for name, with_exp in (("ALiCT", False), ("ALiCT+EXP", True)):
            out[cap][name] = {
                size: diversity(sample_trials(groups, size, trials, seed, cap, with_exp), rules_of)
                for size in _sizes_within(sample_sizes, len(groups))
            }
    return out


def _sizes_within(sample_sizes: Sequence[int], seeds: int) -> list[int]:
    """The distinct sizes in increasing order, up to and including the first that takes every seed."""
    sizes = []
    for size in sorted(set(sample_sizes)):
        sizes.append(size)
        if size >= seeds:
            break
    return sizes


def format_metrics(metrics: dict[str, dict[str, dict[int, dict[str, float]]]]) -> str:
    """A Markdown table of :func:`suite_metrics`' result, one row per capability, set and sample size."""
    lines = ["| capability | set | size | n | Self-BLEU | rule coverage |", "|---|---|---|---|---|---|"]
    for cap, sets in metrics.items():
        for name, sizes in sets.items():
            for size, m in sizes.items():
                coverage = m.get("rule_coverage")
                lines.append(
                    f"| {cap} | {name} | {size} | {m['n']} | {m['self_bleu']:.3f} | "
                    f"{'' if coverage is None else f'{coverage:g}'} |"
                )
    return "\n".join(lines)
