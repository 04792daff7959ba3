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
//
// The marking of the cells an edge passes in a row strip is touched_pieces.hpp.
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

#include "bounds.hpp"
#include "cell_geometry.hpp"
#include "checks.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "scanline.hpp"
#include "testing.hpp"
#include "touched_pieces.hpp"
#include "label_burn.hpp"
#include "row_bands.hpp"

namespace polymask {

namespace {

using detail::Extended;
using detail::Flat;
using detail::SegmentT;
using detail::touched::Pieces;
using detail::touched::set_run;

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

bool testing::allow_touched_simd_for_testing(bool allowed) { return detail::touched::touched_simd_allowed.exchange(allowed); }

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
