"""Executors: how the expansion of chunks of seed cases is scheduled (one process, N processes, a Ray
cluster). An executor changes how stages are scheduled, never what they compute: each chunk is expanded by
the same function whatever runs it, and results are merged in chunk order, so the same ``--seed`` gives the
same bytes."""

import ctypes
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> None:
    """Give the free pages of the C heap back to the system (glibc's ``malloc_trim``; elsewhere nothing).

    The models' activation tensors come and go in sizes that fragment glibc's heap, which then keeps the
    freed pages: the peak of a long ``generate`` creeps up with the run. Releasing them after every unit
    costs no measurable CPU; fixing glibc's mmap threshold instead flattened the growth more but cost a
    quarter more wall, four times the system time (a page fault for every large tensor)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
