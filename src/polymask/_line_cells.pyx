# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the core's line walks (csrc/include/polymask/lines.hpp) and the burn of their cells.

polymask/_rasterize_lines.py validates first; this converts, calls the core
with the GIL released, and writes labels on the cells.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy
from libcpp.vector cimport vector

from polymask.lines cimport line_cells

# The label types polymask.rasterize burns (polymask/_rasterize.py, LABEL_DTYPES).
ctypedef fused label_t:
    uint8_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    float
    double


cdef object _as_array(const vector[int64_t] &values):
    """A new int64 array holding `values`."""
    result = np.empty(values.size(), dtype=np.int64)
    cdef int64_t[::1] view = result
    if values.size() > 0:
        memcpy(&view[0], values.data(), values.size() * sizeof(int64_t))
    return result


def cells(const double[:, ::1] xy not None, const int64_t[::1] line_ends not None, int64_t height, int64_t width,
          bint all_touched):
    """(cell_ends, pixels): line k's cells are pixels[cell_ends[k-1]:cell_ends[k]], as row * width + col, ascending.

    `xy` in GDAL's pixel frame, every coordinate finite and below 2**30.
    """
    if xy.shape[1] != 2:
        raise ValueError(f"xy must be (N, 2), got (N, {xy.shape[1]})")
    cdef vector[int64_t] cell_ends
    cdef vector[int64_t] pixels
    cdef const double *xy_ptr = &xy[0, 0] if xy.shape[0] > 0 else NULL
    cdef const int64_t *ends_ptr = &line_ends[0] if line_ends.shape[0] > 0 else NULL
    with nogil:
        line_cells(xy_ptr, xy.shape[0], ends_ptr, line_ends.shape[0], height, width, all_touched, cell_ends, pixels)
    return _as_array(cell_ends), _as_array(pixels)


def burn(const int64_t[::1] cell_ends not None, const int64_t[::1] pixels not None, const label_t[::1] values not None,
         label_t[:, ::1] out not None, int64_t row0, int64_t col0, int64_t width, bint add,
         const int64_t[::1] positions=None, const int64_t[:, ::1] below=None):
    """Write (or with `add`, add) values[k] on line k's cells, line after line, in `out`: the window at (row0, col0).

    With `positions` and `below` (`out`'s shape: the burn position of what
    was last written on each cell, 0 for nothing), line k writes only where
    positions[k] is greater, so lines burned after polygons still land
    under the polygons that come later in the burn order.
    """
    cdef Py_ssize_t n_lines = cell_ends.shape[0]
    if values.shape[0] != n_lines:
        raise ValueError(f"got {values.shape[0]} values for {n_lines} lines")
    if n_lines and (cell_ends[n_lines - 1] != pixels.shape[0]):
        raise ValueError(f"cell_ends ends at {cell_ends[n_lines - 1]}, not at the {pixels.shape[0]} pixels")
    cdef bint ordered = positions is not None
    if ordered != (below is not None):
        raise ValueError("positions and below go together")
    if ordered and (positions.shape[0] != n_lines or below.shape[0] != out.shape[0] or below.shape[1] != out.shape[1]):
        raise ValueError(f"got {positions.shape[0]} positions for {n_lines} lines, below of shape "
                         f"({below.shape[0]}, {below.shape[1]}) for out of shape ({out.shape[0]}, {out.shape[1]})")
    cdef int64_t k, j, first = 0, row, col, height = out.shape[0], window_width = out.shape[1], position = 0
    cdef label_t value
    with nogil:
        for k in range(n_lines):
            value = values[k]
            if ordered:
                position = positions[k]
            for j in range(first, cell_ends[k]):
                row = pixels[j] // width - row0
                col = pixels[j] % width - col0
                if 0 <= row < height and 0 <= col < window_width:
                    if ordered and position <= below[row, col]:
                        continue
                    if add:
                        out[row, col] = out[row, col] + value
                    else:
                        out[row, col] = value
            first = cell_ends[k]
