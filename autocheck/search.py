"""Search phase: find the dataset sentences that satisfy a capability's predicates.

Each example is tokenised and POS-tagged once (``analyze``) for all capabilities; word classes
(polarity x coarse POS) are then looked up in the lexicon with the POS the word has *in its sentence*, so
"like" in "I like it" is a verb and in "a film like this" a preposition (no class). The original code
instead matched bare lower-cased tokens against lexicon word lists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .records import Example, Label
from .requirements import Capability, Length, Predicates
from .store import rng_for
from .tagging import coarse_pos, pos_tag_sents, tokenize

# Words (lower-cased PTB tokens) that make a sentence negated. Besides the plain negators this has the
# negative quantifiers/adverbs ("nothing", "never", "hardly"), "without", and "n't"/"cannot" for texts whose
# contractions were not expanded. "This is nothing but ..." is negated, so it is never negated again.
NEGATIONS = frozenset(
    "not no never n't nothing nobody none noone nowhere neither nor without cannot hardly barely scarcely "
    "seldom rarely".split()
)


class Lexicon(Protocol):
    name: str

    def polarity(self, word: str, pos: str | None) -> str | None: ...


@dataclass(frozen=True, slots=True)
class AnalyzedExample:
    """An example tokenised and tagged once, for every capability's search."""

    example: Example
    words: tuple[str, ...]  # lower-cased PTB tokens
    pos: tuple[str | None, ...]  # coarse POS in context: adj, noun, verb, adv or None
    length: int  # token count without a final "."
    negated: bool


def token_length(words: Sequence[str]) -> int:
    """Token count not counting a final "." (the original's length measure)."""
    return len(words) - (1 if words and words[-1] == "." else 0)


def analyze(examples: Iterable[Example]) -> list[AnalyzedExample]:
    """Tokenise all examples and tag all their sentences in one batch (tags in sentence context)."""
    examples = list(examples)
    tokens = [tokenize(e.text) for e in examples]
    sentences = [t.words[a:b] for t in tokens for a, b in t.sentences]
    tags = iter(pos_tag_sents(sentences))
    analyzed = []
    for example, t in zip(examples, tokens):
        coarse = [coarse_pos(tag) for _ in t.sentences for tag in next(tags)]
        words = tuple(w.lower() for w in t.words)
        negated = not NEGATIONS.isdisjoint(words)
        analyzed.append(AnalyzedExample(example, words, tuple(coarse), token_length(words), negated))
    return analyzed


def _classes(a: AnalyzedExample, lexicon: Lexicon, memo: dict[tuple[str, str], str | None]):
    """The (polarity, pos) classes of the words of ``a``; lexicon answers memoised in ``memo``."""
    found = set()
    for word, pos in zip(a.words, a.pos):
        if pos is None:
            continue
        key = (word, pos)
        if key not in memo:
            memo[key] = lexicon.polarity(word, pos)
        if memo[key] is not None:
            found.add((memo[key], pos))
    return found


def _holds(group: Predicates, a: AnalyzedExample, lexicon: Lexicon | None, memo: dict) -> bool:
    # Cheap predicates first; lexicon lookups only for what is left.
    if group.labels is not None and a.example.label not in group.labels:
        return False
    if group.length is not None and a.length not in group.length:
        return False
    if group.negated is not None and a.negated != group.negated:
        return False
    if group.pattern is not None and not group.pattern.search(a.example.text):
        return False
    words = set(a.words)
    classes = _classes(a, lexicon, memo) if group.uses_lexicon else set()
    if not all(words & t.words or classes & t.classes for t in group.include):
        return False
    return not any(words & t.words or classes & t.classes for t in group.exclude)


def _check_lexicon(capability: Capability, lexicon: Lexicon | None) -> None:
    if lexicon is None and any(g.uses_lexicon for g in capability.search):
        raise ValueError(f"{capability.id}: its search uses word classes, so it needs a lexicon")


def natural_key(example: Example) -> tuple:
    """Order by id with numbers compared as numbers ("sst:2" before "sst:10")."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", example.id))


def search(
    analyzed: Sequence[AnalyzedExample], capability: Capability, lexicon: Lexicon | None = None
) -> list[Example]:
    """The examples satisfying any of the capability's search groups, each once, in id order."""
    _check_lexicon(capability, lexicon)
    memo: dict[tuple[str, str], str | None] = {}
    found = {
        a.example.id: a.example
        for a in analyzed
        if any(_holds(group, a, lexicon, memo) for group in capability.search)
    }
    return sorted(found.values(), key=natural_key)


def satisfies(capability: Capability, text: str, label: Label, lexicon: Lexicon | None = None) -> bool:
    """Whether ``text`` with source ``label`` passes the capability's search predicates.

    The expansion stage calls this on the seed's own text after insertion (``transform.seed_text``), so
    an inserted word that breaks the capability (a sentiment word in LC1, a length over the bound, a
    negation in LC4) is rejected. Fix of notes §10.8: the original re-checked only the label, which
    cannot fail.
    """
    _check_lexicon(capability, lexicon)
    (a,) = analyze([Example(id="", text=text, label=label, source="")])
    return any(_holds(group, a, lexicon, {}) for group in capability.search)


def select(examples: Sequence[Example], max_seeds: int | None, seed: int, key: str) -> list[Example]:
    """At most ``max_seeds`` examples, drawn with the generator of (``seed``, ``key``), in id order.

    Examples are sorted by id first, so the choice does not depend on input order.
    """
    ordered = sorted(examples, key=natural_key)
    if max_seeds is None or len(ordered) <= max_seeds:
        return ordered
    chosen = rng_for(seed, key).choice(len(ordered), size=max_seeds, replace=False)
    return [ordered[i] for i in sorted(chosen)]


def length_ok(text: str, length: Length | None) -> bool:
    return length is None or token_length(tokenize(text).words) in length
