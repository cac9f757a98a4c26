"""Re-parse validation: an expansion is kept only when the parser reads it the way the production built it.

Production differentiation inserts the added symbols of a reference rule ``A -> β`` into a seed node
``A -> α``; the grammar is context-free, the sentence is not, so a word of the right tag can land where
the sentence cannot take it ("but if it is unwavering"). The filled text is parsed again with the same
parser (batched, cached by content hash like every parse, ``parsing.Parser``) and kept only when

* its trees contain the seed's where the words went in: every token keeps its tag, and every constituent
  of the seed that spans or borders an insertion point (the path from the root down to the inserted
  words) is there with its label over the same tokens, taking in at most the words inserted at its edges
  (the parser may add brackets, e.g. around the grown phrase, but not tear those apart); and
* every inserted word hangs, under its mask's tag, directly from a node labelled ``A`` whose children are
  exactly ``β``: the production appears at the insertion point.

Constituents away from the insertion are not compared: the small stand-in parser re-brackets distant
phrases of a longer sentence at random, and requiring them too made the check no better at telling
grammatical expansions from the others on the tuning part of ``benchmarks/validity_labels.jsonl``.

Leaves are compared lower-cased, since re-casing (``validate.recase``) may lower a sentence-initial word.
A text the parser cannot take, or whose tokens are not the seed's plus the inserted words, fails.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..records import MaskedTemplate, Parse
from .grammar import read_tree

if TYPE_CHECKING:
    from .validate import Candidate

# A template's candidates rejected before it is given up (``Reparse``).
REPARSE_TRIES = 3


class TextParser(Protocol):
    def parse(self, texts: Sequence[str]) -> list[Parse | None]: ...


class Reparse:
    """The re-parse check (``validate.Check``): the candidates' texts parsed in batches.

    A template whose candidates fail ``tries`` times is given up: the production does not fit the sentence
    whatever word fills it, and parsing its other candidates would only cost (they are counted as
    re-parse rejections unparsed). Candidates are parsed in rounds, a template's best remaining one per
    round, so a template given up stops being parsed at once."""

    name = "reparse"

    def __init__(self, parser: TextParser, tries: int = REPARSE_TRIES):
        self.parser = parser
        self.tries = tries
        self.failures: Counter[str] = Counter()  # rejections per template id, across calls

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        verdicts = [False] * len(candidates)
        queues: dict[str, list[int]] = {}  # template id -> its candidates, best first
        for n, c in enumerate(candidates):
            queues.setdefault(c.template.id, []).append(n)
        while True:
            batch = [
                queue.pop(0) for tid, queue in queues.items() if queue and self.failures[tid] < self.tries
            ]
            if not batch:
                return verdicts
            texts = list(dict.fromkeys(candidates[n].text for n in batch))
            parses = dict(zip(texts, self.parser.parse(texts)))
            for n in batch:
                c = candidates[n]
                verdicts[n] = reparse_keeps(c.template, parses[c.text])
                self.failures[c.template.id] += not verdicts[n]


def reparse_keeps(template: MaskedTemplate, new: Parse | None) -> bool:
    """Whether ``new`` (the filled text's parse) holds the seed's trees with the template's production at
    the insertion point (the module docstring)."""
    if new is None:
        return False
    inserted = {index + n: tag for n, (index, tag) in enumerate(template.masks)}
    old = [n for n in range(len(new.tokens)) if n not in inserted]  # seed token i is new token old[i]
    seed_tokens = [t.lower() for t in template.parse.tokens]
    if [new.tokens[n].lower() for n in old] != seed_tokens:
        return False
    seed_phrases, seed_tags, _ = _constituents(template.parse.trees)
    phrases, tags, parents = _constituents(new.trees)
    if any(tags[old[i]] != tag for i, tag in enumerate(seed_tags)):
        return False
    points = {index for index, _ in template.masks}
    for label, a, b in seed_phrases:
        if not any(a <= p <= b for p in points):  # not on the path to the insertion: parser noise there
            continue
        first, last = old[a], old[b - 1] + 1
        while first - 1 in inserted:  # the phrase may take in words inserted at its edges
            first -= 1
        while last in inserted:
            last += 1
        if not any(
            (label, x, y) in phrases
            for x in range(first, old[a] + 1)
            for y in range(old[b - 1] + 1, last + 1)
        ):
            return False
    return all(
        tags[at] == tag and parents[at] == (template.lhs, template.rhs_to) for at, tag in inserted.items()
    )


def _constituents(
    trees: Sequence[str],
) -> tuple[set[tuple[str, int, int]], list[str], list[tuple[str, tuple[str, ...]]]]:
    """A text's phrases as (label, first token, end token), the tag of each token, and each token's parent
    (label and child labels)."""
    from nltk import Tree

    phrases: set[tuple[str, int, int]] = set()
    tags: list[str] = []
    parents: list[tuple[str, tuple[str, ...]]] = []

    def walk(node: Any) -> None:
        start = len(tags)
        labels = tuple(child.label() for child in node)
        for child in node:
            if all(isinstance(leaf, str) for leaf in child):  # a preterminal: one token
                tags.append(child.label())
                parents.append((node.label(), labels))
            else:
                walk(child)
        phrases.add((node.label(), start, len(tags)))

    for text in trees:
        tree = read_tree(text)
        walk(Tree("", [tree]) if all(isinstance(leaf, str) for leaf in tree) else tree)  # a one-word text
    return phrases, tags, parents
