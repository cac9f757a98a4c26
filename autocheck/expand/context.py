"""Context check: a function word inserted next to another must form a pair the reference treebank has.

Production differentiation is context-free: the reference grammar allows ``PP -> IN IN NP`` ("out of the
film"), so a mask gets an ``IN`` wherever the rule applies, and a weak masked LM fills it with words that
cannot stand there ("an exercise in of target demographics", "a quest for in truth", "and but the costumes").
An inserted preposition, ``to``, conjunction or determiner (``FUNCTION_TAGS``) whose neighbour is also a
function word must make, with that neighbour and in that order, a word pair that occurs in the treebank the
reference grammar was built from ("out of", "because of", "and the" do; "in of", "for in", "and but" do
not). Content-word neighbours are not judged: the check only rules out function-word sequences English does
not use.

The pairs are data: ``grammars/ptb_sample.function_pairs.json`` (built from NLTK's PTB sample with
``build_function_pairs("nltk")``, like ``grammars/ptb_sample.json``), or built from the ``--treebank``
directory the grammar is built from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..resources import project_file
from ..store import atomic_write_json, dumps, load_json
from .grammar import clean_tree, read_trees, treebank_files

FUNCTION_TAGS = frozenset({"IN", "TO", "CC", "DT"})
FORMAT = "autocheck-function-pairs/1"


@dataclass(frozen=True, slots=True)
class FunctionPairs:
    """Words ever tagged with a function tag in the treebank, and the ordered pairs of them it has."""

    words: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    provenance: dict[str, Any]

    def allows(self, tag: str, left: str | None, word: str, right: str | None) -> bool:
        """Whether ``word`` (lower-case, inserted with ``tag``) may stand between ``left`` and ``right``
        (lower-case neighbours, None at the text's edge)."""
        if tag not in FUNCTION_TAGS:
            return True
        if left is not None and left in self.words and (left, word) not in self.pairs:
            return False
        return right is None or right not in self.words or (word, right) in self.pairs

    def to_json(self) -> dict[str, Any]:
        payload = {
            "format": FORMAT,
            "provenance": self.provenance,
            "words": sorted(self.words),
            "pairs": sorted(list(p) for p in self.pairs),
        }
        return {**payload, "sha256": hashlib.sha256(dumps(payload).encode("utf-8")).hexdigest()}

    def save(self, path: str | Path) -> None:
        atomic_write_json(Path(path), self.to_json())

    @classmethod
    def from_json(cls, d: dict[str, Any], source: str = "function pairs") -> FunctionPairs:
        if d.get("format") != FORMAT:
            raise ValueError(f"{source}: not an {FORMAT} file")
        payload = {k: v for k, v in d.items() if k != "sha256"}
        if hashlib.sha256(dumps(payload).encode("utf-8")).hexdigest() != d.get("sha256"):
            raise ValueError(f"{source}: checksum mismatch (the file was changed)")
        return cls(
            frozenset(d["words"]), frozenset((a, b) for a, b in d["pairs"]), dict(d.get("provenance") or {})
        )


def function_pairs(sentences: Iterable[Sequence[tuple[str, str]]], source: str) -> FunctionPairs:
    """The function words and their attested ordered pairs in tagged sentences ((word, tag) lists)."""
    words: set[str] = set()
    bigrams: set[tuple[str, str]] = set()
    n = 0
    for sentence in sentences:
        n += 1
        lowered = [(w.lower(), t) for w, t in sentence]
        words.update(w for w, t in lowered if t in FUNCTION_TAGS)
        bigrams.update((a, b) for (a, _), (b, _) in zip(lowered, lowered[1:]))
    pairs = frozenset((a, b) for a, b in bigrams if a in words and b in words)
    provenance = {"source": source, "sentences": n, "tags": sorted(FUNCTION_TAGS)}
    return FunctionPairs(frozenset(words), pairs, provenance)


def build_function_pairs(treebank: str = "nltk") -> FunctionPairs:
    """From ``"nltk"`` (the NLTK PTB sample) or a directory of ``.mrg`` files, read as the grammar is
    (traces removed)."""
    source, files = treebank_files(treebank)

    def sentences():
        for fileid, text in files:
            for tree in read_trees(text, fileid):
                cleaned = clean_tree(tree)
                if cleaned is not None:
                    yield cleaned.pos()

    return function_pairs(sentences(), source)


def load_function_pairs(path_or_name: str | Path = "ptb_sample") -> FunctionPairs:
    """A pairs file, or the one shipped with a grammar by name (``grammars/<name>.function_pairs.json``)."""
    path = Path(path_or_name)
    if not path.suffix and not path.exists():
        path = project_file(f"grammars/{path_or_name}.function_pairs.json")
    return FunctionPairs.from_json(load_json(path, "function pairs"), source=str(path))
