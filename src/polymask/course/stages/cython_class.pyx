# cython: language_level=3, boundscheck=False, wraparound=False
"""Lesson 5, Cython cdef class owning the C++ polygon: state in C space.

What it teaches: a ``cdef class`` is a Python type whose attributes are C
fields.  `Polygon` holds a pointer to the core's ``polymask::Polygon``:
``__cinit__`` builds it once from the vertices (the one conversion), and
``__dealloc__`` frees it when the Python object dies.  Its fields are
invisible to Python (no ``polygon.__dict__``, no monkey-patching); what
Python may see is exposed through read-only properties.  `Polygon.mask`
then pays no conversion at all: it hands the stored polygon and the output
buffer to the core's per-pixel fill, so the pixel loop is C++ too.

What changed from the stage before (cython_cpp): the C++ polygon outlives
the call, so repeated masks of one polygon (tiles of a large image, frames
of a video) skip the NumPy-to-C++ conversion; and the loop moved into the
core.  Still one thread and O(rows x cols x N) work per mask.

The module-level `mask(vertices, shape)` is the stage's registry entry: it
builds one Polygon and asks it for one mask.
"""
import numpy as np

from polymask.core cimport FillRule, Window, fill_per_pixel
from polymask.core cimport Polygon as CorePolygon


cdef class Polygon:
    """A polygon whose vertices live in C++, ready for any number of masks.

    >>> Polygon([(0, 0), (3, 0), (0, 3)]).mask((4, 4)).astype(int)[0]
    array([1, 1, 1, 0])
    """

    cdef CorePolygon *polygon  # owned: created in __cinit__, deleted in __dealloc__

    def __cinit__(self, vertices):
        array = np.ascontiguousarray(vertices, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != 2:
            raise ValueError(f"vertices must have shape (N, 2), got shape {array.shape}")
        cdef const double[:, ::1] xy = array
        self.polygon = new CorePolygon(&xy[0, 0] if xy.shape[0] > 0 else NULL, xy.shape[0])

    def __dealloc__(self):
        del self.polygon  # deleting NULL (a failed __cinit__) is a no-op

    @property
    def vertex_count(self):
        """How many vertices the polygon has."""
        return self.polygon.vertex_count()

    @property
    def vertices(self):
        """A copy of the vertices as an (N, 2) float64 array."""
        # xy() is a view of the C++ polygon's own vertices; copy them out.
        cdef Py_ssize_t n = self.polygon.xy().size()
        if n == 0:
            return np.empty((0, 2), dtype=np.float64)
        cdef const double[::1] view = <const double[:n]> self.polygon.xy().data()
        return np.array(view, dtype=np.float64).reshape(-1, 2)

    def mask(self, shape):
        """The mask of this polygon on an image of `shape` (rows, cols), one thread."""
        rows, cols = shape
        result = np.zeros((rows, cols), dtype=bool)
        cdef unsigned char[:, ::1] out = result.view(np.uint8)
        cdef Window window
        window.row0 = 0
        window.col0 = 0
        window.height = rows
        window.width = cols
        with nogil:
            fill_per_pixel(self.polygon[0], window, &out[0, 0], out.strides[0],
                           FillRule.even_odd, 1)
        return result

    def __repr__(self):
        return f"Polygon(<{self.vertex_count} vertices>)"


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    return Polygon(vertices).mask(shape)
