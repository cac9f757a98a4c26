"""Output kinds: what a task's models answer (``kind.OutputKind``, the protocol a new kind implements).

``label`` (a classifier), ``span`` (extractive question answering) and ``entities`` (named-entity
recognition) are autocheck's; a plug-in package adds one through the entry-point group
``autocheck.outputs``, named in a task's ``"output"``::

    [project.entry-points."autocheck.outputs"]
    count = "my_plugin:CountKind"   # a class (or an instance) implementing OutputKind

Every other module reaches a task's kind through ``kind_of(task)``; a model form with formats of its own
(files, HTTP replies) maps the kinds it reads to its readers with ``for_output``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from ..registry import Registry
from ..store import InputError
from ..tasks import Task
from .entities import EntitiesKind
from .kind import ERROR, FAIL, LABEL_ONLY, NA, PASS, Answering, OutputKind, Outputs, allowed, answered
from .label import LabelKind
from .span import SpanKind

OUTPUT_KINDS: Registry[OutputKind | type[OutputKind]] = Registry("outputs", "output kind")
OUTPUT_KINDS.register("label", LabelKind())
OUTPUT_KINDS.register("span", SpanKind())
OUTPUT_KINDS.register("entities", EntitiesKind())

__all__ = [
    "ERROR",
    "FAIL",
    "LABEL_ONLY",
    "NA",
    "PASS",
    "Answering",
    "OutputKind",
    "Outputs",
    "allowed",
    "answered",
]
__all__ += ["OUTPUT_KINDS", "check_output", "for_output", "kind_of"]
T = TypeVar("T")


def for_output(form: str, task: Task, parts: Mapping[str, T]) -> T:
    """What a model form (``form``) does for ``task``'s output kind: ``parts`` maps the kinds the form
    reads (its own formats: a predictions file's lines, an HTTP reply) to it; any other kind is an error
    naming them."""
    if task.output not in parts:
        raise InputError(
            f"{form} reads {' or '.join(parts)} answers; the {task.name} task's output is {task.output!r}"
        )
    return parts[task.output]


def check_output(task: Task, where: str) -> None:
    """That ``task``'s output names a known kind and its header suits it; errors name ``where``."""
    try:
        kind = kind_of(task)
    except InputError as e:
        raise InputError(f"{where}: $.output: {e}") from None
    kind.check_task(task, where)


def kind_of(task: Task) -> OutputKind:
    """The output kind of ``task`` (its ``output``; a plug-in's class is instantiated, as kinds hold no
    state)."""
    part = OUTPUT_KINDS.get(task.output)
    return part() if isinstance(part, type) else part
