# lines.pxd -- Cython's view of csrc/include/polymask/lines.hpp (the cells lines burn).
#
# Declarations only; line_cells polls for Ctrl-C between lines, so it is
# `except +raise_py_error` (core.pxd) and an interrupt arrives as KeyboardInterrupt.
from libc.stdint cimport int64_t
from libcpp cimport bool
from libcpp.vector cimport vector

from polymask.core cimport raise_py_error

cdef extern from "polymask/lines.hpp" namespace "polymask" nogil:
    void line_cells(const double *xy, int64_t n_vertices, const int64_t *line_ends, int64_t n_lines,
                    int64_t height, int64_t width, bool all_touched, vector[int64_t] &cell_ends,
                    vector[int64_t] &pixels) except +raise_py_error
