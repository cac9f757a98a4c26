"""Capability specifications: load a task's JSON file, validate it, and build typed ``Capability`` records.

A spec file (``requirements/<task>.json``, validated against ``requirements/schema.json``) holds the task
(``tasks.Task``: inputs, labels, how models are read) and its capabilities. A capability is data. Its
source cases come from one of:

* ``search`` — dataset seeds: OR-ed predicate groups over one input field, every predicate of a group must
  hold (see ``sources/search.py``), optionally wrapped by ``transform`` templates whose ``format`` has
  ``{seed}``, ``{filler}`` and named slots (one-field tasks); ``expected`` maps each source label to the
  expected label or the list of allowed labels;
* ``templates`` — CheckList templates written from scratch, placeholders filled from lexicons
  (``author/templates.py``); each template's ``label`` (or ``answer``) is the expectation.

MFT tests use the source cases as they are. INV and DIR tests name a ``perturb``ation applied to every
source case (``author/perturb.py``); DIR tests also a ``direction`` (see ``expect.py``).

Errors name the file and the JSON path of the fault, before any model loads.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .author.perturb import check_options
from .author.templates import compile_templates
from .languages import LANGUAGES
from .outputs import check_output, kind_of
from .records import Expected, Label
from .registry import Registry
from .resources import project_file
from .schemas import in_words
from .store import InputError, load_json
from .tasks import HEADER_KEYS, Task

SCHEMA = "requirements/schema.json"
SEED_FIELD, FILLER_FIELD = "seed", "filler"


@dataclass(frozen=True, slots=True)
class Length:
    """Inclusive token-count bounds; a final "." token is not counted (as in the original)."""

    min: int | None = None
    max: int | None = None

    def __contains__(self, n: int) -> bool:
        return (self.min is None or n >= self.min) and (self.max is None or n <= self.max)


@dataclass(frozen=True, slots=True)
class WordTest:
    """Matches a text that has a word of one of ``classes`` ((polarity, coarse POS) pairs, decided by
    POS tags in context) or one of ``words`` (lower-cased tokens)."""

    classes: frozenset[tuple[str, str]] = frozenset()
    words: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Predicates:
    """One search group: all set predicates must hold."""

    length: Length | None = None
    labels: frozenset[Label] | None = None
    include: tuple[WordTest, ...] = ()  # each must match
    exclude: tuple[WordTest, ...] = ()  # none may match
    pattern: re.Pattern[str] | None = None
    negated: bool | None = None
    field: str = "text"  # the input field the predicates read
    meta: tuple[tuple[str, frozenset[str]], ...] = ()  # dataset column -> allowed values

    @property
    def uses_lexicon(self) -> bool:
        return any(test.classes for test in (*self.include, *self.exclude))


@dataclass(frozen=True, slots=True)
class Negation:
    """Insert ``word`` right after the first match of ``after`` (refused on already negated text)."""

    after: re.Pattern[str]
    word: str = "not"


@dataclass(frozen=True, slots=True)
class Filler:
    """Other examples from the pool, ``count`` drawn per seed; ``labels`` maps the seed's label to the
    filler's label."""

    labels: tuple[tuple[Label, Label], ...]
    length: Length | None = None
    count: int = 1
    quote: bool = False

    def label_for(self, seed_label: Label | tuple[str, ...]) -> Label | None:
        """The filler label for a seed's; None for a question-answering seed's answers (no class label)."""
        return None if isinstance(seed_label, tuple) else dict(self.labels).get(seed_label)


@dataclass(frozen=True, slots=True)
class Template:
    id: str
    format: str
    labels: frozenset[Label]  # source labels it applies to
    fields: tuple[str, ...]  # field names in order of appearance: "seed", "filler" or a slot name
    slots: tuple[tuple[str, tuple[str, ...]], ...] = ()
    quote_seed: bool = False
    negate: Negation | None = None
    filler: Filler | None = None


@dataclass(frozen=True, slots=True)
class Transform:
    templates: tuple[Template, ...]
    max_variants: int | None = None


@dataclass(frozen=True, slots=True)
class Part:
    """A registered part a capability names, with its options: its perturbation (INV/DIR: a function of
    ``author.perturb``) or its case source (``sources.cases``)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class Capability:
    id: str  # "LC4", stable across runs
    capability: str  # group: Vocabulary, Temporal, Negation, SRL
    description: str  # the original's exact string
    test_type: str
    search: tuple[Predicates, ...]  # empty for a capability written with templates
    transform: Transform | None
    expected: tuple[tuple[Label, Expected], ...]  # source label -> label or tuple of allowed labels
    spec: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)
    templates: tuple[Any, ...] = ()  # author.templates.Template records (CheckList templates)
    perturb: Part | None = None  # INV/DIR: applied to every source case
    source: Part | None = None  # a named case source (``sources.cases.SOURCES``), instead of search/templates
    direction: dict[str, Any] | None = field(default=None, hash=False)  # DIR's expectation (expect.py)

    @property
    def cid(self) -> str:
        """The original implementation's id: md5 of the description, first 7 hex digits."""
        return hashlib.md5(self.description.encode("utf-8")).hexdigest()[:7]

    def expected_for(self, label: Label | tuple[str, ...], compat: bool = False) -> Expected | None:
        """The expectation for a seed of ``label``; with ``compat``, the original code's where the spec
        records one (LC10: a negative seed answered "no" had to be strictly positive). A question-answering
        seed's ``label`` is its answers, which no per-label expectation names; an NER seed's, its entities,
        which an MFT expects as they are."""
        if compat and label in (original := self.spec.get("compat", {}).get("expected", {})):
            value = original[label]
            return tuple(value) if isinstance(value, list) else value
        if self.test_type == "INV":
            return None
        if self.test_type == "DIR":
            return self.direction
        if isinstance(label, tuple):  # an NER seed expects its own entities; answers name no expectation
            return label if all(isinstance(entity, tuple) for entity in label) else None
        return dict(self.expected).get(label)

    @property
    def needs_dataset(self) -> bool:
        return bool(self.search)

    def to_json(self) -> dict[str, Any]:
        return {**self.spec, "cid": self.cid}


@dataclass(frozen=True, slots=True)
class Spec:
    """A loaded spec file: its task and capabilities (file order)."""

    path: Path
    task: Task
    capabilities: tuple[Capability, ...]

    def select(self, only: Sequence[str] | None) -> list[Capability]:
        """All capabilities, or those whose id (or original cid) is in ``only``."""
        if only is None:
            return list(self.capabilities)
        unknown = [c for c in only if not any(c in (cap.id, cap.cid) for cap in self.capabilities)]
        if unknown:
            valid = ", ".join(cap.id for cap in self.capabilities)
            raise InputError(
                f"{self.path}: unknown capability {', '.join(map(repr, unknown))}; valid: {valid}"
            )
        return [cap for cap in self.capabilities if cap.id in only or cap.cid in only]


TASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

# Spec files by name (``--task NAME``, ``--requirements NAME``): autocheck's own in ``requirements/``; a
# plug-in adds a task through the entry-point group "autocheck.tasks", naming the path of its spec file (a
# str or Path attribute of its package, e.g. ``Path(__file__).parent / "formality.json"``).
TASKS: Registry[str | Path] = Registry("tasks", "task")
for _shipped in sorted(project_file("requirements").glob("*.json")):
    if _shipped.name != "schema.json":
        TASKS.register(_shipped.stem, _shipped)


def task_spec(name: str, what: str = "task") -> Path:
    """The spec registered as ``name`` (autocheck's own or a plug-in's). A name is a name, never a path:
    ``../x`` or ``/etc`` is refused, so a task option or a spec's ``task`` field cannot make autocheck read
    another file."""
    if not TASK_NAME.fullmatch(name):
        raise InputError(
            f"{what} {name!r}: not a name (letters, digits, '_' and '-'); a specification file is given as "
            "a path to --requirements"
        )
    if name not in TASKS:
        raise InputError(f"no {what} named {name!r} (known: {', '.join(TASKS.names())})")
    return Path(TASKS.get(name))


def spec_path(requirements: str | Path | None, task: str = "sentiment") -> Path:
    """``requirements`` as a path (it exists, names a folder or ends in ``.json``), else as a registered
    spec's name (``nli``, ``sentiment_checklist``, a plug-in's); by default the spec of ``task``."""
    if requirements is None:
        return task_spec(task)
    path = Path(requirements)
    if path.exists() or len(path.parts) > 1 or path.suffix == ".json":
        return path
    return task_spec(str(requirements), "specification")


def load_spec(
    requirements: str | Path | None = None, task: str | None = None, *, data: dict[str, Any] | None = None
) -> Spec:
    """Load and check a spec file (see ``spec_path``), or the spec ``data`` given inline (``requirements``
    then names it in messages); ``task``, when given, must be the spec's task.

    A spec without the task header (inputs, labels, ...) takes it from the shipped
    ``requirements/<task>.json``."""
    path = spec_path(requirements, task or "sentiment") if data is None else Path(requirements or "<spec>")
    if data is None:
        data = load_json(path, "capability specification")
    _validate(path, data)
    if task is not None and data["task"] != task:
        raise InputError(f"{path}: $.task: specification is for task '{data['task']}', not '{task}'")
    header = {k: data[k] for k in ("task", *HEADER_KEYS) if k in data}
    if "labels" not in header and header.get("output") != "span":
        named = TASK_NAME.fullmatch(data["task"]) and data["task"] in TASKS  # a name, never a path
        base = Path(TASKS.get(data["task"])) if named else None
        if base is None or base.resolve() == path.absolute().resolve() or not base.is_file():
            raise InputError(
                f"{path}: $: no task definition: give 'inputs' and 'labels' (or 'output': 'span'), or use a "
                f"known task ({', '.join(TASKS.names())})"
            )
        base_data = load_json(base, "capability specification")
        header = {k: base_data[k] for k in ("task", *HEADER_KEYS) if k in base_data} | {
            k: v for k, v in header.items() if k != "task"
        }
    the_task = Task.from_spec(header)
    the_task.check(str(path))
    check_output(the_task, str(path))
    try:
        LANGUAGES.get(the_task.language)
    except InputError as e:
        raise InputError(f"{path}: $.language: {e}") from None
    context = _Context(path, the_task, data.get("lexicons", {}))
    capabilities = tuple(
        _capability(context, f"$.capabilities[{i}]", spec) for i, spec in enumerate(data["capabilities"])
    )
    seen: set[str] = set()
    for i, capability in enumerate(capabilities):
        if capability.id in seen:
            raise InputError(f"{path}: $.capabilities[{i}].id: duplicate capability id '{capability.id}'")
        seen.add(capability.id)
    return Spec(path, the_task, capabilities)


def load_capabilities(
    path: str | Path | None = None, task: str = "sentiment", only: Sequence[str] | None = None
) -> list[Capability]:
    """The capabilities of ``task`` (file order), or only those whose id (or original cid) is in ``only``."""
    return load_spec(path, task).select(only)


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = load_json(project_file(SCHEMA), "capability JSON schema")
    return jsonschema.Draft202012Validator(schema)


MAX_ERRORS = 20  # schema errors reported at once
MAX_DEPTH = 64  # a specification is a few levels deep; far deeper is a mistake (and would exhaust the stack)


def _validate(path: Path, data: Any) -> None:
    """Every fault of the file at once (up to ``MAX_ERRORS``), one per line, each with its JSON path."""
    from jsonschema.exceptions import best_match, relevance

    _check_depth(path, data)
    faults: list[tuple[str, str]] = []
    try:
        for error in sorted(_validator().iter_errors(data), key=relevance):
            error = best_match([error])  # the most specific reason under anyOf/oneOf
            faults.append((error.json_path, in_words(error)))
    except RecursionError:
        raise InputError(f"{path}: $: nested too deeply to validate") from None
    faults.extend(_length_faults(data))
    # "not valid under any of the given schemas" says less than the faults found inside the same record
    faults = [
        (where, message)
        for where, message in faults
        if not message.endswith("is not valid under any of the given schemas")
        or not any(other.startswith(where) and other_message != message for other, other_message in faults)
    ]
    if faults:
        faults = sorted(set(faults), key=lambda fault: _path_key(fault[0]))
        lines = [f"{path}: {where}: {message}" for where, message in faults[:MAX_ERRORS]]
        if len(faults) > MAX_ERRORS:
            lines.append(f"{path}: ... and {len(faults) - MAX_ERRORS} more error(s)")
        raise InputError("\n".join(lines))


def _path_key(json_path: str) -> list[tuple[int, Any]]:
    """Order JSON paths as the file reads: ``$.a[2]`` before ``$.a[10]``."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"[.\[\]]+", json_path) if p]


def _check_depth(path: Path, data: Any) -> None:
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"{path}: $: nested more than {MAX_DEPTH} levels deep; not a specification")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _length_faults(data: Any) -> list[tuple[str, str]]:
    """Length ranges that no text can satisfy (``min`` > ``max``), wherever a ``length`` is given."""
    faults = []
    stack = [(data, "$")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            bounds = value.get("length")
            if isinstance(bounds, dict):
                low, high = bounds.get("min"), bounds.get("max")
                if type(low) is int and type(high) is int and low > high:
                    faults.append((f"{where}.length", f"min {low} is greater than max {high}"))
            for key, child in value.items():
                stack.append((child, f"{where}.{key}" if re.fullmatch(r"\w+", key) else f"{where}[{key!r}]"))
        elif isinstance(value, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(value))
    return faults


def _as_set(value: str | list[str]) -> frozenset[str]:
    return frozenset([value] if isinstance(value, str) else value)


@dataclass(frozen=True, slots=True)
class _Context:
    """What building a capability needs to know: the file (for messages), its task and shared lexicons."""

    path: Path
    task: Task
    lexicons: dict[str, Any]

    @property
    def labels(self) -> frozenset[str]:
        return frozenset(self.task.labels)


def _check_labels(path: Path, where: str, used: frozenset[str], labels: frozenset[str]) -> None:
    if not used <= labels:
        bad = ", ".join(sorted(used - labels))
        known = ", ".join(sorted(labels))
        raise InputError(f"{path}: {where}: unknown label(s) {bad}; the task's labels: {known}")


def _regex(path: Path, where: str, source: str) -> re.Pattern[str]:
    try:
        return re.compile(source)
    except re.error as e:
        raise InputError(f"{path}: {where}: invalid regular expression {source!r} ({e})") from None


def _length(spec: dict[str, int] | None) -> Length | None:
    return Length(spec.get("min"), spec.get("max")) if spec else None


def _word_test(spec: dict[str, Any]) -> WordTest:
    if "words" in spec:
        return WordTest(words=frozenset(w.lower() for w in spec["words"]))
    polarities = _as_set(spec.get("polarity", ["positive", "negative", "neutral"]))
    pos = _as_set(spec.get("pos", ["adj", "noun", "verb", "adv"]))
    return WordTest(classes=frozenset((p, t) for p in polarities for t in pos))


def _predicates(context: _Context, where: str, spec: dict[str, Any]) -> Predicates:
    path, labels = context.path, context.labels
    group_labels = _as_set(spec["label"]) if "label" in spec else None
    if group_labels is not None and kind_of(context.task).expects_labels:
        _check_labels(path, f"{where}.label", group_labels, labels)
    field_name = spec.get("field", context.task.inputs[0])
    if field_name not in context.task.inputs:
        raise InputError(f"{path}: {where}.field: '{field_name}' is not an input of {context.task.inputs}")
    return Predicates(
        length=_length(spec.get("length")),
        labels=group_labels,
        include=tuple(_word_test(t) for t in spec.get("include", ())),
        exclude=tuple(_word_test(t) for t in spec.get("exclude", ())),
        pattern=_regex(path, f"{where}.pattern", spec["pattern"]) if "pattern" in spec else None,
        negated=spec.get("negated"),
        field=field_name,
        meta=tuple((column, _as_set(values)) for column, values in spec.get("meta", {}).items()),
    )


def _template(
    path: Path, where: str, spec: dict[str, Any], expected_labels: frozenset[str], labels: frozenset[str]
) -> Template:
    try:
        parsed = list(string.Formatter().parse(spec["format"]))
    except ValueError as e:
        raise InputError(f"{path}: {where}.format: {e}") from None
    fields = tuple(name for _, name, _, _ in parsed if name is not None)
    slots = spec.get("slots", {})
    for _, name, format_spec, conversion in parsed:
        if name is None:
            continue
        if format_spec or conversion or name not in (SEED_FIELD, FILLER_FIELD, *slots):
            known = {SEED_FIELD, *slots} | ({FILLER_FIELD} if "filler" in spec else set())
            declared = ", ".join(sorted(known))
            raise InputError(f"{path}: {where}.format: unknown field {{{name}}}; fields here: {declared}")
    for name, count in ((SEED_FIELD, 1), (FILLER_FIELD, 1 if "filler" in spec else 0)):
        if fields.count(name) != count:
            raise InputError(f"{path}: {where}.format: needs {{{name}}} exactly {count} time(s)")
    for name in slots:
        if fields.count(name) != 1:
            raise InputError(f"{path}: {where}.slots.{name}: slot must appear exactly once in the format")

    applies = _as_set(spec["labels"]) if "labels" in spec else expected_labels
    if not applies <= expected_labels:
        bad = ", ".join(sorted(applies - expected_labels))
        raise InputError(f"{path}: {where}.labels: no expectation for label(s) {bad}; add to 'expected'")

    seed = spec.get("seed", {})
    negate = None
    if "negate" in seed:
        negate_spec = seed["negate"]
        after = _regex(path, f"{where}.seed.negate.after", negate_spec["after"])
        negate = Negation(after, negate_spec.get("word", "not"))
    filler = None
    if "filler" in spec:
        filler_spec = spec["filler"]
        label = filler_spec["label"]
        pairs = tuple((s, label) for s in sorted(applies)) if isinstance(label, str) else tuple(label.items())
        _check_labels(path, f"{where}.filler.label", frozenset(lab for pair in pairs for lab in pair), labels)
        filler = Filler(
            pairs,
            _length(filler_spec.get("length")),
            filler_spec.get("count", 1),
            filler_spec.get("quote", False),
        )
    return Template(
        id=spec["id"],
        format=spec["format"],
        labels=applies,
        fields=fields,
        slots=tuple((name, tuple(slots[name])) for name in fields if name in slots),
        quote_seed=seed.get("quote", False),
        negate=negate,
        filler=filler,
    )


def _direction(context: _Context, where: str, spec: dict[str, Any]) -> dict[str, Any]:
    """DIR's expectation with the task's defaults filled in: a score P(plus) - P(minus) unless a label is
    named, tolerance 0."""
    used: set[str] = set()
    if "target" in spec:
        used = set(_as_set(spec["target"]))
        spec = {"target": sorted(used) if len(used) > 1 else next(iter(used))}
    else:
        spec = {"tolerance": 0.0, **spec}
        if "label" not in spec and "score" not in spec:
            if context.task.score is None:
                raise InputError(
                    f"{context.path}: {where}: name a 'label' or 'score'; the task declares no default score"
                )
            spec["score"] = {"plus": context.task.score[0], "minus": context.task.score[1]}
        used = {spec["label"]} if spec.get("label") else set()
        used |= set(spec.get("score", {}).values())
    _check_labels(context.path, where, frozenset(used), context.labels)
    return spec


def _capability(context: _Context, where: str, spec: dict[str, Any]) -> Capability:
    path, labels, task = context.path, context.labels, context.task
    expected = spec.get("expected", {})
    if spec["test_type"] == "MFT" and "search" in spec and not expected and kind_of(task).expects_labels:
        raise InputError(f"{path}: {where}: an MFT capability over dataset seeds needs 'expected'")
    for source, value in expected.items():
        _check_labels(path, f"{where}.expected.{source}", _as_set(value) | {source}, labels)
    expected_labels = frozenset(expected) if expected else labels
    transform = None
    if "transform" in spec:
        if len(task.inputs) != 1:
            raise InputError(f"{path}: {where}.transform: seed templates need a one-field task")
        variants = tuple(
            _template(path, f"{where}.transform.templates[{i}]", t, expected_labels, labels)
            for i, t in enumerate(spec["transform"]["templates"])
        )
        transform = Transform(variants, spec["transform"].get("max_variants"))
    templates: tuple[Any, ...] = ()
    if "templates" in spec:
        templates = compile_templates(spec, task, context.lexicons, f"{path}: {where}")
    perturb = None
    if "perturb" in spec:
        perturb = Part(spec["perturb"]["name"], dict(spec["perturb"].get("options", {})))
        check_options(perturb.name, perturb.options, task.inputs, f"{path}: {where}.perturb")
    return Capability(
        id=spec["id"],
        capability=spec["capability"],
        description=spec["description"],
        test_type=spec["test_type"],
        search=tuple(
            _predicates(context, f"{where}.search[{i}]", group)
            for i, group in enumerate(spec.get("search", ()))
        ),
        transform=transform,
        expected=tuple((source, tuple(v) if isinstance(v, list) else v) for source, v in expected.items()),
        spec=spec,
        templates=templates,
        perturb=perturb,
        source=Part(spec["source"]["name"], dict(spec["source"].get("options", {})))
        if "source" in spec
        else None,
        direction=_direction(context, f"{where}.direction", spec["direction"])
        if "direction" in spec
        else None,
    )


def default_task() -> Task:
    """The sentiment task (what a suite without a recorded task is)."""
    return load_spec(None, "sentiment").task
