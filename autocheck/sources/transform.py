"""Capability templates: turn selected seed examples into seed test cases.

Fixes of the original, by name:

* **Word-boundary negation, no double negation**: ``negate`` inserts the word after the first
  match of a word-bounded regex and refuses a sentence that already has a negation word
  (``search.NEGATIONS``), so "This is not not ..." and "This is not nothing but ..." are never produced.
* **Fillers sampled per seed**: LC7/LC8 fillers are drawn for each seed from the pool with the
  generator of (run seed, capability/seed/template), instead of the same three sentences for every seed.
* **LC10 expectation**: the expectation is the spec's, so a negative seed answered "no" expects
  neutral or positive, not strict positive.
* **Consistent quoting**: an embedded sentence in quotes loses its final "." (the template continues the
  sentence) and its own double quotes become single quotes, so quotes never nest ambiguously.
* **Editable spans**: each case records the character spans of the seed's own text; insertions
  are allowed only there, never inside or next to the template's fixed phrases.
* **No global state**: templates are immutable records; same inputs and seed give the same cases.

``compat=True`` brings two of the original's choices back, to approach its published numbers: one filler
draw per capability and template shared by every seed, and the spec's ``compat.expected`` (LC10).
"""

from __future__ import annotations

import itertools
import logging
import re
import string
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..records import SEED, Example, TestCase
from ..requirements import FILLER_FIELD, SEED_FIELD, Capability, Filler, Negation, Template
from ..store import content_hash, rng_for
from ..tagging import tokenize
from .search import NEGATIONS, length_ok, natural_key

log = logging.getLogger(__name__)

Segments = list[tuple[str, bool]]  # (text, editable) pieces of a rendered slot


def negate(text: str, negation: Negation) -> Segments | None:
    """``text`` with ``negation.word`` inserted after the first match of ``negation.after``, as segments
    (seed text, inserted word, seed text); None if there is no match or the text is already negated."""
    if not NEGATIONS.isdisjoint(w.lower() for w in tokenize(text).words):
        return None
    match = negation.after.search(text)
    if match is None or match.end() == 0:
        return None
    left, right = text[: match.end()], text[match.end() :]
    return [(left, True), (f" {negation.word}", False), (right, True)]


def quote(text: str) -> Segments:
    """``"text"`` for use inside a template sentence: a final "." (not "...") is dropped and inner double
    quotes become single quotes."""
    body = text.strip()
    if body.endswith(".") and not body.endswith(".."):
        body = body[:-1].rstrip()
    return [('"', False), (body.replace('"', "'"), True), ('"', False)]


def seed_text(case: TestCase, text: str | None = None) -> str:
    """The seed's own text inside ``text`` (an expansion of ``case``; default ``case.text``): the editable
    spans concatenated. For a negated seed this is the sentence without the inserted negation, i.e. what the
    capability's search predicates apply to (``search.satisfies``)."""
    text = case.text if text is None else text
    spans = case.editable or ((0, len(case.text)),)
    bounds = [0, *(i for span in spans for i in span), len(case.text)]
    fixed = [_fixed_piece(case.text, bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    match = re.fullmatch("(.*?)".join(fixed), text, flags=re.DOTALL)
    if match is None:
        raise ValueError(f"{case.id}: not the case text with insertions in editable spans: {text!r}")
    return "".join(match.groups())


def _fixed_piece(text: str, start: int, end: int) -> str:
    """A regex for the fixed text ``text[start:end]`` that keeps its word boundaries, so the inserted
    " not" is not found inside an inserted "notable"."""
    piece = text[start:end]
    before = r"(?<!\w)" if piece[:1].isalnum() and not text[start - 1 : start].isalnum() else ""
    after = r"(?!\w)" if piece[-1:].isalnum() and not text[end : end + 1].isalnum() else ""
    return before + re.escape(piece) + after


def filler_candidates(filler: Filler, label: str, pool: Sequence[Example]) -> list[Example]:
    """The examples of ``pool`` a filler of ``label`` is drawn from: that label and the filler's length,
    once per id, in id order (``seeds.FillerPools`` holds the same sequence without the whole dataset)."""
    unique = {e.id: e for e in pool if e.label == label}
    return [e for e in sorted(unique.values(), key=natural_key) if length_ok(e.text, filler.length)]


def filler_draw(
    capability_id: str, template: Template, example_id: str, size: int, seed: int, compat: bool = False
) -> list[int]:
    """The indices into the filler candidates (``size`` of them) drawn for one seed and template: one more
    than needed, so the seed itself can be dropped if drawn."""
    assert template.filler is not None
    per_seed = "" if compat else f"/{example_id}"  # compat: the same fillers for every seed
    key = f"{capability_id}{per_seed}/{template.id}/filler"
    drawn = rng_for(seed, key).choice(size, size=min(template.filler.count + 1, size), replace=False)
    return [int(i) for i in drawn]


@dataclass(frozen=True, slots=True)
class _Choice:
    """One value of one template field."""

    value: str  # recorded in the provenance's slots
    segments: Segments  # what goes into the text
    key: str  # identifies the choice in the case id (a slot's text, a filler's example id)


def _seed_choice(template: Template, example: Example) -> _Choice | None:
    if template.negate is not None:
        segments = negate(example.text, template.negate)
    elif template.quote_seed:
        segments = quote(example.text)
    else:
        segments = [(example.text, True)]
    return None if segments is None else _Choice(example.text, segments, "")


def _filler_choice(filler: Filler, example: Example) -> _Choice:
    # A filler is context, not the seed: never editable.
    pieces = quote(example.text) if filler.quote else [(example.text, True)]
    return _Choice(example.text, [(piece, False) for piece, _ in pieces], example.id)


@runtime_checkable
class DrawnFillers(Protocol):
    """A pool that holds only the fillers drawn, listed as ``filler_candidates`` would list the whole
    dataset's (``seeds.FillerPools``; named by shape here, as seeds imports this module)."""

    def candidates(self, filler: Filler, label: str) -> Sequence[Example]: ...


class _Transformer:
    """Per-call state of ``transform``: the filler candidates per (template, label), built once."""

    def __init__(
        self, capability: Capability, pool: DrawnFillers | Sequence[Example], seed: int, compat: bool = False
    ):
        self.capability, self.pool, self.seed, self.compat = capability, pool, seed, compat
        self.candidates: dict[tuple[str, str], Sequence[Example]] = {}

    def fillers(self, template: Template, example: Example) -> list[Example]:
        filler = template.filler
        assert filler is not None  # the loader requires a filler spec for a {filler} field
        label = filler.label_for(example.label)
        if label is None:
            return []
        if (template.id, label) not in self.candidates:
            self.candidates[template.id, label] = (
                self.pool.candidates(filler, label)  # only the drawn examples
                if isinstance(self.pool, DrawnFillers)
                else filler_candidates(filler, label, self.pool)
            )
        candidates = self.candidates[template.id, label]
        drawn = filler_draw(self.capability.id, template, example.id, len(candidates), self.seed, self.compat)
        return [candidates[i] for i in drawn if candidates[i].id != example.id][: filler.count]

    def choices(self, template: Template, example: Example) -> list[list[_Choice]] | str:
        """Per field of the template, its choices for this seed; or why the template does not apply."""
        seed_choice = _seed_choice(template, example)
        if seed_choice is None:
            return f"{template.id}: no match or already negated"
        out: list[list[_Choice]] = []
        for name in template.fields:
            if name == SEED_FIELD:
                out.append([seed_choice])
            elif name == FILLER_FIELD:
                assert template.filler is not None
                fillers = [_filler_choice(template.filler, f) for f in self.fillers(template, example)]
                if not fillers:
                    return f"{template.id}: no filler in the pool"
                out.append(fillers)
            else:
                out.append([_Choice(alt, [(alt, False)], alt) for alt in dict(template.slots)[name]])
        return out


def _identity(capability: Capability) -> Template:
    labels = frozenset(label for label, _ in capability.expected)  # none (INV/DIR): every label
    return Template(id="identity", format="{seed}", labels=labels, fields=(SEED_FIELD,))


def transform(
    capability: Capability,
    seeds: Sequence[Example],
    pool: DrawnFillers | Sequence[Example],
    seed: int,
    *,
    max_variants: int | None = None,
    compat: bool = False,
) -> Iterator[TestCase]:
    """The seed cases of ``seeds``: in seed order, per seed in template and alternative order.

    ``pool`` holds the examples fillers are drawn from, by label (the whole dataset, so LC7's neutral
    fillers need not be search results), or is a ``seeds.FillerPools`` that holds just the drawn ones. A seed
    whose label has no template yields nothing.
    ``max_variants`` (default: the spec's) caps the variants per seed, sampled with the run's ``seed``.
    """
    spec = capability.transform
    if spec is None and seeds and len(seeds[0].inputs) > 1:  # a multi-field example is its own case
        for example in seeds:
            yield _case(capability, example, None, (), compat)
        return
    templates = spec.templates if spec else (_identity(capability),)
    cap = max_variants or (spec.max_variants if spec else None)
    state = _Transformer(capability, pool, seed, compat)
    skipped: Counter[str] = Counter()
    for example in seeds:
        variants: list[tuple[Template, tuple[_Choice, ...]]] = []
        reasons = [f"label {example.label} has no template"]
        for template in templates:
            if template.labels and example.label not in template.labels:
                continue
            choices = state.choices(template, example)
            if isinstance(choices, str):
                reasons.append(choices)
                continue
            variants.extend((template, combination) for combination in itertools.product(*choices))
        if not variants:  # counted once per seed, with the most specific reason
            skipped[reasons[-1]] += 1
        if cap is not None and len(variants) > cap:
            chosen = rng_for(seed, f"{capability.id}/{example.id}/variants").choice(len(variants), cap, False)
            variants = [variants[i] for i in sorted(chosen)]
        for template, combination in variants:
            yield _case(capability, example, template, combination, compat)
    for reason, n in sorted(skipped.items()):
        log.info("%s: %d seed(s) skipped: %s", capability.id, n, reason)


def _case(
    capability: Capability,
    example: Example,
    template: Template | None,
    choices: tuple[_Choice, ...],
    compat: bool = False,
) -> TestCase:
    """The case of one template variant, or of the example itself (``template`` None: several fields)."""
    expected = capability.expected_for(example.label, compat)
    if expected is None and capability.test_type == "MFT" and isinstance(example.label, tuple):
        expected = example.label  # question answering: the example's acceptable answers
    if template is None:
        return TestCase(
            id=f"{capability.id}-{content_hash(example.source, example.id)}",
            capability=capability.id,
            kind=SEED,
            inputs=example.inputs,
            expected=expected,
            test_type=capability.test_type,
            label=example.label,
            provenance={"dataset": example.source, "example_id": example.id},
        )
    pieces: Segments = []
    values = iter(choices)
    for literal, name, _, _ in string.Formatter().parse(template.format):
        pieces.append((literal, False))
        if name is not None:
            pieces.extend(next(values).segments)
    text, editable = "", []
    for piece, is_seed in pieces:
        if is_seed and piece:
            editable.append((len(text), len(text) + len(piece)))
        text += piece
    named = [(name, c) for name, c in zip(template.fields, choices) if name != SEED_FIELD]
    provenance = {
        "dataset": example.source,
        "example_id": example.id,
        "template": template.id,
        "slots": {name: c.value for name, c in named},
    }
    if FILLER_FIELD in template.fields:
        provenance["filler_id"] = choices[template.fields.index(FILLER_FIELD)].key
    keys = [c.key for _, c in named]
    return TestCase(
        id=f"{capability.id}-{content_hash(example.source, example.id, template.id, *keys)}",
        capability=capability.id,
        kind=SEED,
        inputs={next(iter(example.inputs)): text},
        expected=expected,
        test_type=capability.test_type,
        label=example.label,
        editable=tuple(editable),
        provenance=provenance,
    )
