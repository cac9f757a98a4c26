"""Which words an expansion may insert (``--insertions``), judged on the production and the placement.

The paper inserts whatever word-level tags a production adds (``any``). Read directly, what that keeps
is mostly ungrammatical or odd with the stand-in models (README, *Validity*): a function word brings
syntax of its own that the production alone does not license ("the last time I saw with worse stunt
editing"), an inserted noun changes a phrase's head or number ("those young man", "The horror entire
movie"), a comparative or superlative needs a comparison the sentence does not make ("That is not a
largest cheat"), and an adverb inside a prepositional or adverb phrase rarely fits ("lives directly of
quiet desperation", "too far savvy").

* ``modifiers`` (the default): exactly one adjunct, the kind of word a phrase takes without changing its
  head or its arguments: an adjective (``JJ``) before the nouns of a noun phrase ("a [new] cheat", "a
  good [little] idea"), or an adverb (``RB``) in a clause, a verb phrase or an adjective phrase ("It
  [also] is a bad sign", "is [really] amusing"). The words the Penn Treebank tags ``JJ`` but that
  determine rather than describe, quantifiers and ordinals ("a few Hollywood studio", "such one of the
  most frantic", "the first center of"), are rejected by the ``determinative`` check.
* ``content``: any number of common nouns, adjectives, adverbs and verbs, never a function word or a
  proper noun.
* ``any``: every tag the grammar proposes (the paper; ``--compat`` always).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .expansion import Placement  # (gap, tag): a word of ``tag`` inserted before the child ``gap``
    from .validate import Candidate

CONTENT_TAGS = frozenset(
    {"NN", "NNS", "JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"}
)
# the phrases each adjunct tag may be inserted into (PTB labels)
MODIFIER_PARENTS = {"JJ": frozenset({"NP"}), "RB": frozenset({"S", "VP", "ADJP"})}
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
DETERMINERS = frozenset({"DT", "PDT", "PRP$", "WDT", "WP$"})
# quantifiers and words of identity (the Cambridge Grammar's determinatives that the PTB tags JJ) and
# ordinals: they set a noun's number or pick it out of a series the sentence does not give
DETERMINATIVES = frozenset(
    "few many much several such other enough same first second third fourth fifth last next".split()
)


def content_words(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    return all(tag in CONTENT_TAGS for _, tag in placement)


def one_modifier(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    if len(placement) != 1:
        return False
    gap, tag = placement[0]
    if lhs not in MODIFIER_PARENTS.get(tag, ()):
        return False
    # an attributive adjective: after the determiner and before the nouns ("a [new] film", not "[sure] a
    # film" or "the film [new] process")
    return tag != "JJ" or (
        not any(s in NOUN_TAGS for s in rhs[:gap])
        and not any(s in DETERMINERS for s in rhs[gap:])
        and any(s in NOUN_TAGS for s in rhs[gap:])
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
