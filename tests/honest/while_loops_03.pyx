# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# Exercise 03 written with typed `while` loops everywhere, edges walked in reverse order.
import numpy as np


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    cdef bint inside = False
    cdef Py_ssize_t n = vertices.shape[0]
    cdef Py_ssize_t i = n - 1, j
    cdef double x_cross
    while i >= 0:  # the same edges (i, j = i - 1), last first: the parity does not depend on the order
        j = i - 1 if i > 0 else n - 1
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        i -= 1
    return inside


def mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row = 0, col
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    while row < rows:
        col = 0
        while col < cols:
            out[row, col] = point_inside(vertices, col, row)
            col += 1
        row += 1
    return result
