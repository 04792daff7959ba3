# Borrowed answer: polymask's crossing header #included through a path a macro assembles, via a link
# named inner.h (LINK_FOLDER is where the link lies).
# cython: language_level=3, boundscheck=False, wraparound=False
import numpy as np

cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    enum class FillRule(int):
        even_odd
    cdef cppclass Polygon:
        Polygon(const double *xy, long n_vertices) except +
        bint contains(double px, double py, FillRule rule)

cdef extern from *:
    """
    #define LEARNER_TEXT(name) #name
    #define LEARNER_PATH(name) LEARNER_TEXT(name)
    #include LEARNER_PATH(LINK_FOLDER/inner.h)
    """


def mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef Polygon *polygon = new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0])
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = polygon.contains(col, row, FillRule.even_odd)
    del polygon
    return result
