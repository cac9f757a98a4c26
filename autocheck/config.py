"""The settings of a generation run: one record, hashed to guard ``--resume`` and saved in the manifest,
whose field defaults are the product's defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .store import content_hash, dumps

# the paper's masked LM (the authors' code used roberta-base): the one default every command takes
DEFAULT_MLM = "bert-base-uncased"


@dataclass
class GenerateConfig:
    """Everything that decides a run's output (it is hashed to guard --resume and saved in the manifest)."""

    dataset: str | None  # None: only the capabilities written with templates
    task: str = "sentiment"
    capabilities: list[str] | None = None
    requirements: str | None = None  # a spec file or shipped spec name; default: requirements/<task>.json
    spec: dict[str, Any] | None = None  # a spec given inline (``autocheck perturb`` makes one)
    labelled: bool = True  # False: dataset rows need no label (INV/DIR perturbations of raw text)
    max_seeds: int | None = None
    max_rows: int | None = None  # dataset rows read at most
    max_variants: int | None = None  # template variants per seed (sampled); default: the spec's
    seed: int = 0
    lexicon: str = "sentiwordnet"
    # the original code's choices where they change results: SentiWordNet formula, shared fillers, LC10
    compat: bool = False
    text_column: str | None = None
    input_columns: dict[str, str] | None = None  # input field -> dataset column (tasks with several)
    label_column: str | None = None
    label_map: dict[str, str] | None = None
    split: str | None = None
    encoding: str | None = None  # of local dataset files; None: detected (the manifest says which)
    expand: bool = True
    parser: str = "benepar_en3"
    mlm: str = DEFAULT_MLM
    grammar: str = "ptb_sample"
    top_k: int = 5  # candidate expansions kept per seed (Algorithm 1), or per seed production
    top_k_per: str = "seed"  # "production": the original code's rule (always so with compat)
    # the best valid fills kept per template; None keeps every valid fill (the older ALiCT runs), 1 is ALiCT
    # HEAD. 3 keeps about as many expansions per seed as the original's per-production top-5 did, with the
    # paper's per-seed top-5 and no less diversity (the README's Performance section has the figures)
    fills_per_mask: int | None = 3
    beam_size: int = 20  # CheckList used 100; a multi-mask fill costs about beam_size single ones
    top_n: int = 60
    # "tags": each mask filled only from words validation could keep there (expand/vocabulary.py); "all"
    vocabulary: str = "tags"
    first_beam: int | None = 4  # multi-mask templates: this beam first, the full beam only if short of fills
    # keep an expansion only if its PLL around the insertion is at least its seed's minus this; None: no
    # fluency check
    fluency_threshold: float | None = 1.0  # expand.fluency.DEFAULT_THRESHOLD
    chunk_size: int = 64  # seed cases per resume checkpoint
    unit_size: int = 8  # seed cases expanded together (parse/fill batches): the unit workers share out
    max_cases: int = 100_000  # per template: a larger Cartesian product is an error (use nsamples)
    checks: tuple[str, ...] = ()  # a user's own validation checks, by name (``expand.validate.CHECKS``)

    def settings(self) -> dict[str, Any]:
        """The settings as the manifest records them. An empty ``checks`` is left out, so suites and cached
        chunks made before that option existed keep their bytes and keys."""
        settings = asdict(self)
        if not settings["checks"]:
            del settings["checks"]
        return settings

    def fingerprint(self) -> str:
        return content_hash(dumps(self.settings()))
