"""The C heap of a process that runs models: large blocks on pages of their own, free pages given back
(glibc only; elsewhere these do nothing)."""

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
MMAP_THRESHOLD = 1 << 20  # bytes: allocations this large get pages of their own
_GLIBC_TRIM_THRESHOLD = 128 << 10  # glibc's default: free memory this large at the heap's top goes back
REUSE_THRESHOLD = 256 << 20  # in ``blocks_reused``: blocks below this come from the heap and stay there


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


@contextmanager
def blocks_reused() -> Iterator[None]:
    """Within it, blocks below ``REUSE_THRESHOLD`` come from the C heap and stay there when freed, so a loop
    of model passes of similar shapes (the fill search: hundreds of passes at beam 100) reuses the pages of
    the previous pass's activations; with ``bound_heap_growth``'s threshold every such block is a fresh
    mapping whose every page faults in (a fifth of the CPU, as system time, on alict60's LC4 at beam 100,
    docs/speed.md). At its end the thresholds are ``bound_heap_growth``'s again and the free pages go back to
    the system (``malloc_trim``), so a long run's peak does not grow with it. glibc's ``mallopt`` through
    ctypes rather than ``MALLOC_*_`` variables, which glibc reads once at start-up: the setting is scoped
    to the search; thresholds set in the environment are left as set (elsewhere than glibc: nothing)."""
    libc_ = libc()
    if libc_ is None or {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"} & set(os.environ):
        yield
        return
    libc_.mallopt(_M_MMAP_THRESHOLD, REUSE_THRESHOLD)
    libc_.mallopt(_M_TRIM_THRESHOLD, REUSE_THRESHOLD)  # or freeing the heap's top block gives it back
    try:
        yield
    finally:
        libc_.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc_.mallopt(_M_TRIM_THRESHOLD, _GLIBC_TRIM_THRESHOLD)
        libc_.malloc_trim(0)
