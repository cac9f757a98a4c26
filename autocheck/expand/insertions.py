"""Which words an expansion may insert (``--insertions``), judged on the production and the placement.

The paper inserts whatever word-level tags a production adds (``any``). Read directly, what that keeps
is mostly ungrammatical or odd with the stand-in models (README, *Validity*): a function word brings
syntax of its own that the production alone does not license ("the last time I saw with worse stunt
editing"), an inserted noun changes a phrase's head or number ("those young man", "The horror entire
movie"), a comparative or superlative needs a comparison the sentence does not make ("That is not a
largest cheat"), and an adverb inside a prepositional or adverb phrase rarely fits ("lives directly of
quiet desperation", "too far savvy").

* ``modifiers`` (the default): exactly one adjunct, the kind of word a phrase takes without changing its
  head or its arguments: an adjective (``JJ``) right before a noun phrase's first noun ("a [new] cheat",
  "a good [little] idea"), or an adverb (``RB``) in a clause, a verb phrase or an adjective phrase ("It
  [also] is a bad sign", "is [really] amusing"). Before another adjective, an adjective reads as that
  one's degree ("a [real] healthy sense", "the [whole] worst"), so it goes next to the noun. Two checks
  judge the word the masked LM chose, which the tag alone does not tell:

  - ``determinative``: the words the Penn Treebank tags ``JJ`` but that determine rather than describe,
    quantifiers, ordinals and words of identity ("a few Hollywood studio", "such one of the most
    frantic", "the first center of", "the only Sum of All Fears"), are rejected;
  - ``adverb``: an adverb of place, time or direction, a connective or a word that needs a negation adds
    a circumstance, a link or a polarity the sentence may not take ("anywhere [there] could have
    thought", "as [then] it doles out", "lives [instead] of", "is incredible [either]"): rejected. A
    degree adverb modifies the adjective right after it, so it needs one ("is [so] amusing", not
    "signals [so] director" or "[very] pretty cheesy"). A focus adverb picks out the phrase after it,
    which an auxiliary or another adverb is not ("[just] leaves", not "It [just] is amusing", "can
    [only] think").
* ``content``: any number of common nouns, adjectives, adverbs and verbs, never a function word or a
  proper noun.
* ``any``: every tag the grammar proposes (the paper; ``--compat`` always).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .validate import sentence_at

if TYPE_CHECKING:
    from .expansion import Placement  # (gap, tag): a word of ``tag`` inserted before the child ``gap``
    from .validate import Candidate

CONTENT_TAGS = frozenset(
    {"NN", "NNS", "JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"}
)
# the phrases each adjunct tag may be inserted into (PTB labels)
MODIFIER_PARENTS = {"JJ": frozenset({"NP"}), "RB": frozenset({"S", "VP", "ADJP"})}
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
# quantifiers and words of identity (the Cambridge Grammar's determinatives that the PTB tags JJ) and
# ordinals: they set a noun's number or pick it out of a set or a series the sentence does not give
DETERMINATIVES = frozenset(
    """few many much several such other enough same only certain first second third fourth fifth last
    next""".split()
)
# adverbs the PTB tags RB alike but that a sentence takes on different terms (the Cambridge Grammar's
# adjunct classes): circumstances of place, time and direction, connectives and words that need a
# negation (never inserted), degree adverbs (before an adjective or participle) and focus adverbs (not
# before an auxiliary or an adverb)
CIRCUMSTANCES = frozenset(
    """here there now then today tonight tomorrow yesterday ago soon later earlier again already yet once
    twice lately recently previously formerly up down out off back away around ahead along aside together
    apart forward home abroad nearby everywhere somewhere anywhere nowhere elsewhere however instead
    therefore thus hence otherwise meanwhile nevertheless nonetheless besides either anymore""".split()
)
DEGREE = frozenset("very so too extremely pretty rather fairly somewhat almost nearly".split())
FOCUS = frozenset("just only even merely simply".split())
_ADJECTIVAL = frozenset({"JJ", "VBG", "VBN"})
_BE_FORMS = frozenset("is are was were am be been being 's 're 'm".split())


def content_words(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    return all(tag in CONTENT_TAGS for _, tag in placement)


def one_modifier(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    if len(placement) != 1:
        return False
    gap, tag = placement[0]
    if lhs not in MODIFIER_PARENTS.get(tag, ()):
        return False
    # an attributive adjective: right before the first noun ("a [new] film", not "[sure] a film", "the
    # [whole] worst film" or "the film [new] process")
    return tag != "JJ" or (
        gap < len(rhs) and rhs[gap] in NOUN_TAGS and not any(s in NOUN_TAGS for s in rhs[:gap])
    )


INSERTABLE: dict[str, Callable[[str, Sequence[str], Placement], bool] | None] = {
    "modifiers": one_modifier,
    "content": content_words,
    "any": None,
}


class Determinatives:
    """The ``determinative`` check of ``--insertions modifiers``: no inserted word is a quantifier or an
    ordinal (``DETERMINATIVES``)."""

    name = "determinative"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [not any(w.lower() in DETERMINATIVES for w in c.words) for c in candidates]


class Adverbs:
    """The ``adverb`` check of ``--insertions modifiers``: an inserted adverb is no circumstance,
    connective or word that needs a negation (``CIRCUMSTANCES``), a degree adverb comes before an
    adjective or participle that is no degree adverb itself, a focus adverb not before a form of "be", a
    modal or an adverb. The next word's tag is the seed's, tagged in context."""

    name = "adverb"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [self._fits(c) for c in candidates]

    @staticmethod
    def _fits(candidate: Candidate) -> bool:
        (index, tag), word = candidate.template.masks[0], candidate.words[0].lower()
        if tag != "RB" or len(candidate.words) != 1:
            return True
        if word in CIRCUMSTANCES:
            return False
        a, b, tags = sentence_at(candidate.seed_tags, index)
        following = candidate.template.parse.tokens[index] if index < b else ""  # "" after the last token
        following_tag = tags[index - a] if index < b else None
        if word in DEGREE:
            return following_tag in _ADJECTIVAL and following.lower() not in DEGREE
        if word in FOCUS:
            return following_tag not in ("MD", "RB") and following.lower() not in _BE_FORMS
        return True
