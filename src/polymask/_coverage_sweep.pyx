# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the coverage sweep (csrc/src/coverage.cpp) and of all_touched
(csrc/src/touched.cpp): exact area fractions, and the cells they make positive.

Like polymask/_core.pyx it only adapts validated NumPy buffers and calls the
core with the GIL released; polymask/_coverage.py validates first.
"""
from libc.stdint cimport int64_t, uint8_t
from libcpp.memory cimport unique_ptr
from libcpp.vector cimport vector

import numpy as np

from polymask.core cimport MaskBox, Polygon, Window
from polymask.coverage cimport (
    coverage as core_coverage,
    coverage_crops as core_coverage_crops,
    fill_touched as core_fill_touched,
    side_tolerance,
)
from polymask.views cimport as_rule, flat_polygons, new_polygon, window_at, writes_every_byte

from polymask._outputs import new_array as _new_array


ctypedef fused fraction_t:
    double
    float
    uint8_t


cdef sweep_into(const Polygon &polygon, fraction_t[:, ::1] out, int64_t row0, int64_t col0, int rule,
                int threads, bint zeroed):
    """Fill `out` with the coverage window of `polygon` at (row0, col0), the GIL released."""
    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
    cdef fraction_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0] // sizeof(fraction_t)
    with nogil:
        core_coverage(polygon, window, out_ptr, row_stride, as_rule(rule), threads, zeroed)


def coverage(const double[:, ::1] vertices not None, fraction_t[:, ::1] out not None,
             int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
             const int64_t[::1] ring_ends=None, bint zeroed=False):
    """Fill `out` (float64, float32 or uint8 0..255) with the coverage window at (row0, col0).

    zeroed=True promises that `out` is all zero already (a fresh np.zeros):
    then only the cells the region meets are written.
    """
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    sweep_into(polygon.get()[0], out, row0, col0, rule, threads, zeroed)


def new_coverage(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends, int64_t row0, int64_t col0,
                 int64_t height, int64_t width, dtype, int rule, int threads, str what, str hint):
    """A new coverage raster of the window (dtype float64, float32 or uint8), filled.

    Allocated as a new mask is (views.pxd: writes_every_byte): np.empty with
    every element written where the region spans most rows of a heap-served
    array (np.zeros would memset it first, a second pass over every byte),
    else np.zeros with only the cells the region meets written.  `what` and
    `hint` word the MemoryError (polymask._outputs.new_array).  The polygon
    is built once for both (its edge table is sorted: for 1,000 vertices
    that is a sizeable part of a small window's time).
    """
    cdef Window window = window_at(row0, col0, height, width)
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    dtype = np.dtype(dtype)
    cdef bint write_all = writes_every_byte(polygon.get()[0], window, dtype.itemsize)
    result = _new_array((height, width), dtype, not write_all, what, hint)
    if dtype == np.float64:
        sweep_into[double](polygon.get()[0], result, row0, col0, rule, threads, not write_all)
    elif dtype == np.float32:
        sweep_into[float](polygon.get()[0], result, row0, col0, rule, threads, not write_all)
    elif dtype == np.uint8:
        sweep_into[uint8_t](polygon.get()[0], result, row0, col0, rule, threads, not write_all)
    else:
        raise TypeError(f"{what}: dtype must be float64, float32 or uint8, got {dtype}")
    return result


def fill_touched(const double[:, ::1] vertices not None, uint8_t[:, ::1] out not None,
                 int64_t row0=0, int64_t col0=0, int rule=0, int threads=0,
                 const int64_t[::1] ring_ends=None, bint zeroed=False, int all_touched=1):
    """Fill `out` with 1 where the pixel's cell meets the region in positive area (all_touched).

    zeroed=True promises that `out` is all zero already (a fresh np.zeros):
    then only the ones are written.  all_touched: the code of
    polymask._arguments.as_all_touched, 1 (True, with the side tolerance) or
    2 ("exact").
    """
    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
    cdef uint8_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0]
    cdef unique_ptr[Polygon] polygon
    polygon.reset(new_polygon(vertices, ring_ends))
    with nogil:
        core_fill_touched(polygon.get()[0], window, out_ptr, row_stride, as_rule(rule), threads, zeroed,
                          side_tolerance(all_touched))


def coverage_crops(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
                   const int64_t[::1] polygon_ends not None, const int64_t[:, ::1] boxes not None,
                   const int64_t[::1] offsets not None, fraction_t[::1] out not None, int rule=0,
                   int threads=0):
    """Fill polygon p's coverage over boxes[p] = (row0, col0, height, width) into
    out[offsets[p]:offsets[p] + height * width], rows of `width` elements.

    Flat rings as in polymask._polygons.rasterize; `out` must be all zero (only
    the cells a region meets are written).  Threads across polygons.
    """
    cdef int64_t n_polygons = polygon_ends.shape[0]
    if boxes.shape[0] != n_polygons or boxes.shape[1] != 4 or offsets.shape[0] != n_polygons:
        raise ValueError(f"got {boxes.shape[0]} boxes and {offsets.shape[0]} offsets for {n_polygons} polygons")
    cdef int64_t p, cells
    for p in range(n_polygons):  # every crop inside `out`: the core trusts these
        if boxes[p, 2] > 0 and boxes[p, 3] > 0:
            cells = boxes[p, 2] * boxes[p, 3]
            if offsets[p] < 0 or offsets[p] > out.shape[0] - cells:
                raise ValueError(f"crop {p} ({cells} cells at {offsets[p]}) does not fit in {out.shape[0]} elements")
    cdef vector[Polygon] polygons
    flat_polygons(vertices, ring_ends, polygon_ends, polygons, threads)
    cdef const MaskBox *box_ptr = <const MaskBox *>&boxes[0, 0] if n_polygons > 0 else NULL
    cdef const int64_t *offset_ptr = &offsets[0] if n_polygons > 0 else NULL
    cdef fraction_t *out_ptr = &out[0] if out.shape[0] > 0 else NULL
    with nogil:
        core_coverage_crops(polygons.data(), n_polygons, box_ptr, out_ptr, offset_ptr, as_rule(rule), threads)
