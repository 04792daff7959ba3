# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# Exercise 03 with the column loop in a cdef helper that mask() calls once per row.
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


cdef void fill_row(const double[:, ::1] vertices, unsigned char[:, ::1] out, Py_ssize_t row) noexcept nogil:
    cdef Py_ssize_t col
    for col in range(out.shape[1]):
        out[row, col] = point_inside(vertices, col, row)


def mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        fill_row(vertices, out, row)
    return result
