"""Checks on the inserted words themselves, which the tagger and the lexicon's polarity do not make.

Read one by one, kept expansions held words no tag check catches (issue #35): non-words the tagger called
adjectives or adverbs ("s", "t", "billy", "because"), identity terms ("an american observant", "black white
people"), and polarity items outside the contexts that license them ("I ever got"). Each check is one
``validate.Check``; ``insertions.checks_for`` runs them in every ``--insertions`` mode (not ``--compat``).

* ``dictionary``: an inserted adjective (``JJ`` mask) is a WordNet 3.0 adjective and an inserted adverb
  (``RB``) a WordNet adverb, and under ``--insertions phrases``, where a participle is only inserted
  before a noun, a participle (``VBN``/``VBG``) a WordNet adjective too ("a [forgotten] film", not "a
  [saying] film"). The list is shipped
  (``data/lexicons/modifier_words.tsv``, built by ``data/lexicons/build.py``), so the check needs no
  NLTK corpus at run time.
* ``identity term``: no word naming a group of people by race, nationality, religion, gender, sexuality or
  disability is inserted, in any task: it changes whom a text is about (in hate speech, whom it targets),
  which an expansion must not. Nationalities and religions are the shipped lexicons' (``nationality``,
  ``religion``); the other groups' words are listed here.
* ``polarity item``: "ever", "any", "anymore", "yet" and the like need a negation before them in their
  sentence, a question, a superlative or a comparison ("the best I [ever] saw", "better than
  [ever]", "I did not [ever] ...", not "I [ever] got").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from ..resources import project_file
from ..sources.lexicon import NEGATIONS
from .validate import sentence_at

if TYPE_CHECKING:
    from .validate import Candidate

MODIFIER_WORDS = "data/lexicons/modifier_words.tsv"
ATTRIBUTIVE_PARTICIPLES = frozenset({"VBN", "VBG"})
# groups of people the shipped lexicons do not list (race, gender, sexuality, disability, and the words for
# believers and non-believers that are not a religion's adjective)
GROUP_WORDS = frozenset(
    """white black brown asian african hispanic latino latina latinx caucasian arab arabic indigenous native
    aboriginal jewish gentile male female man men woman women boy boys girl girls masculine feminine
    gay lesbian bisexual straight heterosexual homosexual queer trans transgender nonbinary intersex
    disabled handicapped blind deaf autistic crippled mute paralysed paralyzed retarded
    religious secular pagan atheistic agnostic""".split()
)
POLARITY_ITEMS = frozenset("ever any anymore yet either anywhere anything anyone anybody".split())
# what licenses a polarity item before it in its sentence besides a negation: comparison and superlatives
LICENSING_TAGS = frozenset({"JJS", "RBS", "JJR", "RBR"})
LICENSING_WORDS = frozenset("than if whether only first last".split())


@cache
def modifier_words() -> dict[str, frozenset[str]]:
    """Tag (``JJ``, ``RB``) -> the WordNet lemmas of that tag, lower-cased."""
    found: dict[str, set[str]] = {"JJ": set(), "RB": set()}
    path = project_file(MODIFIER_WORDS)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, tag = line.split("\t")
            found[tag].add(word)
    return {tag: frozenset(words) for tag, words in found.items()}


@cache
def identity_terms() -> frozenset[str]:
    from ..author.lexicons import load_lexicon

    shipped = {e.value.lower() for name in ("nationality", "religion") for e in load_lexicon(name)}
    return frozenset(shipped | GROUP_WORDS)


class Dictionary:
    """Every inserted adjective and adverb (and participle, when ``participles``: where participles are
    only inserted before a noun) is a dictionary word of its kind."""

    name = "dictionary"

    def __init__(self, participles: bool = False):
        self.tags = {"JJ", "RB", *(ATTRIBUTIVE_PARTICIPLES if participles else ())}

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        words = modifier_words()
        return [
            all(
                w.lower() in words[_kind(tag)] for w, tag in zip(c.words, c.template.tags) if tag in self.tags
            )
            for c in candidates
        ]


def _kind(tag: str) -> str:
    return "RB" if tag == "RB" else "JJ"  # a participle before a noun must be an adjective


class IdentityTerms:
    """No inserted word names a group of people (``identity_terms``)."""

    name = "identity term"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        terms = identity_terms()
        return [not any(w.lower() in terms for w in c.words) for c in candidates]


class PolarityItems:
    """An inserted polarity item ("ever", "any") follows a negation, a superlative or a comparison in its
    sentence of the seed, or its sentence is a question."""

    name = "polarity item"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [self._licensed(c) for c in candidates]

    @staticmethod
    def _licensed(candidate: Candidate) -> bool:
        if not any(w.lower() in POLARITY_ITEMS for w in candidate.words):
            return True
        tokens = candidate.template.parse.tokens
        index = candidate.template.masks[0][0]
        a, b, tags = sentence_at(candidate.seed_tags, index)
        if tokens[b - 1] == "?":
            return True
        before = range(a, min(index, b))
        return any(
            tokens[i].lower() in NEGATIONS
            or tokens[i].lower() in LICENSING_WORDS
            or tags[i - a] in LICENSING_TAGS
            for i in before
        )
