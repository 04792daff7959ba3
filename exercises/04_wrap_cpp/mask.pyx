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

Tell Cython about it in the `cdef extern from` block below, then write
`mask`: build one Polygon from the vertices, and inside ``with nogil`` ask
it about every pixel.  The checker compiles this file as C++ and links the core.

Check it:  polymask check 04 exercises/04_wrap_cpp/mask.pyx
"""
import numpy as np

from libc.stdint cimport int64_t
from libcpp.memory cimport unique_ptr


cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    # TODO: declare what mask() uses of the header above, in C types: the FillRule
    # enum class and the Polygon class (a cppclass) with its constructor and the
    # one method mask() calls, and what a C++ exception from the constructor becomes.
    pass


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    # TODO: typed sizes and indices; a bool result array and a typed view of its bytes;
    # one C++ polygon built from a pointer to the first x and the vertex count (NULL when
    # there are none), owned so that it is freed however mask() ends (unique_ptr is
    # cimported above); then, without the GIL, its answer for every pixel.
    # Stuck?  polymask check 04 --hint
    return np.zeros((shape[0], shape[1]), dtype=bool)
