# cython: language_level=3, boundscheck=False, wraparound=False
"""Lesson 4, Cython wrapping the C++ core: calling a C++ library.

What it teaches: how Cython calls C++.  The core's polygon class is
declared for Cython in a .pxd (polymask/core.pxd, mirroring
csrc/include/polymask/core.hpp with ``cdef extern from ... namespace
"polymask" nogil``); this module cimports it, and the build compiles it as
C++ and links the core library.

* Each call converts the NumPy vertices into a C++ ``polymask::Polygon``
  (it copies them and builds its edge table).  The constructor is declared
  ``except +``, so a C++ exception (say, too many vertices) arrives as a
  Python one.
* The pixel loop stays in Cython, but the inside test is now the core's
  ``Polygon::contains``: the shared PNPOLY predicate of crossing.h, which
  reads the vertices through a plain pointer (no memoryview struct copied
  per pixel, as in the stage before).
* The loop holds no Python object, so it runs ``with nogil``: other
  Python threads run meanwhile.  (Python handles Ctrl-C only between
  bytecodes, never inside nogil code; the registry that runs every stage
  for ``polymask.mask(..., backend=...)`` keeps Ctrl-C answered around it.)

What changed from the stage before (cython_typed): the inside test is no
longer ours but the C++ library's, and the vertices are converted to the
library's type on every call -- the cost the cdef class stage removes.
"""
import numpy as np

from libcpp.memory cimport unique_ptr

from polymask.core cimport FillRule, Polygon


def mask(const double[:, ::1] vertices not None, shape):
    """The mask of `vertices` ((N, 2) float64, C-contiguous) on an image of `shape`."""
    if vertices.shape[1] != 2:  # the memoryview fixed dtype and layout, not the width: 2N doubles are read
        raise ValueError(f"vertices must be an (N, 2) array of (x, y) pairs, got shape "
                         f"({vertices.shape[0]}, {vertices.shape[1]})")
    cdef Py_ssize_t rows = shape[0], cols = shape[1]
    cdef Py_ssize_t row, col
    cdef const double *xy = &vertices[0, 0] if vertices.shape[0] > 0 else NULL
    # The per-call conversion: NumPy's vertices copied into the C++ polygon.
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new Polygon(xy, vertices.shape[0]))
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    with nogil:
        for row in range(rows):
            for col in range(cols):
                out[row, col] = polygon.get().contains(col, row, FillRule.even_odd)
    return result

