"""Side stage, Numba: the other road to compiled speed.

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

What changed from the stage before (cython_prange): no Cython, no C++
core, no build step: the same threaded per-pixel loop, compiled at run
time from Python.  It sits beside the Cython ladder rather than on it.
"""
import numba
import numpy as np
from numba import njit, prange

from polymask.stages._checks import stage_vertices


@njit(parallel=True, fastmath=False, error_model="numpy", cache=False)
def fill(vertices, out):
    """Write the mask of `vertices` ((N, 2) float64) into `out` (uint8, rows x cols)."""
    rows, cols = out.shape
    n = vertices.shape[0]
    for row in prange(rows):
        py = float(row)
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


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, on `threads` threads (0: all)."""
    result = np.zeros(shape, dtype=bool)
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers: no unchecked reads
    # set_num_threads applies to this thread's next parallel regions and
    # cannot exceed the pool Numba started with; restore it afterwards.
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS) if threads > 0
                          else numba.config.NUMBA_NUM_THREADS)
    try:
        fill(vertices, result.view(np.uint8))
    finally:
        numba.set_num_threads(previous)
    return result
