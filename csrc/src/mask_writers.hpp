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

// n zero bytes from p.  glibc's memset is slower when a run does not end on
// a 32-byte boundary (its last stores straddle lines), and NumPy leaves a
// buffer's alignment to malloc.  So a long run's memset stops at the last
// 64-byte boundary and four 16-byte stores finish it, and the fill's time no
// longer depends on the alignment (csrc/bench/STEPS.md).  Spans got no gain
// from the same trick.
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
// runs: the row is in L1 either way, and call overhead dominates.  Slower,
// and not kept (csrc/bench/STEPS.md): hand-written overlapping 8-byte stores
// per run; a 16-byte SSE2 store loop (its stores fill the store buffer,
// where glibc's memset issues 64 bytes at once); clearing 16 rows with one
// large memset before writing their spans (it streams past L1, so the span
// stores that follow miss).  The fill time moves with the buffer's alignment
// modulo 64, which NumPy leaves to malloc: expect some spread between runs
// that allocate afresh.  Used when `out` may hold anything (out=, and
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

// The value's bytes repeated over a word of `Word`'s size: what a store of
// that word writes over sizeof(Word) / sizeof(Label) whole labels.
template <class Word, class Label>
inline Word repeated(Label value)
{
    static_assert(sizeof(Word) % sizeof(Label) == 0, "a word holds whole labels");
    unsigned char bytes[sizeof(Word)];
    for (size_t k = 0; k < sizeof(Word); k += sizeof(Label)) std::memcpy(bytes + k, &value, sizeof(Label));
    Word word;
    std::memcpy(&word, bytes, sizeof(Word));
    return word;
}

// line[begin, end) = value.  The runs a label image gets are short (an
// all_touched run is the few cells an edge passes in one row; a small
// polygon's spans are a few dozen labels), and std::fill's loop spends more
// on its head and tail than on the run: runs up to 32 bytes are two or four
// overlapping stores that cover them, each on whole labels.  A 10,000-polygon
// uint16 label image with all_touched (csrc/bench/STEPS.md): 63.3 -> 56.6 ms
// for the runs alone.
template <class Label>
inline void fill_labels(Label *line, int64_t begin, int64_t end, Label value)
{
    const int64_t n = end - begin;
    if (n <= 0) return;
    Label *const p = line + begin;
    if (n <= 4) {  // four element stores, some on the same label
        p[0] = value, p[std::min<int64_t>(1, n - 1)] = value;
        p[std::max<int64_t>(n - 2, 0)] = value, p[n - 1] = value;
        return;
    }
    const size_t bytes = static_cast<size_t>(n) * sizeof(Label);
    unsigned char *const first = reinterpret_cast<unsigned char *>(p);
    unsigned char *const last = first + bytes;
    if constexpr (sizeof(Label) <= 4) {
        if (bytes <= 8) {  // only uint8 labels get here, with 5 to 8 of them
            const uint32_t word = repeated<uint32_t>(value);
            std::memcpy(first, &word, 4), std::memcpy(last - 4, &word, 4);
            return;
        }
    }
    if constexpr (sizeof(Label) <= 8) {
        const uint64_t word = repeated<uint64_t>(value);
        if (bytes <= 16) {
            std::memcpy(first, &word, 8), std::memcpy(last - 8, &word, 8);
            return;
        }
        if (bytes <= 32) {
            std::memcpy(first, &word, 8), std::memcpy(first + 8, &word, 8);
            std::memcpy(last - 16, &word, 8), std::memcpy(last - 8, &word, 8);
            return;
        }
    }
    std::fill(p, p + n, value);
}

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
    bool add = false;  // add value to the span's labels (merge "add") instead of storing it

    void begin_row(int64_t r) { row = out + (r - window.row0) * row_stride; }
    // Spans come in absolute columns; the row starts at column col0.
    void span(int64_t begin, int64_t end)
    {
        if (add) {
            for (int64_t c = begin - window.col0; c < end - window.col0; ++c) row[c] = static_cast<Label>(row[c] + value);
            return;
        }
        fill_labels(row, begin - window.col0, end - window.col0, value);
    }
    void end_row() {}
};

}  // namespace detail
}  // namespace polymask
