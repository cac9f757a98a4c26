"""Placeholder functions for templates: articles, inflections and WordNet relations.

Which package does what, and why:

- ``article``: **inflect** (``engine().a``) decides a/an by sound, not by letter, from pronunciation
  rules and exception lists: "an hour", "a university", "an FBI agent", "a European". Nothing else on
  PyPI does this as well; it is pure Python and maintained (7.x).
- ``plural``: **inflect** (``plural_noun``) as well: it has the irregular and classical plurals
  ("people", "children", "analyses", "sheep").
- ``comparative``, ``superlative``, ``past``, ``base_form``, ``third_person``: **lemminflect**. Its
  inflections come from a lexicon (the SPECIALIST lexicon) with rules only for unknown words, so it knows
  both irregular forms ("better", "went") and which adjectives take -er at all: an adjective the lexicon
  lists without an -er form ("beautiful", "expensive") gets "more"/"most", one it lists with one gets it
  ("taller", "happier", "cleverer"). pyinflect is a thin spaCy wrapper over the same data; pattern's
  inflections are rule-only and the package is unmaintained.
- antonyms, synonyms, hypernyms: WordNet through ``nltk.corpus.wordnet`` (found with NLTK_DATA; see
  ``autocheck.resources``). Only single-word lemmas are returned: multiword lemmas ("look_at") are
  skipped, since a template slot holds one word. Results are sorted, de-duplicated and never contain
  the word itself. A WordNet that is missing, or that lacks a part of speech (the partial copy in the
  shared data has no nouns), gives an empty list and one warning, never an error.

``pos`` is a coarse part of speech: ``"adj"``, ``"noun"``, ``"verb"``, ``"adv"`` (or WordNet's letters
``a``, ``n``, ``v``, ``r``).
"""

from __future__ import annotations

import logging
import re
import warnings
from functools import lru_cache

from ...resources import ResourceMissing, nltk_resource
from ...store import InputError

log = logging.getLogger(__name__)

# Words (lower-cased PTB tokens) that make a sentence negated. Besides the plain negators this has the
# negative quantifiers/adverbs ("nothing", "never", "hardly"), "without", and "n't"/"cannot" for texts whose
# contractions were not expanded. "This is nothing but ..." is negated, so it is never negated again. Nor is
# a negation ever a "neutral" word to insert: it flips what it scopes over, whatever a lexicon says of it.
NEGATIONS = frozenset(
    "not no never n't nothing nobody none noone nowhere neither nor without cannot hardly barely scarcely "
    "seldom rarely".split()
)
# Negative polarity items: words a negation (or a comparison) licenses before them, "I did not [ever] ..."
POLARITY_ITEMS = frozenset("ever any anymore yet either anywhere anything anyone anybody".split())

_WN_POS = {"adj": "a", "a": "a", "s": "a", "noun": "n", "n": "n", "verb": "v", "v": "v", "adv": "r", "r": "r"}
_POS_NAME = {"a": "adjectives", "n": "nouns", "v": "verbs", "r": "adverbs"}


@lru_cache(maxsize=1)
def _inflect_engine():
    import inflect

    return inflect.engine()


# ---------------------------------------------------------------- articles and inflections


def article(word: str) -> str:
    """``word`` with its indefinite article by sound: "an engineer", "a university", "an hour"."""
    word = word.strip()
    if not word:
        raise InputError("article(): empty word")
    return _inflect_engine().a(word)


def plural(noun: str) -> str:
    """The plural of a noun: "city" -> "cities", "person" -> "people", "sheep" -> "sheep"."""
    return _inflect_engine().plural_noun(noun) or noun


def _syllables(word: str) -> int:
    groups = re.findall(r"[aeiouy]+", word.lower())
    n = len(groups) - (1 if word.lower().endswith("e") and len(groups) > 1 and not word.endswith("le") else 0)
    return max(n, 1)


def _degree(adj: str, tag: str, word: str) -> str:
    from lemminflect import getAllInflections, getInflection

    known = getAllInflections(adj.lower(), upos="ADJ")
    if tag in known:
        return _same_case(adj, known[tag][0])
    if not known and _syllables(adj) == 1:  # an unknown one-syllable word: -er/-est by rule
        forms = getInflection(adj.lower(), tag=tag, inflect_oov=True)
        if forms:
            return _same_case(adj, forms[0])
    return f"{word} {adj}"


def comparative(adj: str) -> str:
    """ "tall" -> "taller", "good" -> "better", "beautiful" -> "more beautiful"."""
    return _degree(adj, "JJR", "more")


def superlative(adj: str) -> str:
    """ "tall" -> "tallest", "good" -> "best", "beautiful" -> "most beautiful"."""
    return _degree(adj, "JJS", "most")


def _verb_form(verb: str, tag: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(verb.lower(), tag=tag, inflect_oov=True)
    return _same_case(verb, forms[0]) if forms else verb


def past(verb: str) -> str:
    """Simple past of a base-form verb: "go" -> "went", "like" -> "liked", "stop" -> "stopped"."""
    return _verb_form(verb, "VBD")


def third_person(verb: str) -> str:
    """Third person singular present: "like" -> "likes", "go" -> "goes", "have" -> "has"."""
    return _verb_form(verb, "VBZ")


def base_form(verb: str) -> str:
    """The base form (lemma) of an inflected verb: "likes" -> "like", "went" -> "go"."""
    from lemminflect import getLemma

    lemmas = getLemma(verb.lower(), upos="VERB")
    return _same_case(verb, lemmas[0]) if lemmas else verb


def _same_case(original: str, form: str) -> str:
    return form[:1].upper() + form[1:] if original[:1].isupper() else form


# ---------------------------------------------------------------- WordNet


def _wn_pos(pos: str) -> str:
    try:
        return _WN_POS[pos.lower()]
    except KeyError:
        raise InputError(f"unknown part of speech '{pos}'; use one of adj, noun, verb, adv") from None


@lru_cache(maxsize=1)
def _wordnet():
    """The WordNet corpus reader, or None (with one warning) when WordNet is not installed."""
    try:
        nltk_resource("corpora/wordnet", "wordnet")
        from nltk.corpus import wordnet

        wordnet.ensure_loaded()
        return wordnet
    except (ResourceMissing, LookupError, OSError) as e:
        _warn(f"WordNet is not available ({e}); WordNet relations are empty")
        return None


@lru_cache(maxsize=8)
def _has_pos(wn_pos: str) -> bool:
    """Whether the installed WordNet has any lemma of this part of speech (warns once when not)."""
    wn = _wordnet()
    if wn is None:
        return False
    has = next(iter(wn.all_lemma_names(pos=wn_pos)), None) is not None
    if not has:
        _warn(
            f"the installed WordNet has no {_POS_NAME[wn_pos]} (a partial copy?); relations for "
            f"{_POS_NAME[wn_pos]} are empty. Get the full WordNet with: python -m nltk.downloader wordnet"
        )
    return has


def _warn(message: str) -> None:
    log.warning(message)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def _synsets(word: str, pos: str):
    wn_pos = _wn_pos(pos)
    if not _has_pos(wn_pos):
        return []
    with warnings.catch_warnings():  # pointers into a missing part of WordNet warn once per lookup
        warnings.simplefilter("ignore", UserWarning)
        return _wordnet().synsets(word.replace(" ", "_"), pos=wn_pos)


def _clean(word: str, names) -> list[str]:
    own = word.lower().replace("_", " ")
    out = {n for n in names if "_" not in n and n.lower() != own}
    return sorted(out)


def synonyms(word: str, pos: str) -> list[str]:
    """Single-word lemmas sharing a synset with ``word`` (pos ``adj``/``noun``/``verb``/``adv``)."""
    return _clean(word, (lem.name() for s in _synsets(word, pos) for lem in s.lemmas()))


def antonyms(word: str, pos: str) -> list[str]:
    """Single-word direct antonyms of ``word``'s senses: antonyms("good", "adj") has "bad"."""
    own = {word.lower().replace(" ", "_")}
    names = (
        ant.name()
        for s in _synsets(word, pos)
        for lem in s.lemmas()
        if lem.name().lower() in own
        for ant in lem.antonyms()
    )
    return _clean(word, names)


def hypernyms(word: str, pos: str) -> list[str]:
    """Single-word lemmas of the direct hypernyms of ``word``'s senses (nouns and verbs have them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        names = [lem.name() for s in _synsets(word, pos) for h in s.hypernyms() for lem in h.lemmas()]
    return _clean(word, names)


def hyponyms(word: str, pos: str) -> list[str]:
    """Single-word lemmas of the direct hyponyms of ``word``'s senses (more specific words)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        names = [lem.name() for s in _synsets(word, pos) for h in s.hyponyms() for lem in h.lemmas()]
    return _clean(word, names)


def missing_parts() -> list[str]:
    """The parts of speech the installed WordNet lacks ("nouns" in a partial copy; all when none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return [name for letter, name in _POS_NAME.items() if not _has_pos(letter)]


def siblings(word: str, pos: str) -> list[str]:
    """Single-word lemmas of the other hyponyms of ``word``'s hypernyms (words of the same kind)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        names = [
            lem.name()
            for s in _synsets(word, pos)
            for h in s.hypernyms()
            for sibling in h.hyponyms()
            if sibling != s
            for lem in sibling.lemmas()
        ]
    return _clean(word, names)


def part_name(pos: str) -> str:
    """``"noun"`` -> ``"nouns"`` (as ``missing_parts`` names them)."""
    return _POS_NAME[_wn_pos(pos)]
