// masks.hpp -- many instance masks in one call: a stack or bounding-box crops.
//
// Instance segmentation wants one mask per object, and objects are small:
// a call per object would pay its fixed costs N times and leave threads
// idle.  These functions fill N masks in one call, with threads across
// instances (each instance is swept by one thread), through the same
// scanline sweep and span writers as fill_scanline, so every mask equals
// polymask::fill_scanline of that polygon bit for bit.
#pragma once

#include <cstdint>

#include "polymask/core.hpp"

namespace polymask {

// A box of the image in pixels: rows [row0, row0 + height), columns
// [col0, col0 + width).  Four int64 in this order, so an (N, 4) int64
// array is an array of boxes.
struct MaskBox {
    int64_t row0;
    int64_t col0;
    int64_t height;
    int64_t width;
};

// Fill the window of polygon p's mask into out + p * mask_stride, rows
// row_stride bytes apart, for p in [0, n_polygons).  zeroed: every mask's
// window already holds zeros (a fresh calloc'ed array), so only the inside
// spans are written; otherwise every byte of every window is written.
// threads: an upper bound, 0 for the default count (core.hpp, resolve_threads).
POLYMASK_API void fill_masks(const Polygon *polygons, int64_t n_polygons, const Window &window, uint8_t *out,
                             int64_t row_stride, int64_t mask_stride, FillRule rule = FillRule::even_odd,
                             int threads = 0, bool zeroed = false);

// The smallest box of `window` that holds every inside pixel of polygon p,
// into boxes[p]; {0, 0, 0, 0} for a polygon with no pixel in the window.
POLYMASK_API void mask_boxes(const Polygon *polygons, int64_t n_polygons, const Window &window, MaskBox *boxes,
                             FillRule rule = FillRule::even_odd, int threads = 0);

// Fill polygon p's mask inside boxes[p] (from mask_boxes) into
// out + offsets[p], rows boxes[p].width bytes apart.  The crops must hold
// zeros: only the inside spans are written.
POLYMASK_API void fill_mask_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, uint8_t *out,
                                  const int64_t *offsets, FillRule rule = FillRule::even_odd, int threads = 0);

}  // namespace polymask
