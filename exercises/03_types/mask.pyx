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
    return inside


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    # TODO: the pixel loop, typed. Give rows, cols and the loop indices C types, make the
    # result a NumPy bool array, and write into it through a typed memoryview of its bytes
    # (a bool is one byte, 0 or 1) -- writing into the array itself goes through Python.
    raise NotImplementedError("write mask: a typed loop over the pixels that calls point_inside")
