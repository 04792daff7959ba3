// touched_pieces.hpp -- the marking half of all_touched (touched.cpp): the
// cells each edge piece of one row strip passes through.  Owns the run
// writer (set_run), the abscissa of an edge at a strip boundary (Abscissa)
// and the strip's pieces (Pieces), with the AVX2 path for plain double.
// touched.cpp's header comment says why marking these cells is exact.
// Internal: included by touched.cpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(POLYMASK_NO_SIMD)
#define POLYMASK_TOUCHED_AVX2 1
#include <immintrin.h>
#endif

#include "cell_geometry.hpp"
#include "parallel.hpp"
#include "polymask/core.hpp"
#include "scanline.hpp"

namespace polymask::detail::touched {

inline std::atomic<bool> touched_simd_allowed{true};  // tests switch the SIMD marking off

using detail::Extended;
using detail::Flat;
using detail::SegmentT;

// Set line[first, last] to 1.  Runs are short (an edge passes a few cells
// per row): a call to memset per run cost more than the rest of the marking
// together (perf, on the 1,000-vertex star), and an 8-byte read-OR-write
// stalled on store forwarding, so runs of up to 8 cells are two overlapping
// plain stores that cover them.
inline void set_run(uint8_t *line, int64_t first, int64_t last, int64_t row_end)
{
    const int64_t length = last - first + 1;
    if (length <= 8 && first + 8 <= row_end) {
        // `length` ones, then zeros, in memory order whatever the endianness.
        static constexpr uint8_t kOnesThenZeros[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
        uint64_t word, ones;
        std::memcpy(&word, line + first, 8);
        std::memcpy(&ones, kOnesThenZeros + (8 - length), 8);
        word |= ones;
        std::memcpy(line + first, &word, 8);
    } else {
        std::memset(line + first, 1, static_cast<size_t>(length));
    }
}

// x on segment s at ordinate y, for deciding the cells of a strip: any value
// that lies on the same side of every cell side c + 1/2 as s.x_at(y) will
// do.  In double (every coordinate within 2^16), x_at's division is replaced
// by a multiplication with the reciprocal, which differs from it by a few
// ulps (< 2^-48 relative, bound below); only when that lands within the
// bound of a cell side is x_at computed.  Measured on the 1,000-vertex
// polygons: the division was the marking's largest cost.
template <class Wide>
struct Abscissa {
    const SegmentT<Wide> *segment;
    Wide inverse_height;

    explicit Abscissa(const SegmentT<Wide> &s)
        : segment(&s), inverse_height(Wide(1) / (static_cast<Wide>(s.y1) - static_cast<Wide>(s.y0)))
    {
    }

    Wide at(double y) const
    {
        const SegmentT<Wide> &s = *segment;
        if constexpr (!std::is_same_v<Wide, double>) {
            return s.x_at(y);
        } else {
            if (y >= s.y1) return s.x1;
            const double q = (s.dx0 * (s.y1 - y) + s.dx1 * (y - s.y0)) * inverse_height;
            const double x = s.origin + q;
            // x_at rounds num / h once; here 1 / h and num * (1 / h) each
            // round (3 ulps of q between them) and the sum with the origin
            // rounds in both: 2^-48 (|q| + |origin| + 1) covers it 8 times.
            const double bound = 0x1p-48 * (std::fabs(q) + std::fabs(s.origin) + 1.0);
            const double t = x + 0.5;  // cell sides are where t is an integer; |t| <= 2^17
            const double below = static_cast<double>(static_cast<int64_t>(t) - (t < 0.0 ? 1 : 0));
            const double d = t - below;  // in [0, 1]
            if (d > bound && d < 1.0 - bound) return x;
            return s.x_at(y);
        }
    }
};

// The pieces of edges in the current strip, with their abscissae at the
// strip's top, and how to mark the cells they pass.  Generic version: one
// piece at a time through Abscissa (long double and the portable build).
template <class Wide>
class Pieces {
public:
    void clear() { active_.clear(); }

    void join(const SegmentT<Wide> &s, double y_top) { active_.push_back({Abscissa<Wide>(s), s.x_at(y_top)}); }

    // set_run(first, last) for the cells [first, last] each piece passes.
    template <class SetRun>
    void mark(double y_bottom, int64_t col0, int64_t col_end, SetRun &&set_run)
    {
        size_t kept = 0;
        for (size_t k = 0; k < active_.size(); ++k) {
            const Piece piece = active_[k];
            const Wide x_bottom = piece.x.at(y_bottom);
            int64_t first, last;
            detail::open_cells(std::min(piece.x_top, x_bottom), std::max(piece.x_top, x_bottom), col0, col_end,
                               first, last);
            if (first <= last) set_run(first, last);
            if (piece.x.segment->y1 > y_bottom) active_[kept++] = {piece.x, x_bottom};  // reaches the next strip
        }
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(kept), active_.end());
    }

private:
    struct Piece {
        Abscissa<Wide> x;
        Wide x_top;  // its abscissa at the current strip's top
    };
    std::vector<Piece> active_;
};

// In double, the pieces are parallel arrays and their abscissae at the
// strip's bottom, with the cells between top and bottom, are computed four
// at a time where the CPU has AVX2 (the same operations per lane as
// Abscissa::at and open_cells, so the same cells; a lane near a cell side
// is redone by x_at, as there).  Measured on the 1,000-vertex star, 4096²:
// see csrc/bench/STEPS.md.
template <>
class Pieces<double> {
public:
    // Ready for another polygon; the arrays keep their room (a label image
    // reuses one Pieces for all its polygons).
    void clear()
    {
        n_ = 0;
        origin_ = 0.0;
        next_expiry_ = std::numeric_limits<double>::infinity();
    }

    void join(const SegmentT<double> &s, double y_top)
    {
        if (n_ == segment_.size()) grow();
        const size_t k = n_++;
        segment_[k] = &s;
        dx0_[k] = s.dx0, dx1_[k] = s.dx1, y0_[k] = s.y0, y1_[k] = s.y1;
        x1_[k] = s.x1, inverse_height_[k] = 1.0 / (s.y1 - s.y0), x_top_[k] = s.x_at(y_top);
        origin_ = s.origin;  // one origin for every segment of a polygon (cell_edges)
        next_expiry_ = std::min(next_expiry_, s.y1);
    }

    template <class SetRun>
    void mark(double y_bottom, int64_t col0, int64_t col_end, SetRun &&set_run)
    {
        const size_t n = n_;
        cells(y_bottom, static_cast<double>(col0), static_cast<double>(col_end));
        for (size_t k = 0; k < n; ++k) {
            if (first_[k] <= last_[k]) set_run(static_cast<int64_t>(first_[k]), static_cast<int64_t>(last_[k]));
        }
        std::swap(x_top_, x_bottom_);
        if (y_bottom >= next_expiry_) drop_ended(y_bottom);  // rare: most pieces span many strips
    }

private:
    // x_bottom_, first_ and last_ of every piece.
    void cells(double y, double col0, double col_end)
    {
#ifdef POLYMASK_TOUCHED_AVX2
        if (detail::cpu_has_avx2() && touched_simd_allowed.load(std::memory_order_relaxed)) {
            cells_avx2(y, col0, col_end);
            return;
        }
#endif
        for (size_t k = 0; k < n_; ++k) cell_of(k, y, col0, col_end);
    }

    // One piece, as Abscissa::at and open_cells do it.
    void cell_of(size_t k, double y, double col0, double col_end)
    {
        const Abscissa<double> x{*segment_[k]};
        const double x_bottom = x.at(y);
        int64_t first, last;
        detail::open_cells(std::min(x_top_[k], x_bottom), std::max(x_top_[k], x_bottom),
                           static_cast<int64_t>(col0), static_cast<int64_t>(col_end), first, last);
        x_bottom_[k] = x_bottom;
        first_[k] = static_cast<double>(first);
        last_[k] = static_cast<double>(last);
    }

#ifdef POLYMASK_TOUCHED_AVX2
    // Every piece, four at a time, so no piece takes the scalar path but
    // those near a cell side.  A last, partial group reads and writes whole
    // vectors too: the arrays' room is a multiple of four (grow), and the
    // lanes past n_ hold nothing anyone reads.  (Masked loads and stores
    // there instead: a 10,000-polygon label image's all_touched, where most
    // strips have fewer than four pieces, 67.3 -> 64.5 ms without them.)
    __attribute__((target("avx2"))) void cells_avx2(double y, double col0, double col_end)
    {
        const size_t n = n_;
        size_t k = 0;
        for (; k + 4 <= n; k += 4) cells_of_four(k, _mm256_set1_epi64x(-1), y, col0, col_end);
        if (k < n) {
            const __m256i lanes =
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<int64_t>(n - k)), _mm256_setr_epi64x(0, 1, 2, 3));
            cells_of_four(k, lanes, y, col0, col_end);
        }
    }

    // Pieces k to k + 3; only those in `lanes` are redone near a cell side.
    __attribute__((target("avx2"), always_inline)) inline void cells_of_four(size_t k, __m256i lanes, double y,
                                                                               double col0, double col_end)
    {
        const __m256d row = _mm256_set1_pd(y), origin = _mm256_set1_pd(origin_);
        const __m256d half = _mm256_set1_pd(0.5), one = _mm256_set1_pd(1.0), ulps = _mm256_set1_pd(0x1p-48);
        const __m256d origin_size = _mm256_set1_pd(std::fabs(origin_));
        const __m256d sign = _mm256_set1_pd(-0.0);
        const __m256d lowest = _mm256_set1_pd(col0 - 1.0), highest = _mm256_set1_pd(col_end - 1.0);
        const __m256d left = _mm256_set1_pd(col0), right = _mm256_set1_pd(col_end);
        const __m256d y1 = _mm256_loadu_pd(&y1_[k]), y0 = _mm256_loadu_pd(&y0_[k]);
        // Abscissa::at: origin + (dx0 (y1 - y) + dx1 (y - y0)) * (1 / h), in its order.
        const __m256d numerator = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(&dx0_[k]), _mm256_sub_pd(y1, row)),
                                                _mm256_mul_pd(_mm256_loadu_pd(&dx1_[k]), _mm256_sub_pd(row, y0)));
        const __m256d q = _mm256_mul_pd(numerator, _mm256_loadu_pd(&inverse_height_[k]));
        __m256d x = _mm256_add_pd(origin, q);
        const __m256d bound =
            _mm256_mul_pd(ulps, _mm256_add_pd(_mm256_add_pd(_mm256_andnot_pd(sign, q), origin_size), one));
        const __m256d t = _mm256_add_pd(x, half);
        const __m256d d = _mm256_sub_pd(t, _mm256_floor_pd(t));
        const __m256d clear = _mm256_and_pd(_mm256_cmp_pd(d, bound, _CMP_GT_OQ),
                                            _mm256_cmp_pd(d, _mm256_sub_pd(one, bound), _CMP_LT_OQ));
        const __m256d ended = _mm256_cmp_pd(row, y1, _CMP_GE_OQ);  // past the edge's end: x1, exact
        x = _mm256_blendv_pd(x, _mm256_loadu_pd(&x1_[k]), ended);
        const __m256d top = _mm256_loadu_pd(&x_top_[k]);
        const __m256d lo = _mm256_min_pd(top, x), hi = _mm256_max_pd(top, x);
        // open_cells: first = clamp(floor(lo - 1/2), col0 - 1, col_end - 1) + 1,
        //             last = clamp(ceil(hi + 1/2), col0, col_end) - 1.
        const __m256d first = _mm256_add_pd(
            _mm256_min_pd(_mm256_max_pd(_mm256_floor_pd(_mm256_sub_pd(lo, half)), lowest), highest), one);
        const __m256d last = _mm256_sub_pd(
            _mm256_min_pd(_mm256_max_pd(_mm256_ceil_pd(_mm256_add_pd(hi, half)), left), right), one);
        _mm256_storeu_pd(&x_bottom_[k], x);
        _mm256_storeu_pd(&first_[k], first);
        _mm256_storeu_pd(&last_[k], last);
        // Lanes within the bound of a cell side: x_at decides, as in Abscissa::at.
        int redo = _mm256_movemask_pd(_mm256_andnot_pd(_mm256_or_pd(clear, ended), _mm256_castsi256_pd(lanes)));
        while (redo != 0) {
            const int lane = __builtin_ctz(static_cast<unsigned>(redo));
            cell_of(k + static_cast<size_t>(lane), y, col0, col_end);
            redo &= redo - 1;
        }
    }
#endif

    // Pieces whose edge ends in this strip leave; the last piece takes an
    // ended one's place (the marking does not depend on the order), so a
    // strip pays for its ended pieces, not for all of them.
    void drop_ended(double y_bottom)
    {
        // Locals, not members: a store to a double array may alias a
        // member, which would put a reload in the loop's critical path.
        double next_expiry = std::numeric_limits<double>::infinity();
        double *y1 = y1_.data();
        size_t n = n_;
        for (size_t k = 0; k < n;) {
            if (y1[k] > y_bottom) {  // reaches the next strip
                next_expiry = std::min(next_expiry, y1[k]);
                ++k;
                continue;
            }
            --n;
            segment_[k] = segment_[n], dx0_[k] = dx0_[n], dx1_[k] = dx1_[n], y0_[k] = y0_[n];
            y1[k] = y1[n], x1_[k] = x1_[n], inverse_height_[k] = inverse_height_[n], x_top_[k] = x_top_[n];
        }
        next_expiry_ = next_expiry;
        n_ = n;
    }

    // Room for more pieces in every array (joins write in place: a
    // push_back per array was a tenth of a label image's all_touched),
    // always a multiple of four (cells_avx2 reads and writes whole groups).
    void grow()
    {
        const size_t room = std::max<size_t>(16, 2 * segment_.size());
        segment_.resize(room);
        for (auto *column : {&dx0_, &dx1_, &y0_, &y1_, &x1_, &inverse_height_, &x_top_, &x_bottom_, &first_, &last_}) {
            column->resize(room);
        }
    }

    double origin_ = 0.0;
    double next_expiry_ = std::numeric_limits<double>::infinity();  // the smallest y1 of the pieces
    size_t n_ = 0;  // pieces in the strip: the arrays' first n_ entries
    std::vector<const SegmentT<double> *> segment_;
    std::vector<double> dx0_, dx1_, y0_, y1_, x1_, inverse_height_;
    std::vector<double> x_top_, x_bottom_, first_, last_;
};

}  // namespace polymask::detail::touched
