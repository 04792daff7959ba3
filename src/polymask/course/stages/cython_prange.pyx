# cython: language_level=3, boundscheck=False, wraparound=False
"""Lesson 6, Cython with OpenMP (prange): threads without the GIL.

What it teaches: the rows of a mask are independent, so they can be
computed at the same time.  ``prange`` (cython.parallel) turns the row
loop into an OpenMP parallel for; it needs ``nogil``, because threads
holding the GIL would just take turns.  ``num_threads`` says how many
threads to start (0 here means all cores, as in the core), and
``schedule="static"`` hands each thread one contiguous band of rows, which
suits work that costs about the same on every row.  The build links OpenMP
(``polymask_add_cython_module(... OPENMP)``).

What changed from the stage before (cython_class): the per-pixel work is
the same call to the core's ``Polygon::contains`` on a polygon kept in C++,
but the row loop is back in Cython, split over threads.  It scales with
cores, and stops scaling at the memory bandwidth or the core count.
"""
import numpy as np

from cython.parallel cimport prange
from cpython.exc cimport PyErr_CheckSignals
from libcpp.memory cimport unique_ptr
from posix.unistd cimport getpid

from polymask.core cimport FillRule, Polygon, resolve_threads


# The process whose OpenMP threads exist (0: none started yet).
cdef int openmp_owner = 0


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads."""
    if vertices.shape[1] != 2:  # the memoryview fixed dtype and layout, not the width: 2N doubles are read
        raise ValueError(f"vertices must be an (N, 2) array of (x, y) pairs, got shape "
                         f"({vertices.shape[0]}, {vertices.shape[1]})")
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col, block_begin, block_end
    # About 2**22 edge tests per block: milliseconds, so Ctrl-C is seen quickly.
    cdef Py_ssize_t block_rows = max(1, (1 << 22) // max(1, cols * (vertices.shape[0] + 1)))
    cdef int team = resolve_threads(threads)  # 0: polymask's default; capped at a few per core
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL,
                              vertices.shape[0]))
    cdef Polygon *shared = polygon.get()  # only read (contains is const) in every thread
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    global openmp_owner
    if openmp_owner != 0 and openmp_owner != getpid():
        # Forked after OpenMP started its threads: they stayed in the parent.
        with nogil:
            for row in range(rows):
                for col in range(cols):
                    out[row, col] = shared.contains(col, row, FillRule.even_odd)
        return result
    openmp_owner = getpid()
    for block_begin in range(0, rows, block_rows):
        block_end = min(rows, block_begin + block_rows)
        for row in prange(block_begin, block_end, nogil=True, num_threads=team, schedule="static"):
            for col in range(cols):
                out[row, col] = shared.contains(col, row, FillRule.even_odd)
        PyErr_CheckSignals()
    return result
