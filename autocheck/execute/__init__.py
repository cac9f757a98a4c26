"""Executors: how units of work are scheduled (this process, N processes, a Ray cluster), for ``generate``
(units of seed cases to expand) and ``run`` (batches of inputs to predict). An executor changes how the
work is scheduled, never what it computes: each unit is computed by the same function whatever runs it
and results are taken in order, so the same ``--seed`` gives the same bytes.

An executor is one registered part (``EXECUTORS``): a class built with ``workers``, ``address`` and
``actors`` (each executor uses those it understands) that has ``expand``, ``predictor`` and ``close``. A
plug-in adds one through the entry-point group ``autocheck.executors``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ..registry import Registry

if TYPE_CHECKING:
    from ..expand.job import ChunkResult, Expander
    from ..records import TestCase

Batches = Callable[[Iterable[list[Any]]], Iterator[list[Any]]]
OnUnit = Callable[[int, int], None]  # (units of the chunk done, units of the chunk): progress inside a chunk


class Executor(Protocol):
    def expand(
        self, chunks: Iterable[list[TestCase]], expander: Expander, on_unit: OnUnit | None = None
    ) -> Iterator[tuple[list[TestCase], ChunkResult]]:
        """``(chunk, its result)`` for each chunk, in chunk order; each chunk is cut into
        ``expand.job.units``, every unit is computed by ``Expander.expand_chunk``, and ``on_unit`` is told
        as each unit's result is taken."""
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


def _register_builtins() -> None:
    from .local import LocalExecutor
    from .ray import RayExecutor

    EXECUTORS.register("local", LocalExecutor)
    EXECUTORS.register("ray", RayExecutor)


_register_builtins()
