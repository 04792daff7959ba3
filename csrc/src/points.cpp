// points.cpp -- the contract at arbitrary points (csrc/include/polymask/points.hpp).
//
// PointIndex keeps the polygon's edges in bands of y; contains() finds the
// point's band in O(1) and applies crossing.h's predicate to that band's
// edges only.  contains_points and which_polygon run many queries on the
// threading layer (parallel.hpp), in blocks of points.
#include "polymask/points.hpp"
#include "bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "parallel.hpp"

namespace polymask {
namespace {

// Edge copies the bands may hold, per edge: a polygon whose edges all span
// most of its height (a star) would otherwise store N edges in each of N
// bands.  Fewer bands keep memory O(N); the spanning edges then cover wider
// ranges of x, and a query tests more of them.
constexpr int64_t kCopiesPerEdge = 32;

// Where x_cross can lie: between the edge's end-points up to a few ulps of
// the largest |x| (two roundings of a product, a quotient and a sum).  A
// point farther than this margin right of every vertex meets no crossing
// with px < x_cross; one farther left meets all of them, an even number
// with zero winding (every closed ring crosses a line an even number of
// times, as often upward as downward).  Either way it is outside, exactly.
double x_margin(double x_min, double x_max)
{
    return std::max(std::fabs(x_min), std::fabs(x_max)) * 0x1p-40 + 1e-300;
}

}  // namespace

PointIndex::PointIndex(const Polygon &polygon)
{
    const ConstSpan<Edge> edges = polygon.edges_by_y();  // sorted by y_low, horizontal ones dropped
    if (edges.empty()) {
        band_bottom_ = {0.0};
        band_start_ = {0};
        span_start_ = {0};
        return;
    }
    const detail::Bounds box = detail::edge_bounds(edges);
    x_min_ = box.x_min, x_max_ = box.x_max, y_min_ = box.y_min, y_max_ = box.y_max;
    double least_rise = std::numeric_limits<double>::infinity();  // the smallest y_high - y_low
    for (const Edge &edge : edges) least_rise = std::min(least_rise, edge.y_high - edge.y_low);
    const double span = y_max_ - y_min_;  // > 0: every edge here has y_low < y_high
    const int64_t n_edges = static_cast<int64_t>(edges.size());
    int64_t bands = std::isfinite(span) ? std::min<int64_t>(n_edges, int64_t(1) << 22) : 1;
    std::vector<int64_t> first(edges.size()), last(edges.size());
    for (;;) {
        band_bottom_.resize(static_cast<size_t>(bands) + 1);
        for (int64_t b = 0; b < bands; ++b) {
            // Non-decreasing, since each operation rounds monotonically.
            band_bottom_[b] = std::min(y_min_ + span * (static_cast<double>(b) / static_cast<double>(bands)), y_max_);
        }
        band_bottom_[bands] = y_max_;
        band_scale_ = std::isfinite(span) ? static_cast<double>(bands) / span : 0.0;
        int64_t copies = 0;
        for (int64_t e = 0; e < n_edges; ++e) {
            first[e] = band_of(edges[e].y_low);
            // The last band whose bottom lies below y_high: [y_low, y_high) meets bands first..last.
            int64_t end = edges[e].y_high >= y_max_ ? bands - 1 : band_of(edges[e].y_high);
            while (end > first[e] && band_bottom_[end] >= edges[e].y_high) --end;
            last[e] = end;
            copies += end - first[e] + 1;
        }
        if (copies <= kCopiesPerEdge * n_edges || bands == 1) break;
        bands = std::max<int64_t>(1, bands / 2);
    }
    // Each band's copies (edge indices), then split into spanning and partial edges.
    std::vector<int64_t> copy_start(static_cast<size_t>(bands) + 1, 0);
    for (int64_t e = 0; e < n_edges; ++e) {
        for (int64_t b = first[e]; b <= last[e]; ++b) ++copy_start[b + 1];
    }
    for (int64_t b = 0; b < bands; ++b) copy_start[b + 1] += copy_start[b];
    std::vector<int64_t> copies(static_cast<size_t>(copy_start[bands]));
    {
        std::vector<int64_t> fill(copy_start.begin(), copy_start.end() - 1);
        for (int64_t e = 0; e < n_edges; ++e) {
            for (int64_t b = first[e]; b <= last[e]; ++b) copies[fill[b]++] = e;
        }
    }
    // A product (xj - xi) * (py - yi) below 2^-1022 is subnormal: rounded to
    // a multiple of 2^-1074, not to a relative error, and the division by an
    // edge's rise scales that absolute error by 1 / rise (an edge rising
    // 5e-324 put x_cross 0.5 left of both its end-points).  The margin holds it.
    margin_ = x_margin(x_min_, x_max_) + 4.0 * (0x1p-1074 / least_rise);
    // The ranges of x above bound x_cross only while the contract's product
    // (xj - xi) * (py - yi) cannot overflow; it is at most the x extent times
    // the y extent (rounding is monotonic).  Coordinates beyond about 1e154
    // can make it +-inf: a crossing right of every point, or left of all.
    // Then no x range is trusted and every edge of the point's band is tested
    // (none is kept as a spanning edge).
    const double x_extent = x_max_ - x_min_;
    const bool x_cross_may_overflow = !std::isfinite(4.0 * x_extent) || !std::isfinite(4.0 * x_extent * span);
    if (x_cross_may_overflow) margin_ = std::numeric_limits<double>::infinity();
    band_start_.assign(1, 0);
    span_start_.assign(1, 0);
    std::vector<SpanEdge> band_spans;
    std::vector<double> widths;
    for (int64_t b = 0; b < bands; ++b) {
        const double bottom = band_bottom_[b], top = band_bottom_[b + 1];
        band_spans.clear();
        for (int64_t k = copy_start[b]; k < copy_start[b + 1]; ++k) {
            const Edge &e = edges[copies[k]];
            const BandEdge edge{e.xi, e.yi, e.xj, e.yj};
            // (x ranges of an edge whose x_cross may overflow could be NaN: inf * 0.)
            if (!x_cross_may_overflow && e.y_low <= bottom && e.y_high >= top && bottom < top) {
                const double at_bottom = pm_x_cross(e.xi, e.yi, e.xj, e.yj, bottom);
                const double at_top = pm_x_cross(e.xi, e.yi, e.xj, e.yj, top);
                band_spans.push_back(SpanEdge{std::min(at_bottom, at_top) - margin_,
                                              std::max(at_bottom, at_top) + margin_, edge, 0});
            } else {
                edges_.push_back(edge);
            }
        }
        // A few wide spans (nearly horizontal edges) would widen every search of the band:
        // those are tested like the partial edges instead.
        double width_limit = std::numeric_limits<double>::infinity();
        if (band_spans.size() >= 8) {
            widths.clear();
            for (const SpanEdge &span : band_spans) widths.push_back(span.x_high - span.x_low);
            std::nth_element(widths.begin(), widths.begin() + widths.size() * 3 / 4, widths.end());
            width_limit = 4 * widths[widths.size() * 3 / 4];
        }
        double widest = 0;
        int winding = 0;
        const size_t band_first = spans_.size();
        for (const SpanEdge &span : band_spans) {
            if (span.x_high - span.x_low > width_limit) {
                edges_.push_back(span.edge);
            } else {
                spans_.push_back(span);
                widest = std::max(widest, span.x_high - span.x_low);
            }
        }
        std::sort(spans_.begin() + static_cast<std::ptrdiff_t>(band_first), spans_.end(),
                  [](const SpanEdge &a, const SpanEdge &b) { return a.x_low < b.x_low; });
        for (size_t k = band_first; k < spans_.size(); ++k) {
            span_x_low_.push_back(spans_[k].x_low);
            spans_[k].winding_before = winding;
            winding += (spans_[k].edge.yi > spans_[k].edge.yj) ? 1 : -1;
        }
        // Widened so that x_low < px - width implies x_high < px despite the rounding of both.
        span_width_.push_back(widest * (1 + 0x1p-40) + margin_);
        span_winding_.push_back(winding);
        band_start_.push_back(static_cast<int64_t>(edges_.size()));
        span_start_.push_back(static_cast<int64_t>(spans_.size()));
    }
}

// The band b with band_bottom_[b] <= py < band_bottom_[b + 1], for
// y_min_ <= py < y_max_: a guess from the equal spacing, then corrected
// against the stored bottoms, so rounding in the guess cannot misplace py.
int64_t PointIndex::band_of(double py) const
{
    const int64_t bands = band_count();
    const double guess = (py - y_min_) * band_scale_;
    int64_t b = guess > 0 ? static_cast<int64_t>(std::min(guess, static_cast<double>(bands - 1))) : 0;
    while (b > 0 && py < band_bottom_[b]) --b;
    while (b < bands - 1 && py >= band_bottom_[b + 1]) ++b;
    return b;
}

bool PointIndex::contains(double px, double py, FillRule rule) const
{
    // Outside [y_min, y_max) no edge crosses the line y = py (half-open rule).
    if (!(py >= y_min_ && py < y_max_)) return false;
    if (px < x_min_ - margin_ || px > x_max_ + margin_) return false;
    const int64_t b = band_of(py);
    bool inside = false;
    int winding = 0;
    // The edges that start, end or are wide in the band: each tested.
    for (const BandEdge *edge = edges_.data() + band_start_[b], *end = edges_.data() + band_start_[b + 1];
         edge != end; ++edge) {
        if (pm_edge_crosses_row(edge->yi, edge->yj, py) &&
            px < pm_x_cross(edge->xi, edge->yi, edge->xj, edge->yj, py)) {
            inside = !inside;
            winding += (edge->yi > edge->yj) ? 1 : -1;
        }
    }
    // The edges that span the band, sorted by x_low: those wholly right of px all cross
    // to its right; only those whose range holds px need the test.
    // The searches read x_low from its own array: a band's keys share a few cache lines.
    const double *first = span_x_low_.data() + span_start_[b], *end = span_x_low_.data() + span_start_[b + 1];
    if (first != end) {
        const double *right = std::upper_bound(first, end, px);
        if (right != end) {
            inside ^= ((end - right) & 1) != 0;
            winding += span_winding_[b] - spans_[right - span_x_low_.data()].winding_before;
        }
        const double *near = std::lower_bound(first, right, px - span_width_[b]);
        for (; near != right; ++near) {
            const SpanEdge &span = spans_[near - span_x_low_.data()];
            const BandEdge &edge = span.edge;
            if (span.x_high >= px && pm_edge_crosses_row(edge.yi, edge.yj, py) &&
                px < pm_x_cross(edge.xi, edge.yi, edge.xj, edge.yj, py)) {
                inside = !inside;
                winding += (edge.yi > edge.yj) ? 1 : -1;
            }
        }
    }
    return rule == FillRule::even_odd ? inside : winding != 0;
}

void PointIndex::row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const
{
    x_cross.clear();
    winding.clear();
    if (!(py >= y_min_ && py < y_max_)) return;
    const int64_t b = band_of(py);
    const auto add = [&](const BandEdge &edge) {
        if (pm_edge_crosses_row(edge.yi, edge.yj, py)) {
            x_cross.push_back(pm_x_cross(edge.xi, edge.yi, edge.xj, edge.yj, py));
            winding.push_back((edge.yi > edge.yj) ? 1 : -1);
        }
    };
    for (int64_t k = band_start_[b]; k < band_start_[b + 1]; ++k) add(edges_[k]);
    for (int64_t k = span_start_[b]; k < span_start_[b + 1]; ++k) add(spans_[k].edge);
}

namespace {

// Run body(begin, end) over [0, n) points in blocks, on as many threads as
// `work_per_point` (pixel units, parallel.hpp) times n is worth.
template <class Body>
void for_point_blocks(int64_t n, double work_per_point, int threads, Body &&body)
{
    if (n <= 0) return;
    const double work = static_cast<double>(n) * work_per_point;
    const int team = detail::threads_for_work(threads, work);
    const int64_t chunks = detail::chunks_for_work(team, work, n);
    detail::parallel_for(chunks, team, [&](int64_t chunk) {
        body(n * chunk / chunks, n * (chunk + 1) / chunks);
    });
}

// A query's cost in pixel units: finding the band, then a few per edge in it.
double query_work(const PointIndex &index)
{
    const double bands = std::max(1.0, static_cast<double>(index.band_count()));  // 0 without edges
    const double tested = static_cast<double>(index.stored_edges() - index.spanning_edges()) / bands;
    const double sorted = static_cast<double>(index.spanning_edges()) / bands;
    return 16.0 + 4.0 * tested + std::log2(1.0 + sorted);
}

}  // namespace

void contains_points(const Polygon &polygon, const double *x, const double *y, int64_t n, uint8_t *out,
                     FillRule rule, int threads)
{
    const PointIndex index(polygon);
    for_point_blocks(n, query_work(index), threads, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) out[k] = index.contains(x[k], y[k], rule) ? 1 : 0;
    });
}

void contains_grid(const Polygon &polygon, const double *x, int64_t width, const double *y, int64_t height,
                   uint8_t *out, FillRule rule, int threads)
{
    if (width <= 0 || height <= 0) return;
    const PointIndex index(polygon);
    const double crossings =
        static_cast<double>(index.stored_edges()) / std::max(1.0, static_cast<double>(index.band_count()));
    const double work_per_row = static_cast<double>(width) + 8.0 * crossings * std::log2(2.0 + width);
    for_point_blocks(height, work_per_row, threads, [&](int64_t begin, int64_t end) {
        std::vector<double> x_cross;
        std::vector<int> winding;
        std::vector<int64_t> change(static_cast<size_t>(width) + 1);
        for (int64_t r = begin; r < end; ++r) {
            uint8_t *row = out + r * width;
            index.row_crossings(y[r], x_cross, winding);
            if (x_cross.empty()) {
                std::fill(row, row + width, uint8_t(0));
                continue;
            }
            // Crossing k counts for the columns with x[c] < x_cross[k]: the first
            // `columns` of them, x being sorted.  A running sum of the changes
            // gives each column its count (even-odd) or winding (nonzero).
            std::fill(change.begin(), change.end(), int64_t(0));
            for (size_t k = 0; k < x_cross.size(); ++k) {
                const int64_t columns = std::lower_bound(x, x + width, x_cross[k]) - x;
                const int step = rule == FillRule::even_odd ? 1 : winding[k];
                change[0] += step;
                change[columns] -= step;
            }
            int64_t count = 0;
            for (int64_t c = 0; c < width; ++c) {
                count += change[c];
                row[c] = (rule == FillRule::even_odd ? (count & 1) != 0 : count != 0) ? 1 : 0;
            }
        }
    });
}

void which_polygon(const Polygon *polygons, int64_t n_polygons, const double *x, const double *y, int64_t n,
                   int64_t *out, FillRule rule, int threads)
{
    std::vector<PointIndex> indexes;
    indexes.reserve(static_cast<size_t>(std::max<int64_t>(n_polygons, 0)));
    double work_per_point = 1.0;
    for (int64_t p = 0; p < n_polygons; ++p) {
        indexes.emplace_back(polygons[p]);
        work_per_point += 1.0 + query_work(indexes.back()) / 16.0;  // most polygons are passed by their box
    }
    for_point_blocks(n, work_per_point, threads, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
            int64_t label = 0;
            for (int64_t p = n_polygons - 1; p >= 0; --p) {  // the last polygon holding the point wins
                if (indexes[p].contains(x[k], y[k], rule)) {
                    label = p + 1;
                    break;
                }
            }
            out[k] = label;
        }
    });
}

}  // namespace polymask
