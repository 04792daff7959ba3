"""Exercise 01, pure Python: write the crossing rule yourself.

Fill in `point_inside`: walk the polygon's edges and flip `inside` each
time an edge crosses the pixel's row to the right of the pixel -- the
mask contract's even-odd rule (this folder's README.md, section
"Procedure", step 2).  `mask` is given: it calls `point_inside` once per pixel.

Check it:  polymask check 01 exercises/01_python/mask.py
"""
import numpy as np


def point_inside(polygon, px, py):
    """True if (px, py) is inside `polygon`, a tuple of (x, y) float tuples."""
    inside = False
    j = len(polygon) - 1  # edge (i, j) runs from the previous vertex j = i - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        # TODO: if the edge crosses the row y = py (one end above it, the other not),
        # compute x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi, in exactly that
        # order, and flip `inside` when px < x_cross.
        pass
        j = i
    return inside


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[point_inside(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)
