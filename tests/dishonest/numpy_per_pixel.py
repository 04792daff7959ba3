"""Exercise 08 without the algorithm: the per-pixel rule vectorised in NumPy (a loop over edges)."""
import numpy as np


def mask(vertices, shape):
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    py, px = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
    inside = np.zeros(shape, dtype=bool)
    for i in range(len(vertices)):
        (xi, yi), (xj, yj) = vertices[i], vertices[i - 1]
        with np.errstate(all="ignore"):
            crosses = (yi > py) != (yj > py)
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
        inside ^= crosses & (px < x_cross)
    return inside
