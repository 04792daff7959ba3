"""Side stage (lesson 9's table), Numba: the other road to compiled speed.

What it teaches: Numba compiles a Python function to machine code when it
is first called (just in time), from the types of its arguments.  The code
is the typed stage's loop in plain Python syntax; ``@njit(parallel=True)``
with ``prange`` splits the rows over threads, like Cython's prange.  Two
options matter for the mask contract:

* ``fastmath=False`` (the default, spelled out): with fast-math LLVM may
  reorder operations, divide by multiplying with a reciprocal or fuse a
  multiply and an add, and the mask would stop being bit-identical to
  every other stage (tests/test_stages.py checks the generated LLVM IR);
* ``error_model="numpy"``: no division-by-zero check (an edge that crosses
  the row has y[j] != y[i]), the same trade as Cython's ``cdivision``.

The first call pays the compilation (seconds); later calls do not.

Two things a pipeline needs, kept outside the kernel: the rows go in
blocks of a few milliseconds, so Ctrl-C (which Python handles between
bytecodes) is seen between blocks; and a process forked after the threads
started (a multiprocessing "fork" pool) runs the same kernel compiled
without ``parallel=True``, since Numba's OpenMP threads stayed in the
parent and its OpenMP layer ends such a child instead of hanging it.

What changed from the stage before (cython_prange): no Cython, no C++
core, no build step: the same threaded per-pixel loop, compiled at run
time from Python.  It sits beside the Cython ladder rather than on it.
"""
import os

import numba
import numpy as np
from numba import njit, prange

from polymask.course.stages._checks import stage_vertices


@njit(parallel=True, fastmath=False, error_model="numpy", cache=False)
def fill(vertices, out, row0):
    """Write rows row0, row0 + 1, ... of the mask of `vertices` ((N, 2) float64) into `out` (uint8)."""
    rows, cols = out.shape
    n = vertices.shape[0]
    for row in prange(rows):
        py = float(row0 + row)
        for col in range(cols):
            px = float(col)
            inside = False
            j = n - 1  # edge (i, j), j = i - 1
            for i in range(n):
                if (vertices[i, 1] > py) != (vertices[j, 1] > py):
                    x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                               / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
                    if px < x_cross:
                        inside = not inside
                j = i
            out[row, col] = inside
    return out


#: The same loop without threads (prange runs as range), for forked children.
fill_serial = njit(parallel=False, fastmath=False, error_model="numpy", cache=False)(fill.py_func)

#: The process whose Numba threads exist (None: none started yet).
_threads_owner = None


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, on `threads` threads (0: all)."""
    global _threads_owner
    result = np.zeros(shape, dtype=bool)
    out = result.view(np.uint8)
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers: no unchecked reads
    rows, cols = shape
    # About 2**22 edge tests per block: milliseconds each.
    block = max(1, (1 << 22) // max(1, cols * (len(vertices) + 1)))
    if _threads_owner is not None and _threads_owner != os.getpid():
        for begin in range(0, rows, block):  # forked: one thread, same rows
            _run(fill_serial, vertices, out[begin:begin + block], begin)
        return result
    _threads_owner = os.getpid()
    # set_num_threads applies to this thread's next parallel regions and
    # cannot exceed the pool Numba started with; restore it afterwards.
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS) if threads > 0
                          else numba.config.NUMBA_NUM_THREADS)
    try:
        for begin in range(0, rows, block):
            _run(fill, vertices, out[begin:begin + block], begin)
    finally:
        numba.set_num_threads(previous)
    return result


def _run(kernel, vertices, out, row0):
    """kernel(vertices, out, row0), with a Ctrl-C during it raised as KeyboardInterrupt."""
    try:
        kernel(vertices, out, row0)
    except SystemError as error:
        # A signal that arrives while compiled code runs surfaces as
        # "SystemError: ... returned a result with an exception set", the
        # KeyboardInterrupt as its cause: raise that instead.
        if isinstance(error.__cause__, KeyboardInterrupt):
            raise error.__cause__ from None
        raise
