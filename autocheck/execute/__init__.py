"""Executors: how units of work are scheduled (this process, N processes, a Ray cluster), for ``generate``
and ``fuzz`` (units of seed cases to expand) and ``run`` (batches of inputs to predict). An executor changes
how the work is scheduled, never what it computes: each unit is computed by the same function whatever
runs it and results are taken in order, so the same ``--seed`` gives the same bytes.

An executor is one registered part (``EXECUTORS``): a class built with ``workers``, ``address`` and
``actors`` (each executor uses those it understands) that has ``map``, ``predictor`` and ``close``, and
may have ``prepare(work)``, which starts its processes for ``work`` before the first unit (``fuzz`` calls
it before loading its target model). ``map(work, units)`` is a generic ordered map: ``work.step(state,
unit)`` for each unit, results in unit order, where each process's ``state`` is built once by
``work.start(*work.setup)`` (its models load there); the processes may serve later maps of the same work.
The unit loop around it (cutting chunks into units, answering cached units here, merging each chunk's
results, telling progress) is ``expand_chunks``, one loop for every executor. A plug-in adds an executor
through the entry-point group ``autocheck.executors``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from ..expand.checkpoint import preload_modules
from ..expand.job import ChunkResult, expand_unit, start_expander, units
from ..registry import Registry
from .local import LocalExecutor
from .ray import RayExecutor
from .work import Work

if TYPE_CHECKING:
    from ..expand.job import Expander
    from ..records import TestCase

Batches = Callable[[Iterable[list[Any]]], Iterator[list[Any]]]
OnUnit = Callable[[int, int], None]  # (units of the chunk done, units of the chunk): progress inside a chunk


class Executor(Protocol):
    def map(self, work: Work, units: Iterable[Any]) -> Iterator[Any]:
        """``work.step(state, unit)`` for each unit, in unit order; units are drawn only as results are
        taken (a bounded number ahead), so memory does not grow with their number."""
        ...

    def predictor(self, model: Any) -> Batches | None:
        """What answers ``model``'s batches of inputs in order (``Model.predict``'s ``compute``), or None
        when this process predicts itself."""
        ...

    def close(self) -> None: ...


EXECUTORS: Registry[Callable[..., Executor]] = Registry("executors", "executor")


def make_executor(
    name: str, *, workers: int = 1, address: str | None = None, actors: int | None = None
) -> Executor:
    """The executor registered as ``name``, built with the scheduling options."""
    return EXECUTORS.get(name)(workers=workers, address=address, actors=actors)


def expand_chunks(
    executor: Executor, chunks: Iterable[list[TestCase]], expander: Expander, on_unit: OnUnit | None = None
) -> Iterator[tuple[list[TestCase], ChunkResult]]:
    """``(chunk, its result)`` for each chunk, in chunk order: each chunk is cut into ``expand.job.units``,
    a unit in the chunk cache is answered here (so a fully cached rerun starts no worker and loads no
    model), the others are expanded by ``executor.map``, and ``on_unit`` is told as each unit's result is
    taken."""
    source = iter(chunks)
    drawn: deque[tuple[list[TestCase], list[ChunkResult | None]]] = deque()  # chunks drawn, not yet yielded
    queued: deque[list[TestCase]] = deque()  # their units to compute, not yet taken by the map

    def draw() -> bool:
        chunk = next(source, None)
        if chunk is None:
            return False
        parts = units(chunk, expander.config.unit_size)
        found = [expander.cached(unit) for unit in parts]
        drawn.append((chunk, found))
        queued.extend(unit for unit, result in zip(parts, found) if result is None)
        return True

    def uncached() -> Iterator[list[TestCase]]:
        # the map reads ahead: it draws chunks as it needs units (a run of cached chunks among them is
        # held until the loop reaches it; a fully cached rerun draws here, below, and never calls the map)
        while queued or draw():
            if queued:
                yield queued.popleft()

    computed = executor.map(expansion_work(expander), uncached())
    try:
        while drawn or draw():
            chunk, found = drawn.popleft()
            results: list[ChunkResult] = []
            for result in found:
                results.append(result if result is not None else next(computed))
                if on_unit is not None:
                    on_unit(len(results), len(found))
            yield chunk, ChunkResult.merge(results)
    finally:
        getattr(computed, "close", lambda: None)()  # a pool or actors stop with the loop


def expansion_work(expander: Expander) -> Work:
    """Expanding units of seed cases as ``expander`` does, in whatever process computes them."""
    options = expander.options()
    setup = (expander.config, expander.lexicon, expander.capabilities, options)
    return Work(
        start_expander,
        setup,
        expand_unit,
        here=expander,
        device=options.get("device", "auto"),
        preload=partial(preload_modules, expander.config.mlm),
    )


def _register_builtins() -> None:
    EXECUTORS.register("local", LocalExecutor)
    EXECUTORS.register("ray", RayExecutor)


_register_builtins()
