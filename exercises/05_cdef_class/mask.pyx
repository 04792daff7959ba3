# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 05, a cdef class: keep the C++ polygon alive between calls.

`Polygon` is a Python type whose one field is a C pointer to the core's
C++ polygon.  Write its life cycle: ``__cinit__`` builds the C++ polygon
from the vertices (the one NumPy-to-C++ conversion), ``__dealloc__``
deletes it, and `Polygon.mask` asks the stored polygon about every pixel,
so no call converts anything again.

Check it:  polymask check 05 exercises/05_cdef_class/mask.pyx
"""
import numpy as np

from polymask.core cimport FillRule
from polymask.core cimport Polygon as CorePolygon


cdef class Polygon:
    """A polygon whose vertices live in C++, ready for any number of masks."""

    cdef CorePolygon *polygon  # owned: made in __cinit__, deleted in __dealloc__

    def __cinit__(self, vertices):
        # TODO: convert `vertices` once to a C-contiguous float64 (N, 2) array (a
        # ValueError naming the shape received otherwise), view it as typed memory, and
        # make the C++ polygon from a pointer to its first x and its vertex count (NULL
        # when there are none); the C++ constructor copies the vertices.
        pass

    def __dealloc__(self):
        # TODO: free what __cinit__ made (it may be NULL if __cinit__ raised).
        pass

    def mask(self, shape):
        """The mask of this polygon on an image of `shape` (rows, cols), one thread."""
        if self.polygon == NULL:
            # Checked in Python so a missing __cinit__ is an error message, not a crash.
            raise RuntimeError("Polygon has no C++ polygon: __cinit__ must set self.polygon")
        # TODO: a bool result of `shape`, a typed view of its bytes, typed indices, and,
        # without the GIL, the stored polygon's answer (even-odd) for every pixel.
        return np.zeros(shape, dtype=bool)

def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    return Polygon(vertices).mask(shape)
