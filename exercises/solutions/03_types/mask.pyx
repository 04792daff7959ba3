# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exercise 03, types: tell Cython the C types and it writes C.

`point_inside` is now a `cdef` function that takes a typed memoryview of
the vertices and returns a C `bint`; it is `noexcept nogil`, so it may
not touch a single Python object.  Write its body with C types (declare
the locals with `cdef`) and read the vertices as ``vertices[i, 0]`` (x)
and ``vertices[i, 1]`` (y).  Then write `mask`'s pixel loop, typed too.
The directives on the first line drop index checks and the division
check: read the lesson on what that costs in safety.

Check it:  polymask check 03 exercises/03_types/mask.pyx
Then:      cython -a exercises/03_types/mask.pyx  -- the loop should be white.
"""
import numpy as np


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    """True if (px, py) is inside the polygon of `vertices`, an (N, 2) float64 array."""
    cdef bint inside = False
    # TODO: declare the loop indices and x_cross with cdef, then walk the edges
    # (i, j = i - 1) exactly as in exercise 01, reading vertices[i, 0] and vertices[i, 1].
    # BEGIN SOLUTION
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    cdef double x_cross
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    # END SOLUTION
    return inside


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    # TODO: the pixel loop, typed. Give rows, cols and the loop indices C types, make the
    # result a NumPy bool array, and write into it through a typed memoryview of its bytes
    # (a bool is one byte, 0 or 1) -- writing into the array itself goes through Python.
    # BEGIN SOLUTION
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = point_inside(vertices, col, row)
    return result
    # ELSE STUB
    # raise NotImplementedError("write mask: a typed loop over the pixels that calls point_inside")
    # END SOLUTION
