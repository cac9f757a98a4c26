"""Typed records that flow between the stages.

Every record is a frozen dataclass with a stable ``id`` and a lossless ``to_json``/``from_json`` pair, so
stages can be chained in memory or through JSON Lines files without pickle.

Inputs are named text fields, as the task declares them (``tasks.Task.inputs``): ``{"text": ...}`` for
sentiment, ``{"premise": ..., "hypothesis": ...}`` for NLI, ``{"context": ..., "question": ...}`` for machine
comprehension. A plain string stands for ``{"text": string}``. On disk each field is a top-level key of the
record, so a one-field case reads ``{"text": ..., ...}`` and a pair ``{"question1": ..., "question2": ...}``.

Labels are strings (``"negative"``, ``"neutral"``, ``"positive"`` for sentiment; for a question-answering
task the acceptable answers; for named-entity recognition the entities, ``(start, end, type)`` each). An
expectation is either one label, a tuple of allowed labels (``("neutral", "positive")`` = "positive or
neutral"), ``None`` for an INV case, a mapping for a DIR case (see ``expect.py``), or an NER case's entities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

Label = str
# MFT: a label or a tuple of allowed labels; INV: None; DIR: {"label": L, "direction": "up"|"down",
# "tolerance": float} (the probability of L must not move against the direction by more than tolerance).
Expected = Any

SEED = "seed"
EXPANSION = "expansion"  # a seed with words inserted by grammar expansion
PERTURBATION = "perturbation"  # a seed (or template case) changed by a perturbation (INV/DIR tests)
KINDS = (SEED, EXPANSION, PERTURBATION)
TEXT = "text"  # the input field of one-text tasks


def as_inputs(value: str | Mapping[str, str]) -> dict[str, str]:
    """``"a sentence"`` → ``{"text": "a sentence"}``; a mapping of fields → a plain dict, in its order."""
    return {TEXT: value} if isinstance(value, str) else dict(value)


def single_text(inputs: Mapping[str, str], what: str) -> str:
    """The text of a one-field input; a clear error for a multi-field one."""
    if len(inputs) != 1:
        raise ValueError(f"{what} has {len(inputs)} input fields ({', '.join(inputs)}); no single text")
    return next(iter(inputs.values()))


def display(inputs: Mapping[str, str]) -> str:
    """One line for people: the text itself, or ``field: text | field: text`` for several fields."""
    if len(inputs) == 1:
        return next(iter(inputs.values()))
    return " | ".join(f"{name}: {text}" for name, text in inputs.items())


def _to_json(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def expected_from_json(value: Any) -> Expected:
    """Lists in JSON become tuples so an expectation is hashable and compares by value (an NER case's
    ``[[start, end, type], ...]`` too)."""
    if isinstance(value, list):
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return value


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled item from a dataset: its input fields (normalised, see ``datasets.normalize_text``)."""

    id: str  # stable within its dataset, e.g. "sst:1117"
    inputs: dict[str, str]  # a plain string is taken as {"text": string}
    label: Label | tuple[str, ...]  # a class label; for a question-answering task, the acceptable answers
    source: str  # dataset name
    meta: dict[str, str] = field(default_factory=dict, compare=False)  # the row's other columns

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", as_inputs(self.inputs))

    @property
    def text(self) -> str:
        return single_text(self.inputs, f"example {self.id}")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, **self.inputs, "label": self.label, "source": self.source}


@dataclass(frozen=True, slots=True)
class TestCase:
    """One test case of a suite: a seed case (a transformed dataset sentence) or an expansion of one.

    ``editable`` are the character spans of ``text`` in which words may be inserted: the seed sentence's
    own span inside a template, never the template's fixed phrases.
    """

    __test__ = False  # not a pytest test class

    id: str
    capability: str  # e.g. "LC4"
    kind: str  # SEED, EXPANSION or PERTURBATION
    inputs: dict[str, str]  # the task's input fields; a plain string is taken as {"text": string}
    expected: Expected
    test_type: str  # "MFT", "INV" or "DIR"
    label: Label | tuple[str, ...]  # label of the source example (answers for question answering)
    seed_id: str | None = None  # for expansions and perturbations: the case they were made from
    editable: tuple[tuple[int, int], ...] = ()  # spans of the text of a one-field case
    # dataset, example_id, template, slots; for expansions also production, inserted words, score;
    # for perturbations what changed.
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", as_inputs(self.inputs))

    @property
    def text(self) -> str:
        """The text of a one-field case (grammar expansion works on one text)."""
        return single_text(self.inputs, f"case {self.id}")

    def to_json(self) -> dict[str, Any]:
        d = _to_json(self)
        d.update(d.pop("inputs"))
        d["editable"] = [list(span) for span in self.editable]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TestCase:
        inputs = {k: v for k, v in d.items() if k not in CASE_KEYS}
        bad = next((k for k, v in inputs.items() if not isinstance(v, str)), None)
        if bad is not None or not inputs:
            raise ValueError(f"input field {bad!r} is not a text" if bad else "no input field (e.g. 'text')")
        _check_case_fields(d)
        return cls(
            id=d["id"],
            capability=d["capability"],
            kind=d["kind"],
            inputs=inputs,
            expected=expected_from_json(d.get("expected")),
            test_type=d["test_type"],
            label=expected_from_json(d.get("label", "")),
            seed_id=d.get("seed_id"),
            editable=tuple((int(a), int(b)) for a, b in d.get("editable", ())),
            provenance=dict(d.get("provenance") or {}),
        )


CASE_KEYS = frozenset(f.name for f in fields(TestCase)) - {"inputs"}


def _check_case_fields(d: dict[str, Any]) -> None:
    """The types a case record's fields must have (a ValueError naming the field), so a damaged suite file
    fails where it is read, not in whatever sorts, hashes or slices its values later."""

    def texts(value: Any) -> bool:
        """A list of labels or answers, or of an NER case's entities ([start, end, type] each)."""
        return isinstance(value, list) and (
            all(isinstance(v, str) for v in value)
            or all(isinstance(v, list) and len(v) == 3 and isinstance(v[2], str) for v in value)
        )

    for key in ("id", "capability", "kind", "test_type"):
        if not isinstance(d.get(key), str):
            raise ValueError(f"field '{key}' must be a text, not {d.get(key)!r}")
    if d["test_type"] not in ("MFT", "INV", "DIR"):
        raise ValueError(f"field 'test_type' must be MFT, INV or DIR, not {d['test_type']!r}")
    if not (d.get("seed_id") is None or isinstance(d["seed_id"], str)):
        raise ValueError(f"field 'seed_id' must be a case id or null, not {d['seed_id']!r}")
    expected = d.get("expected")
    number = isinstance(expected, int | float) and not isinstance(expected, bool)  # an output kind's own
    if not (expected is None or number or isinstance(expected, str | dict) or texts(expected)):
        raise ValueError(
            f"field 'expected' must be a label, a list of labels, a number or an object, not {expected!r}"
        )
    if isinstance(expected, dict) and d["test_type"] != "DIR":
        raise ValueError(f"field 'expected' of a {d['test_type']} case cannot be an object (only DIR's)")
    label = d.get("label", "")
    if not (label is None or isinstance(label, str) or texts(label)):
        raise ValueError(f"field 'label' must be a label or a list of labels, not {label!r}")
    editable = d.get("editable", [])
    if not (
        isinstance(editable, list)
        and all(
            isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)
            for span in editable
        )
    ):
        raise ValueError(f"field 'editable' must be a list of [start, end] pairs, not {editable!r}")
    if not isinstance(d.get("provenance") or {}, dict):
        raise ValueError(f"field 'provenance' must be an object, not {d['provenance']!r}")


@dataclass(frozen=True, slots=True)
class Parse:
    """A parsed text: tokens with character offsets and one bracketed tree per sentence.

    The leaves of ``trees`` in order are exactly ``tokens`` (trees carry no TOP wrapper).
    """

    text: str
    tokens: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    trees: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": list(self.tokens),
            "offsets": [list(o) for o in self.offsets],
            "trees": list(self.trees),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Parse:
        return cls(
            text=d["text"],
            tokens=tuple(d["tokens"]),
            offsets=tuple((int(a), int(b)) for a, b in d["offsets"]),
            trees=tuple(d["trees"]),
        )


# Characters a following token is written against: opening brackets and currency signs ("(which",
# "$5"); an opening double quote is decided by what precedes it (``opens``).
OPENERS = frozenset("([{$£€¥`")


def opens(text: str, at: int) -> bool:
    """Whether the character before ``at`` opens what follows it: an opening bracket or currency sign, or
    a straight double/single quote at the text's start or after a space or another opener."""
    c = text[at - 1] if at > 0 else ""
    if c in OPENERS:
        return True
    if c in "\"'":
        return at == 1 or text[at - 2].isspace() or text[at - 2] in OPENERS
    return False


def insertable(parse: Parse, index: int) -> bool:
    """Whether a word can go in before token ``index``: not inside a written word such as ``didn't``
    (tokens ``did`` + ``n't``) or ``film's``, where the clitic is attached to a letter or digit, and not
    between a currency sign and its amount (``$5``)."""
    if index <= 0 or index >= len(parse.offsets):
        return True
    at = parse.offsets[index][0]
    token = parse.tokens[index]
    attached = parse.offsets[index - 1][1] == at
    if attached and parse.tokens[index - 1] in ("$", "£", "€", "¥", "#"):
        return False
    return not (attached and parse.text[at - 1].isalnum() and (token[:1].isalnum() or token[:1] in "'’"))


@dataclass(frozen=True, slots=True)
class MaskedTemplate:
    """A seed case with masks to insert, produced by production differentiation.

    ``masks`` are ``(token_index, tag)`` pairs in left-to-right order: each mask is inserted before the
    token at ``token_index`` of ``parse.tokens`` (``len(tokens)`` = after the last token); several masks
    may share an index. ``expansion.render`` turns it into text.
    """

    id: str
    case_id: str
    parse: Parse
    masks: tuple[tuple[int, str], ...]
    lhs: str
    rhs_from: tuple[str, ...]
    rhs_to: tuple[str, ...]
    score: float  # P_ref(rhs_to | lhs) x parent production probabilities

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(tag for _, tag in self.masks)

    def render(
        self, words: tuple[str, ...] | list[str], lower: Iterable[int] = ()
    ) -> tuple[str, tuple[int, ...]]:
        """The seed text with ``words`` (one per mask) inserted at their token boundaries.

        Returns the new text and the character offset of each inserted word in it. The result is the seed
        text plus exactly the inserted words and one space each, the space on the side that keeps every
        token apart as in the seed (fix *spacing*): the word goes in as ``"word "`` before a token that
        follows a space, at the start, or right after an opener it belongs with (``(``, an opening ``"``:
        ``"(word which"``); as ``" word"`` before a token attached to its left neighbour (``.``, ``,``,
        ``n't``, a closing quote) and after the last token. ``lower`` are token indices whose first letter
        is lower-cased (a sentence-initial capital that an insertion moved inside the sentence,
        ``validate.recase``); the text keeps its length.
        """
        if len(words) != len(self.masks):
            raise ValueError(f"{self.id}: {len(self.masks)} masks but {len(words)} words")
        text, offsets = self.parse.text, self.parse.offsets
        for index in lower:
            a = offsets[index][0]
            text = text[:a] + text[a].lower() + text[a + 1 :]
        pieces: list[str] = []
        starts: list[int] = []
        cursor = 0
        length = 0
        for (index, _), word in zip(self.masks, words):
            if not insertable(self.parse, index):
                raise ValueError(f"{self.id}: cannot insert inside the word ending at token {index}")
            at = offsets[index][0] if index < len(offsets) else offsets[-1][1]
            pieces.append(text[cursor:at])
            length += at - cursor
            cursor = at
            attached = index == len(offsets) or (
                at > 0 and not text[at - 1].isspace() and not opens(text, at)
            )
            piece = f" {word}" if attached else f"{word} "
            starts.append(length + (1 if attached else 0))
            pieces.append(piece)
            length += len(piece)
        pieces.append(text[cursor:])
        return "".join(pieces), tuple(starts)
