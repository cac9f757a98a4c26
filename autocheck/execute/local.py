"""N worker processes on this machine, each with its own models, chunks handed out and merged in order.

Each worker builds the generator's ``_Expander`` once (its models load on the first chunk that needs
them) and expands whole chunks, so a chunk's result is exactly what one process computes for it. At most
``2 × workers`` chunks are in flight: memory does not grow with the number of seeds. Workers are forked
when this process has not imported torch (cheap: they share the loaded lexicon and tagger pages) and
spawned otherwise (forking a process whose OpenMP threads have run can hang).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

_EXPANDER: Any = None  # the worker process's expander (set by _start)


def _start(config: Any, lexicon: Any, capabilities: dict, threads: int, options: dict) -> None:
    global _EXPANDER
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    else:
        import torch

        torch.set_num_threads(threads)
    from ..pipeline import _Expander, _Timer

    _EXPANDER = _Expander(config, lexicon, capabilities, _Timer())
    for name, value in options.items():
        setattr(_EXPANDER, name, value)


def _expand(chunk: list) -> Any:
    from ..pipeline import _model_calls

    result = _EXPANDER.expand_chunk(chunk)
    # this worker's totals so far, by process (the parent keeps the latest of each worker)
    result.calls = {
        str(os.getpid()): {**_model_calls(_EXPANDER, {}), "timings": dict(_EXPANDER.timer.seconds)}
    }
    return result


def context_name() -> str:
    return (
        "fork"
        if "torch" not in sys.modules and "fork" in multiprocessing.get_all_start_methods()
        else "spawn"
    )


def expand_in_processes(
    chunks: Iterable[list],
    workers: int,
    config: Any,
    lexicon: Any,
    capabilities: dict,
    options: dict | None = None,
) -> Iterator[tuple[list, Any]]:
    """``(chunk, ChunkResult)`` pairs in chunk order; each chunk's units (``config.unit_size`` seed
    cases) are expanded by ``workers`` processes and their results merged in unit order."""
    from ..pipeline import ChunkResult, _units

    threads = max(1, (os.cpu_count() or 1) // workers)
    context = multiprocessing.get_context(context_name())
    with context.Pool(workers, _start, (config, lexicon, capabilities, threads, options or {})) as pool:
        pending: deque = deque()  # (chunk, [async unit results])
        in_flight = 0
        iterator = iter(chunks)
        exhausted = False
        while True:
            while not exhausted and in_flight < 2 * workers:
                chunk = next(iterator, None)
                if chunk is None:
                    exhausted = True
                    break
                units = [pool.apply_async(_expand, (unit,)) for unit in _units(chunk, config.unit_size)]
                pending.append((chunk, units))
                in_flight += len(units)
            if not pending:
                return
            chunk, units = pending.popleft()
            in_flight -= len(units)
            yield chunk, ChunkResult.merge([unit.get() for unit in units])
