"""Agreement: an inserted word must not break number agreement or the a/an rule.

A context-free production puts a noun, a determiner or a conjunction into a noun phrase without looking
at the verb ("that others leaves", "this sequences is", "it and he is") or at the next word ("an Reese",
"a old movie"). The filled sentence's tags are the seed tree's plus the masks' (the POS check has
confirmed those in context); the seed tree tells which noun phrase is a subject and which verb is its.

* a/an: an inserted "a"/"an", or a word inserted right after one, must take the article ``inflect``
  gives the next word (by sound: "an hour", "a university"; ``languages.en.words.article``);
* determiner and noun: a determiner of a number ("this", "these", "a", "many", ...) and the head noun of
  its noun phrase must agree when either was inserted ("those man");
* subject and verb: when an inserted word falls inside a subject noun phrase and changes its number (its
  head noun's, or plural by "and"), the verb that follows must still agree: a present-tense verb
  (``VBZ``/``VBP``) or "was"/"were". A seed that does not agree itself is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..languages.en.words import article
from ..records import MaskedTemplate

if TYPE_CHECKING:
    from .validate import Candidate

SINGULAR_DETERMINERS = frozenset("a an this that each every another either neither".split())
PLURAL_DETERMINERS = frozenset("these those many several both few".split())
_NOUN_NUMBER = {"NN": "sg", "NNP": "sg", "NNS": "pl", "NNPS": "pl"}
_PRONOUN_NUMBER = {
    **dict.fromkeys("he she it this that one".split(), "sg"),
    **dict.fromkeys("i you we they these those".split(), "pl"),
}
_VERB_NUMBER = {"VBZ": "sg", "VBP": "pl"}
_PAST_BE = {"was": "sg", "were": "pl"}
# tokens after which a noun phrase's head has been seen: a modifier phrase or clause follows
_POST_HEAD = frozenset({"IN", "TO", "WDT", "WP", "WP$", "WRB", ",", ":", "VBG", "VBN"})


class Agreement:
    """The agreement check (``validate.Check``): no tagging beyond what the POS check did."""

    name = "agreement"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [agrees(c.template, c.words) for c in candidates]


def agrees(template: MaskedTemplate, words: Sequence[str]) -> bool:
    """Whether the words filled into ``template`` keep a/an, determiner-noun and subject-verb agreement."""
    seed_words = list(template.parse.tokens)
    seed_tags, subjects = _seed_structure(template.parse.trees)
    if len(seed_tags) != len(seed_words):
        return True  # a parse that does not match its tokens: nothing to tell
    tokens, tags, inserted = list(seed_words), list(seed_tags), []
    for n, ((index, tag), word) in enumerate(zip(template.masks, words)):
        tokens.insert(index + n, word)
        tags.insert(index + n, tag)
        inserted.append(index + n)
    is_inserted = set(inserted)
    position = [k for k in range(len(tokens)) if k not in is_inserted]  # seed token i -> filled index
    if not _articles_agree(tokens, is_inserted):
        return False
    for start, end, verb, from_rule in subjects:
        seed_number = _phrase_number(seed_words[start:end], seed_tags[start:end])
        a, b = position[start], position[end - 1] + 1
        # words inserted at the phrase's edges belong to it when the template grows this phrase
        grows = from_rule == (template.lhs, template.rhs_from)
        while grows and a - 1 in is_inserted:
            a -= 1
        while grows and b in is_inserted:
            b += 1
        if not any(a <= k < b for k in inserted):
            continue
        number = _phrase_number(tokens[a:b], tags[a:b])
        if not _determiner_agrees(tokens[a:b], tags[a:b]):
            return False
        verb_number = _verb_number(seed_words[verb], seed_tags[verb]) if verb is not None else None
        if number != seed_number and verb_number is not None and seed_number == verb_number:
            if number != verb_number:
                return False
    return all(_determiner_agrees(*_phrase_around(tokens, tags, k)) for k in inserted)


def _articles_agree(tokens: list[str], inserted: set[int]) -> bool:
    for k in range(len(tokens) - 1):
        word, following = tokens[k].lower(), tokens[k + 1]
        if word in ("a", "an") and (k in inserted or k + 1 in inserted) and following[:1].isalnum():
            if article(following).split(" ", 1)[0].lower() != word:
                return False
    return True


def _phrase_number(tokens: Sequence[str], tags: Sequence[str]) -> str | None:
    """'sg' or 'pl' for a noun phrase: plural when nouns are joined by "and", else its head's number (the
    last noun or pronoun before a modifier phrase or clause), else its determiner's."""
    head: str | None = None
    for word, tag in zip(tokens, tags):
        if tag in _POST_HEAD and head is not None:
            break
        if tag == "CC" and word.lower() == "and" and head is not None:
            return "pl"
        if tag in _NOUN_NUMBER:
            head = _NOUN_NUMBER[tag]
        elif tag in ("PRP", "DT") and word.lower() in _PRONOUN_NUMBER and head is None:
            head = _PRONOUN_NUMBER[word.lower()]
    return head


def _determiner_agrees(tokens: Sequence[str], tags: Sequence[str]) -> bool:
    """A number-marked determiner and the noun that heads what follows it agree ("this film", "these
    films", not "this films", "those man")."""
    for k, (word, tag) in enumerate(zip(tokens, tags)):
        lowered = word.lower()
        if tag not in ("DT", "PDT") or lowered not in SINGULAR_DETERMINERS | PLURAL_DETERMINERS:
            continue
        head = None
        for t in tags[k + 1 :]:
            if t in _NOUN_NUMBER:
                head = _NOUN_NUMBER[t]
            elif t not in ("JJ", "JJR", "JJS", "RB", "CD", "VBN", "VBG", "HYPH"):
                break
        if head is not None and head != ("sg" if lowered in SINGULAR_DETERMINERS else "pl"):
            return False
    return True


def _phrase_around(tokens: list[str], tags: list[str], k: int) -> tuple[list[str], list[str]]:
    """The determiner and noun run around filled index ``k`` (determiner, modifiers and nouns)."""
    a = k
    while a > 0 and tags[a - 1] in ("DT", "PDT", "JJ", "JJR", "JJS", "CD", *_NOUN_NUMBER):
        a -= 1
    b = k + 1
    while b < len(tokens) and tags[b] in ("JJ", "JJR", "JJS", "CD", *_NOUN_NUMBER):
        b += 1
    return tokens[a:b], tags[a:b]


def _verb_number(word: str, tag: str) -> str | None:
    return _VERB_NUMBER.get(tag) or (_PAST_BE.get(word.lower()) if tag == "VBD" else None)


@lru_cache(maxsize=1024)
def _seed_structure(
    trees: tuple[str, ...],
) -> tuple[tuple[str, ...], tuple[tuple[int, int, int | None, Any], ...]]:
    """The seed's tags, and its subjects: (first token, end token, the verb's token or None, the
    subject node's (label, child labels)) for each NP directly under a clause and followed by its VP.
    Cached: a template's candidates share their seed."""
    from nltk import Tree

    tags: list[str] = []
    subjects: list[tuple[int, int, int | None, Any]] = []

    def walk(node: Any) -> None:
        if all(isinstance(child, str) for child in node):
            tags.append(node.label())
            return
        spans = []
        for child in node:
            start = len(tags)
            walk(child)
            spans.append((child, start, len(tags)))
        if node.label() in ("S", "SQ", "SINV", "SBAR"):
            for (child, a, b), (after, c, _) in zip(spans, spans[1:]):
                if child.label() == "NP" and after.label() == "VP":
                    from_rule = ("NP", tuple(x.label() for x in child if not isinstance(x, str)))
                    subjects.append((a, b, _first_verb(after, c), from_rule))

    def _first_verb(vp: Any, start: int) -> int | None:
        for k, (_, tag) in enumerate(vp.pos()):
            if tag in ("VBZ", "VBP", "VBD", "MD"):
                return start + k
            if tag not in ("RB", "ADVP"):
                return None
        return None

    for text in trees:
        tree = Tree.fromstring(text)
        if all(isinstance(child, str) for child in tree):
            tags.append(tree.label())
        else:
            walk(tree)
    return tuple(tags), tuple(subjects)
