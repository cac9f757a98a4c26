"""Language profiles: what is particular to one language, in one place.

A task names its language (``"language": "en"`` in its spec header, the default) and the parts that read or
write its words ask the task's profile, never an English module: templates fill placeholders from the
profile's lexicons and apply its word rules (``{a:noun}``, ``{plural:noun}``), a perturbation that takes a
``language`` parameter gets the profile (its tokenizer, tagger, word rules), and CheckList's ``Editor`` finds
its language here. A profile is one registered part (``LANGUAGES``); ``en`` is the one autocheck ships
(``ENGLISH``: ``tagging``'s tokenizer and tagger, ``languages.en.words``' word rules) and a plug-in adds
another through the entry-point group ``autocheck.languages``::

    [project.entry-points."autocheck.languages"]
    eo = "my_plugin:ESPERANTO"

The dataset search (its tokenizer and negations), the expansion (grammar insertion, masked-LM fills and
their checks) and the built-in perturbations are English still: they read the English pieces directly, and
a task in another language is built from templates and perturbations that take the profile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import DEFAULT_MLM
from ..registry import Registry
from ..resources import project_file
from ..tagging import Tokens, pos_tag_sents, tokenize
from .en import words as english_words
from .lexicons import LEXICON_DIR


@dataclass(frozen=True, slots=True)
class LanguageProfile:
    """One language's pieces. ``words`` holds its word rules as attributes, each a function of one word:
    the template functions it has (``article``: "a"/"an" and the word; ``plural``, ``comparative``,
    ``superlative``, ``past``; and the relations ``synonyms``, ``antonyms``, ``hypernyms`` of a word and a
    part of speech); a template asking for one it lacks is an error naming the language."""

    name: str  # what a task's "language" says: "en"
    description: str
    tokenize: Callable[[str], Tokens]  # words with character offsets and sentences
    pos_tag: Callable[[Sequence[Sequence[str]]], list[list[str]]]  # each sentence's Penn Treebank-style tags
    lexicons: Path  # the folder of template lexicons (``{city}`` is ``city.json`` there)
    words: Any  # word rules (see above): a module or any object with those functions
    negations: frozenset[str]  # lower-cased words that negate what follows ("not", "never", "n't")
    polarity_items: frozenset[str] = frozenset()  # words a negation licenses ("ever", "any")
    polarity_lexicon: str | None = None  # the polarity lexicon's name (``sources.lexicon``), if any
    grammar: str | None = None  # the reference grammar (``grammars/<name>.json``) expansions insert by
    masked_lm: str | None = None  # the default masked LM (``{mask}``, suggestions): HF id or directory


LANGUAGES: Registry[LanguageProfile] = Registry("languages", "language profile")

ENGLISH = LanguageProfile(
    name="en",
    description="English: Treebank tokens, NLTK's perceptron tagger, the PTB-sample grammar",
    tokenize=tokenize,
    pos_tag=pos_tag_sents,
    lexicons=project_file(LEXICON_DIR),
    words=english_words,
    negations=english_words.NEGATIONS,
    polarity_items=english_words.POLARITY_ITEMS,
    polarity_lexicon="sentiwordnet",
    grammar="ptb_sample",
    masked_lm=DEFAULT_MLM,
)
LANGUAGES.register("en", ENGLISH)


def language(name: str) -> LanguageProfile:
    """The profile named ``name``: an InputError naming the known ones when there is none."""
    return LANGUAGES.get(name)
