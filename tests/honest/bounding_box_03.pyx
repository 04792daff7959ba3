# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# Exercise 03 that asks point_inside only about the pixels inside the polygon's bounding box, through a
# Fortran-ordered copy of the vertices read by a strided memoryview.
import numpy as np
from libc.math cimport ceil, floor


cdef bint point_inside(const double[:, :] vertices, double px, double py) noexcept nogil:
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
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col, first_row = 0, end_row = 0, first_col = 0, end_col = 0
    cdef const double[:, :] columns_first = np.asfortranarray(vertices)
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    if vertices.shape[0] == 0:
        return result
    low = np.min(vertices, axis=0)
    high = np.max(vertices, axis=0)
    first_col = <Py_ssize_t>max(0.0, min(<double>cols, ceil(low[0])))
    end_col = <Py_ssize_t>max(0.0, min(<double>cols, floor(high[0]) + 1))
    first_row = <Py_ssize_t>max(0.0, min(<double>rows, ceil(low[1])))
    end_row = <Py_ssize_t>max(0.0, min(<double>rows, floor(high[1]) + 1))
    for row in range(first_row, end_row):
        for col in range(first_col, end_col):
            out[row, col] = point_inside(columns_first, col, row)
    return result
