# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 06c, a reduction: threads that add into one total without losing an addition.

How many pixels lie inside the polygon?  Counting them over threads is a
loop like exercise 06's, with one difference: every thread adds into the
same total.  ``total[0] += 1`` through a pointer shared by all threads is a
race: two threads read the same old value, both add one, one addition is
lost, and the count comes out short by a different amount each run.
Cython's answer is a *reduction variable*: a local scalar that the loop
body only updates with an in-place operator (``+=``).  Cython then gives
each thread its own private copy, starting from zero, and adds the copies
together when the loop ends (OpenMP's ``reduction(+:total)``).

``mask`` is given (exercise 06's loop); write ``count_inside``.

Check it:  polymask check 06c exercises/06c_reduction/mask.pyx
"""
import numpy as np

from cython.parallel cimport prange
from libcpp.memory cimport unique_ptr
from posix.unistd cimport getpid

from polymask.core cimport FillRule, Polygon, resolve_threads

# Given, as in exercise 06: GNU OpenMP is not fork-safe, so a child forked
# after a parallel region runs on one thread.
cdef int openmp_owner = 0  # the process whose OpenMP threads exist (0: none started yet)


cdef int openmp_team(int threads):
    """The team size for `threads` (0: all cores), or 1 in a child forked after OpenMP ran."""
    global openmp_owner
    if openmp_owner != 0 and openmp_owner != getpid():
        return 1
    openmp_owner = getpid()
    return resolve_threads(threads)


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads (given)."""
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef int team = openmp_team(threads)
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0]))
    cdef Polygon *shared = polygon.get()  # only read in every thread: contains() is const
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in prange(rows, nogil=True, num_threads=team, schedule="dynamic"):
        for col in range(cols):
            out[row, col] = shared.contains(col, row, FillRule.even_odd)
    return result


def count_inside(const double[:, ::1] vertices not None, shape, int threads=0):
    """How many pixels of an image of `shape` lie inside `vertices`, counted on `threads` threads."""
    # TODO (see README.md, section "Procedure"): build the polygon once, as mask() does; then
    # count its inside pixels in a prange loop over the rows on openmp_team(threads) threads,
    # every thread adding into one total without a race, and return the total.
    return 0
