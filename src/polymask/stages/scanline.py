"""Lesson 8, the scanline fill -- the algorithm beats the hardware.

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

It is also ``polymask.mask``'s production path: the registry hands `fill`
the validated arguments (several rings, both fill rules, a window,
all_touched), and `fill` writes straight into the caller's buffer.
"""
from __future__ import annotations

import numpy as np

from polymask import _core, _coverage
from polymask._validation import MASK_HINT, cannot_allocate
from polymask.stages._checks import stage_vertices


def mask(vertices, shape, threads=0):
    """The mask of `vertices` on an image of `shape`, by the core's scanline fill."""
    return fill(stage_vertices(vertices), (shape[0], shape[1]), threads=threads)


def fill(coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None = None, *, threads: int = 0,
         rule: int = _core.EVEN_ODD, window: tuple[int, int, int, int] | None = None,
         ring_ends: np.ndarray | None = None, all_touched: bool = False) -> np.ndarray:
    """The mask of checked arguments into `out` (None: a new array); see polymask.stages.Stage.fill."""
    row0, col0, out_shape = (0, 0, shape) if window is None else (window[0], window[1], window[2:])
    if out is None:
        # A new array: np.zeros with only the inside spans (or touched cells)
        # written when the polygon covers few rows (untouched pages stay
        # untouched), np.empty with every byte written once when it covers
        # most (_core.filled_mask).
        try:
            return _core.new_mask(coordinates, out_shape[0], out_shape[1], row0=row0, col0=col0, rule=rule,
                                  threads=threads, ring_ends=ring_ends, all_touched=all_touched)
        except MemoryError:
            raise cannot_allocate(out_shape, 1, "mask", MASK_HINT) from None
    if all_touched:  # centre mask + the cells edges pass (csrc/src/touched.cpp, via polymask/_coverage.py)
        _coverage.fill_touched(coordinates, ring_ends, out.view(np.uint8), row0, col0, rule, threads)
        return out
    _core.fill(coordinates, out.view(np.uint8), row0=row0, col0=col0, rule=rule, threads=threads,
               ring_ends=ring_ends)
    return out
