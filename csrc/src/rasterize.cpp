// rasterize.cpp -- burning many polygons into one label image.
//
// Each polygon's pixels come from the same scan_rows sweep as its mask (see
// scanline.hpp), written by a sink that stores the polygon's value inside
// spans and touches nothing else.  Work per polygon is bounded by its own
// rows: a polygon whose rows or columns miss the band is skipped before any
// crossing is computed, so 10,000 small polygons cost about what their
// pixels cost, not 10,000 passes over the image.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "polymask/rasterize.hpp"
#include "edges.hpp"
#include "bounds.hpp"
#include "scanline.hpp"
#include "checks.hpp"
#include "mask_writers.hpp"
#include "parallel.hpp"
#include "label_burn.hpp"
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

    bool burns() const { return !misses_columns; }
};

Extent extent_in_window(const Polygon &polygon, const Window &window)
{
    Extent extent;
    const ConstSpan<Edge> edges = edges_by_y(polygon);
    if (edges.empty()) return extent;  // no edge crosses any row: empty
    const int64_t row_end = window.row0 + window.height;
    // Under the half-open rule an edge crosses rows [ceil(y_low),
    // ceil(y_high)); edges are sorted by y_low, so the first edge starts
    // the polygon's rows and the largest y_high ends them.
    const detail::Bounds box = detail::edge_bounds(edges);
    const double x_min = box.x_min, x_max = box.x_max, y_high = box.y_max;
    extent.row_first = detail::ceil_clamped(box.y_min, window.row0, row_end);
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
    const double largest = std::max({std::fabs(x_min), std::fabs(x_max), std::fabs(box.y_min),
                                     std::fabs(y_high)});
    extent.misses_columns = largest < 0x1p500 &&
                            ((x_max + margin <= static_cast<double>(window.col0)) ||
                             (x_min - margin >= static_cast<double>(window.col0 + window.width)));
    if (!extent.misses_columns) extent.crossings = detail::crossings_in_window(edges, window);
    return extent;
}

// Which pixels of a band of rows the polygons burned so far hold, a bit
// each (a window's worth costs an eighth of its uint8 labels): a span that
// meets a set bit holds a pixel two polygons hold.
class BandPixels {
public:
    BandPixels() = default;
    BandPixels(int64_t row_begin, int64_t row_end, int64_t width)
        : row_begin_(row_begin), words_per_row_((width + 63) / 64),
          bits_(static_cast<size_t>((row_end - row_begin) * words_per_row_), 0)
    {
    }

    // Mark columns [begin, end) of `row` (counted from the window's first);
    // whether any was marked before.
    bool mark(int64_t row, int64_t begin, int64_t end)
    {
        if (begin >= end) return false;
        uint64_t *const line = bits_.data() + (row - row_begin_) * words_per_row_;
        const int64_t first = begin >> 6, last = (end - 1) >> 6;
        uint64_t seen = 0;
        for (int64_t w = first; w <= last; ++w) {
            uint64_t bits = ~uint64_t{0};
            if (w == first) bits &= ~uint64_t{0} << (begin & 63);
            if (w == last) bits &= ~uint64_t{0} >> (63 - ((end - 1) & 63));
            seen |= line[w] & bits;
            line[w] |= bits;
        }
        return seen != 0;
    }

private:
    int64_t row_begin_ = 0;
    int64_t words_per_row_ = 0;
    std::vector<uint64_t> bits_;
};

// LabelSpanWriter's spans, noting in `pixels` whether one of them covered a
// pixel an earlier polygon's span covered.
template <class Label>
struct OverlapSpanWriter {
    detail::LabelSpanWriter<Label> &writer;
    BandPixels &pixels;
    bool found = false;
    int64_t row = 0;

    void begin_row(int64_t r)
    {
        row = r;
        writer.begin_row(r);
    }
    void span(int64_t begin, int64_t end)
    {
        const int64_t col0 = writer.window.col0;
        if (!found) found = pixels.mark(row, begin - col0, end - col0);
        writer.span(begin, end);
    }
    void end_row() { writer.end_row(); }
};

}  // namespace

// Finding a polygon's extent costs about this much an edge (two passes
// over its edges), in parallel.hpp's pixel units.
constexpr double kExtentPerEdge = 400.0;

// Building a polygon (copying its vertices, sorting its edges) costs about
// this much a vertex, in parallel.hpp's pixel units (a million 8-vertex
// polygons took about 1 s on one thread).
constexpr double kBuildPerVertex = 2500.0;

void polygons_from_rings(const double *xy, int64_t n_vertices, const int64_t *ring_ends,
                         int64_t n_rings, const int64_t *polygon_ends, int64_t n_polygons,
                         std::vector<Polygon> &polygons, int threads)
{
    detail::check_ends("polymask::polygons_from_rings", "ring_ends", ring_ends, n_rings, n_vertices,
                       "vertex count");
    detail::check_ends("polymask::polygons_from_rings", "polygon_ends", polygon_ends, n_polygons, n_rings,
                       "ring count");
    if (n_vertices > 0 && xy == nullptr) {
        throw std::invalid_argument("polymask::polygons_from_rings: null vertex pointer");
    }

    polygons.clear();
    polygons.resize(static_cast<size_t>(n_polygons));
    const auto first_ring = [polygon_ends](int64_t p) { return p > 0 ? polygon_ends[p - 1] : int64_t{0}; };
    const auto first_vertex = [ring_ends](int64_t ring) { return ring > 0 ? ring_ends[ring - 1] : int64_t{0}; };
    const auto work_of = [&](int64_t p) {
        return kBuildPerVertex * static_cast<double>(first_vertex(polygon_ends[p]) - first_vertex(first_ring(p)));
    };
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        const int64_t ring_begin = first_ring(p), ring_end = polygon_ends[p];
        const int64_t vertex_begin = first_vertex(ring_begin), vertex_end = first_vertex(ring_end);
        // The polygon sees its own vertices from 0, so its ring ends shift
        // (one ring, nearly always: no allocation for it).
        const int64_t count = ring_end - ring_begin;
        int64_t one_ring = vertex_end - vertex_begin;
        std::vector<int64_t> several;
        const int64_t *local_ends = &one_ring;
        if (count > 1) {
            several.resize(static_cast<size_t>(count));
            for (int64_t k = 0; k < count; ++k) several[k] = ring_ends[ring_begin + k] - vertex_begin;
            local_ends = several.data();
        }
        polygons[static_cast<size_t>(p)] = Polygon(xy + 2 * vertex_begin, vertex_end - vertex_begin, local_ends, count);
    });
}

template <class Label>
void rasterize(const Polygon *polygons, int64_t n_polygons, const Label *values,
               const Window &window, Label *out, int64_t row_stride, FillRule rule, int threads, bool add,
               bool *overlap)
{
    struct NoScratch {};
    std::atomic<bool> found_overlap{false};
    // Each polygon's extent (a million polygons take a fifth of a second);
    // each polygon that reaches a band is swept over the band's rows with
    // the same sweep as its mask, by a writer that stores its value in spans.
    detail::burn_labels<NoScratch, Extent>(
        "polymask::rasterize", n_polygons, polygons, values, window, out, row_stride, threads, 1.0,
        [polygons](int64_t p) { return kExtentPerEdge * static_cast<double>(edges_by_y(polygons[p]).size()); },
        [&](int64_t p, Extent &extent, NoScratch &) { extent = extent_in_window(polygons[p], window); },
        [&](int64_t band_begin, int64_t band_end) {
            // Reused across the band's polygons: edge rows of the polygon being
            // burned, the sweep's arrays (allocated once per band, not per
            // polygon), and the band's burned pixels when overlaps are looked for.
            BandPixels pixels;
            if (overlap != nullptr) pixels = BandPixels(band_begin, band_end, window.width);
            return [&, rows = std::vector<detail::EdgeRows>(), buffers = detail::SweepBuffers(),
                    pixels = std::move(pixels)](int64_t p, const Extent &, int64_t row_begin,
                                                int64_t row_end) mutable {
                const ConstSpan<Edge> edges = edges_by_y(polygons[p]);
                detail::edge_rows_in_window(edges, window, rows);
                detail::LabelSpanWriter<Label> writer{out, row_stride, window, values[p], nullptr, add};
                if (overlap == nullptr) {
                    detail::scan_rows(edges, rows, window, rule, row_begin, row_end, writer, buffers);
                    return;
                }
                OverlapSpanWriter<Label> checked{writer, pixels};
                detail::scan_rows(edges, rows, window, rule, row_begin, row_end, checked, buffers);
                if (checked.found) found_overlap.store(true, std::memory_order_relaxed);
            };
        });
    if (overlap != nullptr) *overlap = found_overlap.load();
}

template void rasterize<uint8_t>(const Polygon *, int64_t, const uint8_t *, const Window &, uint8_t *,
                                 int64_t, FillRule, int, bool, bool *);
template void rasterize<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &, uint16_t *,
                                  int64_t, FillRule, int, bool, bool *);
template void rasterize<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &, int32_t *,
                                 int64_t, FillRule, int, bool, bool *);
template void rasterize<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &, uint32_t *,
                                  int64_t, FillRule, int, bool, bool *);
template void rasterize<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &, int64_t *,
                                 int64_t, FillRule, int, bool, bool *);
template void rasterize<float>(const Polygon *, int64_t, const float *, const Window &, float *, int64_t,
                               FillRule, int, bool, bool *);
template void rasterize<double>(const Polygon *, int64_t, const double *, const Window &, double *,
                                int64_t, FillRule, int, bool, bool *);

}  // namespace polymask
