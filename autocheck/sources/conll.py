"""The CoNLL reader: token-per-line NER data (CoNLL-2002/2003, OntoNotes in CoNLL form, WikiNER ...) as
entity-labelled sentences, registered as the dataset reader ``conll`` (``--dataset conll:PATH``).

Each line is a token and its columns, whitespace-separated; the first column is the token and the last its
tag (``O``, ``B-PER``, ``I-LOC``; BIO, CoNLL-2003's IOB1, BIOES and BILOU are all read, see
``entities.decode_tags``). A blank line ends a sentence; ``-DOCSTART-`` lines separate documents and are
skipped. A sentence's text is its tokens joined by single spaces, so each entity's offsets are exact in it
(no detokenisation that could move them); its label is the list of ``[start, end, type]`` entities.

``PATH`` is a file, or a folder with one file per split named ``train``, ``dev`` (or ``valid``/``testa``)
and ``test`` (or ``testb``), with any suffix: ``--split`` picks one, none reads them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..outputs.entities import decode_tags
from ..store import InputError

_TAG = re.compile(r"O|[BIESLU]-\S+")
_SPLIT_NAMES = {
    "train": ("train",),
    "dev": ("dev", "valid", "validation", "testa"),
    "test": ("test", "testb"),
}


_SPLITS = set(_SPLIT_NAMES)


def _split_of(path: Path) -> str | None:
    words = set(re.split(r"[^a-z]+", path.name.lower()))
    return next((split for split, names in _SPLIT_NAMES.items() if words & set(names)), None)


def _files(location: str, split: str | None) -> list[Path]:
    path = Path(location).expanduser()
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"conll:{location}: no such file or folder")
    found = sorted(
        p for p in path.iterdir() if p.is_file() and _split_of(p) and split in (None, _split_of(p))
    )
    if not found:
        raise InputError(
            f"conll:{location}: no {split or 'train/dev/test'} file in the folder "
            "(names holding train, dev/valid/testa or test/testb)"
        )
    return found


def _sentences(path: Path) -> Iterator[tuple[int, list[str], list[str]]]:
    """(document number, tokens, tags) of each sentence of one file."""
    document = 0
    tokens: list[str] = []
    tags: list[str] = []
    with path.open(encoding="utf-8") as lines:
        for lineno, line in enumerate(lines, 1):
            columns = line.split()
            if columns and columns[0] == "-DOCSTART-":
                document += 1
            elif not columns:
                if tokens:
                    yield document, tokens, tags
                tokens, tags = [], []
            elif len(columns) < 2 or not _TAG.fullmatch(columns[-1]):
                raise InputError(
                    f"{path}:{lineno}: expected a token and its NER tag (O, B-TYPE, I-TYPE ...) as the "
                    f"last column, got {line.strip()!r}"
                )
            else:
                tokens.append(columns[0])
                tags.append(columns[-1])
    if tokens:
        yield document, tokens, tags


def read_conll(location: str, split: str | None = None) -> Iterator[dict[str, Any]]:
    """One row per sentence: ``{"text", "label", "document"}`` (see the module docs). A line without a tag
    column or with a tag that is no BIO-style tag is an ``InputError`` naming file and line."""
    for path in _files(location, split):
        for document, tokens, tags in _sentences(path):
            offsets, at = [], 0
            for token in tokens:
                offsets.append((at, at + len(token)))
                at += len(token) + 1
            yield {
                "text": " ".join(tokens),
                "label": [list(e) for e in decode_tags(tags, offsets)],
                "document": f"{path.name}#{document}",
            }
