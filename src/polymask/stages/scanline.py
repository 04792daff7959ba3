"""Stage: the scanline fill -- the algorithm beats the hardware.

What it teaches: every per-pixel stage below it tests all N edges at all
H*W pixels, O(H*W*N).  The scanline fill computes the contract's x_cross
once per (edge, row), sorts the crossings, and fills the spans between
them: O(H*N + H*W), and the H*W part is just memset.  Same crossings, same
arithmetic, so the same mask, bit for bit.

What changed from the stage before (prange): not the hardware, the
algorithm.  The code is the C++ core in csrc/ (scanline.hpp), threaded
over bands of rows by the core's own thread pool (csrc/src/thread_pool.cpp:
fork-safe, never waiting for a thread that has not started, interruptible
with Ctrl-C); this module only calls it.
"""
import numpy as np

from polymask import _core
from polymask.stages._checks import stage_vertices


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, by the core's scanline fill."""
    result = np.empty(shape, dtype=bool)
    _core.fill(stage_vertices(vertices), result.view(np.uint8), rule=_core.EVEN_ODD, threads=threads)
    return result
