"""The reference PCFG: maximum-likelihood rule probabilities read off a Penn Treebank.

``build_grammar("nltk")`` reads NLTK's 10% PTB sample (3,914 trees, wsj_0001-0199); ``build_grammar(DIR)``
reads a user's PTB directory of ``.mrg`` files. Each tree is cleaned the way parsers are trained on it:

* ``-NONE-`` leaves (traces, empty elements) are removed together with every constituent they leave
  empty, so ``(S (NP-SBJ (-NONE- *)) (VP ...))`` gives ``S -> VP``. (The original stripped ``-NONE-`` to
  the empty-string symbol ``''``, which then became the most probable NP rule, ``NP -> ''``.)
* Function tags and indices are stripped (``NP-SBJ-1`` -> ``NP``, ``PP-TMP=3`` -> ``PP``); tags that
  start with a dash (``-LRB-``, ``-RRB-``) are tags, not tagged labels, and are kept whole. Words are
  never touched (the original truncated words containing ``-``).

``P(rhs | lhs) = count(lhs -> rhs) / count(lhs)`` over production *tokens* of the cleaned trees, lexical
productions (``NN -> company``) included but stored apart from phrase productions so phrase lookups never
scan the lexicon; ``P(root label)`` is the relative frequency of cleaned root labels.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import __version__
from ..resources import nltk_resource, project_file
from ..store import InputError, atomic_write_json, dumps, parse_json, read_input

log = logging.getLogger(__name__)

FORMAT = "autocheck-grammar/1"
Rhs = tuple[str, ...]
_FUNCTION_TAG = re.compile(r"[-=]")
_BRACKET = re.compile(r"[()]")


def strip_label(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``S-TPC-2`` -> ``S``, ``NP=2`` -> ``NP``; ``-NONE-``/``-LRB-`` stay whole."""
    return label if label.startswith("-") else _FUNCTION_TAG.split(label, maxsplit=1)[0]


def read_tree(text: str) -> Any:
    """A stored bracketed tree (``Parse.trees``) as an ``nltk.Tree``, without the TOP/ROOT wrappers a
    parser or treebank puts around the sentence's own root."""
    from nltk import Tree

    tree = Tree.fromstring(text)
    while tree.label() in ("TOP", "ROOT", "") and len(tree) == 1 and isinstance(tree[0], Tree):
        tree = tree[0]
    return tree


def clean_tree(tree: Any) -> Any | None:
    """A copy of an ``nltk.Tree`` without traces or function tags; None when nothing is left."""
    from nltk import Tree

    if tree.label() == "-NONE-":
        return None
    children: list[Any] = []
    for child in tree:
        if isinstance(child, Tree):
            child = clean_tree(child)
            if child is None:
                continue
        children.append(child)
    return Tree(strip_label(tree.label()), children) if children else None


class Grammar:
    """A PCFG: phrase rules ``lhs -> [(rhs, prob)]`` (best first), lexical rules, root label distribution.

    ``counts`` maps ``lhs -> {rhs: count}`` over phrase rules, ``lexical_counts`` maps ``tag -> {word:
    count}``, ``root_counts`` maps root label -> count; probabilities are their relative frequencies.
    """

    def __init__(
        self,
        counts: Mapping[str, Mapping[Rhs, int]],
        lexical_counts: Mapping[str, Mapping[str, int]],
        root_counts: Mapping[str, int],
        provenance: Mapping[str, Any],
    ):
        self.provenance = dict(provenance)
        self.root_counts = dict(root_counts)
        self.lhs_counts: Counter[str] = Counter()
        for table in (counts, lexical_counts):
            for lhs, row in table.items():
                self.lhs_counts[lhs] += sum(row.values())
        self.counts = {lhs: dict(row) for lhs, row in counts.items()}
        self.lexical_counts = {tag: dict(row) for tag, row in lexical_counts.items()}
        self.rules: dict[str, list[tuple[Rhs, float]]] = {}
        self._prob: dict[tuple[str, Rhs], float] = {}
        for lhs, row in self.counts.items():
            total = self.lhs_counts[lhs]
            ranked = sorted(((rhs, n / total) for rhs, n in row.items()), key=lambda r: (-r[1], r[0]))
            self.rules[lhs] = ranked
            self._prob.update(((lhs, rhs), p) for rhs, p in ranked)
        self.lexical: dict[str, list[tuple[str, float]]] = {}
        for tag, row in self.lexical_counts.items():
            total = self.lhs_counts[tag]
            ranked_words = sorted(((w, n / total) for w, n in row.items()), key=lambda r: (-r[1], r[0]))
            self.lexical[tag] = ranked_words
            self._prob.update(((tag, (w,)), p) for w, p in ranked_words)
        self._roots_total = sum(self.root_counts.values())
        self._tokens_total = sum(self.lhs_counts.values())

    def prob(self, lhs: str, rhs: Rhs) -> float:
        """ML probability of ``lhs -> rhs`` (a lexical rule is ``(tag, (word,))``); 0.0 when unseen."""
        return self._prob.get((lhs, rhs), 0.0)

    def root_prob(self, label: str) -> float:
        return self.root_counts.get(label, 0) / self._roots_total if self._roots_total else 0.0

    def unseen_prob(self, lhs: str | None = None) -> float:
        """What a production (or, with ``lhs=None``, a root label) never seen in the treebank is given
        where a product must not collapse to zero: one count out of ``count(lhs) + 1``, below every
        seen probability of that ``lhs``; an unknown ``lhs`` counts against all production tokens."""
        if lhs is None:
            return 1 / (self._roots_total + 1)
        return 1 / ((self.lhs_counts.get(lhs) or self._tokens_total) + 1)

    def to_json(self) -> dict[str, Any]:
        payload = {
            "format": FORMAT,
            "provenance": self.provenance,
            "roots": dict(sorted(self.root_counts.items())),
            "rules": {
                lhs: [[list(rhs), self.counts[lhs][rhs], p] for rhs, p in self.rules[lhs]]
                for lhs in sorted(self.rules)
            },
            "lexical": {
                tag: [[w, self.lexical_counts[tag][w], p] for w, p in self.lexical[tag]]
                for tag in sorted(self.lexical)
            },
        }
        return {**payload, "sha256": _digest(payload)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any], source: str = "grammar") -> Grammar:
        if d.get("format") != FORMAT:
            raise InputError(
                f"{source}: not an autocheck grammar (format {d.get('format')!r}, want {FORMAT})"
            )
        payload = {k: v for k, v in d.items() if k != "sha256"}
        if d.get("sha256") != _digest(payload):
            raise InputError(f"{source}: sha256 does not match its content (file changed or truncated)")
        return cls(
            counts={lhs: {tuple(rhs): n for rhs, n, _ in rows} for lhs, rows in d["rules"].items()},
            lexical_counts={tag: {w: n for w, n, _ in rows} for tag, rows in d["lexical"].items()},
            root_counts=d["roots"],
            provenance=d["provenance"],
        )

    def save(self, path: str | Path) -> None:
        atomic_write_json(path, self.to_json())

    def __repr__(self) -> str:
        n_rules = sum(len(r) for r in self.rules.values())
        source = self.provenance.get("source")
        return f"Grammar({len(self.rules)} phrase LHS, {n_rules} phrase rules, source={source!r})"


def _digest(payload: Mapping[str, Any]) -> str:
    return hashlib.sha256(dumps(payload).encode("utf-8")).hexdigest()


def treebank_files(treebank: str) -> tuple[str, list[tuple[str, str]]]:
    """The source name and the (file id, text) of each treebank file, in file id order."""
    if treebank == "nltk":
        nltk_resource("corpora/treebank", "treebank")
        from nltk.corpus import treebank as reader

        return "nltk:treebank", [(fileid, reader.raw(fileid)) for fileid in reader.fileids()]
    root = Path(treebank)
    if not root.is_dir():
        raise InputError(f"{treebank}: treebank directory not found (or pass 'nltk' for the NLTK PTB sample)")
    # Read directly: NLTK's corpus readers refuse directories outside its data path.
    paths = sorted(root.rglob("*.mrg"))
    if not paths:
        raise InputError(f"{treebank}: no .mrg files found")
    return str(root.resolve()), [(p.relative_to(root).as_posix(), _read_text(p)) for p in paths]


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})"
        ) from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None


def read_trees(text: str, source: str = "treebank") -> Iterator[Any]:
    """The trees of one ``.mrg`` text: top-level bracketed expressions, PTB's empty outer bracket removed."""
    from nltk import Tree

    depth, start = 0, 0
    for match in _BRACKET.finditer(text):
        if match.group() == "(":
            if depth == 0:
                start = match.start()
            depth += 1
            if depth > MAX_TREE_DEPTH:
                raise InputError(f"{source}: tree at character {start} nested deeper than {MAX_TREE_DEPTH}")
        else:
            depth -= 1
            if depth < 0:
                raise InputError(f"{source}: unbalanced ')' at character {match.start()}")
            if depth == 0:
                try:
                    tree = Tree.fromstring(text[start : match.end()])
                except ValueError as e:
                    raise InputError(f"{source}: malformed tree at character {start} ({e})") from None
                tree = (
                    tree[0] if tree.label() == "" and len(tree) == 1 and isinstance(tree[0], Tree) else tree
                )
                _check_tree(tree, source, start)
                yield tree
    if depth:
        raise InputError(f"{source}: unbalanced '(' at character {start}")


MAX_TREE_DEPTH = 400  # PTB trees are a few dozen levels deep; far deeper input would exhaust the stack


def _check_tree(tree: Any, source: str, at: int) -> None:
    """Each node is a preterminal (one word) or has only subtrees, as in the PTB."""
    from nltk import Tree

    stack = [tree]
    while stack:
        node = stack.pop()
        subtrees = [child for child in node if isinstance(child, Tree)]
        if subtrees and len(subtrees) != len(node) or not subtrees and len(node) > 1:
            raise InputError(
                f"{source}: malformed tree at character {at}: node ({node.label()} ...) mixes words and "
                "phrases or has several words"
            )
        stack.extend(subtrees)


def count_productions(trees: Iterable[Any]) -> tuple[Counter, Counter, Counter, int]:
    """Counts of (lhs, rhs) phrase rules, (tag, word) lexical rules and root labels over cleaned trees."""
    from nltk import Tree

    phrase: Counter[tuple[str, Rhs]] = Counter()
    lexical: Counter[tuple[str, str]] = Counter()
    roots: Counter[str] = Counter()
    n_trees = 0
    for raw in trees:
        tree = clean_tree(raw)
        if tree is None:
            continue
        n_trees += 1
        roots[tree.label()] += 1
        for node in tree.subtrees():
            if len(node) == 1 and not isinstance(node[0], Tree):
                lexical[node.label(), node[0]] += 1
            else:
                phrase[node.label(), tuple(c.label() for c in node)] += 1
    return phrase, lexical, roots, n_trees


def build_grammar(treebank: str = "nltk") -> Grammar:
    """Build the reference PCFG from ``"nltk"`` (the NLTK PTB sample) or a directory of ``.mrg`` files."""
    started = time.perf_counter()
    source, files = treebank_files(treebank)
    checksum = hashlib.sha256()
    for fileid, text in files:
        checksum.update(fileid.encode() + b"\0" + text.encode("utf-8") + b"\0")
    trees = (tree for fileid, text in files for tree in read_trees(text, fileid))
    phrase, lexical, roots, n_trees = count_productions(trees)
    counts: dict[str, dict[Rhs, int]] = {}
    for (lhs, rhs), n in phrase.items():
        counts.setdefault(lhs, {})[rhs] = n
    lexical_counts: dict[str, dict[str, int]] = {}
    for (tag, word), n in lexical.items():
        lexical_counts.setdefault(tag, {})[word] = n
    provenance = {
        "source": source,
        "files": len(files),
        "trees": n_trees,
        "source_sha256": checksum.hexdigest(),
        "settings": {"traces": "removed", "function_tags": "stripped", "estimator": "mle-token-counts"},
        "autocheck_version": __version__,
    }
    grammar = Grammar(counts, lexical_counts, roots, provenance)
    log.info("Built %r from %d trees in %.1f s", grammar, n_trees, time.perf_counter() - started)
    return grammar


def load_grammar(path_or_name: str | Path = "ptb_sample") -> Grammar:
    """Load a grammar file, or a shipped one by name (``"ptb_sample"`` -> ``grammars/ptb_sample.json``).

    The same bytes at the same path give the same object, to be read only: building it costs about
    0.1 CPU-s, and the expander, the dictionary of common nouns and every worker process forked after the
    first load share one."""
    path = Path(path_or_name)
    if not path.suffix and not path.exists():
        path = project_file(f"grammars/{path_or_name}.json")
    raw = read_input(path, "grammar")
    digest = hashlib.sha256(raw).hexdigest()
    held = _LOADED.get(str(path))
    if held is None or held[0] != digest:
        held = _LOADED[str(path)] = (digest, Grammar.from_json(parse_json(raw, path, "grammar"), str(path)))
    return held[1]


# path -> (the sha256 of its bytes, the grammar they hold): ``load_grammar``'s
_LOADED: dict[str, tuple[str, Grammar]] = {}
