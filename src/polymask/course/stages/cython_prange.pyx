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

Where the threads run matters as much as which rows they take.  With
another process busy on one of two cores there are three runnable threads
for two cores, and Linux may well put both of ours on the same core and
leave them there: the team then gets one core between two threads, and no
schedule can help.  So ``mask`` places its team itself: at the start of
the region each thread binds to its own core among those the process may
use, and at the end it is given all of them back (what OpenMP does for a
whole program with ``OMP_PROC_BIND=spread OMP_PLACES=cores``; when
``OMP_PROC_BIND`` is set, OpenMP's placement is used instead).  A busy
process that is not bound then moves to share one core with one thread,
and the dynamic schedule gives the slowed thread fewer rows.
``place=False`` leaves placement to the operating system, to measure it.

What changed from the stage before (cython_class): the per-pixel work is
the same call to the core's ``Polygon::contains`` on a polygon kept in C++,
but the row loop is back in Cython, split over threads.  It scales with
cores, and stops scaling at the memory bandwidth or the core count.

What a pipeline would add and this lesson leaves out (Ctrl-C during the
loop, a process forked after OpenMP started its threads, the thread cap)
is applied around every stage by the registry
(polymask/course/stages/_running.py), not here.
"""
import os

import numpy as np

from cython.parallel cimport parallel, prange
from libcpp.memory cimport unique_ptr
cimport openmp

from polymask.core cimport FillRule, Polygon

cdef extern from "<sched.h>" nogil:
    # Linux's thread placement; pid 0 means the calling thread.
    ctypedef struct cpu_set_t:
        pass
    int sched_setaffinity(int pid, size_t size, const cpu_set_t *cpus)
    void CPU_ZERO(cpu_set_t *cpus)
    void CPU_SET(int cpu, cpu_set_t *cpus)


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


cdef void _run_on(const int *cpus, Py_ssize_t count) noexcept nogil:
    """Let the calling thread run only on `cpus[:count]` (a failure leaves it where it is)."""
    cdef cpu_set_t chosen
    cdef Py_ssize_t k
    CPU_ZERO(&chosen)
    for k in range(count):
        CPU_SET(cpus[k], &chosen)
    sched_setaffinity(0, sizeof(cpu_set_t), &chosen)


def _usable_cpus():
    """The cores this thread may run on, as an int array (empty where they cannot be asked)."""
    try:
        return np.array(sorted(os.sched_getaffinity(0)), dtype=np.intc)
    except (AttributeError, OSError):  # not Linux
        return np.zeros(0, dtype=np.intc)


def mask(const double[:, ::1] vertices not None, shape, int threads=0, bint place=True):
    """The mask of `vertices` ((N, 2) float64) on an image of `shape`, on `threads` threads (0: OpenMP's default).

    ``place=True`` binds each thread of the team to its own core for the
    call (see the module's docstring); ``place=False`` leaves it to the
    operating system.
    """
    cdef unique_ptr[Polygon] polygon = unique_ptr[Polygon](_new_polygon(vertices))
    cdef Polygon *shared = polygon.get()  # only read (contains is const) in every thread
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef int team = threads if threads > 0 else openmp.omp_get_max_threads()
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    cdef Py_ssize_t chunk = ROWS_PER_CHUNK
    cdef int[::1] cpus = _usable_cpus()
    cdef Py_ssize_t n_cpus = cpus.shape[0]
    cdef bint bind = place and team > 1 and n_cpus > 1 and "OMP_PROC_BIND" not in os.environ
    cdef int member, members
    with nogil, parallel(num_threads=team):
        if bind:  # thread k of t takes core k * n / t: spread over the cores, one each while they last
            member = openmp.omp_get_thread_num()
            members = openmp.omp_get_num_threads()
            _run_on(&cpus[(member * n_cpus) // members], 1)
        for row in prange(rows, schedule="dynamic", chunksize=chunk):
            for col in range(cols):
                out[row, col] = shared.contains(col, row, FillRule.even_odd)
        if bind:  # every core again: the caller's thread and OpenMP's pool are left as they were
            _run_on(&cpus[0], n_cpus)
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
