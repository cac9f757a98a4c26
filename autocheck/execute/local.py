"""N worker processes on this machine, each with its own models, units handed out and merged in order.

Each worker builds the generator's ``expand.job.Expander`` once (its models load on the first unit that needs
them) and expands whole units (``config.unit_size`` seed cases), so a unit's result is exactly what one
process computes for it. The parent answers units found in the chunk cache itself and starts the pool
only at the first unit that is not, so a fully cached rerun starts no worker and loads no model. At most
``2 × workers`` units are in flight: memory does not grow with the number of seeds. Workers are forked
when this process has not imported torch, after importing (never running) torch, transformers and
benepar once here so that the workers share them; they are spawned otherwise (forking a process whose
OpenMP threads have run can hang).
"""

from __future__ import annotations

import gc
import importlib
import logging
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..store import InputError

if TYPE_CHECKING:
    from multiprocessing.pool import ApplyResult, Pool

    from ..config import GenerateConfig
    from ..expand.job import ChunkResult, Expander
    from ..records import TestCase
    from ..requirements import Capability

log = logging.getLogger(__name__)
_EXPANDER: Expander | None = None  # the worker process's expander (set by _start)
_START_ERROR: Exception | None = None  # why _start could not set it


def _start(
    config: GenerateConfig,
    lexicon: Any,
    capabilities: dict[str, Capability],
    threads: int,
    options: dict[str, Any],
) -> None:
    global _EXPANDER, _START_ERROR
    gc.enable()  # off in the parent while it forked (see _forked_pool)
    limit_threads(threads)
    from ..expand.job import Expander

    try:
        _EXPANDER = Expander(config, lexicon, capabilities, **options)
    except Exception as error:  # a pool restarts a worker whose initializer raises, forever: report it
        _START_ERROR = error


THREADS = 1  # torch's intra-op threads per expanding process


def default_workers() -> int:
    """The expanding processes when ``--workers`` is not given: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return os.cpu_count() or 1


def usable_workers(requested: int | None, *, force: bool = False) -> int:
    """The expanding processes for ``--workers requested``: at most one per core this process may use
    (more only share those cores, each with its own models in memory, and a huge number forks that many
    processes), unless ``force``; the default when None."""
    cores = default_workers()
    if requested is None:
        return cores
    if requested > cores and not force:
        log.warning(
            "--workers %d: this process may use %d cores; using %d (--force-workers to start %d anyway)",
            requested,
            cores,
            cores,
            requested,
        )
        return cores
    return requested


def limit_threads(threads: int) -> None:
    """At most ``threads`` intra-op threads for torch in this process (and OpenMP, where torch is not
    imported yet). An expanding process runs small batches, where a second thread costs about as much CPU
    as it saves wall time and two processes' threads fight over the same cores; the work is shared out by
    processes instead, one per core (``default_workers``). Output is the same with any number."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def _expand(unit: list[TestCase]) -> ChunkResult:
    from ..expand.job import model_calls

    if _START_ERROR is not None:
        raise _START_ERROR
    assert _EXPANDER is not None  # _start sets one or the other
    result = _EXPANDER.expand_chunk(unit)
    # this worker's totals so far, by process (the parent keeps the latest of each worker)
    result.calls = {
        str(os.getpid()): {**model_calls(_EXPANDER, {}), "timings": dict(_EXPANDER.timer.seconds)}
    }
    return result


def context_name() -> str:
    forkable = "fork" in multiprocessing.get_all_start_methods()
    return "fork" if forkable and "torch" not in sys.modules else "spawn"


def _preload() -> None:
    """Import torch, transformers' model classes and benepar before forking (imports start no OpenMP
    threads), so that the workers share them.

    With the collector off (``_forked_pool``), importing transformers' ``modeling_utils`` here rather than
    in each worker costs no wall time and saves each worker the import; importing more here (WordNet) cost
    wall time, the parent doing serially what the workers do side by side."""
    for name in ("torch", "transformers", "benepar", "transformers.modeling_utils"):
        try:
            importlib.import_module(name)
        except ImportError:  # a missing one is reported where it is needed
            pass
    try:
        from transformers import AutoModelForMaskedLM, AutoTokenizer  # noqa: F401
    except ImportError:
        pass


def _forked_pool(workers: int, args: tuple[Any, ...]) -> Pool:
    """The worker pool, forked after ``_preload``. Python's collector is off meanwhile: the imports make
    hundreds of thousands of long-lived objects, and collections among them cost 0.5 s and find nothing;
    what the workers inherit is frozen first, so their own collections never walk it (nor touch, and so
    copy, its pages)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        _preload()
        gc.freeze()
        return multiprocessing.get_context("fork").Pool(workers, _start, args)
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


class _Done:
    """A unit's result already at hand (from the cache), shaped like an ``AsyncResult``."""

    def __init__(self, result: ChunkResult):
        self.result = result

    def get(self) -> ChunkResult:
        return self.result


def expand_in_processes(
    chunks: Iterable[list[TestCase]],
    workers: int,
    expander: Expander,
    on_unit: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[list[TestCase], ChunkResult]]:
    """``(chunk, ChunkResult)`` pairs in chunk order; each chunk's uncached units are expanded by
    ``workers`` processes and the unit results merged in unit order."""
    from ..expand.job import ChunkResult
    from ..expand.job import units as cut

    config = expander.config
    threads = THREADS
    pool: Pool | None = None
    try:
        pending: deque[tuple[list[TestCase], list[_Done | ApplyResult[ChunkResult]]]] = deque()
        in_flight = 0
        iterator = iter(chunks)
        exhausted = False
        while True:
            while not exhausted and in_flight < 2 * workers and len(pending) < 4 * workers:
                chunk = next(iterator, None)
                if chunk is None:
                    exhausted = True
                    break
                units: list[_Done | ApplyResult[ChunkResult]] = []
                for unit in cut(chunk, config.unit_size):
                    found = expander.cached(unit)
                    if found is not None:
                        units.append(_Done(found))
                        continue
                    if pool is None:
                        name = context_name()
                        args = (config, expander.lexicon, expander.capabilities, threads, expander.options())
                        if name == "fork":
                            pool = _forked_pool(workers, args)
                        else:
                            pool = multiprocessing.get_context(name).Pool(workers, _start, args)
                        log.info("expanding with %d worker processes (%s)", workers, name)
                    units.append(pool.apply_async(_expand, (unit,)))
                    in_flight += 1
                pending.append((chunk, units))
            if not pending:
                return
            chunk, units = pending.popleft()
            in_flight -= sum(not isinstance(unit, _Done) for unit in units)
            results: list[ChunkResult] = []
            for taken in units:  # in order, each reported as it is collected
                results.append(taken.get())
                if on_unit is not None:
                    on_unit(len(results), len(units))
            yield chunk, ChunkResult.merge(results)
    finally:
        if pool is not None:
            pool.terminate()


class LocalExecutor:
    """The ``local`` executor: this process (``workers`` 1) or ``workers`` processes on this machine for
    ``generate``; ``run`` predicts in this process."""

    def __init__(self, *, workers: int = 1, address: str | None = None, actors: int | None = None):
        if workers < 1:
            raise InputError(f"--workers must be at least 1, not {workers}")
        self.workers = workers

    def expand(
        self,
        chunks: Iterable[list[TestCase]],
        expander: Expander,
        on_unit: Callable[[int, int], None] | None = None,
    ) -> Iterator[tuple[list[TestCase], ChunkResult]]:
        from ..expand.job import ChunkResult
        from ..expand.job import units as cut

        if self.workers > 1:
            yield from expand_in_processes(chunks, self.workers, expander, on_unit)
            return
        limit_threads(THREADS)
        for chunk in chunks:
            units = cut(chunk, expander.config.unit_size)
            results: list[ChunkResult] = []
            for unit in units:
                results.append(expander.expand_chunk(unit))
                if on_unit is not None:
                    on_unit(len(results), len(units))
            yield chunk, ChunkResult.merge(results)

    def predictor(self, model: Any) -> None:
        return None

    def close(self) -> None:
        pass
