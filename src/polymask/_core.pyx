# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the C++ core: one polygon's fills, and the process-wide parts (Ctrl-C, threads, build).

The fills of many polygons in one call are bound in polymask/_polygons.pyx.

Nothing here checks arguments beyond what memory safety needs: the public
functions in polymask/_api.py validate first, with messages for humans, then
call these.  The one exception, plain_mask, runs the funnel's own one-step
tests (polymask/_one_step.pyx) and hands anything they refuse back to the
funnel.  Every fill runs with the GIL released, so many Python threads can
fill masks at once.
"""
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer,
)
from libc.stdint cimport int64_t, uint8_t
from libcpp cimport bool as cpp_bool
from libcpp.memory cimport unique_ptr

from polymask.core cimport (
    BuildInfo, FillRule, Polygon, Window, build_info as core_build_info, fill_per_pixel, fill_scanline,
    fill_scanline_spans, resolve_threads, set_process_interrupt_check,
    PoolStatistics, pool_statistics as core_pool_statistics, reset_pool_learning as core_reset_pool_learning,
)
from polymask._one_step cimport out_ready, plain_sides, ring_status
from polymask.coverage cimport fill_touched, side_tolerance
from polymask.views cimport as_rule, new_polygon, window_at, writes_every_byte

import os
import threading

import numpy as np

from polymask._outputs import MASK_HINT as _MASK_HINT
from polymask._outputs import new_array as _new_array


# ---- Ctrl-C during a fill, for every module of the process -------------------
# Python runs signal handlers only on the main thread, and only between
# bytecodes; a fill in C++ would hold Ctrl-C until it returns.  The core
# polls a check on the calling thread between chunks (about every 10 ms of a
# long fill).  It is installed here, once, for the whole process (the core is
# one shared library that every extension module links): no binding can
# forget it.  The check answers at once, without the GIL, on any thread but
# Python's main one; on the main thread it runs Python's signal handlers,
# and a KeyboardInterrupt stops the fill (core.pxd: raise_py_error).
cdef extern from *:
    """
    static unsigned long polymask_main_thread = 0;
    static bool polymask_check_signals(void *)
    {
        if (PyThread_get_thread_ident() != polymask_main_thread) return false;
        PyGILState_STATE state = PyGILState_Ensure();
        const int failed = PyErr_CheckSignals();
        PyGILState_Release(state);
        return failed != 0;
    }
    static void polymask_note_main_thread(unsigned long ident) { polymask_main_thread = ident; }
    """
    cpp_bool check_signals "polymask_check_signals"(void *context) noexcept nogil
    void note_main_thread "polymask_note_main_thread"(unsigned long ident) noexcept nogil


def _note_main_thread():
    """Record Python's main thread: at import, and in a child after fork().

    A process forked from any thread has that thread as its main thread
    (CPython makes it so); the check must follow, or the child's fills would
    ignore Ctrl-C.
    """
    note_main_thread(threading.main_thread().ident)


_note_main_thread()
os.register_at_fork(after_in_child=_note_main_thread)
set_process_interrupt_check(check_signals, NULL)

EVEN_ODD = <int>FillRule.even_odd
NONZERO = <int>FillRule.nonzero


def fill(const double[:, ::1] vertices not None, uint8_t[:, ::1] out not None, *,
         int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
         bint per_pixel=False, const int64_t[::1] ring_ends=None, bint zeroed=False):
    """Fill `out` with the window of the mask whose top-left pixel is (row0, col0).

    vertices: (N, 2) float64, C-contiguous, finite.  ring_ends: cumulative
    vertex counts of the rings (None means one ring).  rule: EVEN_ODD or
    NONZERO.  per_pixel selects the O(H*W*N) reference fill.  zeroed: `out`
    is known to hold only zeros (np.zeros), so only the inside spans are
    written and untouched pages stay untouched.
    """
    cdef FillRule fill_rule = as_rule(rule)
    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
    cdef uint8_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0]

    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    with nogil:
        if per_pixel:
            fill_per_pixel(polygon.get()[0], window, out_ptr, row_stride, fill_rule, threads)
        elif zeroed:
            fill_scanline_spans(polygon.get()[0], window, out_ptr, row_stride, fill_rule, threads)
        else:
            fill_scanline(polygon.get()[0], window, out_ptr, row_stride, fill_rule, threads)


# ---- masks allocated here ------------------------------------------------------
#: Largest thread count the public API accepts (polymask/_arguments.py reads it here).
MAX_THREADS = 1024

_BOOL = np.dtype(bool)


cdef object filled_mask(Polygon *owned, int64_t row0, int64_t col0, int64_t height, int64_t width,
                        FillRule rule, int threads, int all_touched=0):
    """A new bool mask of the window, filled: zeroed with spans written, or every byte written (views.pxd).

    `all_touched`: the cells that meet the region (csrc/src/touched.cpp) instead of the centres
    inside it, as polymask._arguments.as_all_touched codes it (coverage.pxd: side_tolerance).  Takes ownership of `owned`.
    """
    cdef unique_ptr[Polygon] polygon
    polygon.reset(owned)
    cdef Window window = window_at(row0, col0, height, width)
    cdef bint write_all = writes_every_byte(polygon.get()[0], window, 1)
    result = _new_array((height, width), _BOOL, not write_all, "mask", _MASK_HINT)  # the one allocator
    cdef Py_buffer buffer
    PyObject_GetBuffer(result, &buffer, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
    try:
        with nogil:
            if all_touched:
                fill_touched(polygon.get()[0], window, <uint8_t *>buffer.buf, width, rule, threads, not write_all,
                             side_tolerance(all_touched))
            elif write_all:
                fill_scanline(polygon.get()[0], window, <uint8_t *>buffer.buf, width, rule, threads)
            else:
                fill_scanline_spans(polygon.get()[0], window, <uint8_t *>buffer.buf, width, rule, threads)
    finally:
        PyBuffer_Release(&buffer)
    return result


def new_mask(const double[:, ::1] vertices not None, int64_t height, int64_t width, *, int64_t row0=0,
             int64_t col0=0, int rule=0, int threads=0, const int64_t[::1] ring_ends=None, int all_touched=0):
    """A new (height, width) bool mask: the window at (row0, col0) of the mask of checked arguments.

    Same arguments as fill, less `out`; `all_touched` as in polymask.mask.  MemoryError when it
    cannot be allocated.
    """
    return filled_mask(new_polygon(vertices, ring_ends), row0, col0, height, width, as_rule(rule), threads,
                       all_touched)


# ---- polymask.mask's one-call branch ----------------------------------------
# One ring already in the core's form and the defaults: the funnel's one-step
# tests (polymask/_one_step.pyx, the ones its checks start with) and the fill,
# in one call from Python.


def plain_mask(vertices, shape, int threads, out=None, int all_touched=0):
    """polymask.mask's one-call branch: the mask of one ring, or None for the funnel's general path.

    Not None only when every argument passes the funnel's one-step test:
    `vertices` ring_status -1, `shape` plain_sides, `out` None or
    out_ready; `threads` is a count polymask._threads.as_threads gave and
    `all_touched` False or True.  The fill is polymask/_fill.py's; a new
    mask comes from the one allocator.  A MemoryError also gives None, so
    the general path says what did not fit.
    """
    cdef int64_t rows, cols
    if ring_status(vertices) != -1 or not plain_sides(shape, &rows, &cols):
        return None
    cdef Py_buffer view, out_buffer
    if out is not None and not out_ready(out, &out_buffer, rows, cols):
        return None
    cdef bint holds_out = out is not None
    cdef unique_ptr[Polygon] polygon
    try:
        PyObject_GetBuffer(vertices, &view, PyBUF_C_CONTIGUOUS)
        try:
            with nogil:  # the core's own copy of the vertices
                polygon.reset(new Polygon(<const double *>view.buf if view.shape[0] else NULL, view.shape[0]))
        finally:
            PyBuffer_Release(&view)
        if not holds_out:
            return filled_mask(polygon.release(), 0, 0, rows, cols, FillRule.even_odd, threads, all_touched)
        with nogil:
            if all_touched:
                fill_touched(polygon.get()[0], window_at(0, 0, rows, cols), <uint8_t *>out_buffer.buf,
                             out_buffer.strides[0], FillRule.even_odd, threads, False, side_tolerance(all_touched))
            else:
                fill_scanline(polygon.get()[0], window_at(0, 0, rows, cols), <uint8_t *>out_buffer.buf,
                              out_buffer.strides[0], FillRule.even_odd, threads)
        return out
    except MemoryError:
        return None
    finally:
        if holds_out:
            PyBuffer_Release(&out_buffer)


def thread_count(int threads=0):
    """The most threads a fill asked for `threads` uses (0: the default), after the cap."""
    return resolve_threads(threads)


# Exported from this extension so threadpoolctl can tell it apart from any
# other module called _core (polymask/_threads.py: PolymaskController).
cdef public int polymask_threadpoolctl_marker = 1


def pool_statistics():
    """How the core's pool helpers have done in this process, as a dict.

    threaded_calls: calls that offered chunks to helper threads; unpaid_calls:
    those whose helpers ran no chunk or kept the caller waiting longer than
    half its own working time; waited_ms / longest_wait_ms: the callers'
    waits for helpers; penalty: a helper is woken only for 2**penalty times
    the base work now (it rises while helpers do not pay, e.g. on a busy
    machine, and falls when they do).
    """
    cdef PoolStatistics statistics = core_pool_statistics()
    return {
        "threaded_calls": statistics.threaded_calls,
        "unpaid_calls": statistics.unpaid_calls,
        "waited_ms": statistics.waited_ns / 1e6,
        "longest_wait_ms": statistics.longest_wait_ns / 1e6,
        "penalty": statistics.penalty,
    }


def _reset_pool_learning(bint adaptive=True):
    """For tests and benchmarks: forget what the pool learned; adaptive=False keeps the base bar.

    adaptive=False also stops the check for free cores: every plan then
    follows the work alone, whatever else the machine runs.
    """
    core_reset_pool_learning(adaptive)


def core_info():
    """How the C++ core was compiled, as a dict."""
    cdef BuildInfo info = core_build_info()
    return {
        "core_version": info.version.decode(),
        "compiler": info.compiler.decode(),
        "build_type": info.build_type.decode(),
        "openmp": bool(info.openmp),
        "openmp_version": info.openmp_version,
        "max_threads": info.max_threads,
        "threading": info.threading.decode(),
        "thread_cap": info.thread_cap,
    }


def first_non_finite(const double[:, ::1] vertices not None):
    """Index of the first row holding a NaN or infinity, or -1 if all are finite.

    A plain loop: much cheaper than np.isfinite(...).all() on the small
    vertex arrays of a typical call, and it stops at the first bad row.
    """
    cdef Py_ssize_t row, col
    cdef double value
    for row in range(vertices.shape[0]):
        for col in range(vertices.shape[1]):
            value = vertices[row, col]
            if value != value or value - value != 0.0:  # NaN, or +-inf (inf - inf is NaN)
                return row
    return -1
