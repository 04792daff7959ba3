# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the coverage sweep (csrc/src/coverage.cpp) and of all_touched
(csrc/src/touched.cpp): exact area fractions, and the cells they make positive.

Like polymask/_core.pyx it only adapts validated NumPy buffers and calls the
core with the GIL released; polymask/_coverage.py validates first.
"""
from libc.stdint cimport int64_t, uint8_t
from libcpp.memory cimport unique_ptr

from polymask.core cimport Polygon, Window, note_main_thread, watch_interrupts
from polymask.coverage cimport coverage as core_coverage, fill_touched as core_fill_touched
from polymask.views cimport as_rule, new_polygon, window_at

import threading

# Ctrl-C between the sweep's chunks: this module links its own copy of the
# core, so it installs the check itself (core.pxd: watch_interrupts).
note_main_thread(threading.main_thread().ident)

ctypedef fused fraction_t:
    double
    float
    uint8_t


def coverage(const double[:, ::1] vertices not None, fraction_t[:, ::1] out not None,
             int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
             const int64_t[::1] ring_ends=None, bint zeroed=False):
    """Fill `out` (float64, float32 or uint8 0..255) with the coverage window at (row0, col0).

    zeroed=True promises that `out` is all zero already (a fresh np.zeros):
    then only the cells the region meets are written.
    """
    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
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
    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
    cdef uint8_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0]
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    with nogil:
        watch_interrupts()
        core_fill_touched(polygon.get()[0], window, out_ptr, row_stride, as_rule(rule), threads, zeroed)
