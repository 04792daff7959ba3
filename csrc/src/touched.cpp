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
// A side tolerance (fill_touched's side_tolerance; polymask's
// all_touched=True) first moves the coordinates within it of a cell side
// onto that side (cell_geometry.hpp: with_coordinates_on_cell_sides); a
// polygon that moved is swept as given and as moved, and a cell is touched
// when both touch it (fill_touched_moved), so the tolerance only ever
// leaves cells out.
//
// The sweep of one polygon (the centre rule with the marking at the end of
// each row) is touched_sweep.hpp; the marking of the cells an edge passes in
// a row strip is touched_pieces.hpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "bounds.hpp"
#include "cell_geometry.hpp"
#include "checks.hpp"
#include "edge_overlap.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "edges.hpp"
#include "scanline.hpp"
#include "testing.hpp"
#include "touched_pieces.hpp"
#include "touched_sweep.hpp"
#include "label_burn.hpp"
#include "row_bands.hpp"

namespace polymask {

namespace {

using detail::Extended;
using detail::touched::CellEdges;
using detail::touched::fill_touched_as;
using detail::touched::LabelRuns;
using detail::touched::Pieces;
using detail::touched::sweep_touched;

// The cells of `window` a polygon whose vertices lie in `box` can touch,
// as a window (its height or width <= 0 when none).  Cell r meets the open
// extent (y_min, y_max) iff r - 1/2 < y_max and r + 1/2 > y_min; one more row
// and column each way guards the rounding.  With a coordinate beyond 2^40
// the area sweep decides, whose abscissae then err by whole pixels, and
// fill_touched takes its answer over the whole window, so every column may
// be touched (found by csrc/fuzz: a vertex at -4e28 marked cells right of
// the polygon's extent).  A polygon within 1/2 of `box` (its coordinates
// moved onto cell sides) touches no cell outside either.
Window touchable_cells(const detail::Bounds &box, const Window &window)
{
    const int64_t last_row = window.row0 + window.height, last_col = window.col0 + window.width;
    const int64_t row_first = detail::floor_clamped(box.y_min - 0.5, window.row0, last_row);
    const int64_t row_end = std::min(detail::ceil_clamped(box.y_max + 0.5, window.row0, last_row) + 1, last_row);
    int64_t col_first = detail::floor_clamped(box.x_min - 0.5, window.col0, last_col);
    int64_t col_end = std::min(detail::ceil_clamped(box.x_max + 0.5, window.col0, last_col) + 1, last_col);
    const double largest = std::max({std::fabs(box.x_min), std::fabs(box.x_max), std::fabs(box.y_min),
                                     std::fabs(box.y_max)});
    if (largest > detail::kContractIsAccurate) col_first = window.col0, col_end = last_col;
    return Window{row_first, col_first, row_end - row_first, col_end - col_first};
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
    std::optional<Polygon> moved;         // the polygon with coordinates moved onto cell sides, if any moved

    bool meets_window() const { return row_first < row_end && col_first < col_end; }
    bool burns() const { return meets_window(); }
    bool by_edges() const { return wide ? wide->by_edges : narrow.by_edges; }

    void prepare(const Polygon &given, const Window &window, double side_tolerance, detail::OverlapScratch &scratch)
    {
        detail::check_finite_vertices(given, "polymask::rasterize_touched");
        moved = detail::with_coordinates_on_cell_sides(given, side_tolerance);
        const Polygon &polygon = moved ? *moved : given;
        const ConstSpan<double> xy = polygon.xy();
        if (xy.empty()) return;
        const Window cells = touchable_cells(detail::vertex_bounds(xy), window);
        row_first = cells.row0, row_end = cells.row0 + cells.height;
        col_first = cells.col0, col_end = cells.col0 + cells.width;
        if (!meets_window()) return;
        crossings = detail::crossings_in_window(edges_by_y(polygon), window);
        if (moved) return;  // burned by fill_touched_moved, which prepares its own edges
        if (detail::double_is_enough(polygon)) {
            narrow.prepare(polygon, scratch);
        } else {
            wide = std::make_unique<CellEdges<Extended>>(polygon);
        }
    }
};

// The exact rule (side_tolerance 0) for checked arguments.
void fill_touched_exactly(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride,
                          FillRule rule, int threads, bool zeroed)
{
    if (detail::double_is_enough(polygon)) {
        fill_touched_as<double>(polygon, window, out, row_stride, rule, threads, zeroed);
    } else {
        fill_touched_as<Extended>(polygon, window, out, row_stride, rule, threads, zeroed);
    }
}

// The cells `moved` touches that `given` touches too, so that the side
// tolerance only ever leaves cells out: moving a vertex by 1e-13 can also
// turn an edge's exact pass through a cell corner into a graze of the
// neighbour on the other side (Natural Earth has such edges).  `reach`, a
// part of `window`, holds every cell either polygon can touch
// (touchable_cells), so `given` is swept there only.
void fill_touched_moved(const Polygon &given, const Polygon &moved, const Window &window, uint8_t *out,
                        int64_t row_stride, FillRule rule, int threads, bool zeroed, const Window &reach)
{
    fill_touched_exactly(moved, window, out, row_stride, rule, threads, zeroed);
    if (reach.height <= 0 || reach.width <= 0) return;
    std::vector<uint8_t> exact(static_cast<size_t>(reach.height * reach.width), 0);
    fill_touched_exactly(given, reach, exact.data(), reach.width, rule, threads, true);
    for (int64_t r = 0; r < reach.height; ++r) {
        uint8_t *line = out + (reach.row0 - window.row0 + r) * row_stride + (reach.col0 - window.col0);
        const uint8_t *kept = exact.data() + r * reach.width;
        for (int64_t c = 0; c < reach.width; ++c) line[c] &= kept[c];
    }
}


// Preparing a polygon costs about this much a vertex, in the pixel units of
// parallel.hpp (0.75 us for a 16-vertex polygon, measured with the label
// image of benchmarks/test_geo.py).
constexpr double kPreparationPerVertex = 1000.0;

}  // namespace

template <class Label>
void rasterize_touched(const Polygon *polygons, int64_t n_polygons, const Label *values, const Window &window,
                       Label *out, int64_t row_stride, FillRule rule, int threads, double side_tolerance,
                       bool add)
{
    detail::check_side_tolerance("polymask::rasterize_touched", side_tolerance);
    // The polygons are prepared on as many threads as their vertices are
    // worth: on one thread, the preparation was an eighth of a
    // 10,000-polygon label image's all_touched (7.5 of 56 ms).  A burned row
    // costs twice a centre-rule burn's: its sweep, and about as much again
    // for the marking.
    detail::burn_labels<detail::OverlapScratch, TouchedPolygon>(
        "polymask::rasterize_touched", n_polygons, polygons, values, window, out, row_stride, threads, 2.0,
        [polygons](int64_t p) { return kPreparationPerVertex * static_cast<double>(polygons[p].xy().size() / 2); },
        [&](int64_t p, TouchedPolygon &polygon, detail::OverlapScratch &scratch) {
            polygon.prepare(polygons[p], window, side_tolerance, scratch);
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
                if (add || polygon.moved || !polygon.by_edges()) {
                    // Coordinates moved onto cell sides (fill_touched_moved), or
                    // edges that may overlap (or coordinates past 2^40 or below
                    // 2^-480: the area sweep): the polygon's cells in its reach
                    // in this band, then its value.
                    const Window reach{row_begin, polygon.col_first, row_end - row_begin,
                                       polygon.col_end - polygon.col_first};
                    cells.assign(static_cast<size_t>(reach.height * reach.width), 0);
                    if (polygon.moved) {
                        fill_touched_moved(polygons[p], *polygon.moved, reach, cells.data(), reach.width, rule, 1,
                                           true, reach);
                    } else if (!polygon.by_edges()) {
                        detail::fill_touched_by_area(polygons[p], reach, cells.data(), reach.width, rule, 1);
                    } else if (reach.height > 0 && reach.width > 0) {
                        // add: the sweep marks a cell once per span and again per edge
                        // through it, so it marks the cells first and each adds once.
                        const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
                        detail::edge_rows_in_window(edges, reach, rows);
                        const detail::LabelSpanWriter<uint8_t> marks{cells.data(), reach.width, reach, 1};
                        const LabelRuns<uint8_t> mark_runs{cells.data() - reach.row0 * reach.width - reach.col0,
                                                           reach.width, 1};
                        if (polygon.wide) {
                            sweep_touched(edges, rows, polygon.wide->segments, polygon.wide->flats, reach, rule,
                                          row_begin, row_end, marks, mark_runs, wide_pieces, buffers);
                        } else {
                            sweep_touched(edges, rows, polygon.narrow.segments, polygon.narrow.flats, reach, rule,
                                          row_begin, row_end, marks, mark_runs, narrow_pieces, buffers);
                        }
                    }
                    for (int64_t r = 0; r < reach.height; ++r) {
                        Label *line = origin + (reach.row0 + r) * row_stride + reach.col0;
                        const uint8_t *in = cells.data() + r * reach.width;
                        for (int64_t c = 0; c < reach.width; ++c) {
                            if (in[c]) line[c] = add ? static_cast<Label>(line[c] + value) : value;
                        }
                    }
                    return;
                }
                const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
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
                                         int64_t, FillRule, int, double, bool);
template void rasterize_touched<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &, uint16_t *,
                                          int64_t, FillRule, int, double, bool);
template void rasterize_touched<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &, int32_t *,
                                         int64_t, FillRule, int, double, bool);
template void rasterize_touched<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &, uint32_t *,
                                          int64_t, FillRule, int, double, bool);
template void rasterize_touched<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &, int64_t *,
                                         int64_t, FillRule, int, double, bool);
template void rasterize_touched<float>(const Polygon *, int64_t, const float *, const Window &, float *, int64_t,
                                       FillRule, int, double, bool);
template void rasterize_touched<double>(const Polygon *, int64_t, const double *, const Window &, double *,
                                        int64_t, FillRule, int, double, bool);

bool testing::allow_touched_simd_for_testing(bool allowed) { return detail::touched::touched_simd_allowed.exchange(allowed); }


void fill_touched(const Polygon &given, const Window &window, uint8_t *out, int64_t row_stride, FillRule rule,
                  int threads, bool zeroed, double side_tolerance)
{
    detail::check_window("polymask::fill_touched", window, out, row_stride);
    detail::check_side_tolerance("polymask::fill_touched", side_tolerance);
    if (window.height == 0 || window.width == 0) return;
    detail::check_finite_vertices(given, "polymask::fill_touched");
    const std::optional<Polygon> moved = detail::with_coordinates_on_cell_sides(given, side_tolerance);
    if (moved) {
        fill_touched_moved(given, *moved, window, out, row_stride, rule, threads, zeroed,
                           touchable_cells(detail::vertex_bounds(given.xy()), window));
    } else {
        fill_touched_exactly(given, window, out, row_stride, rule, threads, zeroed);
    }
}

}  // namespace polymask
