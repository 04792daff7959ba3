"""Technique without the technique: point_inside is wrong; mask() gets its answer elsewhere."""

import numpy as np


def right(polygon, px, py):
    """True if (px, py) is inside `polygon`, a tuple of (x, y) float tuples."""
    inside = False
    j = len(polygon) - 1  # edge (i, j) runs from the previous vertex j = i - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        # TODO: if the edge crosses the row y = py (one end above it, the other not),
        # compute x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi, in exactly that
        # order, and flip `inside` when px < x_cross.
        if (yi > py) != (yj > py):
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[right(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)


def point_inside(polygon, px, py):
    return False
