"""Finding (and on first use fetching) external resources: NLTK data, project data files.

Real loaders are used throughout (``nltk.data``, ``benepar.Parser``, ``from_pretrained``); this module only
decides where to look, whether downloading is allowed, and how to say what is missing.
"""

from __future__ import annotations

import logging
import os
import sys
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path

from .cache import file_checksum
from .store import content_hash

log = logging.getLogger(__name__)

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
# Top-level folders shipped with the project; a wheel carries them in autocheck/_project/ (see setup.py).
SHIPPED = ("requirements", "grammars", "data")
INSTALLED_DATA = PACKAGE_DIR / "_project"


class ResourceMissing(RuntimeError):
    """A resource is not installed; the message names it and how to get it (one line)."""


def offline() -> bool:
    """``--offline`` sets AUTOCHECK_OFFLINE=1; the Hugging Face offline switches count as well."""
    return any(os.environ.get(v, "") not in ("", "0") for v in ("AUTOCHECK_OFFLINE", "HF_HUB_OFFLINE"))


def project_file(relative: str) -> Path:
    """A data file shipped with the project (requirements/, grammars/, data/): the installed copy in an
    installed wheel, else the source checkout's. Other paths are relative to the checkout root."""
    if Path(relative).parts[:1] and Path(relative).parts[0] in SHIPPED and INSTALLED_DATA.is_dir():
        return INSTALLED_DATA / relative
    return PROJECT_ROOT / relative


def shared_data_dir() -> Path:
    """The offline resources (real corpora, stand-in models): ``$AUTOCHECK_SHARED_DATA`` or ../shared/data."""
    return Path(os.environ.get("AUTOCHECK_SHARED_DATA", project_file("../shared/data"))).resolve()


# What NLTK imports at its own import, each in a try/except ImportError, for parts autocheck never uses
# (collocation statistics, the scikit-learn classifier wrapper, the transition parser's sparse matrices):
# scipy.stats, scikit-learn and through it pandas, scipy.sparse; 0.7-1.2 CPU-s of a default generate run
# (docs/speed.md)
NLTK_OPTIONAL_IMPORTS = ("scipy.stats", "sklearn", "scipy.sparse")


def import_nltk_lean() -> None:
    """Import NLTK, if no one has yet, with its optional imports (``NLTK_OPTIONAL_IMPORTS``) failing as if
    they were not installed; they import as usual afterwards. In this process NLTK's scikit-learn wrapper
    (``SklearnClassifier``) and its scipy statistics (``fisher_exact`` in collocations) then do not work:
    for the CLI's generate and fuzz processes only, never on import of autocheck, so a program that
    imports autocheck keeps its NLTK whole. Done by hand since NLTK has no switch for it: a module mapped
    to None in ``sys.modules`` is Python's documented way to make its import fail."""
    if "nltk" in sys.modules:
        return
    blocked = [name for name in NLTK_OPTIONAL_IMPORTS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import nltk  # noqa: F401
    finally:
        for name in blocked:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]


def find_nltk(resource: str) -> str | None:
    """Where NLTK has ``resource`` (plain or zipped), or None; ``NLTK_DATA`` counts even when it was set
    after nltk was imported (NLTK reads it only at import)."""
    import nltk

    for entry in reversed(os.environ.get("NLTK_DATA", "").split(os.pathsep)):
        if entry and entry not in nltk.data.path:
            nltk.data.path.insert(0, entry)
    for candidate in (resource, resource + ".zip"):
        try:
            return str(nltk.data.find(candidate))
        except LookupError:
            pass
    return None


def nltk_resource(resource: str, package: str) -> str:
    """Locate an NLTK resource (e.g. ``corpora/opinion_lexicon``), downloading ``package`` on first use.

    Returns the resource path NLTK resolved. Honours ``NLTK_DATA``. Offline, a missing resource is a
    ``ResourceMissing`` naming the download command.
    """
    found = find_nltk(resource)
    if found is not None:
        return found
    how = f"python -m nltk.downloader {package}  (or set NLTK_DATA to a folder that has {resource})"
    if offline():
        raise ResourceMissing(f"NLTK resource '{resource}' not found; get it with: {how}")
    import nltk

    log.warning("Downloading NLTK package '%s' (first use) ...", package)
    if not nltk.download(package, quiet=True) or (found := find_nltk(resource)) is None:
        raise ResourceMissing(f"NLTK resource '{resource}' could not be downloaded; get it with: {how}")
    return found


# The NLTK data whose answers cached results depend on: the POS tagger and the sentence splitter
# (tokenising, tagging) and WordNet (the lexicon's lemmas, hence words' polarities)
TAGGER = "taggers/averaged_perceptron_tagger_eng"  # NLTK's English POS tagger
NLTK_DATA_READ = (TAGGER, "tokenizers/punkt_tab/english", "corpora/wordnet")


@lru_cache(maxsize=1)
def nltk_data_identity() -> str:
    """NLTK's version and a checksum of each file of the data in ``NLTK_DATA_READ`` (or that it is absent),
    for the keys of cached results read off tags, sentences or lemmas: another tagger or WordNet never gets
    the answers of the one before. The checksums are remembered by each file's path, size and modification
    time (``cache.file_checksum``): WordNet's and the tagger's files are 15 MB to read in every process. As
    for model weights, a file replaced by another of the same size and modification time (``cp -p``) keeps
    the old checksum: ``autocheck cache --clear checksums`` forgets them."""
    parts = [version("nltk")]
    for resource in NLTK_DATA_READ:
        found = find_nltk(resource)
        path = Path(found) if found else None
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path and path.is_dir() else [path]
        parts += [f"{resource}:{file_checksum(f) if f else None}" for f in files]
    return content_hash(*parts)
