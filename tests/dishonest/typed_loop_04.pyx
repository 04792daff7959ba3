# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exercise 04 without the lesson: exercise 03's typed loop pasted in; the core is never called."""
import numpy as np


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    cdef cppclass Polygon:
        Polygon(const double *xy, long n_vertices) except +
        bint contains(double px, double py, FillRule rule)



cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    """True if (px, py) is inside the polygon of `vertices`, an (N, 2) float64 array."""
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


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)  # bool is one byte, 0 or 1
    for row in range(rows):
        for col in range(cols):
            out[row, col] = point_inside(vertices, col, row)
    return result
