"""Constituency parses of seed texts with benepar: loaded once, batched, cached, every sentence parsed.

Texts are tokenised by ``tagging.tokenize`` (PTB tokens with character offsets, which later stages use to
insert words at exact token boundaries); the sentences of all texts go to the parser in batches of
similar length, sized by the chart cells they pad to, so that memory stays bounded whatever the lengths.
The original parsed only the first sentence of each seed and reloaded the parser for every seed; one
failing seed killed the whole run.

What the model is given: benepar's neural input is the *unescaped* word (its treebank loader runs
``ptb_unescape``, so PTB ``````/``''`` were seen as ``"`` in training, and the stand-in model tags a raw ``"``
correctly as ``````/``''`` but a literal `````` as ``NN``). So ``words`` are the surface tokens through
``ptb_unescape`` (curly quotes and dashes to the PTB training forms), ``space_after`` comes from the text's
own spacing, and ``escaped_words`` (the tree leaves) are the tokens with only the bracket escapes the
bracketed format needs (``(`` -> ``-LRB-``). Tree leaves therefore equal ``Parse.tokens`` up to those
bracket escapes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import re
import sys
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..cache import Cache
from ..records import Parse
from ..resources import ResourceMissing, offline
from ..store import content_hash
from ..tagging import tokenize

log = logging.getLogger(__name__)

DEFAULT_MODEL = "benepar_en3"
_BRACKETS = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"}


@dataclass
class ParseStats:
    """Texts parsed by the model, served from the cache, and failed (by reason)."""

    parsed: int = 0
    cached: int = 0
    failed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


@contextmanager
def _quiet_torch_struct() -> Iterator[None]:
    # torch-struct 0.5 warns "TreeCRF does not define arg_constraints" on every parse; it is harmless.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*arg_constraints.*")
        yield


def locate_model(name_or_dir: str) -> Path:
    """A benepar model directory: a path as given, or a model name under NLTK_DATA ``models/`` (downloaded
    with ``benepar.download`` on first use unless offline)."""
    if not name_or_dir.strip():  # Path("") is the working directory, which holds no parser
        raise ResourceMissing("benepar model: an empty name (give benepar_en3 or a model directory)")
    path = Path(name_or_dir)
    if path.is_dir():
        return path
    how = f"python -c \"import benepar; benepar.download('{name_or_dir}')\" (or pass a model directory)"
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name_or_dir):  # a path, or no name benepar or NLTK can look up
        raise ResourceMissing(f"benepar model directory '{name_or_dir}' not found")
    import nltk

    for attempt in range(2):
        try:
            return Path(nltk.data.find(f"models/{name_or_dir}").path)
        except LookupError:
            if attempt or offline():
                break
        import benepar

        log.warning("Downloading benepar model '%s' (first use) ...", name_or_dir)
        benepar.download(name_or_dir, quiet=True)
    raise ResourceMissing(f"benepar model '{name_or_dir}' not found; get it with: {how}")


@lru_cache(maxsize=4)
def model_checksum(path: Path) -> str:
    """sha256 over the model's files (names and contents), so a changed model never reuses old parses."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        h.update(str(file.relative_to(path) if path.is_dir() else file.name).encode() + b"\0")
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=1)
def benepar_nltk() -> Any:
    """benepar's NLTK plugin (``Parser``, ``InputSentence``, ``ptb_unescape``), imported without running
    ``benepar/__init__``, which also imports its spaCy plugin and so spaCy: 0.6-1.2 CPU-s per process here
    (docs/speed.md) for a part autocheck never uses. Done by hand since benepar (0.2, unchanged since
    2021) has no import of its parts alone: the package is registered unexecuted (its modules import each
    other through it), and its ``__init__`` runs on the first attribute asked of it that is not one of
    its modules nor a dunder (``benepar.BeneparComponent`` in a user's code): ``import benepar`` stays
    whole."""
    if "benepar" not in sys.modules:
        spec = importlib.util.find_spec("benepar")
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError("No module named 'benepar'", name="benepar")
        package = importlib.util.module_from_spec(spec)  # __path__ set, __init__ not run

        def rest_of_init(name: str) -> Any:
            if name.startswith("__") or importlib.util.find_spec(f"benepar.{name}") is not None:
                raise AttributeError(name)  # a probe, or a module (``from . import x`` imports it next)
            del vars(package)["__getattr__"]
            spec.loader.exec_module(package)  # type: ignore[union-attr]
            return getattr(package, name)

        vars(package)["__getattr__"] = rest_of_init  # a module's own __getattr__ (PEP 562)
        sys.modules["benepar"] = package
    from benepar.integrations import nltk_plugin

    return nltk_plugin


@lru_cache(maxsize=2)
def _load_benepar(path: Path, batch_size: int) -> Any:
    log.info("Loading benepar model %s", path)
    with _quiet_torch_struct():
        return benepar_nltk().Parser(str(path), batch_size=batch_size)


def _failure_reason(error: Exception) -> str:
    return "too_long" if "exceeds the maximum supported length" in str(error) else type(error).__name__


class Parser:
    """Parses texts into ``Parse`` records; the benepar model loads once per process on first use."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        batch_size: int = 64,
        max_cells: int = 8192,
        cache: Cache | None = None,
    ):
        self.path = locate_model(model)
        self.identity = content_hash("benepar", model_checksum(self.path))
        self.batch_size = batch_size
        # 18 sentences of 20 tokens, 2 of 60: memory follows the padded chart, not the sentence count
        self.max_cells = max_cells
        self.stats = ParseStats()
        self._cache = cache  # None: the "parses" cache of $AUTOCHECK_CACHE at parse time

    def parse(self, texts: Sequence[str]) -> list[Parse | None]:
        """One ``Parse`` per text, or None for a text the parser cannot take (counted in ``stats``)."""
        cache = self._cache or Cache("parses")
        keys = {text: content_hash(self.identity, text) for text in texts}
        hits = cache.get_many(keys.values())
        done: dict[str, Parse | None] = {t: Parse.from_json(hits[k]) for t, k in keys.items() if k in hits}
        self.stats.cached += sum(1 for t in texts if t in done)
        todo = [t for t in keys if t not in done]
        fresh = self._parse_uncached(todo) if todo else {}  # all cached: the model is not even loaded
        done.update(fresh)
        cache.put_many({keys[t]: p.to_json() for t, p in fresh.items() if p is not None})
        if self._cache is None:
            cache.close()
        return [done[t] for t in texts]

    def _parse_uncached(self, texts: list[str]) -> dict[str, Parse | None]:
        benepar = benepar_nltk()
        tokenised = {text: tokenize(text) for text in texts}
        inputs: list[Any] = []
        owner: list[str] = []  # the text of each input sentence
        for text, tokens in tokenised.items():
            for start, end in tokens.sentences:
                words = tokens.words[start:end]
                spaces = [
                    a[1] < b[0] for a, b in zip(tokens.offsets[start:end], tokens.offsets[start + 1 : end])
                ]
                inputs.append(
                    benepar.InputSentence(
                        words=benepar.ptb_unescape(words),
                        space_after=[*spaces, True],
                        escaped_words=[_escape(w) for w in words],
                    )
                )
                owner.append(text)
        trees, errors = self._parse_sentences(inputs)
        failures: dict[str, str] = {t: "empty" for t, tok in tokenised.items() if not tok.sentences}
        for i, reason in errors.items():
            failures.setdefault(owner[i], reason)
        out: dict[str, Parse | None] = {}
        by_text: dict[str, list[str]] = {}
        for text, tree in zip(owner, trees):
            if tree is not None:
                by_text.setdefault(text, []).append(tree)
        for text, tokens in tokenised.items():
            if text in failures:
                self.stats.failed += 1
                self.stats.reasons[failures[text]] += 1
                log.warning("Could not parse (%s): %.80r", failures[text], text)
                out[text] = None
            else:
                self.stats.parsed += 1
                out[text] = Parse(text, tokens.words, tokens.offsets, tuple(by_text[text]))
        return out

    def _parse_sentences(self, inputs: list[Any]) -> tuple[list[str | None], dict[int, str]]:
        """Tree strings for all sentences, in batches of similar length (``batches``); a failing batch is
        retried one sentence at a time."""
        parser = _load_benepar(self.path, self.batch_size)
        trees: list[str | None] = [None] * len(inputs)
        errors: dict[int, str] = {}
        lengths = [len(sentence.escaped_words) for sentence in inputs]
        with _quiet_torch_struct():
            for batch in batches(lengths, self.batch_size, self.max_cells):
                try:
                    for i, tree in zip(batch, parser.parse_sents([inputs[i] for i in batch])):
                        trees[i] = _tree_string(tree)
                except Exception:  # find the batch's bad sentences and keep the others
                    for i in batch:
                        try:
                            trees[i] = _tree_string(parser.parse(inputs[i]))
                        except Exception as e:
                            errors[i] = _failure_reason(e)
        return trees, errors


def batches(lengths: Sequence[int], max_sentences: int, max_cells: int) -> list[list[int]]:
    """Sentence indices in batches of similar length, shortest first: at most ``max_sentences`` and at
    most ``max_cells`` padded chart cells (sentences × (longest + 1)²), since a chart parser's memory grows
    with the square of the longest sentence in its batch. A sentence longer than the budget goes alone."""
    out: list[list[int]] = []
    batch: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: (lengths[i], i)):
        if batch and (len(batch) == max_sentences or (len(batch) + 1) * (lengths[i] + 1) ** 2 > max_cells):
            out.append(batch)
            batch = []
        batch.append(i)
    return [*out, batch] if batch else out


def _escape(word: str) -> str:
    for bracket, escaped in _BRACKETS.items():
        word = word.replace(bracket, escaped)
    return word


def _tree_string(tree: Any) -> str:
    """One-line bracketed tree without benepar's TOP wrapper."""
    if tree.label() == "TOP":
        if len(tree) == 1:
            tree = tree[0]
        else:  # a model without a forced root constituent: name the bare span a fragment
            tree.set_label("FRAG")
    return tree.pformat(margin=1 << 30)
