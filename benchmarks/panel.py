"""A panel of sentiment models nobody in this project wrote, and the new failures a suite finds on them.

    pip install -e ".[yield]"     # vaderSentiment, textblob, afinn, scikit-learn

The models (``NAMES``), each an autocheck model of the sentiment task (``load_panel``):

* ``vader``: VADER's rule-based compound score (``vaderSentiment``);
* ``textblob``: TextBlob's pattern-lexicon polarity;
* ``afinn``: the AFINN-165 word-score sum, squashed as VADER squashes its own sum (``x / sqrt(x^2 + 15)``);
* ``tfidf-lr``: a scikit-learn TF-IDF (words and bigrams) + logistic regression trained here on SST-2's
  train split (67,349 phrases; about 10 CPU-seconds; deterministic, so its answers are cached by version);
* ``mini-bert-sst2``, ``mini-bert-sst2-scratch``: the stand-in SST-2 classifiers of ``shared/data/models``
  (loaded by directory, as ``autocheck run --model DIR`` does).

A rule model's score s in [-1, 1] is read as P(positive) = (s + 1) / 2 over (negative, positive); the
sentiment task reads a binary model three-way, so |s| < 1/3 is neutral. Every model carries a ``version``
(its package's version, or a checksum of its training data and settings), so autocheck's prediction cache
reuses answers.

The API (branch fuzz reuses it; keep it small and stable):

* ``load_panel(names=None) -> dict[name, Model]``;
* ``new_failures(suite_dir, models, out) -> dict[name, Yield]``: runs the suite on each model
  (``autocheck.run.run_suite``) and counts, among the cases made from a seed (expansions, perturbations),
  those that fail while their seed passes. ``Yield.rows`` are those cases (id, seed id, texts, capability,
  provenance, the model's label), ``Yield.seeds_broken`` the distinct seeds among them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

SHARED = Path(os.environ.get("AUTOCHECK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared/data"))
SST2_TRAIN = SHARED / "datasets/sst/SST-2/train.tsv"
RULE_MODELS = ("vader", "textblob", "afinn")
STAND_INS = ("mini-bert-sst2", "mini-bert-sst2-scratch")
NAMES = (*RULE_MODELS, "tfidf-lr", *STAND_INS)
LABELS = ("negative", "positive")


def _binary(scores: Iterable[float]) -> list[list[float]]:
    """(negative, positive) probabilities of scores in [-1, 1]."""
    return [[(1 - s) / 2, (1 + s) / 2] for s in scores]


def _rule_model(name: str) -> Callable[[list[str]], list[list[float]]]:
    if name == "vader":
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        vader = SentimentIntensityAnalyzer()
        score, package = (lambda t: vader.polarity_scores(t)["compound"]), "vaderSentiment"
    elif name == "textblob":
        from textblob import TextBlob

        score, package = (lambda t: TextBlob(t).sentiment.polarity), "textblob"
    else:
        from afinn import Afinn

        afinn = Afinn(language="en")

        def score(text: str) -> float:
            total = afinn.score(text)
            return total / math.sqrt(total * total + 15)  # VADER's normalisation of a word-score sum

        package = "afinn"

    def predict(texts: list[str]) -> list[list[float]]:
        return _binary(score(t) for t in texts)

    predict.labels = LABELS  # type: ignore[attr-defined]
    predict.version = f"{package}=={version(package)}"  # type: ignore[attr-defined]
    return predict


@cache
def tfidf_lr() -> Callable[[list[str]], Any]:
    """TF-IDF + logistic regression trained on SST-2 train (trained once per process)."""
    import hashlib

    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    if not SST2_TRAIN.is_file():
        raise FileNotFoundError(f"{SST2_TRAIN}: SST-2 train split not found (set AUTOCHECK_SHARED_DATA)")
    raw = SST2_TRAIN.read_bytes()
    rows = [line.rsplit("\t", 1) for line in raw.decode("utf-8").splitlines()[1:] if line.strip()]
    texts, labels = [r[0] for r in rows], [int(r[1]) for r in rows]
    settings = "ngram=(1,2) min_df=2 sublinear_tf C=4 lbfgs max_iter=1000"
    pipeline = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
        LogisticRegression(C=4.0, max_iter=1000),
    ).fit(texts, labels)

    def predict(batch: list[str]) -> Any:
        return pipeline.predict_proba([t.lower() for t in batch])  # SST-2's text is lower-cased

    predict.labels = LABELS  # type: ignore[attr-defined]
    digest = hashlib.sha256(raw + settings.encode()).hexdigest()[:12]
    predict.version = f"sklearn=={version('scikit-learn')} {digest}"  # type: ignore[attr-defined]
    return predict


def load_panel(names: Iterable[str] | None = None) -> dict[str, Any]:
    """The panel's models by name (``NAMES``, in that order; ``names`` picks some), each an autocheck
    ``Model`` of the sentiment task."""
    from autocheck.models import load_model
    from autocheck.models.callables import python_model
    from autocheck.requirements import default_task

    task = default_task()
    chosen = list(NAMES if names is None else names)
    unknown = sorted(set(chosen) - set(NAMES))
    if unknown:
        raise ValueError(f"unknown panel model(s) {unknown}; the panel: {', '.join(NAMES)}")
    panel = {}
    for name in chosen:
        if name in STAND_INS:
            model = load_model(str(SHARED / "models" / name), task)
            model.name = name
        else:
            fn = tfidf_lr() if name == "tfidf-lr" else _rule_model(name)
            model = python_model(fn, task, name=name, batch_size=256)
        panel[name] = model
    return panel


@dataclass
class Yield:
    """What a suite found on one model: ``cases`` made from a seed (expansions, perturbations) with an
    answer, ``failures`` among them, and ``rows``, the new failures (the case fails, its seed passes)."""

    model: str
    cases: int = 0
    failures: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def seeds_broken(self) -> int:
        return len({r["seed"] for r in self.rows})


def seeded_outcomes(
    suite_dir: str | Path, models: dict[str, Any], out: str | Path
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any], str | None, dict[str, Any]]]:
    """Run ``suite_dir`` on ``models`` (results in ``out``); for each model and each case made from a seed
    (an expansion, a perturbation) that the model passed or failed: the model's panel name, the case and
    its seed (their records in the suite), the seed's outcome and the case's prediction row (``outcome``,
    ``label``)."""
    from autocheck.expect import FAIL, PASS
    from autocheck.run import PREDICTIONS, run_suite
    from autocheck.store import read_jsonl
    from autocheck.suite import CASES

    run_suite(suite_dir, list(models.values()), out)
    cases = {c["id"]: c for c in read_jsonl(Path(suite_dir) / CASES)}
    outcomes: dict[str, dict[str, dict[str, Any]]] = {model.name: {} for model in models.values()}
    for row in read_jsonl(Path(out) / PREDICTIONS):
        outcomes[row["model"]][row["case"]] = row
    for name, model in models.items():
        rows = outcomes[model.name]
        for case_id, row in rows.items():
            seed_id = row["seed"]
            if seed_id is not None and row["outcome"] in (PASS, FAIL):
                seed = rows.get(seed_id)
                yield name, cases[case_id], cases[seed_id], seed and seed["outcome"], row


def new_failures(suite_dir: str | Path, models: dict[str, Any], out: str | Path) -> dict[str, Yield]:
    """Run ``suite_dir`` on ``models`` (results in ``out``) and count each model's new failures."""
    from autocheck.expect import FAIL, PASS

    found = {name: Yield(name) for name in models}
    for name, case, seed, seed_outcome, row in seeded_outcomes(suite_dir, models, out):
        result = found[name]
        result.cases += 1
        result.failures += row["outcome"] == FAIL
        if row["outcome"] == FAIL and seed_outcome == PASS:
            result.rows.append(
                {
                    "case": case["id"],
                    "seed": seed["id"],
                    "capability": case["capability"],
                    "kind": case["kind"],
                    "seed_text": seed["text"],
                    "text": case["text"],
                    "expected": case["expected"],
                    "label": row.get("label"),
                    "provenance": case.get("provenance", {}),
                }
            )
    return found
