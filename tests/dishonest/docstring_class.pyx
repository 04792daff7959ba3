# cython: language_level=3
"""A plain Python class for exercise 05, with the declaration only in a docstring: "cdef class Polygon"."""
import numpy as np


class Polygon:
    """Looks like `cdef class Polygon` to a scan of raw lines; it is an ordinary Python class."""

    def __init__(self, vertices):
        self.vertices = np.ascontiguousarray(vertices, dtype=np.float64)

    def mask(self, shape):
        xs, ys = self.vertices[:, 0], self.vertices[:, 1]
        rows, cols = shape
        py, px = np.mgrid[0:rows, 0:cols].astype(float)
        inside = np.zeros(shape, bool)
        for i in range(len(xs)):
            j = i - 1
            with np.errstate(all="ignore"):
                crosses = (ys[i] > py) != (ys[j] > py)
                x_cross = (xs[j] - xs[i]) * (py - ys[i]) / (ys[j] - ys[i]) + xs[i]
            inside ^= crosses & (px < x_cross)
        return inside


def mask(vertices, shape):
    return Polygon(vertices).mask(shape)
