"""Shared fixtures. Tests that need ../shared/data (real corpora, stand-in models) skip when it is absent."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared" / "data"))
NLTK_DATA = SHARED_DATA / "nltk_data"

if NLTK_DATA.is_dir():
    # The tagger, tokenizer and lexicons the offline tests use; never download during tests.
    os.environ.setdefault("NLTK_DATA", str(NLTK_DATA))
os.environ.setdefault("AUTOCHECK_OFFLINE", "1")
# Fixtures of a wider scope than a test's run before ``_private_cache``: they get a cache of this run's own,
# never the user's
if "AUTOCHECK_CACHE" not in os.environ:
    os.environ["AUTOCHECK_CACHE"] = tempfile.mkdtemp(prefix="autocheck-tests-")
    atexit.register(shutil.rmtree, os.environ["AUTOCHECK_CACHE"], ignore_errors=True)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own on-disk cache so tests never see each other's (or the user's) results."""
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set AUTOCHECK_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture
def browser(tmp_path):
    """A headless Chromium with one page (tests/browser.py); the test skips when none is installed."""
    from browser import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no headless browser: chromium not installed (apt-get install -y chromium)")
    session = Browser(executable, tmp_path / "profile")
    yield session
    session.close()


def require(path: Path) -> Path:
    """Skip the calling test with a clear reason when a shared resource is missing."""
    if not path.exists():
        pytest.skip(f"missing resource: {path}")
    return path


def require_nltk(resource: str) -> None:
    """Skip the calling test when NLTK does not have ``resource`` (e.g. ``corpora/wordnet``)."""
    import nltk

    try:
        nltk.data.find(resource)
    except LookupError:
        pytest.skip(f"NLTK resource {resource} is not installed")


def tiny_bert(
    directory: Path,
    head: str,
    words: list[str],
    id2label: dict[int, str] | None = None,
    bias: dict[str, float] | None = None,
) -> str:
    """A tiny random BERT in ``directory``: ``head`` is ``ForMaskedLM``, ``ForSequenceClassification`` or
    ``ForQuestionAnswering``; its WordPiece vocabulary is the special tokens and ``words``. Weights are
    large enough (initializer range 0.5) that different inputs get visibly different outputs. ``bias``
    (a masked LM's): added to those words' output logits at every position."""
    import torch
    import transformers

    directory.mkdir(parents=True, exist_ok=True)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    transformers.BertTokenizer(vocab={token: i for i, token in enumerate(tokens)}).save_pretrained(directory)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(tokens), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=128, initializer_range=0.5,
        **({"id2label": id2label} if id2label else {}),
    )  # fmt: skip
    model = getattr(transformers, f"Bert{head}")(config)
    with torch.no_grad():
        for word, value in (bias or {}).items():
            model.cls.predictions.bias[tokens.index(word)] += value
    model.save_pretrained(directory)
    return str(directory)


try:  # property tests: CI replays a fixed set of examples; a local run searches anew each time
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")
except ImportError:
    pass
