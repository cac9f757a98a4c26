"""Perturbation capabilities: every source case and its perturbed versions, as one INV/DIR test each.

The perturbation functions themselves are in ``perturb.py`` (one plain function each). A source case that
a perturbation cannot change (no name to replace, no negation to remove) is left out, as CheckList leaves
out items without perturbations; the number left out is logged.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ..outputs.entities import carry
from ..records import PERTURBATION, SEED, TestCase
from ..store import InputError, rng_for

log = logging.getLogger(__name__)


def check_perturbation(name: str, options: dict[str, Any], inputs: Sequence[str], where: str) -> None:
    """A clear error for an unknown perturbation, option or input field, before anything runs."""
    from .perturb import PERTURBATIONS

    if name not in PERTURBATIONS:
        raise InputError(
            f"{where}.name: unknown perturbation '{name}'; known: {', '.join(sorted(PERTURBATIONS))}"
        )
    parameters = inspect.signature(PERTURBATIONS[name]).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    accepted = [n for n, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = [o for o in options if o not in accepted and not takes_any]
    if unknown:
        raise InputError(f"{where}.options: '{name}' takes no option '{unknown[0]}' (options: {accepted})")
    fields = options.get("fields")
    if fields is not None and not set(fields) <= set(inputs):
        raise InputError(f"{where}.options.fields: {fields} are not all input fields of {list(inputs)}")


def perturbed_cases(capability: Any, cases: Iterable[TestCase], seed: int) -> Iterator[TestCase]:
    """Each case of ``cases`` (as the capability's INV/DIR original) followed by its perturbations."""
    from .perturb import perturb

    name, options = capability.perturb.name, capability.perturb.options
    left_out = 0
    for case in cases:
        rng = rng_for(seed, f"{capability.id}/{case.id}/{name}")
        changed = [p for p in perturb(name, case.inputs, rng, **options) if p.inputs != case.inputs]
        if not changed:
            left_out += 1
            continue
        expected = capability.expected_for(case.label)
        yield replace(case, kind=SEED, expected=expected, test_type=capability.test_type)
        for k, p in enumerate(changed, 1):
            label = case.label
            if label and all(isinstance(e, tuple) for e in label):  # NER: the entities move with the edits
                field = next(iter(case.inputs))
                label = carry(label, p.change.get("edits", ()), field) or ""  # type: ignore[arg-type, assignment]
            yield TestCase(
                id=f"{case.id}~{k}",
                capability=case.capability,
                kind=PERTURBATION,
                inputs=p.inputs,
                expected=expected,
                test_type=capability.test_type,
                label=label,
                seed_id=case.id,
                provenance={**case.provenance, "perturbation": p.change},
            )
    if left_out:
        log.info("%s: %d source case(s) left out: '%s' does not apply to them", capability.id, left_out, name)
