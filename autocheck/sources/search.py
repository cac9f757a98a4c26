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
from functools import lru_cache

from ..records import Example, Label, as_inputs
from ..requirements import Capability, Length, Predicates
from ..store import rng_for
from ..tagging import coarse_pos, pos_tag_sents, tokenize
from .lexicon import NEGATIONS, Lexicon


@dataclass(slots=True)
class AnalyzedExample:
    """One input field of an example, tokenised once for every capability's search; POS-tagged in
    context on first need."""

    example: Example
    field: str  # the input field analysed
    tokens: tuple[str, ...]  # PTB tokens
    sentences: tuple[tuple[int, int], ...]  # token ranges of the sentences, the tagger's context
    words: frozenset[str]  # lower-cased tokens
    length: int  # token count without a final "."
    negated: bool
    pos: tuple[str | None, ...] | None = None  # coarse POS per token (adj/noun/verb/adv/None), see tag()


def token_length(words: Sequence[str]) -> int:
    """Token count not counting a final "." (the original's length measure)."""
    return len(words) - (1 if words and words[-1] == "." else 0)


def analyze(examples: Iterable[Example], field: str | None = None) -> list[AnalyzedExample]:
    """Tokenise one input field of the examples (default: each example's first). Tagging waits until a
    word-class predicate needs it (``tag``): only the few texts that pass a capability's cheap predicates
    (label, length, ...) are ever tagged."""
    analyzed = []
    for example in examples:
        name = field or next(iter(example.inputs))
        t = tokenize(example.inputs[name])
        words = frozenset(w.lower() for w in t.words)
        negated = not NEGATIONS.isdisjoint(words)
        length = token_length(t.words)
        analyzed.append(AnalyzedExample(example, name, t.words, t.sentences, words, length, negated))
    return analyzed


def tag(analyzed: Iterable[AnalyzedExample]) -> None:
    """POS-tag, in one batch and in sentence context, those of ``analyzed`` not tagged yet."""
    todo = [a for a in analyzed if a.pos is None]
    tags = iter(pos_tag_sents([a.tokens[i:j] for a in todo for i, j in a.sentences]))
    for a in todo:
        a.pos = tuple(coarse_pos(t) for _ in a.sentences for t in next(tags))


def _classes(a: AnalyzedExample, lexicon: Lexicon, memo: dict[tuple[str, str], str | None]) -> set:
    """The (polarity, pos) classes of the words of ``a``; lexicon answers memoised in ``memo``."""
    assert a.pos is not None, "tag() first"
    found = set()
    for token, pos in zip(a.tokens, a.pos):
        if pos is None:
            continue
        key = (token.lower(), pos)
        if key not in memo:
            memo[key] = lexicon.polarity(*key)
        if memo[key] is not None:
            found.add((memo[key], pos))
    return found


def _cheap_holds(group: Predicates, a: AnalyzedExample, check_meta: bool = True) -> bool:
    """The predicates that need no tagging or lexicon (literal word tests included)."""
    return (
        raw_holds(group, a.example)
        and (group.length is None or a.length in group.length)
        and (group.negated is None or a.negated == group.negated)
        and (not check_meta or all(a.example.meta.get(column) in values for column, values in group.meta))
        and _words_hold(group, a.words, set(), literal_only=True)
    )


def raw_holds(group: Predicates, example: Example) -> bool:
    """The predicates read off the untokenised example: its label and the group's pattern."""
    text = example.inputs.get(group.field)
    return (group.labels is None or example.label in group.labels) and (
        group.pattern is None or text is None or group.pattern.search(text) is not None
    )


def _words_hold(group: Predicates, words: frozenset[str], classes: set, literal_only: bool = False) -> bool:
    """Include: every test matches some word; exclude: no test matches any. With ``literal_only``, class
    tests are left undecided (treated as passing)."""
    for test in group.include:
        if not (words & test.words or classes & test.classes or (literal_only and test.classes)):
            return False
    return not any(words & test.words or classes & test.classes for test in group.exclude)


def _check_lexicon(capability: Capability, lexicon: Lexicon | None) -> None:
    if lexicon is None and any(g.uses_lexicon for g in capability.search):
        raise ValueError(f"{capability.id}: its search uses word classes, so it needs a lexicon")


def natural_key(example: Example) -> tuple:
    """Order by id with numbers compared as numbers ("sst:2" before "sst:10")."""
    return _id_order(example.id)


@lru_cache(maxsize=1 << 16)  # a dataset search orders the same matches for every capability and pool
def _id_order(example_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", example_id))


def search(
    analyzed: Sequence[AnalyzedExample],
    capability: Capability,
    lexicon: Lexicon | None = None,
    *,
    check_meta: bool = True,
) -> list[Example]:
    """The examples satisfying any of the capability's search groups, each once, in id order.

    ``analyzed`` is one field of the examples; a group that reads another field analyses it here.
    ``check_meta=False`` leaves the dataset-column predicates out (they hold of the source row)."""
    _check_lexicon(capability, lexicon)
    found: dict[str, Example] = {}
    pending: list[tuple[AnalyzedExample, Predicates]] = []
    by_field = {analyzed[0].field: analyzed} if analyzed else {}
    for name in {group.field for group in capability.search} - by_field.keys():
        by_field[name] = analyze((a.example for a in analyzed), name) if analyzed else []
    for i in range(len(analyzed)):
        for group in capability.search:
            a = by_field[group.field][i]
            if not _cheap_holds(group, a, check_meta):
                continue
            if not group.uses_lexicon:
                found[a.example.id] = a.example
                break
            pending.append((a, group))
    tag(a for a, _ in pending)
    memo: dict[tuple[str, str], str | None] = {}
    for a, group in pending:
        assert lexicon is not None  # every pending group uses the lexicon, checked by _check_lexicon
        if a.example.id not in found and _words_hold(group, a.words, _classes(a, lexicon, memo)):
            found[a.example.id] = a.example
    return sorted(found.values(), key=natural_key)


def satisfies(
    capability: Capability, text: str, label: Label | tuple[str, ...], lexicon: Lexicon | None = None
) -> bool:
    """Whether ``text`` with source ``label`` passes the capability's search predicates.

    The expansion stage calls this on the seed's own text after insertion (``transform.seed_text``), so
    an inserted word that breaks the capability (a sentiment word in LC1, a length over the bound, a
    negation in LC4) is rejected. A fix: the original re-checked only the label, which
    cannot fail. Dataset-column predicates (``meta``) describe the seed's row, which an insertion keeps.
    """
    example = Example(id="", inputs=as_inputs(text), label=label, source="")
    if not any(raw_holds(group, example) for group in capability.search):  # no need to tokenise
        return False
    return bool(search(analyze([example]), capability, lexicon, check_meta=False))


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
