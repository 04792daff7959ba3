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
    rows, cols = shape
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    result = np.zeros((rows, cols), dtype=bool)
    if len(vertices) == 0:
        return result
    # Edge (i, j) runs from the previous vertex j = i - 1: np.roll gives every j at once.
    xi, yi = vertices[:, 0], vertices[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)
    for row in range(rows):
        py = float(row)
        # TODO: pick the edges that cross this row ((yi > py) != (yj > py)), compute their
        # x_cross in the contract's order, round up and sort, and set the pixels of each
        # span [a1, a2), [a3, a4), ... (clipped to 0..cols) to True.
    return result
