# Borrowed answer: polymask's installed headers named by absolute path.
# cython: language_level=3, boundscheck=False, wraparound=False
"""Exercise 04, wrap C++: call the core's Polygon from Cython.

The C++ core declares, in polymask/core.hpp (print it with
``python -c "import polymask; print(polymask.get_include())"``)::

    namespace polymask {
    enum class FillRule { even_odd, nonzero };
    class Polygon {
      public:
        Polygon(const double *xy, std::int64_t n_vertices);   // may throw
        bool contains(double px, double py, FillRule rule) const;
    };
    }

Tell Cython about it in the `cdef extern from` block below (a constructor
that may throw needs ``except +``), then use it in `mask`: build one
Polygon from the vertices, and inside ``with nogil`` ask it about every
pixel.  The checker compiles this file as C++ and links the core.

Check it:  polymask check 04 exercises/04_wrap_cpp/mask.pyx
"""
import numpy as np

from libc.stdint cimport int64_t
from libcpp.memory cimport unique_ptr


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    pass


cdef extern from "/usr/lib/python3/site-packages/polymask/include/polymask/crossing.h":
    pass


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
        nonzero

    # TODO: declare the core's Polygon class (a cppclass): the constructor and the one
    # method mask() needs, in C types, and what a C++ exception from the constructor becomes.
    cdef cppclass Polygon:
        Polygon(const double *xy, int64_t n_vertices) except +
        bint contains(double px, double py, FillRule rule)


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef const double *xy = &vertices[0, 0] if vertices.shape[0] > 0 else NULL
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    # TODO: build the C++ polygon once, owned so that it is freed however mask() ends
    # (unique_ptr is cimported above), then, without the GIL, store its answer for
    # every pixel in out.  Stuck?  polymask check 04 --hint
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(xy, vertices.shape[0]))
    with nogil:
        for row in range(rows):
            for col in range(cols):
                out[row, col] = polygon.get().contains(col, row, FillRule.even_odd)
    return result
