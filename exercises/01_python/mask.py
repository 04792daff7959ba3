"""Exercise 01, pure Python: write the crossing rule yourself.

Write both functions.  `point_inside` walks the polygon's edges and flips
`inside` each time an edge crosses the pixel's row to the right of the
pixel -- the mask contract's even-odd rule (this folder's README.md,
section "Procedure").  `mask` asks `point_inside` about every pixel.

Check it:  polymask check 01 exercises/01_python/mask.py
"""
import numpy as np


def point_inside(polygon, px, py):
    """True if (px, py) is inside `polygon`, a tuple of (x, y) float tuples."""
    # TODO: walk the edges (i, j), where j is the vertex before i (the last one for i = 0).
    # An edge counts when one end lies above the row y = py and the other does not; it
    # meets the row at x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi, computed in
    # exactly that order. The pixel is inside when an odd number of such crossings lie
    # strictly to its right (px < x_cross).
    raise NotImplementedError("write point_inside: the even-odd crossing rule")


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    # TODO: turn the vertices into a tuple of (x, y) Python float tuples, once; then ask
    # point_inside about every pixel -- x is the column, y the row, both as floats -- and
    # return a bool array of `shape`, True where the pixel is inside.
    raise NotImplementedError("write mask: point_inside for every pixel")
