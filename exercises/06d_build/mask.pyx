# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exercise 06d, the build: this module is given; what you write is the build that compiles it.

A typed per-pixel loop whose rows ``prange`` splits over threads (exercise
06's technique, on exercise 03's cdef function).  Cython turns it into C or
C++ source; what that source becomes -- C or C++, with or without OpenMP,
optimised or not -- is decided by the build, not by this file:

* compiled as C++ (``language="c++"``), ``__cplusplus`` is defined;
* compiled and linked with the compiler's OpenMP flag, ``prange`` becomes an
  OpenMP parallel loop; without it, the ``#pragma omp`` lines are ignored and
  the loop quietly runs on one thread;
* with an optimisation level of 1 or more, ``__OPTIMIZE__`` is defined.

The block below records what the compiler saw in one string kept in the built
module (``build_report()`` returns it).  The checker reads it from the built
file, with the file's symbols (the OpenMP runtime it calls) and the libraries
it needs, then counts from outside the threads that shared the rows.

Build it:  python setup.py build_ext --inplace
Check it:  polymask check 06d exercises/06d_build/setup.py
"""
import os

import numpy as np

from cython.parallel cimport prange
from posix.unistd cimport getpid

cdef extern from *:
    """
    #if defined(__cplusplus)
    #define POLYMASK_BUILD_LANGUAGE "C++"
    #else
    #define POLYMASK_BUILD_LANGUAGE "C"
    #endif
    #if defined(_OPENMP)
    #define POLYMASK_BUILD_OPENMP "yes"
    #else
    #define POLYMASK_BUILD_OPENMP "no"
    #endif
    #if defined(__OPTIMIZE__)
    #define POLYMASK_BUILD_OPTIMIZED "yes"
    #else
    #define POLYMASK_BUILD_OPTIMIZED "no"
    #endif
    #if defined(__FAST_MATH__)
    #define POLYMASK_BUILD_FAST_MATH "yes"
    #else
    #define POLYMASK_BUILD_FAST_MATH "no"
    #endif
    static const char polymask_build_report[] =
        "polymask-build-report: language=" POLYMASK_BUILD_LANGUAGE " openmp=" POLYMASK_BUILD_OPENMP
        " optimized=" POLYMASK_BUILD_OPTIMIZED " fast-math=" POLYMASK_BUILD_FAST_MATH;
    """
    const char *polymask_build_report


def build_report():
    """How the compiler built this module: language, OpenMP, optimisation, fast-math."""
    return polymask_build_report.decode("ascii")


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    """The contract's crossing rule (exercise 03's function)."""
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    cdef double x_cross
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    return inside


# GNU OpenMP is not fork-safe: a child forked after a parallel region would wait
# forever for its parent's threads in its next team of two or more, so such a
# child runs on one thread (as exercise 06's file does).
cdef int openmp_owner = 0  # the process whose OpenMP threads exist (0: none started yet)


cdef int openmp_team(int threads):
    """The team size for `threads` (0: one per core), or 1 in a child forked after OpenMP ran."""
    global openmp_owner
    if openmp_owner != 0 and openmp_owner != getpid():
        return 1
    openmp_owner = getpid()
    return threads if threads > 0 else (os.cpu_count() or 1)


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads (0: all cores)."""
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef int team = openmp_team(threads)
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    # dynamic: a thread slowed by another process on its core takes fewer chunks (lesson 6)
    for row in prange(rows, nogil=True, num_threads=team, schedule="dynamic", chunksize=8):
        for col in range(cols):
            out[row, col] = point_inside(vertices, col, row)
    return result
