# cython: language_level=3, boundscheck=False, wraparound=False
"""Lesson 6, Cython with OpenMP (prange): threads without the GIL.

What it teaches: the rows of a mask are independent, so they can be
computed at the same time.  ``prange`` (cython.parallel) turns the row
loop into an OpenMP parallel for; it needs ``nogil``, because threads
holding the GIL would just take turns.  ``num_threads`` says how many
threads to start (0 here means OpenMP's default, ``OMP_NUM_THREADS`` or
all cores).  The build links OpenMP
(``polymask_add_cython_module(... OPENMP)``).

The schedule decides which thread computes which rows:

* ``schedule="dynamic", chunksize=ROWS_PER_CHUNK``: each thread takes the
  next few rows when it is done with its last ones.  A thread that shares
  its core with another process simply takes fewer chunks, and the team
  still finishes together.  ``mask`` uses it.
* ``schedule="static"``: each thread gets one contiguous band of rows, fixed
  in advance.  It costs nothing to hand out, and it is right when every
  thread has a core to itself; but the mask is done only when the slowest
  band is, so a thread that shares its core with a busy process makes the
  whole team wait.  ``mask_static`` is kept to measure that against
  (lesson 6, benchmarks/prange_busy.py).

Both make one parallel region per mask: one team start and one barrier at
the end, never one per block of rows.

What changed from the stage before (cython_class): the per-pixel work is
the same call to the core's ``Polygon::contains`` on a polygon kept in C++,
but the row loop is back in Cython, split over threads.  It scales with
cores, and stops scaling at the memory bandwidth or the core count.

What a pipeline would add and this lesson leaves out (Ctrl-C during the
loop, a process forked after OpenMP started its threads, the thread cap)
is applied around every stage by the registry
(polymask/course/stages/_running.py), not here.
"""
import numpy as np

from cython.parallel cimport prange
from libcpp.memory cimport unique_ptr
cimport openmp

from polymask.core cimport FillRule, Polygon

#: Rows a thread takes at a time under the dynamic schedule: small enough that
#: a slowed thread holds up the end of the mask by a few rows at most, large
#: enough (thousands of pixels) that handing chunks out costs nothing visible.
ROWS_PER_CHUNK = 4


cdef Polygon *_new_polygon(const double[:, ::1] vertices) except NULL:
    """The C++ polygon of `vertices` (the caller owns it)."""
    if vertices.shape[1] != 2:  # the memoryview fixed dtype and layout, not the width: 2N doubles are read
        raise ValueError(f"vertices must be an (N, 2) array of (x, y) pairs, got shape "
                         f"({vertices.shape[0]}, {vertices.shape[1]})")
    return new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0])


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads (0: OpenMP's default)."""
    cdef unique_ptr[Polygon] polygon = unique_ptr[Polygon](_new_polygon(vertices))
    cdef Polygon *shared = polygon.get()  # only read (contains is const) in every thread
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef int team = threads if threads > 0 else openmp.omp_get_max_threads()
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    cdef Py_ssize_t chunk = ROWS_PER_CHUNK
    for row in prange(rows, nogil=True, num_threads=team, schedule="dynamic", chunksize=chunk):
        for col in range(cols):
            out[row, col] = shared.contains(col, row, FillRule.even_odd)
    return result


def mask_static(const double[:, ::1] vertices not None, shape, int threads=0):
    """``mask`` under ``schedule="static"``: one fixed band of rows per thread."""
    cdef unique_ptr[Polygon] polygon = unique_ptr[Polygon](_new_polygon(vertices))
    cdef Polygon *shared = polygon.get()
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef int team = threads if threads > 0 else openmp.omp_get_max_threads()
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in prange(rows, nogil=True, num_threads=team, schedule="static"):
        for col in range(cols):
            out[row, col] = shared.contains(col, row, FillRule.even_odd)
    return result
