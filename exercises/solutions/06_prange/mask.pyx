# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 06, prange: split the rows over threads with OpenMP.

The rows of a mask are independent.  Replace the TODO with the C++
polygon every thread shares, the result, a loop over the rows that OpenMP
splits over `team` threads (cython.parallel.prange), and an inner loop
over the columns that asks the shared polygon about each pixel.  `prange` needs ``nogil``: threads that held the GIL
would only take turns.  The checker compiles this file with -fopenmp,
calls ``mask(vertices, shape, threads=2)``, and counts at run time the
threads that did the work.  Stuck?  ``polymask check 06 --hint``.

Check it:  polymask check 06 exercises/06_prange/mask.pyx
"""
import numpy as np

from cython.parallel cimport prange
from libcpp.memory cimport unique_ptr
from posix.unistd cimport getpid

from polymask.core cimport FillRule, Polygon, resolve_threads

# Given, not part of the exercise: GNU OpenMP is not fork-safe.  Its worker
# threads stay in the parent, and a child forked after a parallel region
# (multiprocessing's "fork" pools, PyTorch DataLoader workers) would wait
# for them forever in its next team of two or more.  A team of one waits
# for nobody, so such a child runs on one thread (as polymask's
# cython_prange stage does).
cdef int openmp_owner = 0  # the process whose OpenMP threads exist (0: none started yet)


cdef int openmp_team(int threads):
    """The team size for `threads` (0: all cores), or 1 in a child forked after OpenMP ran."""
    global openmp_owner
    if openmp_owner != 0 and openmp_owner != getpid():
        return 1
    openmp_owner = getpid()
    return resolve_threads(threads)


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads."""
    # TODO: typed sizes and loop indices; the team size from openmp_team(threads) (given
    # above: it keeps a forked child on one thread); one C++ polygon (owned, as in
    # exercise 04) shared read-only by every thread; a bool result and a typed view of its
    # bytes; then a prange loop over the rows on the team without the GIL, with a
    # schedule that suits a shared machine, and inside it a plain loop over the columns
    # that stores the polygon's answer; return the bool result.
    # BEGIN SOLUTION
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef int team = openmp_team(threads)  # 0: all cores; 1 in a forked child
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0]))
    cdef Polygon *shared = polygon.get()  # only read in every thread: contains() is const
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    # dynamic: a thread slowed by another process on its core takes fewer chunks (lesson 6)
    for row in prange(rows, nogil=True, num_threads=team, schedule="dynamic", chunksize=8):
        for col in range(cols):
            out[row, col] = shared.contains(col, row, FillRule.even_odd)
    return result
    # ELSE STUB
    # return np.zeros((shape[0], shape[1]), dtype=bool)
    # END SOLUTION
