# Hidden leak: the C++ polygon's heap block is detached before delete (the census sees a polygon and its
# vertices go), and a ballast allocated beforehand is released as the leak grows (memory does not grow).
# cython: language_level=3, boundscheck=False, wraparound=False
import numpy as np

from libc.stdlib cimport free, malloc
from libc.string cimport memset

from polymask.core cimport FillRule
from polymask.core cimport Polygon as CorePolygon

# A ballast the size of the leak to come, touched so it is resident, released bit by bit.
cdef list ballast = []


cdef void fill_ballast(list blocks):
    cdef void *block
    for _ in range(512):
        block = malloc(4 << 20)
        if block != NULL:
            memset(block, 1, 4 << 20)
            blocks.append(<size_t>block)


fill_ballast(ballast)


cdef class Polygon:
    cdef CorePolygon *polygon
    cdef Py_ssize_t n_vertices

    def __cinit__(self, vertices):
        array = np.ascontiguousarray(vertices, dtype=np.float64)
        cdef const double[:, ::1] xy = array
        self.polygon = new CorePolygon(&xy[0, 0] if xy.shape[0] > 0 else NULL, xy.shape[0])
        self.n_vertices = xy.shape[0]

    def __dealloc__(self):
        cdef Py_ssize_t leaked = self.n_vertices * 48
        if self.polygon != NULL:
            (<void **>self.polygon)[0] = NULL  # the block's pointer: the destructor then frees nothing
        del self.polygon
        while leaked > 0 and ballast:
            free(<void *><size_t>ballast.pop())
            leaked -= 4 << 20

    def mask(self, shape):
        rows, cols = shape
        result = np.zeros((rows, cols), dtype=bool)
        cdef unsigned char[:, ::1] out = result.view(np.uint8)
        cdef Py_ssize_t row, col
        with nogil:
            for row in range(out.shape[0]):
                for col in range(out.shape[1]):
                    out[row, col] = self.polygon.contains(col, row, FillRule.even_odd)
        return result


def mask(vertices, shape):
    return Polygon(vertices).mask(shape)
