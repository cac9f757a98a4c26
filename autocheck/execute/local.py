"""This process, or N worker processes on this machine each with its own models, units handed out and
their results taken in order (``LocalExecutor.map``).

Each worker builds the work's state once (``generate``'s: an ``expand.job.Expander``, whose models load on
the first unit that needs them) and computes whole units, so a unit's result is exactly what one process
computes for it. The pool starts at the first unit (the unit loop, ``execute.expand_chunks``, answers
cached units itself, so a fully cached rerun starts no worker), or when ``prepare`` is called, and serves
every map of the same work until ``close``. At most ``2 × workers`` units are in
flight: memory does not grow with the number of seeds. Workers are forked
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

from ..expand.parsing import benepar_nltk
from ..store import InputError
from .work import Work

if TYPE_CHECKING:
    from multiprocessing.pool import ApplyResult, Pool

log = logging.getLogger(__name__)
_STATE: Any = None  # the worker process's state (built by _start with the work's ``start``)
_STEP: Callable[[Any, Any], Any] | None = None  # the work's ``step``
_START_ERROR: Exception | None = None  # why _start could not build the state


def _start(
    start: Callable[..., Any], setup: tuple[Any, ...], step: Callable[[Any, Any], Any], threads: int
) -> None:
    global _STATE, _STEP, _START_ERROR
    gc.enable()  # off in the parent while it forked (see _forked_pool)
    limit_threads(threads)
    _STEP = step
    try:
        _STATE = start(*setup)
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


def _step(unit: Any) -> Any:
    if _START_ERROR is not None:
        raise _START_ERROR
    assert _STEP is not None  # _start sets it
    return _STEP(_STATE, unit)


def context_name() -> str:
    forkable = "fork" in multiprocessing.get_all_start_methods()
    return "fork" if forkable and "torch" not in sys.modules else "spawn"


def _preload(modules: tuple[str, ...] = ()) -> None:
    """Import torch, the work's ``modules`` (``Work.preload``: the masked LM's code) and benepar before
    forking (imports start no OpenMP threads), so that the workers share them.

    With the collector off (``_forked_pool``), importing a model class here rather than in each worker costs
    no wall time and saves each worker the import; importing more here (WordNet) cost wall time, the parent
    doing serially what the workers do side by side."""
    for name in ("torch", *modules):
        try:
            importlib.import_module(name)
        except ImportError:  # a missing one is reported where it is needed
            pass
    try:
        benepar_nltk()  # without the spaCy plugin (expand/parsing.py)
    except ImportError:
        pass
    if "transformers.modeling_utils" not in sys.modules:
        return
    # transformers 5 builds its table of checkpoint renamings (about a thousand regular expressions, 0.15
    # CPU-s, no torch) at a process's first model load, and keeps it: built here, every worker has it
    try:
        from transformers.conversion_mapping import get_checkpoint_conversion_mapping

        get_checkpoint_conversion_mapping("bert")  # type: ignore[no-untyped-call]
    except Exception as e:  # a saving only: a transformers without the table (4.x), or with another API
        log.debug("transformers' checkpoint renamings not built before the fork: %s", e)


def _forked_pool(workers: int, args: tuple[Any, ...], modules: tuple[str, ...] = ()) -> Pool:
    """The worker pool, forked after ``_preload``. Python's collector is off meanwhile: the imports make
    hundreds of thousands of long-lived objects, and collections among them cost 0.5 s and find nothing;
    what the workers inherit is frozen first, so their own collections never walk it (nor touch, and so
    copy, its pages)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        _preload(modules)
        gc.freeze()
        return multiprocessing.get_context("fork").Pool(workers, _start, args)
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def start_pool(work: Work, workers: int) -> Pool:
    """``workers`` processes that each build ``work``'s state once: forked after ``_preload`` where this
    process has not imported torch, else spawned."""
    name = context_name()
    args = (work.start, work.setup, work.step, THREADS)
    log.info("expanding with %d worker processes (%s)", workers, name)
    if name == "fork":
        return _forked_pool(workers, args, work.preload())
    return multiprocessing.get_context(name).Pool(workers, _start, args)


def map_in_processes(pool: Callable[[], Pool], units: Iterable[Any], workers: int) -> Iterator[Any]:
    """``_step`` over ``units`` in the processes of ``pool()`` (asked for at the first unit: no units, no
    processes), results in unit order, at most ``2 × workers`` units in flight."""
    pending: deque[ApplyResult[Any]] = deque()
    started: Pool | None = None
    for unit in units:
        if started is None:
            started = pool()
        pending.append(started.apply_async(_step, (unit,)))
        if len(pending) >= 2 * workers:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


class LocalExecutor:
    """The ``local`` executor: this process (``workers`` 1) or ``workers`` processes on this machine for
    ``generate`` and ``fuzz``; ``run`` predicts in this process. The processes are kept from one map to
    the next of the same work (``fuzz`` maps once per depth of each chunk), until ``close``."""

    def __init__(self, *, workers: int = 1, address: str | None = None, actors: int | None = None):
        if workers < 1:
            raise InputError(f"--workers must be at least 1, not {workers}")
        self.workers = workers
        self._pool: Pool | None = None
        self._work: Work | None = None  # what the pool's processes were started for

    def prepare(self, work: Work) -> None:
        """Start the worker processes for ``work`` now rather than at its first unit: ``fuzz`` starts them
        before its target model loads, so that they fork from a process whose torch has not run."""
        if self.workers > 1:
            self._pool_for(work)

    def _pool_for(self, work: Work) -> Pool:
        if self._pool is not None and not work.same_as(self._work):
            self.close()
        if self._pool is None:
            self._pool, self._work = start_pool(work, self.workers), work
        return self._pool

    def map(self, work: Work, units: Iterable[Any]) -> Iterator[Any]:
        if self.workers > 1:
            yield from map_in_processes(lambda: self._pool_for(work), units, self.workers)
            return
        limit_threads(THREADS)
        state = None
        for unit in units:
            if state is None:
                state = work.here if work.here is not None else work.start(*work.setup)
            yield work.step(state, unit)

    def predictor(self, model: Any) -> None:
        return None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool, self._work = None, None
