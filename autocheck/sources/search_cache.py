"""The dataset search's result, cached by content hash: a second run on the same local dataset with the
same capabilities (another ``--max-variants``, ``fuzz`` after ``generate``, a resumed run) reads,
normalises and tokenises none of it.

The key holds everything ``seeds.select_seeds`` depends on: the dataset's bytes (a checksum of every
file of a local file or folder, remembered by size and modification time as model weights' are; and its
path, which the manifest's encodings name), how it is read (columns, label map,
split, encoding, ...), the capabilities' specifications, the lexicon's description, ``--max-seeds``,
``--seed``, ``--compat``, the package's code and the NLTK data it reads (tagger, splitter, WordNet). A
source that is no local file or folder (a Hugging Face hub id, a reader plug-in's ``name:location``) or
a lexicon that cannot describe itself is searched every time: nothing pins what it holds. The value is
the chosen seeds, the filler pools and the dataset's counts for the manifest; a result that would not
come back equal from JSON is not stored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cache import Cache, cache_dir, file_checksum
from ..records import Example
from ..requirements import Capability
from ..resources import nltk_data_identity
from ..store import canonical, code_fingerprint, content_hash, dumps
from .datasets import DatasetStats
from .seeds import FillerPools, pool_keys

log = logging.getLogger(__name__)

NAMESPACE = "search"
# the counts of ``DatasetStats`` a search leaves (``encoding``, the one asked for, is set by reading)
COUNTS = ("read", "kept", "skipped", "encodings", "unknown_labels")


def source_digest(source: str) -> str | None:
    """A checksum of a local dataset file, or of every file under a local folder with its relative path;
    None for any other source. Each file's is ``cache.file_checksum``'s: read in full again only when its
    size or modification time changed."""
    path = Path(source)
    if path.is_file():
        return file_checksum(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        return content_hash(*(f"{p.relative_to(path).as_posix()}:{file_checksum(p)}" for p in files))
    return None


def search_key(
    source: str,
    read_options: dict[str, Any],
    capabilities: Sequence[Capability],
    lexicon: Any,
    *,
    max_seeds: int | None,
    seed: int,
    compat: bool,
) -> str | None:
    """The cache key of a search of ``source`` read with ``read_options`` (``load_examples``' keywords but
    ``stats``); None when caching is off or nothing pins the source's content or the lexicon's."""
    if cache_dir() is None:
        return None
    digest = source_digest(source)
    describe = getattr(lexicon, "describe", None)
    if digest is None or (lexicon is not None and describe is None):
        return None
    return content_hash(
        "seed-search-1",
        code_fingerprint(),
        nltk_data_identity(),
        str(Path(source).resolve()),
        digest,
        dumps(canonical(read_options)),
        *(dumps(canonical(c)) for c in capabilities),
        dumps(describe() if describe else None),
        dumps([max_seeds, seed, compat]),
    )


def cached_search(
    key: str, capabilities: Sequence[Capability], stats: DatasetStats
) -> tuple[dict[str, list[Example]], FillerPools] | None:
    """The search stored under ``key`` (its counts put into ``stats``), or None."""
    with Cache(NAMESPACE) as cache:
        found = cache.get(key)
    if found is None:
        return None
    keys = {repr(k): k for c in capabilities for k in pool_keys(c)}
    pools = FillerPools({keys[name]: size for name, size, _ in found["pools"]})
    for name, _, items in found["pools"]:
        pools.items[keys[name]] = {int(i): _example(e) for i, e in items.items()}
    for name in COUNTS:
        setattr(stats, name, found["stats"][name])
    log.info("search: the seeds and fillers of an earlier identical search (cache)")
    return {c: [_example(e) for e in examples] for c, examples in found["selected"].items()}, pools


def store_search(
    key: str, selected: dict[str, list[Example]], pools: FillerPools, stats: DatasetStats
) -> None:
    """Store a search's result under ``key``, unless some example would not read back equal."""
    examples = [
        *(e for es in selected.values() for e in es),
        *(e for i in pools.items.values() for e in i.values()),
    ]
    # (an Example's equality leaves its meta out)
    if any((back := _example(_record(e))) != e or back.meta != e.meta for e in examples):
        return
    value = {
        "selected": {c: [_record(e) for e in es] for c, es in selected.items()},
        "pools": [
            [repr(k), size, {str(i): _record(e) for i, e in pools.items.get(k, {}).items()}]
            for k, size in pools.sizes.items()
        ],
        "stats": {name: getattr(stats, name) for name in COUNTS},
    }
    with Cache(NAMESPACE) as cache:
        cache.put_many({key: value})


def _record(example: Example) -> dict[str, Any]:
    return {"id": example.id, "inputs": example.inputs, "label": example.label, "source": example.source,
            "meta": example.meta}  # fmt: skip


def _example(record: dict[str, Any]) -> Example:
    return Example(record["id"], record["inputs"], _tuples(record["label"]), record["source"], record["meta"])


def _tuples(value: Any) -> Any:
    """JSON's lists as the tuples labels are made of (a question's answers, an entity's span)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
