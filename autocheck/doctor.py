"""``autocheck doctor``: every resource the tool can use, where it was found, or the command that gets it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .resources import find_nltk, project_file, shared_data_dir

NLTK_RESOURCES = [
    ("treebank (reference PCFG)", "corpora/treebank", "treebank"),
    ("SentiWordNet 3.0 (lexicon)", "corpora/sentiwordnet", "sentiwordnet"),
    ("opinion lexicon (Hu & Liu)", "corpora/opinion_lexicon", "opinion_lexicon"),
    ("VADER lexicon", "sentiment/vader_lexicon", "vader_lexicon"),
    ("WordNet (lemmas)", "corpora/wordnet", "wordnet"),
    ("punkt_tab (sentences)", "tokenizers/punkt_tab/english", "punkt_tab"),
    ("POS tagger", "taggers/averaged_perceptron_tagger_eng", "averaged_perceptron_tagger_eng"),
]
HF_MODELS = [
    ("masked LM (paper)", "bert-base-uncased"),
    ("masked LM (original code)", "roberta-base"),
    ("model under test", "textattack/bert-base-uncased-SST-2"),
    ("model under test", "textattack/roberta-base-SST-2"),
    ("model under test", "distilbert-base-uncased-finetuned-sst-2-english"),
]


@dataclass(frozen=True)
class Row:
    name: str
    found: bool
    detail: str


def _hf_cached(repo_id: str) -> str | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(repo_id, "config.json")
    return str(Path(found).parent) if isinstance(found, str) else None


def check_resources() -> list[Row]:
    rows = []
    for name, resource, package in NLTK_RESOURCES:
        where = find_nltk(resource)
        rows.append(Row(name, where is not None, where or f"python -m nltk.downloader {package}"))
    where = find_nltk("models/benepar_en3")
    rows.append(
        Row(
            "benepar_en3 (parser)",
            where is not None,
            where or "python -c \"import benepar; benepar.download('benepar_en3')\"",
        )
    )
    for name, repo_id in HF_MODELS:
        where = _hf_cached(repo_id)
        rows.append(
            Row(
                f"{name}: {repo_id}",
                where is not None,
                where or f"downloaded on first use (or: hf download {repo_id})",
            )
        )
    for name, relative in [
        ("shipped grammar", "grammars/ptb_sample.json"),
        ("sentiment capabilities", "requirements/sentiment.json"),
    ]:
        path = project_file(relative)
        rows.append(Row(name, path.exists(), str(path)))
    shared = shared_data_dir()
    rows.append(
        Row(
            "offline stand-ins (shared/data)",
            shared.is_dir(),
            str(shared) if shared.is_dir() else "set AUTOCHECK_SHARED_DATA",
        )
    )
    return rows
