"""How the registry runs a stage for ``polymask.mask(..., backend=ID)``: the one wrapper.

The stage files show their technique and nothing else.  What a call from
the library needs around them is applied here, once, for every stage: the
arguments the stage cannot take are refused with the library's words, the
mask is allocated (or refused) before a slow stage starts, the thread count
is capped and one thread is used in a process forked after the stage's
threads started, Ctrl-C is answered while compiled code runs (a stage that
holds the GIL runs in a child process, the others on a helper thread), a
stage that may be abandoned by Ctrl-C fills a buffer of its own, never the
caller's ``out=``, and a stage that returns the wrong thing is an error.
"""
from __future__ import annotations

import importlib
import os
import pickle
import queue
import select
import signal
import threading
import time
import warnings
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
    while compiled code runs (_answering_ctrl_c, or _in_a_child_process for
    a stage that holds the GIL), the caller's `out` is written only once
    the stage has succeeded, and a stage that returns the wrong thing is an
    error.
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
    # may run long needs the helper thread, or a child process when it holds the
    # GIL.  A short call goes straight in: the hand-over costs tens of
    # microseconds, a short call holds Ctrl-C for a few milliseconds at most.
    long = _is_long(shape, coordinates)
    if stage.fills:
        module = importlib.import_module(f"polymask.course.stages.{stage.module}")
        if not long:
            return module.fill(coordinates, shape, out)
        # After a Ctrl-C the stage runs on to its end in the background: it
        # fills a buffer of its own, copied into the caller's only on success,
        # so a caller who reuses `out` never finds it overwritten later.
        return _delivered(_answering_ctrl_c(partial(module.fill, coordinates, shape, None)), out)
    if out is None:
        # Fail before a stage that may run for minutes, with polymask's message: a
        # mask this process cannot allocate raises MemoryError here.  The probe is
        # never touched (no page is mapped) and is freed at once.
        result_array(None, shape)
    options = {"threads": _thread_count(threads)} if stage.threaded else {}
    function = stage.load()
    call = partial(function, coordinates, shape, **options)
    if not long or not (stage.compiled or stage.threaded):
        result = call()
    elif stage.holds_gil:
        result = _holding_the_gil(stage, call, shape, _edge_tests(shape, coordinates))
    else:
        result = _answering_ctrl_c(call)
    return _delivered(_checked(stage, result, shape), out)


def _checked(stage: Stage, result: Any, shape: tuple[int, int]) -> np.ndarray:
    """`result`, or RuntimeError unless it is a bool array of `shape`: a broken stage must not pass silently."""
    if not isinstance(result, np.ndarray) or result.shape != shape or result.dtype != bool:
        received = f"{result.dtype} {result.shape}" if isinstance(result, np.ndarray) else type(result).__name__
        raise RuntimeError(f"backend {stage.id!r} returned {received}, expected bool {shape}")
    return result


def _checked_call(stage: Stage, call: Callable[[], np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    return _checked(stage, call(), shape)


def _delivered(result: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """`result` copied into the caller's `out`, or `result` itself (the stage's own array) without one."""
    if out is None:
        return result
    out[...] = result
    return out


#: Edge tests (pixels x edges) past which a compiled stage runs on the helper
#: thread: about a millisecond of a per-pixel stage.
_LONG_CALL_EDGE_TESTS = 1 << 20


def _edge_tests(shape: tuple[int, int], coordinates: np.ndarray) -> int:
    return shape[0] * shape[1] * max(len(coordinates), 1)


def _is_long(shape: tuple[int, int], coordinates: np.ndarray) -> bool:
    return _edge_tests(shape, coordinates) > _LONG_CALL_EDGE_TESTS


#: Seconds a GIL-holding call may be expected to take and still run on the
#: calling thread: Ctrl-C then waits for it, well within the 0.5 s promised.
_DIRECT_SECONDS = 0.1

#: Stage id -> the seconds per edge test its last long call took.
_seconds_per_edge_test: dict[str, float] = {}


def _holding_the_gil(stage: Stage, call: Callable[[], np.ndarray], shape: tuple[int, int],
                     edge_tests: int) -> np.ndarray:
    """call() of a stage that keeps the GIL: directly when its last speed says it ends soon, else in a child.

    The fork costs milliseconds (csrc/bench/STEPS.md): a benchmark's
    repeated calls pay it once, on the first, which measures the stage's
    speed.
    """
    rate = _seconds_per_edge_test.get(stage.id)
    direct = rate is not None and rate * edge_tests < _DIRECT_SECONDS
    started = time.perf_counter()
    result = call() if direct else _in_a_child_process(partial(_checked_call, stage, call, shape), shape)
    _seconds_per_edge_test[stage.id] = (time.perf_counter() - started) / edge_tests
    return result


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


def _in_a_child_process(call: Callable[[], np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """call() run in a forked child, so that Ctrl-C raises KeyboardInterrupt at once on the main thread.

    A compiled stage that keeps the GIL (cython_plain, cython_typed: their
    loops are C, but never release it) leaves no room for the main thread to
    run Python's signal handler, on a helper thread as much as on the main
    one.  In a child it holds only the child's GIL: the parent waits in short,
    interruptible steps, and on Ctrl-C (or any error) kills the child, which
    can then write nothing anywhere.  The mask comes back through an
    anonymous shared mapping, copied into an array of this process on
    success.  Where there is no fork() (Windows), or off the main thread,
    the call is made directly.
    """
    if not hasattr(os, "fork") or threading.current_thread() is not threading.main_thread():
        return call()
    import mmap

    rows, cols = shape
    shared = mmap.mmap(-1, max(rows * cols, 1))  # MAP_SHARED | MAP_ANONYMOUS: the child's writes reach us
    reader, writer = os.pipe()
    # SIGINT blocked across fork(): a Ctrl-C in between must reach the parent,
    # never raise inside the child, which would then run on as the caller.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with warnings.catch_warnings():
            # Python 3.12 warns that a child forked beside running threads may
            # deadlock on a lock one of them held; this child only runs the
            # stage's own loops (its module is imported already) and leaves
            # with _exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            child = os.fork()
        if child == 0:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C, and ends this child
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            try:
                os.close(reader)
                _report_from_child(call, shape, shared, writer)
            finally:
                os._exit(0)  # never the parent's exit handlers, never back into the caller's code
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    os.close(writer)
    try:
        report = _read_report(reader)
    except BaseException:
        os.kill(child, signal.SIGKILL)
        raise
    finally:
        os.close(reader)
        os.waitpid(child, 0)
    if "error" in report:
        raise report["error"]
    result = np.frombuffer(shared, dtype=bool, count=rows * cols).reshape(shape).copy()
    shared.close()
    return result


def _report_from_child(call: Callable[[], np.ndarray], shape: tuple[int, int], shared: Any, writer: int) -> None:
    """In the forked child: run call(), put its mask into `shared`, and pickle what happened down `writer`."""
    try:
        result = call()
        np.frombuffer(shared, dtype=bool, count=shape[0] * shape[1]).reshape(shape)[...] = result
        message = pickle.dumps({})
    except BaseException as error:  # handed to the caller
        try:
            message = pickle.dumps({"error": error})
        except Exception:  # an exception that does not pickle: its type and text
            message = pickle.dumps({"error": RuntimeError(f"{type(error).__name__}: {error}")})
    view = memoryview(message)
    while view:
        view = view[os.write(writer, view):]


def _read_report(reader: int) -> dict[str, Any]:
    """The child's pickled report, read in short waits: a KeyboardInterrupt lands within 0.05 s."""
    chunks = []
    while True:
        ready, _, _ = select.select([reader], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(reader, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    if not chunks:  # the child died without a word (killed, or out of memory)
        raise RuntimeError("the stage's child process ended without a result")
    report: dict[str, Any] = pickle.loads(b"".join(chunks))
    return report
