# cython: language_level=3, boundscheck=False, wraparound=False
"""Binding of the core's fills of many polygons in one call: label images, stacks of masks, crops.

All polygons share one flat vertex array with ring and polygon ends (the
input funnel, polymask/_inputs.py, builds them); the core builds the
polygons on its threads and fills them with the GIL released.  Like
polymask/_core.pyx it checks only what memory safety needs: the public
functions (polymask/_rasterize.py, polymask/_masks.py) validate first.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp cimport bool as cpp_bool
from libcpp.vector cimport vector

from polymask.core cimport (
    FillRule, MaskBox, Polygon, Window, fill_mask_crops, fill_masks as core_fill_masks,
    mask_boxes as core_mask_boxes, rasterize as core_rasterize, rasterize_touched as core_rasterize_touched,
)
from polymask.views cimport as_rule, flat_polygons, window_at
from polymask.coverage cimport side_tolerance

import numpy as np

from polymask._outputs import result_array


# The label types rasterize burns; each has an explicit instantiation of
# polymask::rasterize<Label> in csrc/src/rasterize.cpp.
ctypedef fused label_t:
    uint8_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    float
    double


def rasterize(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
              const int64_t[::1] polygon_ends not None, const label_t[::1] values not None,
              label_t[:, ::1] out not None, int64_t row0=0, int64_t col0=0, int rule=0,
              int threads=0, int all_touched=0, bint add=False, bint find_overlap=False):
    """Burn polygons into `out`, the window of a label image at (row0, col0).

    All polygons share one flat vertex array: ring k is vertices
    [ring_ends[k-1], ring_ends[k]), polygon p is rings
    [polygon_ends[p-1], polygon_ends[p]).  Polygon p writes values[p] on its
    pixels, in order; pixels inside no polygon keep what `out` held.
    all_touched: a polygon's pixels are the cells that meet its region
    (csrc/src/touched.cpp), not the centres inside it, as
    polymask._arguments.as_all_touched codes it (1: with
    kTouchedSideTolerance, 2: exactly).  add: each polygon adds its value to
    its pixels instead of replacing them (merge="add"), in polygon order.
    find_overlap (centre rule only): return whether a pixel of the window is
    inside two polygons, found in the same burn.
    """
    if values.shape[0] != polygon_ends.shape[0]:
        raise ValueError(f"got {values.shape[0]} values for {polygon_ends.shape[0]} polygons")
    cdef int64_t n_polygons = polygon_ends.shape[0]
    cdef const label_t *values_ptr = &values[0] if n_polygons > 0 else NULL
    cdef FillRule fill_rule = as_rule(rule)

    cdef Window window = window_at(row0, col0, out.shape[0], out.shape[1])
    cdef label_t *out_ptr = &out[0, 0] if (window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[0] // sizeof(label_t)

    if find_overlap and all_touched:
        raise ValueError("find_overlap is for the centre rule, not all_touched")
    cdef cpp_bool overlap = False

    cdef vector[Polygon] polygons
    flat_polygons(vertices, ring_ends, polygon_ends, polygons, threads)
    with nogil:
        if find_overlap:
            core_rasterize(polygons.data(), n_polygons, values_ptr, window, out_ptr,
                           row_stride, fill_rule, threads, add, &overlap)
        elif all_touched:
            core_rasterize_touched(polygons.data(), n_polygons, values_ptr, window, out_ptr,
                                   row_stride, fill_rule, threads,
                                   side_tolerance(all_touched), add)
        else:
            core_rasterize(polygons.data(), n_polygons, values_ptr, window, out_ptr,
                           row_stride, fill_rule, threads, add, NULL)
    if find_overlap:
        return overlap


def masks(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
          const int64_t[::1] polygon_ends not None, uint8_t[:, :, ::1] out not None,
          int rule=0, int threads=0, bint zeroed=False):
    """Fill out[p] with the mask of polygon p (flat rings as in `rasterize`).

    out: (P, H, W) uint8, C-contiguous.  zeroed: out holds only zeros, so
    only the inside spans are written.
    """
    cdef vector[Polygon] polygons
    cdef int64_t n_polygons = polygon_ends.shape[0]
    if out.shape[0] != n_polygons:
        raise ValueError(f"out holds {out.shape[0]} masks for {n_polygons} polygons")
    flat_polygons(vertices, ring_ends, polygon_ends, polygons, threads)
    cdef FillRule fill_rule = as_rule(rule)
    cdef Window window = window_at(0, 0, out.shape[1], out.shape[2])
    cdef uint8_t *out_ptr = &out[0, 0, 0] if (n_polygons > 0 and window.height > 0 and window.width > 0) else NULL
    cdef int64_t row_stride = out.strides[1]
    cdef int64_t mask_stride = out.strides[0]
    with nogil:
        core_fill_masks(polygons.data(), n_polygons, window, out_ptr, row_stride, mask_stride,
                        fill_rule, threads, zeroed)


def mask_crops(const double[:, ::1] vertices not None, const int64_t[::1] ring_ends not None,
               const int64_t[::1] polygon_ends not None, int64_t rows, int64_t cols,
               int rule=0, int threads=0):
    """Bounding-box crops of the P masks in a rows x cols image.

    Returns (boxes, buffer, offsets): boxes is (P, 4) int64 rows of
    (row0, col0, height, width), the smallest box holding every pixel of
    mask p (all 0 when it is empty); crop p is
    buffer[offsets[p]:offsets[p] + height * width] as (height, width).
    """
    cdef vector[Polygon] polygons
    cdef int64_t n_polygons = polygon_ends.shape[0]
    flat_polygons(vertices, ring_ends, polygon_ends, polygons, threads)
    cdef FillRule fill_rule = as_rule(rule)
    cdef Window window = window_at(0, 0, rows, cols)
    boxes_array = np.zeros((n_polygons, 4), dtype=np.int64)
    cdef int64_t[:, ::1] boxes = boxes_array
    cdef MaskBox *box_ptr = <MaskBox *>&boxes[0, 0] if n_polygons > 0 else NULL
    with nogil:
        core_mask_boxes(polygons.data(), n_polygons, window, box_ptr, fill_rule, threads)
    areas = boxes_array[:, 2] * boxes_array[:, 3]
    offsets_array = np.zeros(n_polygons, dtype=np.int64)
    if n_polygons > 1:
        np.cumsum(areas[:-1], out=offsets_array[1:])
    # Summed in Python integers: the crops of a huge image overflow int64.
    buffer_array = result_array(None, (sum(areas.tolist()),), bool, zeroed=True, what="buffer of mask crops",
                                hint="pass fewer or smaller polygons per call")
    cdef uint8_t[::1] buffer = buffer_array.view(np.uint8)
    cdef const int64_t[::1] offsets = offsets_array
    cdef uint8_t *buffer_ptr = &buffer[0] if buffer.shape[0] > 0 else NULL
    cdef const int64_t *offsets_ptr = &offsets[0] if n_polygons > 0 else NULL
    with nogil:
        fill_mask_crops(polygons.data(), n_polygons, box_ptr, buffer_ptr, offsets_ptr, fill_rule, threads)
    return boxes_array, buffer_array, offsets_array
