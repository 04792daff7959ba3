"""Exercise 08, the scanline fill: a better algorithm beats faster hardware.

Every per-pixel stage tests all N edges at all rows x cols pixels.  The
scanline fill works a row at a time: compute where each edge crosses the
row (the contract's x_cross, only for the edges that cross it), sort the
crossings, and fill the spans between them.  A pixel col is inside when
an odd number of crossings satisfy col < x_cross; for integer col that is
col < ceil(x_cross), so with the sorted crossings rounded up, a1 <= a2 <=
a3 <= a4 ..., the inside spans are [a1, a2), [a3, a4), ... -- clipped to
the image.  Same crossings, same arithmetic: the same mask, bit for bit.

Check it:  polymask check 08 exercises/08_scanline/mask.py
"""
import numpy as np


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    # TODO: the scanline fill. Edge (i, j) runs from vertex j = i - 1 to vertex i; for
    # each row, only the edges with one end above the row and the other not cross it, at
    # the contract's x_cross. Turn those crossings into spans of inside pixels and set
    # them; mind polygons with no vertices and coordinates up to +-1e300.
    raise NotImplementedError("write mask: the scanline fill, a row at a time")
