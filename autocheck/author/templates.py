"""CheckList templates as data: cases written from scratch, placeholders filled from lexicons.

A capability's ``templates`` (see ``requirements/schema.json``) each give a format per input field of the
task, e.g. ``{"text": "{first_name} is {a:profession}."}`` or, for NLI, a ``premise`` and a ``hypothesis``
that share their placeholder values. A placeholder is ``{name}``, ``{name.attribute}`` or
``{function:...:name}``:

* ``name`` is a lexicon: one given inline (``lexicons`` of the template, the capability or the spec file:
  a list of words, ``{"from": shipped lexicon or file}``, or ``{"range": [min, max]}``), a shipped one
  (``data/lexicons/``: ``first_name``, ``male``, ``female``, ``last_name``, ``city``, ``country``,
  ``nationality``, ``religion``, ``profession``, ...), or ``year``/``number``. A trailing number makes a
  *numbered* placeholder of the same lexicon: ``{first_name1}`` and ``{first_name2}`` take distinct values.
  The same placeholder anywhere in a template (in any field) has the same value. ``{mask}`` is filled by
  the masked LM (``mask`` options: how many suggestions).
* ``.attribute`` reads an attribute of the chosen lexicon entry (``{city.country}``).
* functions, applied right to left: ``a`` (an article: "an engineer"), ``comparative``, ``superlative``,
  ``plural``, ``past``, ``cap`` (capitalised), and the WordNet relations ``antonym``, ``synonym``,
  ``hypernym`` (every related word gives its own case; none, no case).

``where`` conditions filter the fillings (``year1 < year2``, ``city.country != country``, ``city not in
country``: ``in`` is true when one entry names the other in an attribute, or for a value in a list literal);
they are Python-like expressions over placeholder names, parsed with ``ast`` and evaluated over a small,
fixed set of nodes (nothing is executed). Numbers compare as numbers. An attribute path of any depth reads
through an entry's JSON objects (``city.country.iso2 != "FR"`` for ``{"value": "Paris", "country":
{"iso2": "FR"}}``); a step that is missing, or a condition nested too deeply, is an error naming it.

Expectations: an MFT template's ``label`` is a label, a list of allowed labels, or a list of
``{"when": condition, "label": ...}`` tried in order (the last may have no ``when``); a question-answering
template's ``answer`` is one or more answers with placeholders. INV/DIR capabilities take their expectation
from the capability.

Fillings: every combination (the Cartesian product; one larger than ``max_cases`` is an error), the i-th
value of every placeholder together (``zip``), or a seeded sample of ``nsamples``. Conditions and
distinctness (``distinct``: of every placeholder) are enforced on every filling, never left to chance; a
template that no filling can meet is an error naming the file, capability and template.
"""

from __future__ import annotations

import ast
import itertools
import logging
import math
import re
import string
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..languages import LanguageProfile, language
from ..languages.lexicons import Entry, load_lexicon, shipped_lexicons
from ..outputs import kind_of
from ..records import SEED, TestCase
from ..store import InputError, content_hash, rng_for
from ..tasks import Task

log = logging.getLogger(__name__)

MASK = "mask"
TEMPLATE_KEYS = frozenset({"id", "label", "answer", "where", "lexicons", "nsamples", "distinct", "zip"})
BUILTIN_RANGES = {"year": (1950, 2020), "number": (2, 100)}
_PLACEHOLDER = re.compile(
    r"^(?:(?P<functions>[a-z_]+(?::[a-z_]+)*):)?(?P<key>[a-z_]+[0-9]*)(?:\.(?P<attr>\w+))?$"
)


@dataclass(frozen=True, slots=True)
class Slot:
    """One placeholder occurrence: ``functions`` applied (right to left) to ``key``'s value or attribute."""

    key: str
    functions: tuple[str, ...] = ()
    attr: str | None = None


Piece = str | Slot


@dataclass(frozen=True, slots=True)
class Template:
    id: str
    formats: tuple[tuple[str, tuple[Piece, ...]], ...]  # input field -> pieces
    keys: tuple[str, ...]  # placeholders filled from lexicons, in order of appearance
    lexicons: tuple[tuple[str, tuple[Entry, ...]], ...]  # key -> its entries
    conditions: tuple[tuple[str, ast.Expression], ...]  # (source text, parsed)
    label: Any  # MFT label / tuple of labels / ((condition or None, label), ...); None for INV/DIR
    answers: tuple[tuple[Piece, ...], ...] = ()  # question answering
    nsamples: int | None = None
    where: str = ""  # file, capability and template, for messages
    distinct: bool = False  # no two placeholders take the same value (CheckList's remove_duplicates)
    zipped: bool = False  # the i-th value of every placeholder together (CheckList's product=False)

    @property
    def combinations(self) -> int:
        return math.prod(len(entries) for _, entries in self.lexicons)


# -------------------------------------------------------------------------------------------- compiling


def compile_templates(
    spec: Mapping[str, Any], task: Task, shared: Mapping[str, Any], where: str
) -> tuple[Template, ...]:
    """The capability ``spec``'s templates, checked: fields, placeholders, lexicons, functions, conditions
    and labels. ``shared`` are the spec file's lexicons; ``where`` names the file and capability. A named
    lexicon is the task's language's (its profile's ``lexicons`` folder)."""
    labels = set(task.labels)
    profile = language(task.language)
    out = []
    for i, t in enumerate(spec["templates"]):
        here = f"{where}.templates[{i}] ('{t['id']}')"
        fields = {k: v for k, v in t.items() if k not in TEMPLATE_KEYS}
        if set(fields) != set(task.inputs):
            raise InputError(
                f"{here}: formats for {sorted(fields)}; the {task.name} task's input fields are "
                f"{list(task.inputs)}"
            )
        formats = tuple((name, _pieces(fields[name], f"{here}.{name}")) for name in task.inputs)
        answers: tuple[tuple[Piece, ...], ...] = ()
        unmark = getattr(kind_of(task), "unmark", None)
        if unmark is not None:  # the expectation is marked in the text: [{first_name}](PERSON)
            marked = {kind for text in fields.values() for *_, kind in unmark(text)[1]}
            if marked - labels:
                raise InputError(
                    f"{here}: entity type(s) {sorted(marked - labels)} are not the {task.name} task's "
                    f"types {list(task.labels)}"
                )
        elif not kind_of(task).expects_labels:
            if spec["test_type"] == "MFT" and "answer" not in t:
                raise InputError(f"{here}: a question-answering MFT template needs 'answer'")
            raw = t.get("answer", ())
            answers = tuple(_pieces(a, f"{here}.answer") for a in ([raw] if isinstance(raw, str) else raw))
        elif spec["test_type"] == "MFT" and "label" not in t:
            raise InputError(f"{here}: an MFT template needs 'label'")
        slots = [p for _, pieces in formats for p in pieces if isinstance(p, Slot)]
        slots += [p for pieces in answers for p in pieces if isinstance(p, Slot)]
        keys = tuple(dict.fromkeys(s.key for s in slots if s.key != MASK))
        lexicons = tuple((key, _lexicon(key, t, spec, shared, profile, here)) for key in keys)
        for slot in slots:
            _check_slot(slot, dict(lexicons), profile, here)
        conditions = tuple((c, _condition(c, keys, f"{here}.where")) for c in t.get("where", ()))
        label = None
        if spec["test_type"] == "MFT" and kind_of(task).expects_labels:
            label = _label(t["label"], keys, labels, f"{here}.label")
        out.append(
            Template(
                id=t["id"],
                formats=formats,
                keys=keys,
                lexicons=lexicons,
                conditions=conditions,
                label=label,
                answers=answers,
                nsamples=t.get("nsamples", spec.get("nsamples")),
                where=here,
                distinct=bool(t.get("distinct", False)),
                zipped=bool(t.get("zip", False)),
            )
        )
    ids = [t.id for t in out]
    if len(set(ids)) != len(ids):
        raise InputError(f"{where}.templates: template ids must differ, got {ids}")
    return tuple(out)


def _pieces(text: str, where: str) -> tuple[Piece, ...]:
    pieces: list[Piece] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as e:
        raise InputError(f"{where}: {e}") from None
    for literal, name, spec, conversion in parsed:
        if literal:
            pieces.append(literal)
        if name is None:
            continue
        full = name + (f":{spec}" if spec else "") + (f"!{conversion}" if conversion else "")
        match = _PLACEHOLDER.match(full)
        if match is None:
            raise InputError(f"{where}: placeholder {{{full}}} is not {{name}}, {{name.attr}} or {{fn:name}}")
        functions = tuple(match["functions"].split(":")) if match["functions"] else ()
        pieces.append(Slot(match["key"], functions, match["attr"]))
    return tuple(pieces)


def _lexicon(
    key: str, template: Mapping, capability: Mapping, shared: Mapping, profile: LanguageProfile, where: str
) -> tuple[Entry, ...]:
    """The entries of placeholder ``key``: the nearest inline definition of ``key`` or of its name without
    the number, then a shipped lexicon, then ``year``/``number``."""
    base = key.rstrip("0123456789")
    for name in (key, base):
        for scope in (template.get("lexicons", {}), capability.get("lexicons", {}), shared):
            if name in scope:
                return _entries(scope[name], profile, f"{where}: lexicon '{name}'")
    if base in BUILTIN_RANGES:
        low, high = BUILTIN_RANGES[base]
        return tuple(Entry(str(n)) for n in range(low, high + 1))
    try:
        return load_lexicon(base, profile.lexicons)
    except InputError:
        known = sorted({*shipped_lexicons(profile.lexicons), *BUILTIN_RANGES, *template.get("lexicons", {})})
        raise InputError(
            f"{where}: unknown placeholder {{{key}}}: no lexicon '{base}' (inline lexicons, or one of "
            f"{', '.join(known)})"
        ) from None


def _entries(definition: Any, profile: LanguageProfile, where: str) -> tuple[Entry, ...]:
    if isinstance(definition, dict) and "range" in definition:
        low, high = definition["range"]
        if low > high:
            raise InputError(f"{where}: range [{low}, {high}] is empty")
        return tuple(Entry(str(n)) for n in range(low, high + 1))
    if isinstance(definition, dict) and "from" in definition:
        return load_lexicon(definition["from"], profile.lexicons)
    entries = []
    for item in definition:
        if isinstance(item, str):
            entries.append(Entry(item))
        else:
            entries.append(Entry(item["value"], {k: v for k, v in item.items() if k != "value"}))
    if len({e.value for e in entries}) != len(entries):
        raise InputError(f"{where}: values repeat")
    return tuple(entries)


FUNCTIONS = (
    "a",
    "an",
    "cap",
    "comparative",
    "superlative",
    "plural",
    "past",
    "antonym",
    "synonym",
    "hypernym",
)
RELATIONS = {"antonym", "synonym", "hypernym"}
POS = ("adj", "verb", "noun", "adv")


def _rule(function: str) -> str:
    """The word rule (a language profile's ``words`` attribute) a template function applies."""
    return "article" if function in ("a", "an") else function + "s" if function in RELATIONS else function


def _check_slot(
    slot: Slot, lexicons: dict[str, tuple[Entry, ...]], profile: LanguageProfile, where: str
) -> None:
    unknown = [f for f in slot.functions if f not in FUNCTIONS]
    if unknown:
        raise InputError(
            f"{where}: unknown function '{unknown[0]}' in {{{slot.key}}}; known: {', '.join(FUNCTIONS)}"
        )
    lacking = [f for f in slot.functions if f != "cap" and not hasattr(profile.words, _rule(f))]
    if lacking:
        raise InputError(
            f"{where}: function '{lacking[0]}' in {{{slot.key}}}: the language profile '{profile.name}' has "
            f"no word rule '{_rule(lacking[0])}'"
        )
    if slot.key == MASK and (slot.attr or RELATIONS.intersection(slot.functions)):
        raise InputError(
            f"{where}: {{mask}} takes no attribute and no WordNet relation (functions such as "
            "{a:mask} apply to the word the masked LM chooses)"
        )
    if slot.attr and slot.key != MASK:
        missing = [e.value for e in lexicons[slot.key] if slot.attr not in e.attrs]
        if missing:
            raise InputError(
                f"{where}: {{{slot.key}.{slot.attr}}}: entry '{missing[0]}' has no '{slot.attr}'"
            )


_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare, ast.Name, ast.Load,
    ast.Attribute, ast.Constant, ast.List, ast.Tuple, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
    ast.In, ast.NotIn,
)  # fmt: skip


def _condition(source: str, keys: Sequence[str], where: str) -> ast.Expression:
    """A condition parsed and checked: only comparisons, and/or/not, placeholder names (case-insensitive),
    attributes of them and literals."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
        nodes = list(ast.walk(tree))
    except SyntaxError as e:
        raise InputError(f"{where}: cannot read condition {source!r} ({e.msg})") from None
    except (RecursionError, MemoryError):
        raise InputError(f"{where}: condition {source[:40]!r}... is nested too deeply to read") from None
    for node in nodes:
        if not isinstance(node, _ALLOWED_NODES):
            raise InputError(
                f"{where}: {source!r}: only comparisons, and/or/not, names and literals are allowed"
            )
        if isinstance(node, ast.Attribute) and not isinstance(_attribute_root(node), ast.Name):
            raise InputError(f"{where}: {source!r}: an attribute must follow a placeholder name")
        if isinstance(node, ast.Name) and node.id.lower() not in keys:
            raise InputError(
                f"{where}: {source!r}: '{node.id}' is not a placeholder of the template ({keys})"
            )
    return tree


def _attribute_root(node: ast.Attribute) -> ast.AST:
    """``city`` of ``city.country.iso2``."""
    root: ast.AST = node
    while isinstance(root, ast.Attribute):
        root = root.value
    return root


def _label(value: Any, keys: Sequence[str], labels: set[str], where: str) -> Any:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        rules = []
        for i, rule in enumerate(value):
            condition = _condition(rule["when"], keys, f"{where}[{i}].when") if "when" in rule else None
            rules.append((condition, _label(rule["label"], keys, labels, f"{where}[{i}].label")))
        return tuple(rules)
    allowed = {value} if isinstance(value, str) else set(value)
    if not allowed <= labels:
        raise InputError(
            f"{where}: unknown label(s) {sorted(allowed - labels)}; the task's labels: {sorted(labels)}"
        )
    return value if isinstance(value, str) else tuple(value)


# ---------------------------------------------------------------------------------------------- filling


class _Value:
    """A filled entry as conditions see it: compares as a number when both sides are numbers."""

    __slots__ = ("entry",)

    def __init__(self, entry: Entry):
        self.entry = entry

    def key(self) -> Any:
        try:
            return float(self.entry.value)
        except ValueError:
            return self.entry.value

    def names(self) -> set[str]:
        return {str(v) for v in self.entry.attrs.values() if isinstance(v, str | int)}


def _operand(node: ast.AST, values: dict[str, _Value]) -> Any:
    if isinstance(node, ast.Name):
        return values[node.id.lower()]
    if isinstance(node, ast.Attribute):
        return _Value(Entry(str(_attribute(node, values))))
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_operand(e, values) for e in node.elts]
    if isinstance(node, ast.BoolOp | ast.UnaryOp | ast.Compare):
        return _evaluate(node, values)
    raise TypeError(f"cannot evaluate {ast.unparse(node)!r}")  # _condition lets no other node through


def _attribute(node: ast.Attribute, values: dict[str, _Value]) -> Any:
    """``city.country.iso2``: each step reads a key of the entry's attributes, then of a nested object
    (a lexicon entry's attribute may be a JSON object); a step that is not there is a clean error."""
    path: list[str] = []
    root: ast.AST = node
    while isinstance(root, ast.Attribute):
        path.insert(0, root.attr)
        root = root.value
    if not isinstance(root, ast.Name):
        raise TypeError(f"cannot evaluate {ast.unparse(node)!r}")
    value: Any = values[root.id.lower()].entry.attrs
    for depth, attr in enumerate(path):
        if not isinstance(value, Mapping) or attr not in value:
            raise TypeError(f"no attribute '{'.'.join([root.id, *path[: depth + 1]])}'")
        value = value[attr]
    return value


def _plain(x: Any) -> Any:
    return x.key() if isinstance(x, _Value) else x


def _contains(left: Any, right: Any) -> bool:
    if isinstance(right, list):
        return _plain(left) in [_plain(r) for r in right]
    if isinstance(left, _Value) and isinstance(right, _Value):
        return right.entry.value in left.names() or left.entry.value in right.names()
    return str(_plain(left)) in str(_plain(right))


_COMPARE = {
    ast.Eq: lambda a, b: _plain(a) == _plain(b),
    ast.NotEq: lambda a, b: _plain(a) != _plain(b),
    ast.Lt: lambda a, b: _plain(a) < _plain(b),
    ast.LtE: lambda a, b: _plain(a) <= _plain(b),
    ast.Gt: lambda a, b: _plain(a) > _plain(b),
    ast.GtE: lambda a, b: _plain(a) >= _plain(b),
    ast.In: _contains,
    ast.NotIn: lambda a, b: not _contains(a, b),
}


def _evaluate(node: ast.AST, values: dict[str, _Value]) -> bool:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, values)
    if isinstance(node, ast.BoolOp):
        results = (_evaluate(v, values) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.UnaryOp):
        return not _evaluate(node.operand, values)
    if isinstance(node, ast.Compare):
        left = _operand(node.left, values)
        for op, right_node in zip(node.ops, node.comparators):
            right = _operand(right_node, values)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    return bool(_plain(_operand(node, values)))


def _holds(condition: ast.Expression, values: dict[str, _Value], where: str) -> bool:
    try:
        return bool(_evaluate(condition, values))
    except TypeError as e:  # e.g. "<" between a word and a number
        raise InputError(f"{where}: condition cannot compare these values ({e})") from None
    except RecursionError:
        raise InputError(f"{where}: condition is nested too deeply to evaluate") from None


def _valid(template: Template, choice: tuple[int, ...]) -> bool:
    """Numbered placeholders of one lexicon take distinct values, and every condition holds."""
    entries = {key: entries[i] for (key, entries), i in zip(template.lexicons, choice)}
    if template.distinct and len({e.value for e in entries.values()}) < len(entries):
        return False
    taken: dict[str, set[str]] = {}
    for key, entry in entries.items():
        if key[-1].isdigit():
            group = taken.setdefault(key.rstrip("0123456789"), set())
            if entry.value in group:
                return False
            group.add(entry.value)
    values = {key: _Value(entry) for key, entry in entries.items()}
    return all(_holds(c, values, f"{template.where}.where") for _, c in template.conditions)


def fillings(template: Template, seed: int, max_cases: int, capability: str = "") -> list[tuple[int, ...]]:
    """The chosen entry index of each placeholder, per filling: every valid combination in order, or a
    seeded sample of ``nsamples`` valid ones (in the order drawn). Errors name the template."""
    sizes = [len(entries) for _, entries in template.lexicons]
    if template.zipped and template.nsamples is None:
        return [c for c in ((i,) * len(sizes) for i in range(min(sizes, default=1))) if _valid(template, c)]
    total = template.combinations
    if template.nsamples is None and total > max_cases:
        raise InputError.hint(
            f"{template.where}: {total:,} combinations exceed {{limit}}; give the template 'nsamples', use "
            "smaller lexicons or raise the limit",
            limit=(f"max_cases={max_cases:,}", f"--max-cases {max_cases:,}"),
        )
    if template.nsamples is None or total <= 4 * template.nsamples:
        valid = [c for c in itertools.product(*map(range, sizes)) if _valid(template, c)]
        if not valid:
            raise InputError(f"{template.where}: no filling meets the conditions and distinct placeholders")
        if template.nsamples is not None and len(valid) < template.nsamples:
            log.warning(  # a small test: a 0 % failure rate over few cases says little
                "%s: only %d fillings exist, fewer than nsamples=%d; all are used",
                template.where,
                len(valid),
                template.nsamples,
            )
        if template.nsamples is None or len(valid) <= template.nsamples:
            return valid
        rng = rng_for(seed, f"{capability}/{template.id}/fillings")
        return [valid[i] for i in sorted(rng.choice(len(valid), template.nsamples, replace=False))]
    rng = rng_for(seed, f"{capability}/{template.id}/fillings")
    chosen: dict[tuple[int, ...], None] = {}
    attempts = 0
    while len(chosen) < template.nsamples and attempts < 100 * template.nsamples:
        attempts += 1
        choice = tuple(int(rng.integers(n)) for n in sizes)
        if choice not in chosen and _valid(template, choice):
            chosen[choice] = None
    if not chosen:
        raise InputError(
            f"{template.where}: no filling met the conditions in {attempts:,} seeded draws; check 'where'"
        )
    if len(chosen) < template.nsamples:
        log.warning(
            "%s: only %d of %d samples meet the conditions", template.where, len(chosen), template.nsamples
        )
    return list(chosen)


# ---------------------------------------------------------------------------------------------- rendering


def _apply(functions: tuple[str, ...], value: str, words: Any) -> list[str]:
    """The words ``functions`` (right to left) make of ``value`` by the word rules ``words`` (a language
    profile's); relations may give several or none."""
    out = [value]
    for name in reversed(functions):
        step: list[str] = []
        for v in out:
            if name == "cap":
                step.append(v[:1].upper() + v[1:])
            elif name in RELATIONS:  # the first part of speech WordNet relates the word in
                relate = getattr(words, _rule(name))
                step.extend(next((found for pos in POS if (found := relate(v, pos))), []))
            else:
                result = getattr(words, _rule(name))(v)
                step.extend([result] if result else [])
        out = list(dict.fromkeys(step))
    return out


def _render(pieces: tuple[Piece, ...], entries: dict[str, Entry], mask: str, words: Any) -> list[str]:
    """Every text the pieces make with these entries (several when a relation gives several words)."""
    options: list[list[str]] = []
    for piece in pieces:
        if isinstance(piece, str):
            options.append([piece])
        elif piece.key == MASK:  # a marker holding the functions to apply to the word chosen for it
            options.append([mask and f"{mask}{':'.join(piece.functions)}\x03"])
        else:
            entry = entries[piece.key]
            value = str(entry.attrs[piece.attr]) if piece.attr else entry.value
            options.append(_apply(piece.functions, value, words) if piece.functions else [value])
    return ["".join(parts) for parts in itertools.product(*options)]


def _expected(template: Template, values: dict[str, _Value]) -> Any:
    if not (isinstance(template.label, tuple) and template.label and isinstance(template.label[0], tuple)):
        return template.label
    for condition, label in template.label:
        if condition is None or _holds(condition, values, f"{template.where}.label"):
            return label
    return None


@dataclass
class TemplateCases:
    """The cases of one capability's templates: fillings chosen now (errors before any model loads),
    texts rendered when ``cases`` is iterated."""

    capability: Any
    task: Task
    chosen: list[tuple[Template, list[tuple[int, ...]]]]

    @property
    def size(self) -> int:
        return sum(len(f) for _, f in self.chosen)

    def cases(self, mlm: Any = None, top: int | None = None) -> Iterator[TestCase]:
        """Every filled template as a case, in template and filling order; ``{mask}`` is filled with the
        masked LM ``mlm``: an ``expand.mlm.MaskedLM``, or a function of no argument that loads one (called on
        first need). The caller loads it: authoring sits below the expansion, whose masked LM it borrows."""
        capability, task = self.capability, self.task
        top = top or capability.spec.get("mask", {}).get("top", 10)
        unmark = getattr(kind_of(task), "unmark", None)  # a kind whose expectation is marked in the text
        words = language(task.language).words  # the word rules template functions apply
        seen: set[str] = set()  # two fillings may write the same text
        for template, choices in self.chosen:
            for choice in choices:
                entries = {key: entries[i] for (key, entries), i in zip(template.lexicons, choice)}
                values = {key: _Value(e) for key, e in entries.items()}
                rendered = [_render(pieces, entries, "\0", words) for _, pieces in template.formats]
                variants = list(itertools.product(*rendered))
                if any("\0" in text for variant in variants for text in variant):
                    mlm = _masked_lm(mlm, capability.id, template.id)
                    variants = _fill_masks(variants, mlm, top, words)
                expected = capability.expected_for(None)
                if capability.test_type == "MFT" and unmark is None:  # marked: per variant, below
                    if not kind_of(task).expects_labels:
                        expected = tuple(
                            dict.fromkeys(
                                a for pieces in template.answers for a in _render(pieces, entries, "", words)
                            )
                        )
                    else:
                        expected = _expected(template, values)
                    if expected is None:
                        continue  # no label rule matched this filling
                slots = {key: entry.value for key, entry in entries.items()}
                # where a name comes from (the person_origin lexicon): reports tally failures by origin
                origins = sorted({str(e.attrs["origin"]) for e in entries.values() if "origin" in e.attrs})
                for variant in variants:
                    label: Any = expected if isinstance(expected, str) else ""
                    # a marked text: the text without its markup, the entities where the words are
                    if unmark is not None:
                        text, label = unmark(variant[0])
                        variant = (text,)
                        expected = label if capability.test_type == "MFT" else expected
                    case_id = f"{capability.id}-{content_hash(template.id, *variant)}"
                    if case_id in seen:
                        continue
                    seen.add(case_id)
                    inputs = dict(zip(task.inputs, variant))
                    yield TestCase(
                        id=case_id,
                        capability=capability.id,
                        kind=SEED,
                        inputs=inputs,
                        expected=expected,
                        test_type=capability.test_type,
                        label=label,
                        provenance={
                            "template": template.id,
                            "slots": slots,
                            **({"origin": origins[0]} if len(origins) == 1 else {}),
                        },
                    )


def template_cases(capability: Any, task: Task, seed: int, *, max_cases: int = 100_000) -> TemplateCases:
    """Choose the fillings of ``capability``'s templates (see ``TemplateCases``); sampling is the spec's
    (``nsamples`` of a template or its capability)."""
    return TemplateCases(
        capability, task, [(t, fillings(t, seed, max_cases, capability.id)) for t in capability.templates]
    )


def _masked_lm(mlm: Any, capability: str, template: str) -> Any:
    """``mlm`` loaded: a masked LM as it is, a loader called."""
    if mlm is None:
        raise InputError(f"{capability}: template {template} has a {{mask}}, and no masked LM was given")
    return mlm if hasattr(mlm, "suggest_texts") else mlm()


_MASK_MARK = re.compile("\0([a-z:]*)\x03")


def _articles(text: str) -> tuple[str, ...]:
    """The articles to ask the masked LM with: an ``{a:mask}`` is asked as "a [MASK]" and as "an [MASK]"
    (as CheckList does), so words of either kind are suggested."""
    marks = (m.split(":") for m in _MASK_MARK.findall(text))
    return ("a ", "an ") if any({"a", "an"} & set(m) for m in marks) else ("",)


def _fill_masks(variants: list[tuple[str, ...]], mlm: Any, top: int, words: Any) -> list[tuple[str, ...]]:
    """Each variant with its masks filled by the masked LM's best whole words (jointly over all masks of
    the variant's fields, which are read as one text), the mask's functions applied to each word."""
    joiner = "\n"
    texts = [joiner.join(v) for v in variants]
    queries = [
        (i, _MASK_MARK.sub(lambda _, a=article: a + mlm.tokenizer.mask_token, text))  # type: ignore[misc]
        for i, text in enumerate(texts)
        for article in _articles(text)
    ]
    found = mlm.suggest_texts([q for _, q in queries], beam_size=max(top, 20), top_n=top)
    best: list[dict[tuple[str, ...], float]] = [{} for _ in texts]
    for (i, _), suggestions in zip(queries, found):
        for filled, score in suggestions:
            key = tuple(filled)
            best[i][key] = max(score, best[i].get(key, -math.inf))
    out: list[tuple[str, ...]] = []
    for text, scores in zip(texts, best):
        ranked = list(scores) if len(_articles(text)) == 1 else sorted(scores, key=lambda w: -scores[w])
        out += [tuple(_put_words(text, chosen, words).split(joiner)) for chosen in ranked[:top]]
    return list(dict.fromkeys(out))


def _put_words(text: str, chosen: tuple[str, ...], words: Any) -> str:
    """``text`` with its mask markers replaced by the ``chosen`` words in order, each mask's functions
    applied by the word rules ``words``."""
    each = iter(chosen)
    return _MASK_MARK.sub(
        lambda m: _apply(tuple(m[1].split(":")) if m[1] else (), next(each), words)[0], text
    )
