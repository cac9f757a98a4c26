"""One JSON Schema per kind of file autocheck reads back, checked as the file is read, so that no table,
page or comparison past the reader ever sees a value of the wrong type.

A problem is one ``InputError`` naming the file, the line (JSON Lines) and the field. In a JSON Lines file
a record whose id comes again with other values is an error naming both lines; an identical repeat is
counted, skipped and announced (one warning line).

The suite's cases are checked by ``records.TestCase.from_json`` (and against the task), with the same
kind of message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Hashable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from .store import InputError, content_hash, dumps, numbered_jsonl

log = logging.getLogger(__name__)
T = TypeVar("T")

_TEXT = {"type": "string"}
_TEXT_OR_NULL = {"type": ["string", "null"]}
_OBJECT = {"type": "object"}
_OBJECTS = {"type": "object", "additionalProperties": _OBJECT}  # id -> description

# a suite's manifest.json (suite.SuiteWriter.finish, checklist.convert_checklist, api.Suite.save)
SUITE_MANIFEST = {
    "type": "object",
    "properties": {
        "kind": _TEXT,
        "name": _TEXT,
        "source": _TEXT,
        "fingerprint": _TEXT,
        "task": _OBJECT,
        "capabilities": _OBJECTS,
        "tests": _OBJECTS,
        "counts": _OBJECT,
        "empty": {"type": "object", "additionalProperties": _TEXT},  # capability -> why it has no case
        "dataset": _OBJECT,
        "files": {"type": ["object", "array"]},
    },
}

# a run's manifest.json (run.run_suite): where each model's answers came from
RUN_MANIFEST = {
    "type": "object",
    "required": ["models"],
    "properties": {
        "models": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["inputs", "from_cache", "reused_across_runs"],
                "properties": {
                    "inputs": {"type": "integer", "minimum": 0},
                    "from_cache": {"type": "integer", "minimum": 0},
                    "reused_across_runs": {"type": "boolean"},
                },
            },
        }
    },
}

# a line of a run's predictions.jsonl (run._row): one case judged for one model
PREDICTION_ROW = {
    "type": "object",
    "required": ["case", "capability", "model", "outcome"],
    "properties": {
        "case": _TEXT,
        "capability": _TEXT,
        "model": _TEXT,
        "kind": _TEXT,
        "seed": _TEXT_OR_NULL,
        "outcome": {"enum": ["pass", "fail", "n/a", "error"]},
        "inv": {"enum": ["pass", "fail", "n/a", "error", None]},
        "reason": _TEXT,
        "error": _TEXT,
        "probs": {"type": "array", "items": {"type": "number"}},
        "label": {"type": ["string", "array"], "items": _TEXT},
        "answer": _TEXT,
        "score": {"type": "number"},
    },
}

# a run's results.json (run.run_suite); "x-what" says in words what a field must be, for the message.
# That a tally's failures <= applicable <= cases is checked by its reader (report.summary.load_results).
_COUNT = {"type": "integer", "minimum": 0, "x-what": "a whole number of at least 0"}
_RATE = {"type": ["number", "null"], "minimum": 0, "maximum": 1, "x-what": "a rate between 0 and 1 (or null)"}
_COUNTS = {
    "type": "object",
    "patternProperties": {"rate$": _RATE},
    "additionalProperties": _COUNT,
    "x-what": "an object of counts",
}
_TALLY = {**_COUNTS, "required": ["cases", "applicable", "failures"]}
_NAMES = {"type": "array", "items": _TEXT, "x-what": "a list of names"}
_CAPABILITY = {
    "type": "object",
    "required": ["test_type", "all"],
    "properties": {
        "test_type": {"type": "string", "x-what": "text (MFT, INV or DIR)"},
        **{tally: _TALLY for tally in ("seeds", "expansions", "perturbations", "all", "groups")},
        "transitions": _COUNTS,
        "inv": _COUNTS,
    },
    "patternProperties": {"rate$": _RATE},
    "additionalProperties": _COUNTS,
    "x-what": "a results table",
}
RESULTS = {
    "type": "object",
    "required": ["models"],
    "properties": {
        "suite": {
            "type": "object",
            # the manifest is null for a suite without one (cases written by hand)
            "properties": {
                "cases": _COUNT,
                "inputs": _COUNT,
                "dir": _TEXT,
                "manifest": {**SUITE_MANIFEST, "type": ["object", "null"]},
            },
        },
        "files": _OBJECT,
        "environment": _OBJECT,
        "task": {
            "type": "object",
            "properties": {
                "task": _TEXT,
                "inputs": _NAMES,
                "labels": _NAMES,
                "binary": {
                    "type": "object",
                    "required": ["labels", "neutral"],
                    "properties": {
                        "labels": {**_NAMES, "minItems": 2, "maxItems": 2},
                        "neutral": _TEXT,
                        "band": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                    },
                },
            },
        },
        "models": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["capabilities"],
                "properties": {
                    "identity": _TEXT,
                    "labels": {"type": "array", "x-what": "a list of labels"},
                    "errors": _COUNT,
                    "first_error": _TEXT,
                    "not_applicable": {"type": "object", "additionalProperties": _TEXT},
                    "overall": _COUNTS,
                    "capabilities": {"type": "object", "additionalProperties": _CAPABILITY},
                },
            },
        },
    },
}


def _state(counts: tuple[str, ...], **more: Any) -> dict[str, Any]:
    """A state.json (suite.SuiteWriter.checkpoint): where an interrupted job resumes, with its counts per
    capability (``counts``) and ``more`` required fields."""
    return {
        "type": "object",
        "required": ["fingerprint", "chunks", "offset", "counts", *more],
        "properties": {
            "fingerprint": _TEXT,
            "chunks": _COUNT,
            "offset": _COUNT,
            "counts": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": dict.fromkeys(counts, _COUNT),
                    "additionalProperties": False,
                },
            },
            **more,
        },
    }


_CAPABILITY_COUNTS = (
    "seeds",
    "seed_cases",
    "perturbations",
    "parsed",
    "masked_templates",
    "candidates",
    "expansions",
)
RESUME_STATE = _state(_CAPABILITY_COUNTS, rejected={"type": "object", "additionalProperties": _COUNT})
# a fuzz's counts are its search's (fuzz.FuzzCounts)
FUZZ_COUNTS = (
    "seeds",
    "already_failing",
    "broken",
    "failures",
    "near_misses",
    "no_candidate",
    "exhausted",
    "out_of_queries",
    "queries",
    "errors",
)
FUZZ_STATE = _state(FUZZ_COUNTS)

_WORDS = {
    "string": "a text",
    "array": "a list",
    "object": "an object",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "null": "null",
}


SCHEMAS = {
    "suite manifest": SUITE_MANIFEST,
    "run manifest": RUN_MANIFEST,
    "results": RESULTS,
    "prediction": PREDICTION_ROW,
    "resume state": RESUME_STATE,
    "fuzz resume state": FUZZ_STATE,
}


@cache
def _validator(kind: str) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(SCHEMAS[kind])


def shown(value: Any) -> str:
    """A value as a message quotes it: JSON, cut to 40 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def in_words(error: Any) -> str:
    """A ``jsonschema`` error as autocheck words it, after the field it is about: what the field must be
    and what it is (``must be a text, not 3``), the field missing, or the fields not known."""
    what = error.schema.get("x-what") if isinstance(error.schema, dict) else None
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return f"field{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))} missing"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        unknown = [k for k in error.instance if k not in known]
        return f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
    if what:
        return f"must be {what}, not {shown(error.instance)}"
    if error.validator == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"must be {' or '.join(_WORDS[t] for t in types)}, not {shown(error.instance)}"
    if error.validator == "enum":
        allowed = ", ".join(shown(v) for v in error.validator_value)
        return f"must be one of {allowed}, not {shown(error.instance)}"
    return str(error.message)


def problem(kind: str, record: Any) -> str | None:
    """The first way ``record`` breaks the schema of ``kind`` (a name in ``SCHEMAS``), in words naming the
    field; None when it fits."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(kind).iter_errors(record))
    if error is None:
        return None
    field = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required":
        return f"field '{field}': {in_words(error)}" if field else in_words(error)
    return f"{f'field {field!r}' if field else 'the record'} {in_words(error)}"


def check(kind: str, record: Any, where: str | Path) -> Any:
    """``record`` when it fits the schema of ``kind``, else an ``InputError`` naming ``where``, field."""
    why = problem(kind, record)
    if why is not None:
        raise InputError(f"{where}: {why}")
    return record


def read_records(
    path: str | Path, kind: str, read: Callable[[dict[str, Any], str], T], key: Callable[[T], Hashable]
) -> Iterator[T]:
    """The records of a JSON Lines file of ``kind``, each checked and converted by ``read(record, where)``;
    ``key`` is a record's id. A conflicting repeat of an id is an error naming both lines; an identical
    repeat is skipped, and the number skipped is announced once the file is read."""
    seen: dict[Hashable, tuple[int, str]] = {}
    repeats = 0
    for lineno, raw in numbered_jsonl(path):
        record = read(raw, f"{path}:{lineno}")
        digest = content_hash(dumps(raw))
        first = seen.setdefault(key(record), (lineno, digest))
        if first[0] == lineno:
            yield record
        elif first[1] != digest:
            raise InputError(
                f"{path}:{lineno}: {kind} {key(record)!r} again, with other values than on line {first[0]}; "
                "keep one of the two lines"
            )
        else:
            repeats += 1
    if repeats:
        log.warning("%s: %d identical repeated line(s) skipped (each %s counted once)", path, repeats, kind)


def read_checked(
    path: str | Path, kind: str, key: Callable[[dict[str, Any]], Hashable]
) -> Iterator[dict[str, Any]]:
    """``read_records`` of a file whose records are checked against the schema of ``kind``."""
    return read_records(path, kind, lambda record, where: check(kind, record, where), key)
