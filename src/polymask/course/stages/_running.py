"""How the registry runs a stage for ``polymask.mask(..., backend=ID)``: the one wrapper.

The stage files show their technique and nothing else.  What a call from
the library needs around them is applied here, once, for every stage: the
arguments the stage cannot take are refused with the library's words, the
mask is allocated (or refused) before a slow stage starts, the thread count
is capped and one thread is used in a process forked after the stage's
threads started, Ctrl-C is answered while compiled code runs, and a stage
that returns the wrong thing is an error.
"""
from __future__ import annotations

import importlib
import os
import queue
import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from polymask import _core
from polymask._outputs import result_array

if TYPE_CHECKING:
    from polymask.course.stages import Stage


def fill_one_ring(stage: Stage, coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None, *,
                   threads: int, rule: int, window, ring_ends, all_touched: int) -> np.ndarray:
    """Stage.fill of a stage that fills one ring of the whole image under even-odd.

    The one wrapper that gives a bare lesson what a production call needs:
    the mask is allocated (or refused) before a slow stage starts, the
    thread count is capped and one thread is used in a process forked
    after the stage's threads started (_thread_count), Ctrl-C is answered
    while compiled code runs (_answering_ctrl_c), and a stage that returns
    the wrong thing is an error.
    """
    if all_touched:
        raise ValueError(f"all_touched needs the scanline core (backend='scanline'), got backend {stage.id!r}")
    needs_core = [what for what, used in (("several rings", ring_ends is not None),
                                          ("fill_rule='nonzero'", rule != _core.EVEN_ODD),
                                          ("window=", window is not None)) if used]
    if needs_core:
        raise ValueError(f"backend {stage.id!r} fills one ring of the whole image under even-odd; "
                         f"{', '.join(needs_core)} need the scanline core (backend='scanline')")
    # Python code answers Ctrl-C between bytecodes by itself; compiled code that
    # may run long needs the helper thread.  A short call goes straight in: the
    # hand-over costs tens of microseconds, a short call holds Ctrl-C for a few
    # milliseconds at most.
    run = _answering_ctrl_c if _is_long(shape, coordinates) else _directly
    if stage.fills:
        module = importlib.import_module(f"polymask.course.stages.{stage.module}")
        return run(partial(module.fill, coordinates, shape, out))
    if out is None:
        # Fail before a stage that may run for minutes, with polymask's message: a
        # mask this process cannot allocate raises MemoryError here.  The probe is
        # never touched (no page is mapped) and is freed at once.
        result_array(None, shape)
    options = {"threads": _thread_count(threads)} if stage.threaded else {}
    function = stage.load()
    call = partial(function, coordinates, shape, **options)
    result = run(call) if stage.compiled or stage.threaded else call()
    if result.shape != shape or result.dtype != bool:  # a broken stage must not pass silently
        raise RuntimeError(f"backend {stage.id!r} returned {result.dtype} {result.shape}, "
                           f"expected bool {shape}")
    if out is None:
        return result  # the stage's own array, used as is
    out[...] = result
    return out


#: Edge tests (pixels x edges) past which a compiled stage runs on the helper
#: thread: about a millisecond of a per-pixel stage.
_LONG_CALL_EDGE_TESTS = 1 << 20


def _is_long(shape: tuple[int, int], coordinates: np.ndarray) -> bool:
    return shape[0] * shape[1] * max(len(coordinates), 1) > _LONG_CALL_EDGE_TESTS


def _directly(call: Callable[[], np.ndarray]) -> np.ndarray:
    return call()


#: The process whose threaded stages started their thread pools (OpenMP, Numba).
_threads_started_by: int | None = None


def _thread_count(threads: int) -> int:
    """The count a threaded stage runs with: polymask's default and cap, and 1 in a forked child.

    OpenMP's and Numba's pools stay in the parent of a fork(); a parallel
    region in the child would wait for threads that do not exist there (or
    end the child).  One thread needs no pool.
    """
    global _threads_started_by
    if _threads_started_by is not None and _threads_started_by != os.getpid():
        return 1
    _threads_started_by = os.getpid()
    return _core.thread_count(threads)


class _StageThread:
    """One long-lived helper thread that runs compiled stages for the main thread.

    Long-lived, not one per call: OpenMP and Numba keep their worker pools
    per calling thread, so a fresh thread per call would start a fresh pool
    each time (about a third of the prange stage's time at 1024x1024).
    """

    def __init__(self) -> None:
        self.pid = os.getpid()  # a forked child has no such thread: it makes its own
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="polymask-stage", daemon=True).start()

    def _serve(self) -> None:
        while True:
            call, done, outcome = self.jobs.get()
            try:
                outcome["result"] = call()
            except BaseException as error:  # handed to the caller
                outcome["error"] = error
            finally:
                done.set()

    def run(self, call: Callable[[], np.ndarray]) -> np.ndarray:
        done, outcome = threading.Event(), dict[str, Any]()
        self.jobs.put((call, done, outcome))
        while not done.wait(0.05):  # a KeyboardInterrupt lands here within 0.05 s
            pass
        if "error" in outcome:
            raise outcome["error"]
        return outcome["result"]


_stage_thread: _StageThread | None = None
_stage_thread_lock = threading.Lock()


def _answering_ctrl_c(call: Callable[[], np.ndarray]) -> np.ndarray:
    """call(), run so that Ctrl-C still raises KeyboardInterrupt at once on the main thread.

    Python handles signals only on its main thread, between bytecodes;
    compiled code that releases the GIL (prange, Numba's nogil kernels,
    C++ loops) holds Ctrl-C until it returns.  So the stage runs on a helper
    thread while the main thread waits in short, interruptible steps.  After
    a Ctrl-C the stage runs to its end in the background and its result is
    dropped.  Elsewhere than on the main thread the call is made directly.
    """
    global _stage_thread
    if threading.current_thread() is not threading.main_thread():
        return call()
    with _stage_thread_lock:
        if _stage_thread is None or _stage_thread.pid != os.getpid():
            _stage_thread = _StageThread()
        runner = _stage_thread
    return runner.run(call)
