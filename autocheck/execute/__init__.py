"""Executors: how the expansion of chunks of seed cases is scheduled (one process, N processes, a Ray
cluster). An executor changes how stages are scheduled, never what they compute: each chunk is expanded by
the same function whatever runs it, and results are merged in chunk order, so the same ``--seed`` gives the
same bytes."""

import ctypes
import os
import sys
from functools import lru_cache

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 1 << 20  # bytes: allocations this large get pages of their own


@lru_cache(maxsize=1)
def _libc():
    """glibc, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018  (musl has neither)
        return libc
    except (OSError, AttributeError):
        return None


def bound_heap_growth() -> None:
    """Allocations of ``MMAP_THRESHOLD`` bytes or more (the models' activation tensors, the parser's
    charts) get pages of their own, which go back to the system when freed (glibc's ``mallopt``; elsewhere
    nothing; a ``MALLOC_MMAP_THRESHOLD_`` in the environment is left as set).

    glibc otherwise raises that threshold to the size of the first such block freed and serves later ones
    from its heap, where they fragment it: over 120 units of LC8 seeds, a unit's peak above the memory
    held between units grew from 59 to 98 MiB (33 to 41 MiB with 1 MiB), so the peak of a run grew with
    its length (bench_memory, 1k vs 20k seed cases: ratio 1.162 without, 1.072 with). Cost: a page fault
    for each new page of those blocks, 2 % more wall there and about 5 % on alict60; a 128 KiB threshold
    cost a quarter more wall."""
    libc = _libc()
    if libc is not None and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_free_memory() -> None:
    """Give the free pages of the C heap back to the system (glibc's ``malloc_trim``; elsewhere nothing),
    after every unit: what its smaller blocks freed."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
