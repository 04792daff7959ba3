// points.cpp -- the contract at arbitrary points (csrc/include/polymask/points.hpp).
//
// PointIndex keeps the polygon's edges in bands of y; contains() finds the
// point's band in O(1) and applies crossing.h's predicate to that band's
// edges only.  contains_points and which_polygon run many queries on the
// threading layer (parallel.hpp), in blocks of points.
#include "polymask/points.hpp"

#include <algorithm>
#include <cmath>

#include "parallel.hpp"

namespace polymask {
namespace {

// Edge copies the bands may hold, per edge: a polygon whose edges all span
// most of its height (a star) would otherwise store N edges in each of N
// bands.  Fewer bands keep memory O(N); each query then sees more edges.
constexpr int64_t kCopiesPerEdge = 8;

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
        return;
    }
    x_min_ = x_max_ = edges[0].xi;
    y_min_ = edges[0].y_low;
    y_max_ = edges[0].y_high;
    for (const Edge &edge : edges) {
        x_min_ = std::min({x_min_, edge.xi, edge.xj});
        x_max_ = std::max({x_max_, edge.xi, edge.xj});
        y_max_ = std::max(y_max_, edge.y_high);
    }
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
    band_start_.assign(static_cast<size_t>(bands) + 1, 0);
    for (int64_t e = 0; e < n_edges; ++e) {
        for (int64_t b = first[e]; b <= last[e]; ++b) ++band_start_[b + 1];
    }
    for (int64_t b = 0; b < bands; ++b) band_start_[b + 1] += band_start_[b];
    edges_.resize(static_cast<size_t>(band_start_[bands]));
    std::vector<int64_t> fill(band_start_.begin(), band_start_.end() - 1);
    for (int64_t e = 0; e < n_edges; ++e) {
        for (int64_t b = first[e]; b <= last[e]; ++b) {
            edges_[fill[b]++] = BandEdge{edges[e].xi, edges[e].yi, edges[e].xj, edges[e].yj};
        }
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
    const double margin = x_margin(x_min_, x_max_);
    if (px < x_min_ - margin || px > x_max_ + margin) return false;
    const int64_t b = band_of(py);
    const BandEdge *edge = edges_.data() + band_start_[b];
    const BandEdge *end = edges_.data() + band_start_[b + 1];
    if (rule == FillRule::even_odd) {
        bool inside = false;
        for (; edge != end; ++edge) {
            if (pm_edge_crosses_row(edge->yi, edge->yj, py) &&
                px < pm_x_cross(edge->xi, edge->yi, edge->xj, edge->yj, py)) {
                inside = !inside;
            }
        }
        return inside;
    }
    int winding = 0;
    for (; edge != end; ++edge) {
        if (pm_edge_crosses_row(edge->yi, edge->yj, py) &&
            px < pm_x_cross(edge->xi, edge->yi, edge->xj, edge->yj, py)) {
            winding += (edge->yi > edge->yj) ? 1 : -1;
        }
    }
    return winding != 0;
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
    const double per_band = static_cast<double>(index.stored_edges()) / static_cast<double>(index.band_count());
    return 8.0 + 4.0 * per_band;
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
