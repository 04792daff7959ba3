// touched_sweep.hpp -- one polygon's all_touched cells, exactly: the centre
// rule's sweep (scanline.hpp) with, at the end of each row, the marking of
// the cells its edges pass in that row's strip (touched_pieces.hpp).
// touched.cpp's header comment says why that is coverage > 0, and holds the
// entry points (fill_touched, rasterize_touched) that use it.
// Internal: included by touched.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cell_geometry.hpp"
#include "edge_overlap.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "polymask/core.hpp"
#include "edges.hpp"
#include "row_bands.hpp"
#include "scanline.hpp"
#include "touched_pieces.hpp"

namespace polymask::detail::touched {

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
    const ConstSpan<Edge> edges = edges_by_y(polygon);
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

}  // namespace polymask::detail::touched
