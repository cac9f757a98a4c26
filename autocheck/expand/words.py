"""Checks on the inserted words themselves, which the tagger and the lexicon's polarity do not make.

Read one by one, kept expansions held words no tag check catches (issue #35): non-words the tagger called
adjectives or adverbs ("s", "t", "billy", "because"), identity terms ("an american observant", "black white
people"), and polarity items outside the contexts that license them ("I ever got"). Each check is one
``validate.Check``; ``insertions.checks_for`` runs them in every ``--insertions`` mode (not ``--compat``).

* ``dictionary``: an inserted adjective (``JJ`` mask) is a WordNet 3.0 adjective and an inserted adverb
  (``RB``) a WordNet adverb. The list is shipped
  (``data/lexicons/modifier_words.tsv``, built by ``data/lexicons/build.py``), so the check needs no
  NLTK corpus at run time.
* ``identity term``: no word naming a group of people by race, nationality, religion, gender, sexuality or
  disability is inserted, in any task: it changes whom a text is about (in hate speech, whom it targets),
  which an expansion must not. Nationalities and religions are the shipped lexicons' (``nationality``,
  ``religion``); the other groups' words are listed here.
* ``polarity item``: "ever", "any", "anymore", "yet" and the like need a negation, a superlative or a
  comparison before them in their clause (after the last comma, "that", "and" or the like), or a
  question, and never go right before "to" ("the best I [ever] saw", "better than [ever]", "I did not
  [ever] ...", not "I [ever] got", "the kind that [ever] lets", "in order [ever] to").
* ``article``: a word inserted right after "a" or "an" agrees with it (``Articles``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from ..languages.en.words import NEGATIONS, POLARITY_ITEMS
from ..languages.lexicons import load_lexicon
from ..resources import project_file
from .grammar import load_grammar
from .validate import sentence_at

if TYPE_CHECKING:
    from .validate import Candidate

MODIFIER_WORDS = "data/lexicons/modifier_words.tsv"
# groups of people the shipped lexicons do not list (race, gender, sexuality, disability, words for
# believers and non-believers the religion lexicon lacks, and peoples named by a region or an ethnicity
# rather than a country: fuzz inserted "in some [european] ways", read in round 14)
GROUP_WORDS = frozenset(
    """white black brown asian african hispanic latino latina latinx caucasian arab arabic indigenous native
    aboriginal jewish gentile male female man men woman women boy boys girl girls masculine feminine
    gay lesbian bisexual straight heterosexual homosexual queer trans transgender nonbinary intersex
    disabled handicapped blind deaf autistic crippled mute paralysed paralyzed retarded
    religious secular pagan atheistic agnostic islamic
    european scandinavian nordic slavic balkan celtic anglo latin oriental mediterranean caribbean
    polynesian melanesian gypsy roma romani inuit eskimo creole mestizo bedouin berber kurdish tamil zulu
    sami""".split()
)
# what licenses a polarity item before it in its sentence besides a negation: comparison and superlatives
LICENSING_TAGS = frozenset({"JJS", "RBS", "JJR", "RBR"})
LICENSING_WORDS = frozenset("than if whether only first last".split())
# a licence reaches a polarity item only within its clause: "the kind that [ever] lets" is not licensed by
# a negation before "that" (read blind, issue #35)
CLAUSE_BOUNDARIES = frozenset(", ; : that which who whom whose where when and but because while".split())
# words spelt with a vowel but said with a consonant, and the reverse (the article before them)
CONSONANT_SOUND = ("uni", "use", "usu", "uti", "ura", "ure", "euro", "one", "once", "ewe")
VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir")


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
def common_nouns() -> dict[str, frozenset[str]]:
    """Tag (``NN``, ``NNS``) -> the lower-case words the shipped PTB-sample grammar's lexicon has seen with
    that tag at least twice (a dictionary of common nouns: WordNet's nouns are not shipped here)."""
    lexicon = load_grammar().lexical_counts
    return {
        tag: frozenset(w.lower() for w, n in lexicon.get(tag, {}).items() if n >= 2 and w.isalpha())
        for tag in ("NN", "NNS")
    }


@cache
def identity_terms() -> frozenset[str]:
    shipped = {e.value.lower() for name in ("nationality", "religion") for e in load_lexicon(name)}
    return frozenset(shipped | GROUP_WORDS)


class Dictionary:
    """Every inserted adjective and adverb is a dictionary word of its kind."""

    name = "dictionary"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        words = modifier_words()
        return [
            all(w.lower() in words[tag] for w, tag in zip(c.words, c.template.tags) if tag in words)
            for c in candidates
        ]


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
        if index < b and tokens[index].lower() == "to":  # "in order [ever] to avoid"
            return False
        start = max(
            (i + 1 for i in range(a, min(index, b)) if tokens[i].lower() in CLAUSE_BOUNDARIES), default=a
        )
        before = range(start, min(index, b))
        return any(
            tokens[i].lower() in NEGATIONS
            or tokens[i].lower() in LICENSING_WORDS
            or tags[i - a] in LICENSING_TAGS
            for i in before
        )


def article_for(word: str) -> str:
    """ "a" or "an", by the sound the word most likely starts with (its spelling and a few exceptions)."""
    w = word.lower()
    vowel = (w[:1] in "aeiou" and not w.startswith(CONSONANT_SOUND)) or w.startswith(VOWEL_SOUND)
    return "an" if vowel else "a"


class Articles:
    """A word inserted right after "a" or "an" agrees with it ("an [going]", "an [very] utterly static"
    were read ungrammatical). The fill is rejected rather than the article changed: an expansion only
    inserts words, so that its seed's tokens, and where the inserted words go, stay as the template says."""

    name = "article"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [self._agrees(c) for c in candidates]

    @staticmethod
    def _agrees(candidate: Candidate) -> bool:
        tokens = candidate.template.parse.tokens
        for n, ((index, _), word) in enumerate(zip(candidate.template.masks, candidate.words)):
            after_seed_token = n == 0 or candidate.template.masks[n - 1][0] != index
            article = tokens[index - 1].lower() if index else ""
            if after_seed_token and article in ("a", "an") and article_for(word) != article:
                return False
        return True
