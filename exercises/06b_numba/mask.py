"""Exercise 06b, Numba: the per-pixel loop compiled at run time, then split over threads.

Numba compiles a Python function to machine code the first time it is
called, from the types of its arguments: ``@njit`` ("no Python") refuses
anything it cannot compile, so a function that compiles runs without the
interpreter.  The loop is the contract's, written in plain Python syntax.
``@njit(parallel=True)`` with ``numba.prange`` then splits a loop over
threads, as Cython's prange does with OpenMP; ``numba.set_num_threads``
picks how many of Numba's threads the next parallel loop uses.

Two options keep the mask bit for bit the contract's: ``fastmath=False``
(LLVM may otherwise reorder, fuse or approximate the arithmetic) and
``error_model="numpy"`` (a division by zero gives inf, as NumPy's does,
instead of a ZeroDivisionError check in the loop).

The first call pays the compilation (a second or more); later calls do not.

Check it:  polymask check 06b exercises/06b_numba/mask.py
"""
import numba
import numpy as np

# TODO (see README.md, section "Procedure"): compile point_inside with @njit and the
# two options the contract needs, then fill with parallel=True and a prange over rows;
# mask() must run fill on `threads` of Numba's threads.


def point_inside(vertices, px, py):
    """Whether (px, py) is inside `vertices` ((N, 2) float64) under the even-odd rule."""
    return False  # TODO


def fill(vertices, out):
    """Write the mask of `vertices` into `out` ((rows, cols) uint8), the rows shared by Numba's threads."""
    pass  # TODO


def mask(vertices, shape, threads):
    """The mask of `vertices` on an image of `shape` (rows, cols), computed on `threads` threads."""
    vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 2)
    result = np.zeros(shape, dtype=bool)
    fill(vertices, result.view(np.uint8))
    return result
