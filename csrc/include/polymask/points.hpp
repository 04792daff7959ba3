// points.hpp -- the mask contract at arbitrary points: which of these (x, y)
// lie inside the polygon.
//
// A mask asks the contract at the points of a grid, where the scanline fill
// computes each edge's crossing once per row.  Scattered points (stations,
// catalogue sources, the cells of a curvilinear grid) share no rows, so each
// query evaluates the contract's predicate itself -- but only over the edges
// that can cross its row.  PointIndex buckets the polygon's edges by y: the
// range [y_min, y_max) is cut into bands, and each band keeps a copy of every
// edge whose half-open span [y_low, y_high) meets it.  An edge crosses the
// line y = py only if y_low <= py < y_high, so it lies in py's band; the
// band's edges are then tested with the contract's own operands
// (crossing.h), so the answer is bit for bit the contract's.
//
// Most of a band's edges span it from bottom to top (a line through the
// band crosses every one of them), and across a thin band each covers a
// short range of x.  Those are kept sorted by that range: the ones wholly
// right of the point all count (a binary search and a stored count), the
// ones wholly left count for nothing, and only those whose range holds the
// point's x are tested.  The ranges are widened by far more than the
// rounding of x_cross can move it, so the shortcut never changes an answer.
// A query costs O(1) to find its band, O(log) to place its x, and the few
// edges that start, end or are near it, instead of all N edges.
#pragma once

#include <cstdint>
#include <vector>

#include "polymask/core.hpp"

namespace polymask {

class POLYMASK_API PointIndex {
public:
    // Index the non-horizontal edges of every ring of `polygon` (the index
    // copies them: it does not refer to the polygon afterwards).
    explicit PointIndex(const Polygon &polygon);

    // The contract at (px, py), the same answer as polygon.contains(px, py, rule).
    bool contains(double px, double py, FillRule rule = FillRule::even_odd) const;

    // Every crossing of the line y = py: x_cross and the winding (+1 where y[i] > y[j],
    // as crossing.h counts it) of each edge that crosses
    // it, in no particular order.  Appended to the two vectors, which are cleared first.
    void row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const;

    // The bounding box of the edges: no point outside it is inside.
    double x_min() const { return x_min_; }
    double x_max() const { return x_max_; }
    double y_min() const { return y_min_; }
    double y_max() const { return y_max_; }
    int64_t band_count() const { return static_cast<int64_t>(band_bottom_.size()) - 1; }
    // How many edge copies the bands hold in total (each edge once per band it meets).
    int64_t stored_edges() const { return static_cast<int64_t>(edges_.size() + spans_.size()); }
    // How many of them span their band and are sorted by x.
    int64_t spanning_edges() const { return static_cast<int64_t>(spans_.size()); }

private:
    struct BandEdge {
        double xi, yi, xj, yj;  // in the contract's direction: x_cross uses these operands
    };
    // An edge that crosses its whole band: x_cross lies in [x_low, x_high] for any row of it.
    struct SpanEdge {
        double x_low, x_high;
        BandEdge edge;
        int winding_before;  // summed winding of the band's spanning edges before this one
    };
    int64_t band_of(double py) const;
    void build_spans(const std::vector<std::vector<BandEdge>> &spanning);

    double x_min_ = 0, x_max_ = 0, y_min_ = 0, y_max_ = 0;
    double band_scale_ = 0;             // bands per unit of y, for the first guess of a point's band
    std::vector<double> band_bottom_;   // band b is [band_bottom_[b], band_bottom_[b + 1])
    std::vector<int64_t> band_start_;   // band b's edges are edges_[band_start_[b], band_start_[b + 1])
    std::vector<BandEdge> edges_;       // the edges that start or end inside their band, or are wide in it
    std::vector<int64_t> span_start_;   // band b's spanning edges: spans_[span_start_[b], span_start_[b + 1])
    std::vector<SpanEdge> spans_;       // sorted by x_low within each band
    std::vector<double> span_x_low_;    // spans_[k].x_low, the key the queries search
    std::vector<double> span_width_;    // the widest x_high - x_low of each band's spans_
    std::vector<int> span_winding_;     // each band's spanning edges' summed winding
    double margin_ = 0;
};

// out[k] = 1 if the point (x[k], y[k]) is inside `polygon` under `rule`,
// else 0, for k in [0, n).  Threads over blocks of points (threads: an upper
// bound, 0 for the default count: core.hpp, resolve_threads), with the
// interrupt check between blocks.
POLYMASK_API void contains_points(const Polygon &polygon, const double *x, const double *y, int64_t n,
                                  uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// The contract on a rectilinear grid: out[r * width + c] = 1 if the point
// (x[c], y[r]) is inside, else 0.  x must be non-decreasing (any spacing:
// Gaussian latitudes, stretched axes); y may be in any order.  Each row's
// crossings are computed once and compared with the sorted x by binary
// search, as the scanline fill compares them with ceil(x_cross): the same
// bits as contains_points at every (x[c], y[r]).  Threads over rows.
POLYMASK_API void contains_grid(const Polygon &polygon, const double *x, int64_t width, const double *y,
                                int64_t height, uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// out[k] = p + 1 for the last polygon p (in [0, n_polygons)) whose region
// holds the point (x[k], y[k]), or 0 where none does: later polygons over
// earlier ones, as rasterize lays them.
POLYMASK_API void which_polygon(const Polygon *polygons, int64_t n_polygons, const double *x, const double *y,
                                int64_t n, int64_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

}  // namespace polymask
