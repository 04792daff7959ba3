"""Lesson 8, the scanline fill -- the algorithm beats the hardware.

What it teaches: every per-pixel stage below it tests all N edges at all
H*W pixels, O(H*W*N).  The scanline fill computes the contract's x_cross
once per (edge, row), sorts the crossings, and fills the spans between
them: O(H*N + H*W), and the H*W part is just memset.  Same crossings, same
arithmetic, so the same mask, bit for bit.

What changed from the stage before (prange): not the hardware, the
algorithm.  The code is the C++ core in csrc/ (csrc/src/scanline.hpp
and csrc/src/fill.cpp), threaded over bands of rows by the core's own thread
pool (csrc/src/thread_pool.cpp); this stage is the library's own call,
``polymask.mask``, which is what a pipeline uses.
"""
from __future__ import annotations

import polymask
from polymask._fill import fill  # noqa: F401  (the registry's entry: Stage.fill of the general stage)


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, by the core's scanline fill."""
    return polymask.mask(vertices, shape, threads=threads)
