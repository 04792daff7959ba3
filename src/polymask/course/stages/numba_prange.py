"""Side stage (lesson 6, beside the ladder in lesson 9's table), Numba: the other road to compiled speed.

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

Numba's prange splits the rows into one equal band per thread, fixed in
advance, like Cython's ``schedule="static"`` (its OpenMP layer has no
dynamic schedule): with every core free the bands finish together, but
when another process holds one core the band on that core finishes last
and two threads gain little over one.  benchmarks/prange_busy.py measures
it beside cython_prange's dynamic schedule.

``nogil=True`` lets other Python threads run while the kernel does.  One
thread needs no thread pool: ``threads=1`` runs the same loop compiled
without ``parallel=True``.  What a pipeline would add (Ctrl-C during the
kernel, a process forked after Numba's threads started, the thread cap) is
applied around every stage by the registry (polymask/course/stages/_running.py), not here.

What changed from the stage before (cython_prange): no Cython, no C++
core, no build step: the same threaded per-pixel loop, compiled at run
time from Python.  It sits beside the Cython ladder rather than on it.
"""
import numba
import numpy as np
from numba import njit, prange

from polymask.course.stages._checks import stage_vertices


@njit(parallel=True, nogil=True, fastmath=False, error_model="numpy", cache=False)
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


#: The same loop without threads (prange runs as range): one thread needs no pool.
fill_serial = njit(parallel=False, nogil=True, fastmath=False, error_model="numpy", cache=False)(fill.py_func)


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, on `threads` threads (0: Numba's default)."""
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers: no unchecked reads
    result = np.zeros(shape, dtype=bool)
    if threads == 1:
        fill_serial(vertices, result.view(np.uint8), 0)
        return result
    # set_num_threads applies to this thread's next parallel regions and
    # cannot exceed the pool Numba started with; restore it afterwards.
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS) if threads > 0
                          else numba.config.NUMBA_NUM_THREADS)
    try:
        fill(vertices, result.view(np.uint8), 0)
    finally:
        numba.set_num_threads(previous)
    return result
