# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 06 without prange: Python threads, each running a nogil loop over half the rows."""
import threading

import numpy as np

from polymask.core cimport FillRule, Polygon


cdef void fill_rows(Polygon *polygon, unsigned char[:, ::1] out, Py_ssize_t first, Py_ssize_t step) noexcept nogil:
    cdef Py_ssize_t row = first, col
    while row < out.shape[0]:
        for col in range(out.shape[1]):
            out[row, col] = polygon.contains(col, row, FillRule.even_odd)
        row += step


cdef class _Shared:
    cdef Polygon *polygon

    def __dealloc__(self):
        del self.polygon


def _work(_Shared shared, unsigned char[:, ::1] out, Py_ssize_t first, Py_ssize_t step):
    with nogil:
        fill_rows(shared.polygon, out, first, step)


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    shared = _Shared()
    shared.polygon = new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0])
    result = np.zeros((shape[0], shape[1]), dtype=bool)
    out = result.view(np.uint8)
    team = max(threads, 1)
    pool = [threading.Thread(target=_work, args=(shared, out, k, team)) for k in range(team)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return result
