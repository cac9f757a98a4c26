"""The settings of a generation run: one frozen record, hashed to guard ``--resume`` and saved in the
manifest. Each field's default is the product's one default, and a field that is a command-line option
carries its flag and help text (``cli`` builds ``seeds``/``generate``/``perturb``'s options from them), so
the command line, the Python API and the library cannot disagree."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .store import content_hash, dumps

# the paper's masked LM (the authors' code used roberta-base): the one default every command takes
DEFAULT_MLM = "bert-base-uncased"

TOP_K = 10  # generate's candidate expansions per seed (``--top-k``)
ORIGINAL_TOP_K = 5  # the original code's NUM_TOPK, kept under --compat

# option groups: which commands take the option
DATASET, SEEDS, EXPAND = "dataset", "seeds", "expand"


def option(
    default: Any,
    flag: str,
    help: str,
    *,
    group: str = SEEDS,
    parse: str | None = None,
    choices: tuple[str, ...] | None = None,
    repeat: str | None = None,
    shown_default: str | None = None,
) -> Any:
    """A field that is also a command-line option: ``parse`` names the value's parser in ``cli`` (a whole
    number of at least 1, ...), ``repeat`` the metavar of an option given once per value, ``shown_default``
    what the help says a None default stands for."""
    meta = {
        "flag": flag, "help": help, "group": group, "parse": parse, "choices": choices, "repeat": repeat,
        "shown_default": shown_default,
    }  # fmt: skip
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class GenerateConfig:
    """Everything that decides a run's output (it is hashed to guard --resume and saved in the manifest)."""

    dataset: str | None = option(
        None,
        "--dataset",
        "dataset: SST folder/table, CSV/TSV/JSONL file, HF hub id, or a plug-in reader's NAME:LOCATION "
        "(template capabilities need none)",
    )
    task: str = option(
        "sentiment", "--task", "task whose shipped spec to use (unless --requirements names a spec)"
    )
    capabilities: list[str] | None = option(
        None, "--capability", "only these capabilities (repeatable)", repeat="LC"
    )
    requirements: str | None = option(
        None,
        "--requirements",
        "spec file, or a shipped spec's name (e.g. sentiment_checklist, nli, qqp, squad)",
    )
    spec: dict[str, Any] | None = None  # a spec given inline (``autocheck perturb`` makes one)
    labelled: bool = True  # False: dataset rows need no label (INV/DIR perturbations of raw text)
    max_seeds: int | None = option(
        None, "--max-seeds", "at most N seeds per capability, sampled with --seed", parse="positive"
    )
    max_rows: int | None = option(
        None, "--max-rows", "read at most N dataset rows (kept or skipped)", group=DATASET, parse="positive"
    )
    max_variants: int | None = option(
        None, "--max-variants", "at most N template variants per seed, sampled with --seed", parse="positive"
    )
    seed: int = option(0, "--seed", "random seed; same inputs + seed = identical output", parse="natural")
    lexicon: str | None = option(
        None,
        "--lexicon",
        "sentiwordnet | opinion | vader | a plug-in's | PATH (default: the task's own lexicon, else "
        "sentiwordnet)",
    )
    domain_lexicons: list[str] | None = option(
        None,
        "--domain-lexicon",
        "a second lexicon, NAME or PATH, whose polar words are never inserted (repeatable): e.g. opinion or "
        "vader beside SentiWordNet, a TSV (word, polarity) of the words that changed a label in what a run "
        "found, or a sentiment treebank's trees (SST's trees/train.txt)",
        group=EXPAND,
        repeat="LEXICON",
    )
    adjectives: str = option(
        "any",
        "--adjectives",
        "the adjectives an expansion may insert: any the lexicon calls neutral (any), or only relational "
        "ones, whose most frequent WordNet sense pertains to a noun ('visual', 'economic', 'French'): they "
        "classify and do not judge, where a descriptive adjective no lexicon scores may ('predictable', "
        "'useful') (relational)",
        group=EXPAND,
        choices=("any", "relational"),
    )
    # the original code's choices where they change results: SentiWordNet formula, shared fillers, LC10
    compat: bool = option(False, "--compat", "reproduce the original ALiCT code's quirks")
    text_column: str | None = option(
        None, "--text-column", "text column of a CSV/TSV/JSONL/HF dataset", group=DATASET
    )
    input_columns: dict[str, str] | None = option(
        None,
        "--input-column",
        "input field → column for tasks with several fields, e.g. premise=sentence1,hypothesis=s2",
        group=DATASET,
        parse="pairs",
    )
    label_column: str | None = option(
        None, "--label-column", "label column of a CSV/TSV/JSONL/HF dataset", group=DATASET
    )
    label_map: dict[str, str] | None = option(
        None, "--label-map", "raw label → label, e.g. 0=negative,1=positive", parse="pairs"
    )
    split: str | None = option(
        None, "--split", "dataset split (train/dev/test; HF split name)", group=DATASET
    )
    encoding: str | None = option(
        None,
        "--encoding",
        "text encoding of local dataset files (default: detected; see the manifest)",
        group=DATASET,
    )
    expand: bool = True
    parser: str = option("benepar_en3", "--parser", "benepar model name or directory", group=EXPAND)
    mlm: str = option(DEFAULT_MLM, "--mlm", "masked LM (fills and {mask} placeholders): HF id or directory")
    grammar: str = option(
        "ptb_sample",
        "--treebank",
        "reference grammar: 'nltk' (the shipped PTB-sample PCFG, the default), a grammar JSON, or a PTB .mrg "
        "directory",
        group=EXPAND,
        parse="treebank",
    )
    # None: TOP_K, or the original's 5 with --compat (``kept_top_k``). 10 since the eleventh round of
    # docs/yield.md: on the yield bench seeds 10 made 2,402 expansions against 5's 1,858 and every
    # candidate's 2,601 (340 distinct strings against 290 and 362; the panel's new failures 282, 209, 295)
    top_k: int | None = option(
        None,
        "--top-k",
        "candidate expansions kept per seed (Algorithm 1), or per seed production (see --top-k-per)",
        group=EXPAND,
        parse="positive",
        shown_default=f"{TOP_K}; {ORIGINAL_TOP_K}, the original code's, with --compat",
    )
    top_k_per: str = option(
        "seed",
        "--top-k-per",
        "rank a seed's candidate expansions together (the paper's Algorithm 1) or keep the top k of every "
        "production of the seed (the original code; always so with --compat)",
        group=EXPAND,
        choices=("seed", "production"),
    )
    # the best valid fills kept per template; None keeps every valid fill (the older ALiCT runs), 1 is ALiCT
    # HEAD. 12 (3 until the tenth round of docs/yield-history.md): the fill search scores 60 candidates
    # anyway, those beyond the third read about as grammatical, and on the yield bench the panel's new
    # failures rose from 171 to 248 for about the same CPU-seconds
    fills_per_mask: int | None = option(
        12,
        "--fills-per-mask",
        "validated fills kept per masked template (ALiCT's final code kept 1), or 'all'",
        group=EXPAND,
        parse="fills",
    )
    # a lone inserted adjective read 20-32 % natural whatever its rank, an adverb or a noun about 70 %
    # (docs/yield-history.md, tenth round): adjectives keep the former 3 fills, so they stay a quarter of
    # the suite
    adjective_fills: int | None = option(
        3,
        "--adjective-fills",
        "at most this many of a template's fills when it inserts only adjectives (joined by 'and' or not), "
        "or 'all' (never more than --fills-per-mask)",
        group=EXPAND,
        parse="fills",
    )
    # 4: on the yield bench seeds a beam of 20 (the default before 2026-11-27) took 2.4 times the masked-LM
    # rows for 12 more expansions of 1,285 (docs/yield-history.md, seventh round)
    beam_size: int = option(
        4,
        "--beam-size",
        "beam width for multi-mask fills (CheckList: 100; one costs about beam-size single fills)",
        group=EXPAND,
        parse="positive",
    )
    top_n: int = option(
        60, "--top-n", "masked-LM suggestions considered per template", group=EXPAND, parse="positive"
    )
    # "tags": each mask filled only from words validation could keep there (expand/vocabulary.py); "all"
    vocabulary: str = option(
        "tags",
        "--vocabulary",
        "fill each mask only from neutral words whose tags include the mask's (tags) or not (all)",
        group=EXPAND,
        choices=("tags", "all"),
    )
    first_beam: int | None = 4  # multi-mask templates: this beam first, the full beam only if short of fills
    # expand/insertions.py: what the defaults keep, read directly, was 57 % grammatical and 20 % natural
    # with every tag; one adjective or adverb in the phrases that take it raised both (README, Validity),
    # and up to three words, adjuncts and the phrases of docs/yield-history.md's fifth round (phrases),
    # spread the suite over more words and tag patterns
    insertions: str = option(
        "phrases",
        "--insertions",
        "the words an expansion may insert: up to three adjectives and adverbs where a noun phrase, clause, "
        "verb or adjective phrase takes them, a demonstrative's noun, an adjective joined by 'and', a noun "
        "modifier before a film noun or a number before a plural (phrases), exactly one adjective before a "
        "noun or one adverb (modifiers), content words (common nouns, adjectives, adverbs, verbs), or any "
        "tag the grammar proposes (the paper; always so with --compat); under phrases and modifiers an "
        "intensifier may grade a seed's adjective that carries its label ('a terribly funny film'), each "
        "such adjective a site beyond --top-k",
        group=EXPAND,
        choices=("phrases", "modifiers", "content", "any"),
    )
    # expand/validate.py (select): the masked LM repeats a few words across a suite ("really", "just",
    # "whole": ten words made half of the expansions at 9b0ddbd); set those aside while new words fit, per
    # unit of seed cases so that the output does not depend on the workers
    spread: str = option(
        "words",
        "--spread",
        "prefer fills whose words no other fill of the same seed cases inserted (words) or keep the masked "
        "LM's best (off)",
        group=EXPAND,
        choices=("words", "off"),
    )
    # expand/slot.py: on the held-out part of benchmarks/validity_labels.jsonl the only check with an AUC
    # above 0.65 for grammatical expansions; the threshold was chosen on the tuning part (bench_validity.py)
    slot_threshold: float | None = option(
        0.08,
        "--slot-threshold",
        "give up a mask where the masked LM puts less than this probability on the words of its tag "
        "(needs --vocabulary tags); 'off' gives up none",
        group=EXPAND,
        parse="probability",
    )
    # off by default: on the held-out part of benchmarks/validity_labels.jsonl its score tells grammatical
    # expansions from the others no better than chance (AUC below 0.65, bench_validity.py)
    fluency_threshold: float | None = option(
        None,
        "--fluency-threshold",
        "keep an expansion whose masked-LM pseudo-log-likelihood around the insertion is at most this far "
        "below its seed's (5.84 was chosen for the default window 0; 1.0 was window 1's); 'off' keeps all",
        group=EXPAND,
        parse="threshold",
    )
    # the tokens each side of an insertion the fluency score compares with the seed (expand/fluency.py).
    # 0, the inserted tokens alone: the cheapest of the scores within 0.02 of the best AUC on the tuning
    # half of benchmarks/validity_labels.jsonl (bench_validity.py --sample-only prints the study)
    fluency_window: int = option(
        0,
        "--fluency-window",
        "with --fluency-threshold: score the inserted tokens and N tokens each side of them (0: the "
        "inserted tokens alone, against no seed tokens)",
        group=EXPAND,
        parse="natural",
    )
    # expand/agreement.py: a/an, determiner-noun and subject-verb number kept by the inserted words. Off by
    # default: it rejects few expansions (most of them ungrammatical), too few for a held-out AUC of 0.65
    agreement: str = option(
        "off",
        "--agreement",
        "reject an expansion whose inserted words break a/an, determiner-noun or subject-verb agreement",
        group=EXPAND,
        choices=("on", "off"),
    )
    # expand/reparse.py: the filled text parsed again must hold the seed's tree with the production in place.
    # Off by default for the same reason as fluency: with the stand-in parser its held-out AUC is below 0.65
    reparse: str = option(
        "off",
        "--reparse",
        "keep an expansion only when the parser reads it as the seed's tree with the inserted production",
        group=EXPAND,
        choices=("on", "off"),
    )
    # fp32 by default: bf16 moves scores at the second decimal, so it changes which fills are kept (README,
    # Performance); "auto" is bf16 only where the CPU or GPU runs it natively (mlm.resolve_precision)
    precision: str = option(
        "fp32",
        "--precision",
        "masked-LM (fills and fluency) arithmetic: fp32, bf16, or auto (bf16 where the CPU or GPU runs it "
        "natively, else fp32); bf16 changes which fills are kept",
        group=EXPAND,
        choices=("fp32", "bf16", "auto"),
    )
    chunk_size: int = option(64, "--chunk-size", "seed cases per batch/checkpoint", parse="positive")
    unit_size: int = 8  # seed cases expanded together (parse/fill batches): the unit workers share out
    max_cases: int = option(
        100_000, "--max-cases", "per template: the largest Cartesian product allowed", parse="positive"
    )
    checks: tuple[str, ...] = option(
        (),
        "--check",
        "a validation check of your own, registered by a plug-in (autocheck.checks); repeatable",
        group=EXPAND,
        repeat="NAME",
    )

    def settings(self) -> dict[str, Any]:
        """The settings as the manifest records them. An empty ``checks``, no ``domain_lexicons``,
        ``adjectives`` "any" and the default ``precision`` are left out, so suites and cached chunks made
        before those options existed keep their bytes and keys (the precision actually used is in the
        manifest's resources); so is the fluency window while the fluency filter is off, as it then changes
        nothing."""
        settings = asdict(self)
        settings["top_k"] = self.kept_top_k
        if settings["fluency_threshold"] is None:
            del settings["fluency_window"]
        if not settings["checks"]:
            del settings["checks"]
        if not settings["domain_lexicons"]:
            del settings["domain_lexicons"]
        if settings["adjectives"] == "any":
            del settings["adjectives"]
        if settings["precision"] == "fp32":
            del settings["precision"]
        return settings

    @property
    def kept_top_k(self) -> int:
        """The candidate expansions kept per seed (or per production): ``--top-k``, else the default."""
        if self.top_k is not None:
            return self.top_k
        return ORIGINAL_TOP_K if self.compat else TOP_K

    def fingerprint(self) -> str:
        return content_hash(dumps(self.settings()))


# fuzz's own defaults: every valid fill of the 20 best templates of a partial edit is a candidate, and
# generate's insertions (phrases). Modifiers (one adjective or adverb a step) were fuzz's own until round 20
# (docs/fuzz.md): with SentiWordNet, on two fresh draws against the six panel models, phrases broke 81 seed
# runs against 53; read blind in full, its failures kept their label in 97 % (modifiers' in all 85). With
# the opinion lexicon, on a third draw: 63 against 58, 97.3 % label kept against 97.9 %
FUZZ_EXPANSION: dict[str, Any] = {
    "top_k": 20,
    "fills_per_mask": None,
    "adjective_fills": None,
    "insertions": "phrases",
}


def options(*groups: str) -> list[Any]:
    """The fields of ``GenerateConfig`` that are command-line options of these groups, in field order."""
    return [f for f in fields(GenerateConfig) if f.metadata.get("group") in groups]
