# Technique without the technique: a Polygon whose __dealloc__ frees nothing (right masks, every polygon leaked).
# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 05, a cdef class: keep the C++ polygon alive between calls.

`Polygon` is a Python type whose one field is a C pointer to the core's
C++ polygon.  Write its life cycle: ``__cinit__`` builds the C++ polygon
from the vertices (the one NumPy-to-C++ conversion), ``__dealloc__``
deletes it.  `Polygon.mask` is given: it asks the stored polygon about
every pixel, so no call converts anything again.

Check it:  polymask check 05 exercises/05_cdef_class/mask.pyx
"""
import numpy as np

from polymask.core cimport FillRule
from polymask.core cimport Polygon as CorePolygon


cdef class Polygon:
    """A polygon whose vertices live in C++, ready for any number of masks."""

    cdef CorePolygon *polygon  # owned: made in __cinit__, deleted in __dealloc__
    cdef Py_ssize_t n_vertices

    def __cinit__(self, vertices):
        array = np.ascontiguousarray(vertices, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != 2:
            raise ValueError(f"vertices must have shape (N, 2), got shape {array.shape}")
        cdef const double[:, ::1] xy = array
        # TODO: self.polygon = new CorePolygon(pointer to the first x, number of vertices);
        # with no vertices, pass NULL as the pointer (&xy[0, 0] does not exist then).
        self.polygon = new CorePolygon(&xy[0, 0] if xy.shape[0] > 0 else NULL, xy.shape[0])
        self.n_vertices = xy.shape[0]

    def __dealloc__(self):
        # TODO: free the C++ polygon (deleting NULL is allowed and does nothing).
        pass  # forgets the C++ polygon

    def mask(self, shape):
        """The mask of this polygon on an image of `shape` (rows, cols), one thread."""
        if self.polygon == NULL:
            # Checked in Python so a missing __cinit__ is an error message, not a crash.
            raise RuntimeError("Polygon has no C++ polygon: __cinit__ must set self.polygon")
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
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    return Polygon(vertices).mask(shape)
