# cython: language_level=3, boundscheck=False, wraparound=False
# Exercise 06 with an explicit parallel() block and prange(schedule="static", chunksize=16).
import numpy as np

from cython.parallel cimport parallel, prange
from libcpp.memory cimport unique_ptr

from polymask.core cimport FillRule, Polygon, resolve_threads


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef int team = resolve_threads(threads)
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0]))
    cdef Polygon *shared = polygon.get()
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    with nogil, parallel(num_threads=team):
        for row in prange(rows, schedule="static", chunksize=16):
            for col in range(cols):
                out[row, col] = shared.contains(col, row, FillRule.even_odd)
    return result
