// mask_writers.hpp -- the span sinks that write masks and label images (see scanline.hpp).
//
// Internal to the core's sources (fill.cpp, masks.cpp, rasterize.cpp,
// touched.cpp).  Two ways to write a mask: every byte of the window (the
// caller's out= may hold anything), or only the inside spans of an array
// known to be zero (a fresh calloc'ed / np.zeros array), which leaves
// untouched pages of zeros untouched.  A label image gets each polygon's
// value inside its spans and nothing else.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

// n zero bytes from p.  glibc's memset of a 1 KiB row took 25 us per
// standard fill when the row ended on a 32-byte boundary and 29 us when it
// did not (its last stores straddle lines), and NumPy leaves a buffer's
// alignment to malloc.  So a long run's memset stops at the last 64-byte
// boundary and four 16-byte stores finish it: 25.4 to 27.7 us whatever the
// alignment (csrc/bench/STEPS.md).  Spans got no gain from the same trick.
inline void clear_bytes(uint8_t *p, size_t n)
{
#if defined(__SSE2__)
    if (n >= 128) {
        uint8_t *const end = p + n;
        uint8_t *const line_end = reinterpret_cast<uint8_t *>(reinterpret_cast<uintptr_t>(end) & ~uintptr_t(63));
        std::memset(p, 0, static_cast<size_t>(line_end - p));
        const __m128i zero = _mm_setzero_si128();
        for (int k = 4; k > 0; --k) _mm_storeu_si128(reinterpret_cast<__m128i *>(end - 16 * k), zero);
        return;
    }
#endif
    std::memset(p, 0, n);
}

// Writes a full row of the mask: the row is cleared (clear_bytes), then
// each span is set with memset.  Fewer, longer memset calls beat alternating zero/one
// runs: the row is in L1 either way, and call overhead dominates.  Measured
// with csrc/bench on the standard problem (1 KiB rows), and not kept:
// hand-written overlapping 8-byte stores per run, 25% slower; a 16-byte
// SSE2 store loop, 37 against 26 us (64 stores per row fill the store
// buffer, where glibc's memset issues 16 of 64 bytes); clearing 16 rows
// with one large memset before writing their spans, 34 against 27 us (a
// large memset streams past L1, so the span stores that follow miss).  The
// fill time moves by up to 20% with the buffer's alignment modulo 64 (23 to
// 29 us), which NumPy leaves to malloc: expect that much spread between
// runs that allocate afresh.  Used when `out` may hold anything (out=, and
// new masks the polygon mostly covers): every byte of the window is written.
struct MaskRowWriter {
    uint8_t *out;
    int64_t row_stride;
    const Window &window;
    uint8_t *row = nullptr;

    void begin_row(int64_t r)
    {
        row = out + (r - window.row0) * row_stride;
        clear_bytes(row, static_cast<size_t>(window.width));
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

// Stores one value inside each span of one polygon; pixels outside spans
// are never touched, which is what makes later polygons land over earlier
// ones and the background survive.
template <class Label>
struct LabelSpanWriter {
    Label *out;
    int64_t row_stride;
    const Window &window;
    Label value;
    Label *row = nullptr;

    void begin_row(int64_t r) { row = out + (r - window.row0) * row_stride; }
    // Spans come in absolute columns; the row starts at column col0.
    void span(int64_t begin, int64_t end)
    {
        std::fill(row + (begin - window.col0), row + (end - window.col0), value);
    }
    void end_row() {}
};

}  // namespace detail
}  // namespace polymask
