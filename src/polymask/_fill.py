"""The production fill: checked arguments in, the mask out, by the C++ core.

``polymask.mask`` checks its arguments once (polymask/_inputs.py) and hands
them here: one flat vertex array and its ring ends, already in the
contract's sample-point frame, the image shape, an optional window and an
optional checked ``out=``.  The core's scanline fill computes the
contract's x_cross once per (edge, row) and fills the spans between
crossings, threaded over bands of rows by the core's pool, with the GIL
released (csrc/src/fill.cpp).
"""
from __future__ import annotations

import numpy as np

from polymask import _core, _coverage_sweep
from polymask._outputs import MASK_HINT, fill_memory_error


def fill(coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None = None, *, threads: int = 0,
         rule: int = _core.EVEN_ODD, window: tuple[int, int, int, int] | None = None,
         ring_ends: np.ndarray | None = None, all_touched: int = 0) -> np.ndarray:
    """The mask of checked arguments, into `out` (None: a new bool array), which is returned.

    `coordinates` a C-contiguous (N, 2) float64 array of finite numbers,
    `shape` the image's (rows, cols), `out` None or a checked bool / uint8
    array of the result's shape, `window` None or a checked
    (row0, col0, height, width), `ring_ends` None (one ring) or the rings'
    cumulative vertex counts, `all_touched` a code of polymask._arguments.as_all_touched.
    """
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
            raise fill_memory_error(out_shape, len(coordinates), "mask", MASK_HINT) from None
    if all_touched:  # the cells that meet the region, every byte written (csrc/src/touched.cpp)
        _coverage_sweep.fill_touched(coordinates, out.view(np.uint8), row0, col0, rule, threads, ring_ends, False,
                                     all_touched)
        return out
    _core.fill(coordinates, out.view(np.uint8), row0=row0, col0=col0, rule=rule, threads=threads,
               ring_ends=ring_ends)
    return out

