// mask_writers.hpp -- the span sinks that write bool masks (see scanline.hpp).
//
// Internal to the core's sources (fill.cpp, masks.cpp).  Two ways to write a
// mask: every byte of the window (the caller's out= may hold anything), or
// only the inside spans of an array known to be zero (a fresh calloc'ed /
// np.zeros array), which leaves untouched pages of zeros untouched.
#pragma once

#include <cstdint>
#include <cstring>

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

// Writes a full row of the mask: the row is cleared with one memset, then
// each span is set.  Fewer, longer memset calls beat alternating zero/one
// runs: the row is in L1 either way, and call overhead dominates (measured
// with csrc/bench: hand-written overlapping stores per run were 25% slower
// than glibc's memset on the standard problem).  Used when `out` may hold
// anything (out=): every byte of the window is written.
struct MaskRowWriter {
    uint8_t *out;
    int64_t row_stride;
    const Window &window;
    uint8_t *row = nullptr;

    void begin_row(int64_t r)
    {
        row = out + (r - window.row0) * row_stride;
        std::memset(row, 0, static_cast<size_t>(window.width));
    }
    // Spans come in absolute columns; the row starts at column col0.
    void span(int64_t begin, int64_t end)
    {
        std::memset(row + (begin - window.col0), 1, static_cast<size_t>(end - begin));
    }
    void end_row() {}
};

// Writes only the ones: for an `out` that is already zero (a fresh
// calloc'ed array), so bytes outside the polygon, and the pages that hold
// only such bytes, are never touched.
struct MaskSpanWriter {
    uint8_t *out;
    int64_t row_stride;
    const Window &window;
    uint8_t *row = nullptr;

    void begin_row(int64_t r) { row = out + (r - window.row0) * row_stride - window.col0; }
    void span(int64_t begin, int64_t end) { std::memset(row + begin, 1, static_cast<size_t>(end - begin)); }
    void end_row() {}
};

}  // namespace detail
}  // namespace polymask
