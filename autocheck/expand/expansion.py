"""Production differentiation (Algorithm 1 of the paper): where a seed's parse can grow by a word.

For every phrase production ``A -> α`` of a seed tree, the reference grammar's productions ``A -> β`` whose
right-hand side contains ``α`` as a proper ordered subsequence, with every added symbol a word-level (POS)
tag, are expansions of it. Each added symbol becomes a mask, inserted at the token boundary of the tree
where it falls between ``α``'s children. Candidates are ranked by

    score = P_ref(A -> β) × Π P_ref(ancestor productions of the node) × P_ref(root label)

and the ``top_k`` best of the whole seed are kept, as the paper's Algorithm 1 ranks a seed's candidate
expansions together (ties: tree order of the production, then right-hand side in sort order). With
``per_production=True`` (``--compat``) the ``top_k`` best are kept for every production of the seed, as the
original code did; then the parent-probability term can only reorder templates, never choose them.

An added symbol between seed children ``i-1`` and ``i`` goes in before the first token of child ``i``;
after the last child it goes in after the node's last token. When ``α`` embeds into ``β`` in several
ways (``NN`` into ``NN CC NN``: "dog [CC] [NN]" or "[NN] [CC] dog") every distinct placement is emitted,
each as its own template with the rule's score, leftmost embedding of the seed children first.

Departures from the original implementation, each a fix:

* Fix *subsequence*: a true subsequence test over every embedding, so repeated symbols match
  (``NP -> NN NN`` into ``NP -> DT NN NN``) and valid subsequences are no longer missed behind an earlier
  duplicate; the original compared first-occurrence indices only.
* Fix *added-symbols*: every added symbol must be a word-level tag; the original let symbols already in
  the seed RHS repeat, giving phrase-level masks (``{mask:NP}``) that can never be filled.
* Fix *parent-probability*: the ancestor productions really are multiplied in (with the root label's
  probability); the original looked them up by a mangled string key, so the factor was always 1 and the
  ranking was by ``P_ref(A -> β)`` alone. Within one seed production the ranking is unchanged;
  across the productions of a seed it decides which candidates make the seed's top k.
* Fix *top-k per seed*: the ``top_k`` candidates are chosen per seed (Algorithm 1), not per production;
  the original kept ``top_k`` per production (``per_production=True`` restores it).
* A production or root label the reference never saw gets ``Grammar.unseen_prob`` (below any seen
  probability) instead of 1.0 or a KeyError abort.
* Fix *every-occurrence*: every node is differentiated at its own position; the original kept only the
  first seed production per (LHS, RHS) and ignored later occurrences.
* Fix *insertion*: masks are token indices into the parse (``MaskedTemplate.render`` inserts at exact
  token boundaries), never ``str.replace`` of a detokenised phrase, which inserted inside words, at
  every occurrence, or silently nowhere; never inside a written word such as ``didn't``
  (``records.insertable``).
* Fix *template-protection*: insertions only inside the ``editable`` character spans of a seed case, and
  only between two tokens that both lie in one span (or at a span edge that is the text edge), so no word
  is ever inserted into or next to a template's fixed phrase.
* Fix *determinism*: distinct placements are all emitted in a fixed order; the original chose one with an
  unseeded ``random.choice`` and lost a seed child's text when its symbol repeated.
* Fix *requirement-blind top-k*: a placement that breaks the seed's capability requirement whatever
  word fills it (a word before "This is" of a negation seed, whose requirement is that the text starts
  so) is dropped before the top k are taken, so the next-ranked candidates take its place; the original
  (and Algorithm 1 read literally) kept such templates, and every fill of them failed validation, so
  such seeds got no expansion at all (``usable``; not under ``--compat``).
* Names are not edited (``names.py``): no placement inside a proper name, a quoted title, a number and
  its unit or a hyphenated compound, no modifier before a name that takes none, no proper noun next to a
  name; such placements are dropped before the top k are taken (not under ``--compat``).
* Sites a flat parse hides (``attributive_phrases``; ``--insertions modifiers`` only, never under
  ``--compat``): an ungraded attributive adjective of a flat noun phrase is differentiated as the
  ``ADJP -> JJ`` the treebank writes once it is graded, so "An enjoyable experience." gets "An [RB]
  enjoyable experience." from ``ADJP -> RB JJ``, scored as that phrase would be (its ancestors' factor).
* Kept: ``top_k = 5`` (here and under ``--compat``; ``generate`` keeps 10 since the eleventh round of
  docs/yield.md, ``config.TOP_K``) and at most 9 added symbols (``max_added``; the original dropped
  differences ≥ 10).

Candidate lists are memoised per (LHS, seed RHS) in a ``Differentiator`` (seed trees repeat productions
heavily); the reference is indexed by LHS and by the multiset of non-word-level symbols, which must be equal
on both sides, so a lookup only scans rules that can possibly match.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ..records import MaskedTemplate, Parse, insertable
from ..store import content_hash
from .grammar import Grammar, Rhs, read_tree
from .names import Protected

log = logging.getLogger(__name__)

# The 36 word-level Penn tags the original allowed as masks (punctuation, symbols and brackets excluded).
WORD_LEVEL_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH "
    "VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB".split()
)

# (gap, tag) per added symbol in RHS order; gap i = before seed child i, len(seed RHS) = after the last.
Placement = tuple[tuple[int, str], ...]
# (token index, tag) per mask, in text order: where a template inserts its words (MaskedTemplate.masks)
Masks = tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A reference production that expands a seed production, and where its added symbols go."""

    rhs: Rhs
    prob: float
    placements: tuple[Placement, ...]


def embeddings(seed: Sequence[str], target: Sequence[str]) -> Iterator[tuple[int, ...]]:
    """Every increasing tuple of ``target`` indices at which ``seed``'s symbols occur, leftmost first."""

    def extend(i: int, start: int) -> Iterator[tuple[int, ...]]:
        if i == len(seed):
            yield ()
            return
        for j in range(start, len(target) - (len(seed) - i) + 1):
            if target[j] == seed[i]:
                for rest in extend(i + 1, j + 1):
                    yield (j, *rest)

    return extend(0, 0)


def placements(seed: Rhs, target: Rhs, word_tags: frozenset[str]) -> tuple[Placement, ...]:
    """The distinct placements of ``target``'s added symbols around ``seed``'s children, over every
    embedding whose added symbols are all word-level tags."""
    found: dict[Placement, None] = {}
    for embedding in embeddings(seed, target):
        matched = set(embedding)
        added = [
            (bisect.bisect_left(embedding, p), target[p]) for p in range(len(target)) if p not in matched
        ]
        if all(tag in word_tags for _, tag in added):
            found.setdefault(tuple(added), None)
    return tuple(found)


def _phrase_key(rhs: Sequence[str], word_tags: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(s for s in rhs if s not in word_tags))


class Differentiator:
    """Production differentiation against one reference grammar, with memoised candidate lists."""

    def __init__(self, grammar: Grammar, word_tags: frozenset[str] = WORD_LEVEL_TAGS):
        self.grammar = grammar
        self.word_tags = word_tags
        # lhs -> phrase-level symbol multiset -> [(rhs, prob)] best first: only rules whose phrase-level
        # symbols equal the seed's can contain it with word-level additions alone.
        self._index: dict[str, dict[tuple[str, ...], list[tuple[Rhs, float]]]] = {}
        for lhs, rules in grammar.rules.items():
            by_key = self._index.setdefault(lhs, {})
            for rhs, prob in rules:
                by_key.setdefault(_phrase_key(rhs, word_tags), []).append((rhs, prob))
        self._memo: dict[tuple[str, Rhs], tuple[Candidate, ...]] = {}
        # (lhs, rhs, an --insertions predicate) -> the placements it accepts, per candidate
        self._insertable_memo: dict[tuple[str, Rhs, Callable[..., bool]], tuple[tuple[Placement, ...], ...]]
        self._insertable_memo = {}

    def candidates(self, lhs: str, rhs: Rhs) -> tuple[Candidate, ...]:
        """Reference expansions of ``lhs -> rhs``, most probable first (ties by RHS)."""
        key = (lhs, rhs)
        found = self._memo.get(key)
        if found is None:
            rules = self._index.get(lhs, {}).get(_phrase_key(rhs, self.word_tags), ())
            found = tuple(
                Candidate(target, prob, where)
                for target, prob in rules
                if len(target) > len(rhs) and (where := placements(rhs, target, self.word_tags))
            )
            self._memo[key] = found
        return found

    def insertable_placements(
        self, lhs: str, rhs: Rhs, insertable: Callable[[str, Rhs, Placement], bool] | None
    ) -> tuple[tuple[Placement, ...], ...]:
        """For each of ``candidates(lhs, rhs)``, its placements ``insertable`` accepts (all without one),
        memoised: the same productions recur in seed after seed (the check took a tenth of a default
        run's differentiation)."""
        if insertable is None:
            return tuple(cand.placements for cand in self.candidates(lhs, rhs))
        key = (lhs, rhs, insertable)
        found = self._insertable_memo.get(key)
        if found is None:
            found = tuple(
                tuple(where for where in cand.placements if insertable(lhs, rhs, where))
                for cand in self.candidates(lhs, rhs)
            )
            self._insertable_memo[key] = found
        return found

    def differentiate(
        self,
        case_id: str,
        parse: Parse,
        *,
        top_k: int = 5,
        editable: tuple[tuple[int, int], ...] = (),
        max_added: int = 9,
        per_production: bool = False,
        usable: Callable[[Masks], bool] | None = None,
        insertable: Callable[[str, Rhs, Placement], bool] | None = None,
        protect_names: bool = False,
        attributive_phrases: bool = False,
    ) -> list[MaskedTemplate]:
        """Masked templates of one parsed seed case, best score first (ties by mask positions): from the
        ``top_k`` best candidates of the seed, or of each production with ``per_production``.

        ``usable(masks)`` drops placements that can never give a valid expansion, before the top k are
        taken, so that a candidate ranked below them takes their place; so do ``insertable(lhs, rhs,
        placement)`` for what ``--insertions`` does not insert (``insertions.INSERTABLE``) and
        ``protect_names`` for placements that would edit a name (``names.Protected``).
        ``attributive_phrases`` also differentiates each attributive adjective a flat noun phrase holds
        as the ``ADJP -> JJ`` the Penn Treebank writes once it is graded (``_attributive_adjectives``)."""
        from nltk import Tree

        allowed = _allowed_boundaries(parse, editable)
        names = Protected(parse) if protect_names else None
        # masks -> (score, lhs, rhs_from, rhs_to) of the best production giving them
        best: dict[Masks, tuple[float, str, Rhs, Rhs]] = {}
        # per seed: (-score, tree order, candidate order, lhs, rhs, candidate rhs, mask lists)
        ranked: list[tuple[float, int, int, str, Rhs, Rhs, list]] = []
        grammar = self.grammar

        def keep(score: float, lhs: str, rhs: Rhs, rhs_to: Rhs, masks_list: list) -> None:
            for masks in masks_list:
                old = best.get(masks)
                if old is None or score > old[0]:
                    best[masks] = (score, lhs, rhs, rhs_to)

        def prob(lhs: str, rhs: Rhs) -> float:
            return grammar.prob(lhs, rhs) or grammar.unseen_prob(lhs)

        def differentiate_node(lhs: str, rhs: Rhs, bounds: list[int], factor: float) -> None:
            """Rank the reference expansions of one phrase production (``bounds``: its children's tokens)."""
            kept = 0
            node_order = len(order)
            order.append(None)
            kept_placements = self.insertable_placements(lhs, rhs, insertable)
            for n, cand in enumerate(self.candidates(lhs, rhs)):
                if per_production and kept == top_k:
                    break
                if len(cand.rhs) - len(rhs) > max_added:
                    continue
                at_tokens = (tuple((bounds[gap], tag) for gap, tag in where) for where in kept_placements[n])
                masks_list = [
                    masks
                    for masks in at_tokens
                    if all(allowed[i] and (names is None or names.allows(i, tag)) for i, tag in masks)
                ]
                if per_production and usable is not None:
                    masks_list = [masks for masks in masks_list if usable(masks)]
                if not masks_list:
                    continue
                kept += 1
                score = cand.prob * factor
                if per_production:
                    keep(score, lhs, rhs, cand.rhs, masks_list)
                else:
                    ranked.append((-score, node_order, n, lhs, rhs, cand.rhs, masks_list))

        def visit(node: Tree, start: int, factor: float) -> int:
            """Differentiate the subtree at token ``start``; returns its end token."""
            if all(not isinstance(child, Tree) for child in node):  # preterminal: lexical production
                return start + len(node)
            lhs, rhs = node.label(), tuple(c.label() if isinstance(c, Tree) else c for c in node)
            child_factor = factor * prob(lhs, rhs)
            bounds = [start]
            for child in node:
                bounds.append(
                    visit(child, bounds[-1], child_factor) if isinstance(child, Tree) else bounds[-1] + 1
                )
            differentiate_node(lhs, rhs, bounds, factor)
            if attributive_phrases:
                for i in _attributive_adjectives(rhs):  # PTB's (ADJP (JJ ...)) that the parse left flat
                    differentiate_node("ADJP", ("JJ",), bounds[i : i + 2], child_factor)
            return bounds[-1]

        order: list[None] = []  # tree order of the phrase nodes (pre-order), for deterministic ties

        start = 0
        for text in parse.trees:
            tree = read_tree(text)
            root_factor = grammar.root_prob(tree.label()) or grammar.unseen_prob()
            start = visit(tree, start, root_factor)
        if start != len(parse.tokens):
            raise ValueError(
                f"{case_id}: trees have {start} leaves but the parse has {len(parse.tokens)} tokens"
            )
        ranked.sort(key=lambda item: item[:3])
        taken = 0
        for neg_score, _, _, lhs, rhs, rhs_to, masks_list in ranked:
            if taken == top_k:
                break
            if usable is not None and not (masks_list := [m for m in masks_list if usable(m)]):
                continue
            keep(-neg_score, lhs, rhs, rhs_to, masks_list)
            taken += 1
        return [
            MaskedTemplate(
                _template_id(case_id, masks, lhs, rhs, rhs_to), case_id, parse, masks, lhs, rhs, rhs_to, score
            )
            for masks, (score, lhs, rhs, rhs_to) in sorted(
                best.items(), key=lambda item: (-item[1][0], item[0])
            )
        ]

    def adjective_sites(
        self,
        case_id: str,
        parse: Parse,
        adjective: Callable[[str], bool],
        *,
        editable: tuple[tuple[int, int], ...] = (),
        usable: Callable[[Masks], bool] | None = None,
        protect_names: bool = False,
        tags: Sequence[str] | None = None,
    ) -> list[MaskedTemplate]:
        """A template for each adjective of the seed that ``adjective`` accepts (tagged ``JJ``, no adverb
        before it), whatever the seed's top k: one adverb before it, its ``ADJP -> JJ`` (written or,
        before a noun, the Penn Treebank's once graded: ``_attributive_adjectives``) become ``ADJP -> RB
        JJ``, a production of the reference grammar (``insertions.intensifier_sites``). ``tags``: the
        tokens' tags to read, the parse's by default (the job passes the tagger's, which validation reads:
        the stand-in parser calls 89 of 308 such adjectives of the yield bench's seeds nouns).
        ``editable``, ``usable`` and ``protect_names`` as for ``differentiate``."""
        allowed = _allowed_boundaries(parse, editable)
        names = Protected(parse) if protect_names else None
        if tags is None:
            tags = [tag for text in parse.trees for _, tag in read_tree(text).pos()]
        rhs, rhs_to = ("JJ",), ("RB", "JJ")
        score = self.grammar.prob("ADJP", rhs_to) or self.grammar.unseen_prob("ADJP")
        found = []
        for i, (token, tag) in enumerate(zip(parse.tokens, tags)):
            masks = ((i, "RB"),)
            if tag != "JJ" or (i and tags[i - 1] in ADVERB_TAGS) or not allowed[i] or not adjective(token):
                continue
            if names is not None and not names.allows(i, "RB") or usable is not None and not usable(masks):
                continue
            template_id = _template_id(case_id, masks, "ADJP", rhs, rhs_to)
            found.append(MaskedTemplate(template_id, case_id, parse, masks, "ADJP", rhs, rhs_to, score))
        return found


def differentiate(
    case_id: str,
    parse: Parse,
    grammar: Grammar | Differentiator,
    *,
    top_k: int = 5,
    editable: tuple[tuple[int, int], ...] = (),
    max_added: int = 9,
    per_production: bool = False,
    usable: Callable[[Masks], bool] | None = None,
    insertable: Callable[[str, Rhs, Placement], bool] | None = None,
    protect_names: bool = False,
    attributive_phrases: bool = False,
) -> list[MaskedTemplate]:
    """Masked templates of one parsed seed case (see the module docstring). Pass a ``Differentiator``
    when differentiating many seeds so its candidate memo is shared between them."""
    differ = grammar if isinstance(grammar, Differentiator) else Differentiator(grammar)
    return differ.differentiate(
        case_id, parse, top_k=top_k, editable=editable, max_added=max_added,
        per_production=per_production, usable=usable, insertable=insertable, protect_names=protect_names,
        attributive_phrases=attributive_phrases,
    )  # fmt: skip


ADJECTIVE_TAGS = frozenset({"JJ", "JJR", "JJS"})
ADVERB_TAGS = frozenset({"RB", "RBR", "RBS"})
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})


def _attributive_adjectives(rhs: Rhs) -> list[int]:
    """The children of a phrase that are an ungraded adjective before a noun of the same phrase.

    The Penn Treebank writes a graded attributive adjective as a phrase of its own, "(NP (DT an) (ADJP
    (RB utterly) (JJ enjoyable)) (NN experience))", but an ungraded one as a bare ``JJ`` of the noun
    phrase, and a parser may leave the noun phrase flat in a clause ("(S (DT A) (JJ worthwhile) (NN
    way) (VP ...))"). No noun phrase production of the reference adds a word before such an adjective
    alone, so short fragments like "An enjoyable experience." had no site a modifier may take; as the
    adjective's own ``ADJP -> JJ`` they get ``ADJP -> RB JJ``'s."""
    return [
        i
        for i, tag in enumerate(rhs)
        if tag == "JJ"
        and not (i and rhs[i - 1] in ADVERB_TAGS)  # graded already ("the most ingenious")
        and any(later in NOUN_TAGS for later in rhs[i + 1 :])
    ]


def _template_id(case_id: str, masks: tuple[tuple[int, str], ...], lhs: str, rhs: Rhs, rhs_to: Rhs) -> str:
    return content_hash(
        case_id, " ".join(f"{i}:{tag}" for i, tag in masks), lhs, " ".join(rhs), " ".join(rhs_to)
    )


def _allowed_boundaries(parse: Parse, editable: tuple[tuple[int, int], ...]) -> list[bool]:
    """For each token boundary ``i`` (before token ``i``; ``len(tokens)`` = after the last) whether a word
    may be inserted there: not inside a written word, and both neighbouring tokens inside one editable
    span (a missing neighbour, at the text's edge, counts as inside)."""
    n = len(parse.tokens)
    spans = editable or ((0, len(parse.text)),)

    def span_of(token: int) -> int | None:
        a, b = parse.offsets[token]
        return next((k for k, (s, e) in enumerate(spans) if s <= a and b <= e), None)

    token_span = [span_of(i) for i in range(n)]
    allowed = []
    for i in range(n + 1):
        sides = {token_span[j] for j in (i - 1, i) if 0 <= j < n}
        allowed.append(None not in sides and len(sides) == 1 and insertable(parse, i))
    return allowed
