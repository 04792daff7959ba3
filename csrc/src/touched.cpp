// touched.cpp -- all_touched: the cells that share positive area with the region.
//
// A cell shares positive area with the filled region iff it lies wholly
// inside it or the region's boundary passes through the cell's open
// interior (the interior is connected: if it held points inside and points
// outside, the boundary would cross it).  So, for a polygon whose edges do
// not overlap one another along a stretch,
//
//     touched = (centre inside, the contract's mask)  OR  (an edge passes
//               through the open cell),
//
// and no area needs computing:
//
//   * a cell wholly inside has its centre inside, so the mask has it;
//   * an edge that passes through the open cell has inside on one side at
//     least: the fill rule's count changes by 1 across a lone edge (parity
//     flips; a winding number w next to w +- 1 is non-zero on one side), and
//     where edges merely cross (at points) each continues on both sides;
//   * conversely a cell whose centre the mask takes, and that no edge
//     passes through, lies wholly inside.
//
// Edges that overlap along a stretch (a spike traced back over itself, a
// collinear sliver, rings sharing a side) can cancel: parity or winding is
// then the same on both sides, and the cells they pass may meet no area.
// Such polygons are found by a conservative pre-pass (may_overlap, in
// cell_geometry.hpp) and go to the area sweep of coverage.cpp, which is
// exact for everything; so do polygons with coordinates beyond 2^40 or
// nonzero ones below 2^-480, where the contract's mask (x_cross in double)
// stops being the exact centre test (edges_decide_touch).
//
// The same sink burns label images (rasterize_touched, below): each polygon's
// centre spans and marked cells get its value, polygon after polygon within
// each band of rows, so rasterize(..., all_touched=True) is one core call
// and equals the polygons' own all_touched masks applied in order.
//
// The marking is exact on the same terms as coverage: the abscissae at the
// strip boundaries come from SegmentT::x_at (cell_geometry.hpp), correctly
// rounded where the contract is exact, so an edge through a cell corner
// (x = c + 1/2 exactly) is recognised as touching neither neighbour across
// that corner.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(POLYMASK_NO_SIMD)
#define POLYMASK_TOUCHED_AVX2 1
#include <immintrin.h>
#endif

#include "bounds.hpp"
#include "cell_geometry.hpp"
#include "checks.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "scanline.hpp"
#include "testing.hpp"
#include "label_burn.hpp"
#include "row_bands.hpp"

namespace polymask {

namespace {

std::atomic<bool> touched_simd_allowed{true};  // tests switch the SIMD marking off

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

// Where the marked runs go: set_run on a bool mask's bytes...
struct MaskRuns {
    uint8_t *origin;  // origin[r * row_stride + c]: pixel (r, c)
    int64_t row_stride, col_end;

    void operator()(int64_t row, int64_t first, int64_t last) const
    {
        set_run(origin + row * row_stride, first, last, col_end);
    }
};

// ...or one polygon's value on a label image's pixels.
template <class Label>
struct LabelRuns {
    Label *origin;  // origin[r * row_stride + c]: pixel (r, c)
    int64_t row_stride;
    Label value;

    void operator()(int64_t row, int64_t first, int64_t last) const
    {
        detail::fill_labels(origin + row * row_stride, first, last + 1, value);
    }
};

// A span sink (scanline.hpp) that passes the centre rule's spans to `Writer`
// and then, at the end of each row, has `Runs` mark the cells the edges pass
// through in that row's strip, while the row is still in cache.  (Marking
// edge by edge instead, row after row down each edge, missed the cache on
// nearly every write and took 3x the time of the whole mask.)  `pieces` is
// the caller's, cleared here, so a label image's many polygons reuse its
// buffers.
template <class Writer, class Wide, class Runs>
class TouchedSink {
public:
    TouchedSink(Writer writer, Runs runs, const std::vector<SegmentT<Wide>> &segments,
                const std::vector<Flat> &flats, const Window &window, Pieces<Wide> &pieces)
        : writer_(writer), runs_(runs), segments_(segments), flats_(flats), col0_(window.col0),
          col_end_(window.col0 + window.width), pieces_(pieces)
    {
        pieces_.clear();
    }

    void begin_row(int64_t row) { writer_.begin_row(row); }
    void span(int64_t begin, int64_t end) { writer_.span(begin, end); }

    void end_row()
    {
        writer_.end_row();
        const double y_top = static_cast<double>(row_) - 0.5, y_bottom = static_cast<double>(row_) + 0.5;
        // Edges that enter the open strip (y_top, y_bottom) join, in y0
        // order, with their abscissa at the strip's top (on a band's first
        // row, every edge that starts above it is looked at once).
        for (; next_ < segments_.size() && segments_[next_].y0 < y_bottom; ++next_) {
            const SegmentT<Wide> &s = segments_[next_];
            if (s.y1 > y_top) pieces_.join(s, y_top);
        }
        const int64_t row = row_;
        pieces_.mark(y_bottom, col0_, col_end_, [this, row](int64_t first, int64_t last) { runs_(row, first, last); });
        // A horizontal edge inside the open strip passes through the cells
        // of this row; one on the strip's boundary runs along cell sides.
        for (; next_flat_ < flats_.size() && flats_[next_flat_].y < y_bottom; ++next_flat_) {
            const Flat &f = flats_[next_flat_];
            if (!(f.y > y_top) || !(f.x_min < f.x_max)) continue;
            int64_t first, last;
            detail::open_cells(f.x_min, f.x_max, col0_, col_end_, first, last);
            if (first <= last) runs_(row, first, last);
        }
        ++row_;
    }

    // The band starts at `row`: rows then come one by one, in order.
    void start(int64_t row)
    {
        row_ = row;
        const double y_top = static_cast<double>(row) - 0.5;
        next_flat_ = static_cast<size_t>(
            std::lower_bound(flats_.begin(), flats_.end(), y_top, [](const Flat &f, double y) { return f.y <= y; }) -
            flats_.begin());
    }

private:
    Writer writer_;
    Runs runs_;
    const std::vector<SegmentT<Wide>> &segments_;  // sorted by y0
    const std::vector<Flat> &flats_;               // sorted by y
    int64_t col0_, col_end_;
    int64_t row_ = 0;
    size_t next_ = 0, next_flat_ = 0;
    Pieces<Wide> &pieces_;
};

// Rows [row_begin, row_end) of one polygon's all_touched cells, through the
// centre rule's sweep with a TouchedSink.
template <class Wide, class Writer, class Runs>
void sweep_touched(ConstSpan<Edge> edges, const std::vector<detail::EdgeRows> &rows,
                   const std::vector<SegmentT<Wide>> &segments, const std::vector<Flat> &flats, const Window &window,
                   FillRule rule, int64_t row_begin, int64_t row_end, Writer writer, Runs runs, Pieces<Wide> &pieces,
                   detail::SweepBuffers &buffers)
{
    TouchedSink<Writer, Wide, Runs> sink(writer, runs, segments, flats, window, pieces);
    sink.start(row_begin);
    detail::scan_rows(edges, rows, window, rule, row_begin, row_end, sink, buffers);
}

// A polygon's edges for the marking: segments and flats (sorted by y), and
// whether they decide the touched cells (else the area sweep must).
template <class Wide>
struct CellEdges {
    std::vector<SegmentT<Wide>> segments;
    std::vector<Flat> flats;
    bool by_edges = false;

    CellEdges() = default;
    explicit CellEdges(const Polygon &polygon)
    {
        detail::OverlapScratch scratch;
        prepare(polygon, scratch);
    }

    // `scratch`: may_overlap's arrays, reused over a label image's polygons.
    void prepare(const Polygon &polygon, detail::OverlapScratch &scratch)
    {
        detail::cell_edges(polygon, segments, flats);
        by_edges = detail::edges_decide_touch(polygon, segments, flats, scratch);
        std::sort(flats.begin(), flats.end(), [](const Flat &a, const Flat &b) { return a.y < b.y; });
    }
};

template <class Wide>
void fill_touched_by_edges(const Polygon &polygon, const CellEdges<Wide> &cell_edges, const Window &window,
                           uint8_t *out, int64_t row_stride, FillRule rule, int threads, bool zeroed)
{
    const ConstSpan<Edge> edges = polygon.edges_by_y();
    const std::vector<detail::EdgeRows> rows = detail::edge_rows_in_window(edges, window);
    const MaskRuns runs{out - window.row0 * row_stride - window.col0, row_stride, window.col0 + window.width};
    // A row costs its centre fill plus about as much again for the marking.
    // Into a zeroed mask only the polygon's rows and columns (and the cells
    // beside them) are written: the rest of the window costs nothing.
    double work_per_row = 2.0 * detail::scanline_work_per_row(rows, window);
    if (zeroed) {
        const detail::EdgeRows extent = detail::rows_with_crossings(rows);
        const double crossed = static_cast<double>(std::max<int64_t>(0, extent.end - extent.first) + 2);
        work_per_row = 2.0 * detail::scanline_work_per_row(rows, window, detail::span_columns(edges, rows, window) + 2.0) *
                       std::min(1.0, crossed / static_cast<double>(std::max<int64_t>(1, window.height)));
    }
    detail::for_row_bands(window, threads, [&](int64_t row_begin, int64_t row_end) {
        Pieces<Wide> pieces;
        detail::SweepBuffers buffers;
        if (zeroed) {
            sweep_touched(edges, rows, cell_edges.segments, cell_edges.flats, window, rule, row_begin, row_end,
                          detail::MaskSpanWriter{out, row_stride, window}, runs, pieces, buffers);
        } else {
            sweep_touched(edges, rows, cell_edges.segments, cell_edges.flats, window, rule, row_begin, row_end,
                          detail::MaskRowWriter{out, row_stride, window}, runs, pieces, buffers);
        }
    }, work_per_row);
}

template <class Wide>
void fill_touched_as(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride, FillRule rule,
                     int threads, bool zeroed)
{
    const CellEdges<Wide> cell_edges(polygon);
    if (!cell_edges.by_edges) {
        detail::fill_touched_by_area(polygon, window, out, row_stride, rule, threads);
        return;
    }
    fill_touched_by_edges(polygon, cell_edges, window, out, row_stride, rule, threads, zeroed);
}

// One polygon of a label image, prepared once for every band: the rows and
// columns of the window its cells can meet, and its cell edges (in double,
// nearly always, or in Extended, as fill_touched chooses).
struct TouchedPolygon {
    int64_t row_first = 0, row_end = 0;  // rows whose strips can meet it, with a row to spare each way
    int64_t col_first = 0, col_end = 0;  // the same for columns
    double crossings = 0;                 // (edge, row) pairs in the window: its share of the work
    CellEdges<double> narrow;             // unless `wide`
    std::unique_ptr<CellEdges<Extended>> wide;  // coordinates beyond 2^16

    bool meets_window() const { return row_first < row_end && col_first < col_end; }
    bool burns() const { return meets_window(); }
    bool by_edges() const { return wide ? wide->by_edges : narrow.by_edges; }

    void prepare(const Polygon &polygon, const Window &window, detail::OverlapScratch &scratch)
    {
        detail::check_finite_vertices(polygon, "polymask::rasterize_touched");
        const ConstSpan<double> xy = polygon.xy();
        if (xy.empty()) return;
        const detail::Bounds box = detail::vertex_bounds(xy);
        const double x_min = box.x_min, x_max = box.x_max, y_min = box.y_min, y_max = box.y_max;
        // Cell r meets the open extent (y_min, y_max) iff r - 1/2 < y_max
        // and r + 1/2 > y_min; one more row each way guards the rounding.
        const int64_t last_row = window.row0 + window.height, last_col = window.col0 + window.width;
        row_first = detail::floor_clamped(y_min - 0.5, window.row0, last_row);
        row_end = std::min(detail::ceil_clamped(y_max + 0.5, window.row0, last_row) + 1, last_row);
        col_first = detail::floor_clamped(x_min - 0.5, window.col0, last_col);
        col_end = std::min(detail::ceil_clamped(x_max + 0.5, window.col0, last_col) + 1, last_col);
        if (row_first >= row_end) return;
        const double largest = std::max({std::fabs(x_min), std::fabs(x_max), std::fabs(y_min), std::fabs(y_max)});
        if (largest > detail::kContractIsAccurate) {
            // The area sweep decides; with coordinates this far its abscissae
            // err by whole pixels, and fill_touched takes its answer over the
            // whole window, so the burn does too (found by csrc/fuzz: a
            // vertex at -4e28 marked cells right of the polygon's extent).
            col_first = window.col0, col_end = last_col;
        }
        if (col_first >= col_end) return;
        crossings = detail::crossings_in_window(polygon.edges_by_y(), window);
        if (detail::double_is_enough(polygon)) {
            narrow.prepare(polygon, scratch);
        } else {
            wide = std::make_unique<CellEdges<Extended>>(polygon);
        }
    }
};

// Preparing a polygon costs about this much a vertex, in the pixel units of
// parallel.hpp (0.75 us for a 16-vertex polygon, measured with the label
// image of benchmarks/test_geo.py).
constexpr double kPreparationPerVertex = 1000.0;

}  // namespace

template <class Label>
void rasterize_touched(const Polygon *polygons, int64_t n_polygons, const Label *values, const Window &window,
                       Label *out, int64_t row_stride, FillRule rule, int threads)
{
    // The polygons are prepared on as many threads as their vertices are
    // worth: on one thread, the preparation was an eighth of a
    // 10,000-polygon label image's all_touched (7.5 of 56 ms).  A burned row
    // costs twice a centre-rule burn's: its sweep, and about as much again
    // for the marking.
    detail::burn_labels<detail::OverlapScratch, TouchedPolygon>(
        "polymask::rasterize_touched", n_polygons, polygons, values, window, out, row_stride, threads, 2.0,
        [polygons](int64_t p) { return kPreparationPerVertex * static_cast<double>(polygons[p].xy().size() / 2); },
        [&](int64_t p, TouchedPolygon &polygon, detail::OverlapScratch &scratch) {
            polygon.prepare(polygons[p], window, scratch);
        },
        [&] {
            Label *const origin = out - window.row0 * row_stride - window.col0;  // pixel (0, 0)
            // The band's buffers, for every polygon it burns: edge rows, the
            // marking's pieces, the sweep's arrays, and the area sweep's
            // answer for polygons that need it.
            return [&, origin, rows = std::vector<detail::EdgeRows>(), narrow_pieces = Pieces<double>(),
                    wide_pieces = Pieces<Extended>(), buffers = detail::SweepBuffers(),
                    cells = std::vector<uint8_t>()](int64_t p, const TouchedPolygon &polygon, int64_t row_begin,
                                                    int64_t row_end) mutable {
                const Label value = values[p];
                if (!polygon.by_edges()) {
                    // Edges that may overlap (or coordinates past 2^40 or below
                    // 2^-480): the area sweep over the polygon's reach in this
                    // band, then its value.
                    const Window reach{row_begin, polygon.col_first, row_end - row_begin,
                                       polygon.col_end - polygon.col_first};
                    cells.assign(static_cast<size_t>(reach.height * reach.width), 0);
                    detail::fill_touched_by_area(polygons[p], reach, cells.data(), reach.width, rule, 1);
                    for (int64_t r = 0; r < reach.height; ++r) {
                        Label *line = origin + (reach.row0 + r) * row_stride + reach.col0;
                        const uint8_t *in = cells.data() + r * reach.width;
                        for (int64_t c = 0; c < reach.width; ++c) {
                            if (in[c]) line[c] = value;
                        }
                    }
                    return;
                }
                const ConstSpan<Edge> edges = polygons[p].edges_by_y();
                detail::edge_rows_in_window(edges, window, rows);
                const detail::LabelSpanWriter<Label> writer{out, row_stride, window, value};
                const LabelRuns<Label> runs{origin, row_stride, value};
                if (polygon.wide) {
                    sweep_touched(edges, rows, polygon.wide->segments, polygon.wide->flats, window, rule, row_begin,
                                  row_end, writer, runs, wide_pieces, buffers);
                } else {
                    sweep_touched(edges, rows, polygon.narrow.segments, polygon.narrow.flats, window, rule,
                                  row_begin, row_end, writer, runs, narrow_pieces, buffers);
                }
            };
        });
}

template void rasterize_touched<uint8_t>(const Polygon *, int64_t, const uint8_t *, const Window &, uint8_t *,
                                         int64_t, FillRule, int);
template void rasterize_touched<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &, uint16_t *,
                                          int64_t, FillRule, int);
template void rasterize_touched<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &, int32_t *,
                                         int64_t, FillRule, int);
template void rasterize_touched<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &, uint32_t *,
                                          int64_t, FillRule, int);
template void rasterize_touched<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &, int64_t *,
                                         int64_t, FillRule, int);
template void rasterize_touched<float>(const Polygon *, int64_t, const float *, const Window &, float *, int64_t,
                                       FillRule, int);
template void rasterize_touched<double>(const Polygon *, int64_t, const double *, const Window &, double *,
                                        int64_t, FillRule, int);

bool testing::allow_touched_simd_for_testing(bool allowed) { return touched_simd_allowed.exchange(allowed); }

void fill_touched(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride, FillRule rule,
                  int threads, bool zeroed)
{
    detail::check_window("polymask::fill_touched", window, out, row_stride);
    if (window.height == 0 || window.width == 0) return;
    detail::check_finite_vertices(polygon, "polymask::fill_touched");
    if (detail::double_is_enough(polygon)) {
        fill_touched_as<double>(polygon, window, out, row_stride, rule, threads, zeroed);
    } else {
        fill_touched_as<Extended>(polygon, window, out, row_stride, rule, threads, zeroed);
    }
}

}  // namespace polymask
