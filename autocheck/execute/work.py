"""The unit of an executor's map: what is computed for each unit, wherever it runs (``execute``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Work:
    """What is computed for each unit, wherever it runs: ``start(*setup)`` builds a process's state once,
    ``step(state, unit)`` computes one unit's result. ``here`` is this process's state when it has one
    (units computed in this process use it instead of building another); ``device`` where the work's
    models run ("auto", "cpu", "cuda"), for executors that place processes on GPUs; ``preload()`` the
    modules ``start`` will import, for executors that import them once before forking (asked only then: a
    fully cached run starts no process). ``start`` and ``step`` are module-level functions, so that they
    reach other processes."""

    start: Callable[..., Any]
    setup: tuple[Any, ...]
    step: Callable[[Any, Any], Any]
    here: Any = None
    device: str = "auto"
    preload: Callable[[], tuple[str, ...]] = tuple

    def same_as(self, other: Work | None) -> bool:
        """Whether processes started for ``other`` compute this work too (the same functions and setup):
        an executor keeps them for a second map of the same work (``fuzz`` maps once per depth)."""
        return (
            other is not None
            and (self.start, self.step, self.device) == (other.start, other.step, other.device)
            and self.setup == other.setup  # a tuple compares its items by identity first
        )
