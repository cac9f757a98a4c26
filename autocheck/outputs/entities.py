"""The ``entities`` output kind: named-entity recognition, a model's answer a list of typed character spans.

An entity is ``(start, end, type)``: the characters ``text[start:end]`` and an entity type (``PERSON``,
``GPE``, ``ORG`` ...). A model's answer and an MFT case's expectation are tuples of entities sorted by
offset; on disk, lists of ``[start, end, type]``.

* ``parse_markup`` reads the shipped suite's templates: ``"[Maria Lopez](PERSON) flew to [Lima](GPE)."``
  is the text ``"Maria Lopez flew to Lima."`` with its two entities, so a label is where the words are by
  construction, whatever a placeholder was filled with.
* ``decode_tags`` reads token tags in BIO (IOB2), IOB1 (CoNLL-2003's own), BIOES and BILOU: the CoNLL reader
  and token-classification models both answer tags per token.
* ``carry`` moves entities through a perturbation's edits (``author.perturb``'s ``change["edits"]``): a name
  replaced by another name is still one entity, at the new offsets.
* ``compare`` is the MFT and INV test: the same entities, exact span and type, over the types the task
  tests (a model's other types, e.g. spaCy's ``CARDINAL``, are not judged).
* ``EntityTally``: a run's MFT results by entity type and by the origin of the names (``results.json``).

``EntitiesKind`` is the output kind (``kind.OutputKind``) over these: a model answers, per input, its
entities (``[start, end, type]`` lists, spaCy spans or pipeline-style dicts, ``as_entities``), stored as
``[[start, end, type], ...]``; the reading is a one-column score (1.0) and the entities with their types in
the task's names (``label_aliases``: ``PER`` -> ``PERSON``). MFT and INV compare with ``compare``; DIR does
not apply; the export writes the expected entities. Beyond the protocol it offers what NER's sources and
runner use: ``unmark`` (a template's marked text), ``carry`` (an INV original's entities in the changed
text) and ``tally`` (results by type and origin).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..store import InputError
from ..tasks import Task
from .kind import FAIL, PASS, Answering, Outputs, WithoutDirections

EXPECTED = "a list of entities, [start, end, type] each (or spaCy spans, or pipeline-style dicts)"

Entity = tuple[int, int, str]

_MARKUP = re.compile(r"\[([^\[\]]+)\]\(([A-Z][A-Z_]*)\)")


def parse_markup(marked: str) -> tuple[str, tuple[Entity, ...]]:
    """The plain text of ``marked`` and its entities, each written ``[words](TYPE)``."""
    pieces: list[str] = []
    entities: list[Entity] = []
    at = length = 0
    for match in _MARKUP.finditer(marked):
        pieces.append(marked[at : match.start()])
        length += match.start() - at
        words, kind = match.group(1), match.group(2)
        entities.append((length, length + len(words), kind))
        pieces.append(words)
        length += len(words)
        at = match.end()
    pieces.append(marked[at:])
    return "".join(pieces), tuple(entities)


def as_entities(value: Any, where: str) -> tuple[Entity, ...]:
    """Entities from JSON (``[[start, end, type], ...]``) or a model's answer (also spaCy-like objects with
    ``start_char``/``end_char``/``label_``, or ``{"start", "end", "label"|"entity_group"|"type"}`` as a
    Hugging Face pipeline answers), sorted; ``ValueError`` naming ``where`` for anything else."""
    out = []
    for item in value if isinstance(value, list | tuple) else [value]:
        if hasattr(item, "start_char") and hasattr(item, "label_"):
            item = (item.start_char, item.end_char, item.label_)
        elif isinstance(item, Mapping):
            kind = item.get("label", item.get("entity_group", item.get("type")))
            item = (item.get("start"), item.get("end"), kind)
        if not (
            isinstance(item, list | tuple)
            and len(item) == 3
            and all(type(x) is int for x in item[:2])
            and isinstance(item[2], str)
            and 0 <= item[0] < item[1]
        ):
            raise ValueError(
                f"{where}: an entity must be [start, end, type] with 0 <= start < end, not {item!r}"
            )
        out.append((item[0], item[1], item[2]))
    return tuple(sorted(out))


def decode_tags(tags: Sequence[str], offsets: Sequence[tuple[int, int]]) -> tuple[Entity, ...]:
    """Entities from per-token tags and the tokens' character offsets. Tags are ``O`` or ``P-TYPE`` with
    ``P`` one of B/I/E/S/L/U: B starts an entity, S/U is one alone, E/L ends one, and an I that does not
    continue an entity of its type starts one (IOB1, and a forgiving reading of broken BIO).

    Written here rather than taken from seqeval or spaCy: the reader must not need the NER extra, and the
    rule is these few lines."""
    out: list[Entity] = []
    current: list[Any] | None = None  # [start, end, type] of the open entity
    for tag, (start, end) in zip(tags, offsets):
        prefix, _, kind = tag.partition("-")
        if tag == "O" or not kind:
            current = None
            continue
        continues = current is not None and current[2] == kind and prefix in ("I", "E", "L")
        if continues:
            assert current is not None
            current[1] = end
        else:
            current = [start, end, kind]
            out.append(current)  # type: ignore[arg-type]
        if prefix in ("E", "L", "S", "U"):
            current = None
    return tuple((s, e, k) for s, e, k in out)


def tags_of(entities: Iterable[Entity], offsets: Sequence[tuple[int, int]]) -> list[str]:
    """BIO tags of tokens at ``offsets`` for ``entities`` (an entity tags the tokens inside its span)."""
    tags = ["O"] * len(offsets)
    for start, end, kind in entities:
        inside = [i for i, (a, b) in enumerate(offsets) if a >= start and b <= end]
        for n, i in enumerate(inside):
            tags[i] = f"{'B' if n == 0 else 'I'}-{kind}"
    return tags


def carry(
    entities: Iterable[Entity], edits: Sequence[Mapping[str, Any]], field: str = "text"
) -> tuple[Entity, ...] | None:
    """``entities`` of a text moved through ``edits`` (``{"field", "start", "end", "to"}`` in the original
    text's offsets, as ``author.perturb`` records them): an edit inside an entity (a name replaced, a typo in
    it) changes its end, an edit before it shifts it. None when an edit crosses an entity's edge: where the
    entity is then is not known, so the case cannot be judged."""
    out = []
    for start, end, kind in entities:
        new_start, new_end = start, end
        for edit in edits:
            if edit.get("field", field) != field:
                continue
            a, b, delta = edit["start"], edit["end"], len(edit["to"]) - (edit["end"] - edit["start"])
            if b <= start:
                new_start += delta
                new_end += delta
            elif a >= end:
                continue
            elif a >= start and b <= end:
                new_end += delta
            else:
                return None
        out.append((new_start, new_end, kind))
    return tuple(sorted(out))


def judged(entities: Iterable[Entity], types: Iterable[str]) -> tuple[Entity, ...]:
    """The entities of the types the task tests."""
    kept = set(types)
    return tuple(e for e in entities if e[2] in kept)


def compare(expected: Iterable[Entity], predicted: Iterable[Entity], types: Iterable[str]) -> dict[str, Any]:
    """How a prediction meets an expectation, over ``types``: ``missed`` (expected, not predicted exactly),
    ``spurious`` (predicted, not expected) and ``ok`` (neither)."""
    types = tuple(types)
    want, got = set(judged(expected, types)), set(judged(predicted, types))
    return {"ok": want == got, "missed": sorted(want - got), "spurious": sorted(got - want)}


def listed(entities: Iterable[Sequence[Any]]) -> str:
    """Entities without their text, for a page that shows the text beside them: ``PERSON 0-11, GPE 20-24``
    (``none`` for none)."""
    return ", ".join(f"{kind} {start}-{end}" for start, end, kind in entities) or "none"


def shown(text: str, entities: Iterable[Entity]) -> str:
    """The text with its entities marked as ``parse_markup`` reads them, for people."""
    out, at = [], 0
    for start, end, kind in sorted(entities):
        if start < at:  # overlapping answers: shown in a list instead
            return f"{text}  {[(text[s:e], k) for s, e, k in entities]}"
        out += [text[at:start], f"[{text[start:end]}]({kind})"]
        at = end
    return "".join(out) + text[at:]


@dataclass
class EntityTally:
    """A model's MFT results on an NER suite, by entity type and by the origin of the names in a case
    (``provenance["origin"]``, from the ``person_origin`` lexicon).

    Per type, over the expected and predicted entities of every judged MFT case: ``expected``, ``missed``
    (no exact prediction of that span and type), ``predicted`` and ``spurious`` (predicted, not expected:
    a wrong type or a wrong span counts once missed and once spurious). Per origin: cases judged and failed.
    """

    types: dict[str, Counter] = field(default_factory=dict)
    origins: dict[str, Counter] = field(default_factory=dict)

    def add(
        self, expected: Iterable[Entity], predicted: Iterable[Entity], types: Sequence[str], origin: Any
    ) -> None:
        result = compare(expected, predicted, types)
        for kind in types:
            counts = self.types.setdefault(kind, Counter())
            counts["expected"] += sum(e[2] == kind for e in judged(expected, types))
            counts["predicted"] += sum(e[2] == kind for e in judged(predicted, types))
            counts["missed"] += sum(e[2] == kind for e in result["missed"])
            counts["spurious"] += sum(e[2] == kind for e in result["spurious"])
        if isinstance(origin, str):
            by_origin = self.origins.setdefault(origin, Counter())
            by_origin["applicable"] += 1
            by_origin["failures"] += not result["ok"]

    def to_json(self) -> dict[str, Any]:
        def rate(part: int, whole: int) -> float | None:
            return round(part / whole, 6) if whole else None

        return {
            "types": {
                kind: {
                    **{k: c[k] for k in ("expected", "missed", "predicted", "spurious")},
                    "miss_rate": rate(c["missed"], c["expected"]),
                    "spurious_rate": rate(c["spurious"], c["predicted"]),
                }
                for kind, c in sorted(self.types.items())
                if c["expected"] or c["predicted"]
            },
            "origins": {
                origin: {
                    "applicable": c["applicable"],
                    "failures": c["failures"],
                    "failure_rate": rate(c["failures"], c["applicable"]),
                }
                for origin, c in sorted(self.origins.items())
            },
        }


class EntitiesKind(WithoutDirections):
    name = "entities"
    expects_labels = False  # an MFT case expects entities; templates mark them in the text (``unmark``)
    export_columns: tuple[str, ...] = ("entities",)

    def check_task(self, task: Task, where: str) -> None:
        if not task.labels:
            raise InputError(f"{where}: $.labels: an NER task names the entity types it tests")

    def check_mft(self, task: Task, expected: Any) -> str | None:
        try:
            entities = as_entities(expected, "expected")
        except ValueError as error:
            return str(error)
        unknown = {kind for *_, kind in entities} - set(task.labels)
        return f"entity types {sorted(unknown)} are not the task's {task.labels}" if unknown else None

    def answer(self, model: Answering, raw: Any) -> Any:
        try:
            return [list(e) for e in as_entities(raw, f"model {model.name}")]
        except ValueError as error:
            raise InputError(f"{error}; expected {EXPECTED}") from None

    def outputs(self, model: Answering, answers: Sequence[Any], errors: Sequence[str | None]) -> Outputs:
        out = Outputs(np.full((len(answers), 1), np.nan), [None] * len(answers))
        assert out.answers is not None
        for i, (answer, error) in enumerate(zip(answers, errors)):
            if error is not None:
                out.errors[i] = error
            elif isinstance(answer, dict):  # a cached Invalid
                out.invalid[i] = answer["invalid"]
            else:
                out.answers[i], out.probs[i, 0] = answer, 1.0
        return out

    def read(self, model: Answering, outputs: Outputs) -> tuple[np.ndarray, list[Any]]:
        assert outputs.answers is not None
        names = dict(model.task.aliases)  # PER -> PERSON; a type the task does not name stays as it is
        entities = [
            None if a is None else tuple((s, e, names.get(k.lower(), k)) for s, e, k in a)
            for a in outputs.answers
        ]
        return outputs.probs, entities

    def mft(self, task: Task, expected: Any, answer: Any) -> str:
        return PASS if compare(expected, answer, task.labels)["ok"] else FAIL

    def inv(
        self, task: Task, orig_scores: np.ndarray, orig_answer: Any, scores: np.ndarray, answer: Any
    ) -> str:
        # orig_answer: the original's entities carried to this text (``carry``, by the runner)
        return PASS if compare(orig_answer, answer, task.labels)["ok"] else FAIL

    def result_fields(self, scores: np.ndarray, answer: Any) -> dict[str, Any]:
        return {"entities": [list(e) for e in answer]}

    def from_result(self, row: dict[str, Any]) -> tuple[np.ndarray, Any]:
        return np.array([1.0]), tuple(tuple(e) for e in row.get("entities", ()))

    def export(
        self, test_type: str, expected: Any, label_space: Sequence[str], rule: str
    ) -> tuple[int, list[float], dict[str, Any]] | str:
        if test_type != "MFT":
            return "no entities of its own (INV/DIR)"
        return -1, [], {"entities": [list(e) for e in expected]}

    # ------------------------------------------------------------------------ beyond the protocol
    unmark = staticmethod(parse_markup)
    carry = staticmethod(carry)

    @staticmethod
    def tally() -> EntityTally:
        return EntityTally()
