// rasterize.cpp -- burning many polygons into one label image.
//
// Each polygon's pixels come from the same scan_rows sweep as its mask (see
// scanline.hpp), written by a sink that stores the polygon's value inside
// spans and touches nothing else.  Work per polygon is bounded by its own
// rows: a polygon whose rows or columns miss the band is skipped before any
// crossing is computed, so 10,000 small polygons cost about what their
// pixels cost, not 10,000 passes over the image.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "polymask/rasterize.hpp"
#include "polymask/scanline.hpp"
#include "checks.hpp"
#include "mask_writers.hpp"
#include "row_bands.hpp"

namespace polymask {

namespace {

// Where a polygon can have spans inside the window: rows [row_first,
// row_end), and whether its columns can reach the window at all.
struct Extent {
    int64_t row_first = 0;
    int64_t row_end = 0;
    bool misses_columns = false;
    double crossings = 0;  // (edge, row) pairs in the window: its share of the work
};

Extent extent_in_window(const Polygon &polygon, const Window &window)
{
    Extent extent;
    const std::vector<Edge> &edges = polygon.edges_by_y();
    if (edges.empty()) return extent;  // no edge crosses any row: empty
    const int64_t row_end = window.row0 + window.height;
    // Under the half-open rule an edge crosses rows [ceil(y_low),
    // ceil(y_high)); edges are sorted by y_low, so the first edge starts
    // the polygon's rows and the largest y_high ends them.
    double y_high = edges.front().y_high;
    double x_min = std::min(edges.front().xi, edges.front().xj);
    double x_max = std::max(edges.front().xi, edges.front().xj);
    for (const Edge &e : edges) {
        y_high = std::max(y_high, e.y_high);
        x_min = std::min({x_min, e.xi, e.xj});
        x_max = std::max({x_max, e.xi, e.xj});
    }
    extent.row_first = detail::ceil_clamped(edges.front().y_low, window.row0, row_end);
    extent.row_end = detail::ceil_clamped(y_high, window.row0, row_end);
    // x_cross lies between an edge's end-point abscissae up to rounding, so
    // a polygon entirely left of the window (every span ends at or before
    // col0) or entirely right of it (every span starts at or after the
    // window's end) burns nothing there.  The one-pixel margin dwarfs any
    // rounding; a NaN bound fails both tests and is never skipped.
    const double margin = 1.0 + 1e-9 * std::max(std::fabs(x_min), std::fabs(x_max));
    // That needs x_cross's product (x[j] - x[i]) * (py - y[i]) not to
    // overflow: past 2^500 it can reach +-inf, and such a polygon fills whole
    // rows of any window (found by csrc/fuzz), so it is never skipped.
    const double largest = std::max({std::fabs(x_min), std::fabs(x_max), std::fabs(edges.front().y_low),
                                     std::fabs(y_high)});
    extent.misses_columns = largest < 0x1p500 &&
                            ((x_max + margin <= static_cast<double>(window.col0)) ||
                             (x_min - margin >= static_cast<double>(window.col0 + window.width)));
    if (!extent.misses_columns) extent.crossings = detail::crossings_in_window(edges, window);
    return extent;
}

}  // namespace

void polygons_from_rings(const double *xy, int64_t n_vertices, const int64_t *ring_ends,
                         int64_t n_rings, const int64_t *polygon_ends, int64_t n_polygons,
                         std::vector<Polygon> &polygons)
{
    detail::check_ends("polymask::polygons_from_rings", "ring_ends", ring_ends, n_rings, n_vertices,
                       "vertex count");
    detail::check_ends("polymask::polygons_from_rings", "polygon_ends", polygon_ends, n_polygons, n_rings,
                       "ring count");
    if (n_vertices > 0 && xy == nullptr) {
        throw std::invalid_argument("polymask::polygons_from_rings: null vertex pointer");
    }

    polygons.clear();
    polygons.reserve(static_cast<size_t>(n_polygons));
    std::vector<int64_t> local_ends;
    int64_t ring_begin = 0;
    for (int64_t p = 0; p < n_polygons; ++p) {
        const int64_t ring_end = polygon_ends[p];
        const int64_t vertex_begin = ring_begin > 0 ? ring_ends[ring_begin - 1] : 0;
        const int64_t vertex_end = ring_end > 0 ? ring_ends[ring_end - 1] : 0;
        // The polygon sees its own vertices from 0, so its ring ends shift.
        local_ends.clear();
        for (int64_t k = ring_begin; k < ring_end; ++k) local_ends.push_back(ring_ends[k] - vertex_begin);
        polygons.emplace_back(xy + 2 * vertex_begin, vertex_end - vertex_begin, local_ends.data(),
                              ring_end - ring_begin);
        ring_begin = ring_end;
    }
}

template <class Label>
void rasterize(const Polygon *polygons, int64_t n_polygons, const Label *values,
               const Window &window, Label *out, int64_t row_stride, FillRule rule, int threads)
{
    detail::check_window("polymask::rasterize", window, out, row_stride);
    if (n_polygons < 0) throw std::invalid_argument("polymask::rasterize: negative polygon count");
    if (window.height == 0 || window.width == 0 || n_polygons == 0) return;
    if (polygons == nullptr || values == nullptr) throw std::invalid_argument("polymask::rasterize: null pointer");

    std::vector<Extent> extents(static_cast<size_t>(n_polygons));
    double crossings = 0;
    for (int64_t p = 0; p < n_polygons; ++p) {
        extents[p] = extent_in_window(polygons[p], window);
        crossings += extents[p].crossings;
    }
    // A row: its pixels, a look at each polygon, and the polygons' crossings.
    // Without the crossings, 20 polygons crossing every row 6,000 times
    // each were planned as one band on one thread, and Ctrl-C waited 1.8 s
    // for it (tests/test_interrupts.py).
    const double work_per_row = detail::scanline_work_per_row(crossings, window) + static_cast<double>(n_polygons);

    // Each thread burns every polygon, in order, into its own band of rows:
    // "later over earlier" holds exactly at any thread count.
    detail::for_row_bands(window, threads, [&](int64_t band_begin, int64_t band_end) {
        // Reused across polygons: edge rows of the polygon being burned, and
        // the sweep's arrays (allocated once per band, not per polygon).
        std::vector<detail::EdgeRows> rows;
        detail::SweepBuffers buffers;
        for (int64_t p = 0; p < n_polygons; ++p) {
            const Extent &extent = extents[p];
            const int64_t row_begin = std::max(band_begin, extent.row_first);
            const int64_t row_end = std::min(band_end, extent.row_end);
            if (row_begin >= row_end || extent.misses_columns) continue;
            const std::vector<Edge> &edges = polygons[p].edges_by_y();
            detail::edge_rows_in_window(edges, window, rows);
            detail::LabelSpanWriter<Label> writer{out, row_stride, window, values[p]};
            detail::scan_rows(edges, rows, window, rule, row_begin, row_end, writer, buffers);
        }
    }, work_per_row);
}

template void rasterize<uint8_t>(const Polygon *, int64_t, const uint8_t *, const Window &, uint8_t *,
                                 int64_t, FillRule, int);
template void rasterize<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &, uint16_t *,
                                  int64_t, FillRule, int);
template void rasterize<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &, int32_t *,
                                 int64_t, FillRule, int);
template void rasterize<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &, uint32_t *,
                                  int64_t, FillRule, int);
template void rasterize<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &, int64_t *,
                                 int64_t, FillRule, int);
template void rasterize<float>(const Polygon *, int64_t, const float *, const Window &, float *, int64_t,
                               FillRule, int);
template void rasterize<double>(const Polygon *, int64_t, const double *, const Window &, double *,
                                int64_t, FillRule, int);

}  // namespace polymask
