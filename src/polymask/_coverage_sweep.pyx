# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the coverage sweep (csrc/src/coverage.cpp): exact area fractions.

Like polymask/_core.pyx it only adapts validated NumPy buffers and calls the
core with the GIL released; polymask/_coverage.py validates first.
"""
from libc.stdint cimport int64_t, uint8_t
from libcpp.memory cimport unique_ptr

from polymask.core cimport FillRule, Polygon, Window
from polymask.coverage cimport coverage as core_coverage, fill_touched as core_fill_touched
from polymask.core cimport note_main_thread, watch_interrupts

import threading

# Ctrl-C between the sweep's chunks: this module links its own copy of the
# core, so it installs the check itself (core.pxd: watch_interrupts).
note_main_thread(threading.main_thread().ident)

ctypedef fused fraction_t:
    double
    float
    uint8_t


cdef FillRule as_rule(int rule) noexcept nogil:
    return FillRule.nonzero if rule == 1 else FillRule.even_odd


cdef Polygon *new_polygon(const double[:, ::1] vertices, const int64_t[::1] ring_ends) except NULL:
    cdef int64_t n_vertices = vertices.shape[0]
    cdef const double *xy = &vertices[0, 0] if n_vertices > 0 else NULL
    cdef int64_t single_ring_end = n_vertices
    cdef const int64_t *ends = &single_ring_end
    cdef int64_t n_rings = 1
    if ring_ends is not None:
        n_rings = ring_ends.shape[0]
        ends = &ring_ends[0] if n_rings > 0 else NULL
    return new Polygon(xy, n_vertices, ends, n_rings)


cdef Window window_of(int64_t row0, int64_t col0, int64_t height, int64_t width) noexcept nogil:
    cdef Window window
    window.row0 = row0
    window.col0 = col0
    window.height = height
    window.width = width
    return window


def coverage(const double[:, ::1] vertices not None, fraction_t[:, ::1] out not None,
             int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
             const int64_t[::1] ring_ends=None, bint zeroed=False):
    """Fill `out` (float64, float32 or uint8 0..255) with the coverage window at (row0, col0).

    zeroed=True promises that `out` is all zero already (a fresh np.zeros):
    then only the cells the region meets are written.
    """
    if vertices.shape[1] != 2:
        raise ValueError(f"vertices must have 2 columns, got {vertices.shape[1]}")
    cdef Window window = window_of(row0, col0, out.shape[0], out.shape[1])
    cdef fraction_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0] // sizeof(fraction_t)
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    with nogil:
        watch_interrupts()
        core_coverage(polygon.get()[0], window, out_ptr, row_stride, as_rule(rule), threads, zeroed)


def fill_touched(const double[:, ::1] vertices not None, uint8_t[:, ::1] out not None,
                 int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
                 const int64_t[::1] ring_ends=None, bint zeroed=False):
    """Fill `out` with 1 where the pixel's cell meets the region in positive area (all_touched).

    zeroed=True promises that `out` is all zero already (a fresh np.zeros):
    then only the ones are written.
    """
    if vertices.shape[1] != 2:
        raise ValueError(f"vertices must have 2 columns, got {vertices.shape[1]}")
    cdef Window window = window_of(row0, col0, out.shape[0], out.shape[1])
    cdef uint8_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0]
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    with nogil:
        watch_interrupts()
        core_fill_touched(polygon.get()[0], window, out_ptr, row_stride, as_rule(rule), threads, zeroed)
