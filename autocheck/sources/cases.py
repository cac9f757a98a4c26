"""Case sources: where a capability's test cases come from, one registered part each (``SOURCES``).

A capability's cases come from a chain of sources (``chain``): its first source, then ``perturb`` when it
names a perturbation. Each source is called as ``source(capability, context, cases, **options)`` and
yields typed ``TestCase`` records in a deterministic order (the same ``context.seed``, the same cases);
``cases`` are the previous source's (none for the first), ``options`` the spec's ``source.options``.

Built-ins: ``search`` (the dataset search's seeds, each its own case), ``transform`` (those seeds through
the capability's seed templates, ALiCT's LC1-LC10), ``templates`` (CheckList templates filled from
lexicons) and ``perturb`` (each case as the INV/DIR original, then its perturbed copies). A spec names
any other source, autocheck's or a plug-in's (entry-point group ``autocheck.sources``), with
``"source": {"name": ..., "options": {...}}`` in place of ``search`` or ``templates``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..author.perturbed import perturbed_cases
from ..author.templates import TemplateCases
from ..languages import language
from ..records import Example, TestCase
from ..registry import Registry, check_keywords
from ..requirements import Capability
from ..store import InputError
from ..tasks import Task
from .transform import DrawnFillers, transform


@dataclass(frozen=True)
class SourceContext:
    """What sources share in one generation: the task, the run's settings that shape cases, and what the
    generation prepared once for every capability (the dataset search's seeds and filler pools, the
    templates' chosen fillings)."""

    task: Task
    seed: int
    compat: bool = False
    max_variants: int | None = None
    mlm: Any = None  # fills a template's {mask}: an ``expand.mlm.MaskedLM``, or a function that loads one
    selected: Mapping[str, Sequence[Example]] | None = None  # capability id -> its searched seeds
    pools: DrawnFillers | None = None
    written: Mapping[str, TemplateCases] | None = None  # capability id -> its templates' fillings


CaseSource = Callable[..., Iterable[TestCase]]  # (capability, context, cases, **options) -> cases

SOURCES: Registry[CaseSource] = Registry("sources", "case source")


def first_source(capability: Capability) -> str:
    """The name of the source of a capability's own cases (before any perturbation)."""
    if capability.source is not None:
        return capability.source.name
    if capability.templates:
        return "templates"
    return "transform" if capability.transform else "search"


def chain(capability: Capability) -> list[str]:
    """The names of the sources a capability's cases pass through, in order."""
    return [first_source(capability)] + (["perturb"] if capability.perturb else [])


def check_source(capability: Capability, where: str) -> None:
    """A case source no registry holds, or options its source does not take or needs, are an error naming
    ``where`` (the spec and capability), before any work."""
    if capability.source is not None:
        name = capability.source.name
        try:
            source = SOURCES.get(name)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        check_keywords(source, capability.source.options, f"{where}: case source '{name}'")


def capability_cases(capability: Capability, context: SourceContext) -> Iterable[TestCase]:
    """The capability's cases, through its chain of sources."""
    cases: Iterable[TestCase] = ()
    options = capability.source.options if capability.source else {}
    for i, name in enumerate(chain(capability)):
        cases = SOURCES.get(name)(capability, context, cases, **(options if i == 0 else {}))
    return cases


@SOURCES.register("search")
def search(capability: Capability, context: SourceContext, cases: Iterable[TestCase]) -> Iterable[TestCase]:
    """The dataset search's seeds of the capability, each as one seed case."""
    return _searched(capability, context)


@SOURCES.register("transform")
def transformed(
    capability: Capability, context: SourceContext, cases: Iterable[TestCase]
) -> Iterable[TestCase]:
    """The dataset search's seeds through the capability's seed templates (fillers drawn from the dataset's
    pools, by label)."""
    return _searched(capability, context)


def _searched(capability: Capability, context: SourceContext) -> Iterable[TestCase]:
    # ``transform`` shapes a seed by the capability's templates, or as it is when it has none
    assert context.selected is not None and context.pools is not None  # the generation searched
    return transform(
        capability,
        context.selected[capability.id],
        context.pools,
        context.seed,
        max_variants=context.max_variants,
        compat=context.compat,
    )


@SOURCES.register("templates")
def templates(
    capability: Capability, context: SourceContext, cases: Iterable[TestCase]
) -> Iterable[TestCase]:
    """The capability's CheckList templates, filled (fillings chosen by the generation, before any model)."""
    assert context.written is not None
    return context.written[capability.id].cases(mlm=context.mlm)


@SOURCES.register("perturb")
def perturb(capability: Capability, context: SourceContext, cases: Iterable[TestCase]) -> Iterable[TestCase]:
    """Each case as the INV/DIR original, followed by its copies under the capability's perturbation."""
    return perturbed_cases(capability, cases, context.seed, language(context.task.language))
