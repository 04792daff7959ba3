"""How many threads a fill uses, and ``polymask.threads(n)`` to pin it.

Owns the Python side of the thread-count policy; the C++ core owns the rest
(csrc/src/thread_pool.cpp, parallel.hpp):

* ``threads=None`` (or 0) asks for the default: the innermost
  ``polymask.threads(n)`` block of this thread if there is one, else
  ``$POLYMASK_NUM_THREADS``, else ``$OMP_NUM_THREADS``, else the CPUs this
  process may run on.
* Every count is an upper bound, capped at a few threads per CPU
  (``build_info()["thread_cap"]``): asking for thousands cannot exhaust the
  system.
* The core then uses fewer where the work is small: a fill too small to gain
  from threads runs on the calling thread alone.

In a pool of worker processes (multiprocessing, joblib, Dask, a PyTorch
DataLoader) that already keeps every core busy, pin each worker to one
thread: ``with polymask.threads(1): ...`` or ``POLYMASK_NUM_THREADS=1``.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator

#: The count set by the innermost polymask.threads(n) block (None: no block).
_pinned: contextvars.ContextVar[int | None] = contextvars.ContextVar("polymask_threads", default=None)


@contextlib.contextmanager
def threads(n) -> Iterator[int]:
    """Use at most `n` threads in fills inside the block (``threads=None`` calls).

    `n` is a positive integer (capped, like every count, at a few threads
    per CPU), or None or 0 for the default.  It applies to the calling
    thread (and to asyncio tasks it starts), not to other threads; an
    explicit ``threads=`` argument still wins.  Yields the count fills will
    use at most.

    >>> import polymask
    >>> with polymask.threads(1):
    ...     polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4)).sum()
    6
    """
    from polymask import _core
    from polymask._validation import checked_thread_count

    count = checked_thread_count(n, "polymask.threads(n)")
    token = _pinned.set(count if count > 0 else None)
    try:
        yield _core.thread_count(count)
    finally:
        _pinned.reset(token)


def pinned_threads(_get=_pinned.get) -> int:
    """The count of the innermost polymask.threads(n) block, or 0 (the core's default)."""
    return _get() or 0
