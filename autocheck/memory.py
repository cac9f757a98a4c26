"""The C heap of a process that runs models: large blocks on pages of their own, free pages given back
(glibc only; elsewhere these do nothing)."""

import ctypes
import os
import sys
from functools import lru_cache

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 1 << 20  # bytes: allocations this large get pages of their own


@lru_cache(maxsize=1)
def libc() -> ctypes.CDLL | None:
    """glibc, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        found = ctypes.CDLL("libc.so.6")
        found.malloc_trim, found.mallopt  # noqa: B018  (musl has neither)
        return found
    except (OSError, AttributeError):
        return None


def bound_heap_growth() -> None:
    """Allocations of ``MMAP_THRESHOLD`` bytes or more (the models' activation tensors, the parser's
    charts) get pages of their own, which go back to the system when freed (glibc's ``mallopt``; elsewhere
    nothing; a ``MALLOC_MMAP_THRESHOLD_`` in the environment is left as set).

    glibc otherwise raises that threshold to the size of the first such block freed and serves later ones
    from its heap, where they fragment it, so the peak of a long run grows with its length
    (``benchmarks/bench_memory.py`` measures it; the README quotes the figures). The cost is a page fault
    for each new page of those blocks."""
    libc_ = libc()
    if libc_ is not None and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        libc_.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def release_free_memory() -> None:
    """Give the free pages of the C heap back to the system (glibc's ``malloc_trim``; elsewhere nothing),
    after every unit: what its smaller blocks freed."""
    libc_ = libc()
    if libc_ is not None:
        libc_.malloc_trim(0)
