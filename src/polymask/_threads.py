"""How many threads a fill uses, and ``polymask.threads(n)`` to pin it.

Owns the Python side of the thread-count policy; the C++ core owns the rest
(csrc/src/thread_counts.cpp, thread_pool.cpp, parallel.hpp).  What ``threads=`` means is written
once, in the docstring of :func:`threads`; every public ``threads``
parameter points there.

In a pool of worker processes (multiprocessing, joblib, Dask, a PyTorch
DataLoader) that already keeps every core busy, pin each worker to one
thread: ``with polymask.threads(1): ...`` or ``POLYMASK_NUM_THREADS=1``.

threadpoolctl (``threadpool_limits(1)``, as scikit-learn and joblib use it)
limits polymask too, process-wide, where threadpoolctl is installed: the
controller below registers itself under user_api "polymask".
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Callable, Iterator

from polymask._arguments import MAX_THREADS, checked_thread_count

#: The count set by the innermost polymask.threads(n) block (None: no block).
_pinned: contextvars.ContextVar[int | None] = contextvars.ContextVar("polymask_threads", default=None)

#: A process-wide limit set through threadpoolctl (0: none).
_process_limit = 0


@contextlib.contextmanager
def threads(n: int | None) -> Iterator[int]:
    """Use at most `n` threads in fills inside the block (``threads=None`` calls).

    What every ``threads=`` argument means: a positive count is the most
    threads a fill uses, the calling thread included.  None or 0 asks for
    the default: the innermost ``polymask.threads(n)`` block, else a
    ``threadpoolctl.threadpool_limits`` limit, else ``$POLYMASK_NUM_THREADS``,
    else ``$OMP_NUM_THREADS``, else the CPUs this process may use.  Every count is capped at a few threads per CPU
    (``build_info()["thread_cap"]``), and a fill too small to gain from
    threads runs on the calling thread alone.

    The block applies to the calling thread (and to asyncio tasks it
    starts), not to other threads; an explicit ``threads=`` argument still
    wins.

    Parameters
    ----------
    n : int or None
        Such a count, or None or 0 for the default.

    Returns
    -------
    contextmanager
        A context manager; ``with polymask.threads(n) as count:`` gives
        `count`, the most threads fills in the block will use.

    Raises
    ------
    TypeError
        If `n` is not an integer or None.
    ValueError
        If `n` is negative or absurdly large.

    Examples
    --------
    >>> import polymask
    >>> with polymask.threads(1):
    ...     int(polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4)).sum())
    6
    """
    from polymask import _core

    count = checked_thread_count(n, "polymask.threads(n)")
    token = _pinned.set(count if count > 0 else None)
    try:
        yield _core.thread_count(count)
    finally:
        _pinned.reset(token)


def pinned_threads(_get: Callable[[], int | None] = _pinned.get) -> int:
    """The innermost polymask.threads(n) block's count, else threadpoolctl's limit, else 0 (the core's)."""
    return _get() or _process_limit


def as_threads(threads: object) -> int:
    """Return the thread count for the core: an upper bound, 0 for the default.

    None or 0 means the default (see :func:`threads`): the innermost block or
    threadpoolctl's limit here, else the core's (the environment, the CPUs).
    """
    if threads is None:
        return pinned_threads()
    if type(threads) is int and 0 < threads <= MAX_THREADS:  # the common count, checked in one step
        return threads
    return checked_thread_count(threads, "threads") or pinned_threads()


def _register_with_threadpoolctl() -> None:
    """Let threadpoolctl see and limit polymask's threads, when it is installed."""
    try:
        import threadpoolctl
    except ImportError:
        return
    if not hasattr(threadpoolctl, "register"):  # threadpoolctl < 3.4
        return

    class PolymaskController(threadpoolctl.LibController):  # type: ignore[misc]  # threadpoolctl is untyped
        """polymask's fills, as threadpoolctl sees them: found by the marker _core.pyx exports."""

        user_api = "polymask"
        internal_api = "polymask"
        filename_prefixes = ("_core",)
        check_symbols = ("polymask_threadpoolctl_marker",)

        def get_num_threads(self) -> int:
            from polymask import _core

            return _core.thread_count(pinned_threads())

        def set_num_threads(self, num_threads: int) -> None:
            global _process_limit
            _process_limit = max(0, min(int(num_threads), MAX_THREADS))

        def get_version(self) -> str:
            from polymask._version import __version__

            return __version__

    threadpoolctl.register(PolymaskController)


_register_with_threadpoolctl()
