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
// edges that start, end or are near it, instead of all N edges.  Where many
// edges start or end inside one band (a comb's teeth), the band's index is
// a level of its own, cut at those edges' end-points, so they span its
// bands and are searched, not tested.  Copies of edges are bounded (about
// 4 per edge for large polygons): under 100 bytes a vertex.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "polymask/core.hpp"

namespace polymask {

class POLYMASK_API PointIndex {
public:
    // Index the non-horizontal edges of every ring of `polygon` (the index
    // copies them: it does not refer to the polygon afterwards).  Inside a
    // chunk of the threading layer (parallel.hpp) the build polls for
    // Ctrl-C and throws Interrupted when asked to stop.
    explicit PointIndex(const Polygon &polygon);
    // The same from rings as Polygon takes them (ring k: vertices
    // [ring_ends[k-1], ring_ends[k])), without building a Polygon: the
    // index needs no edge table sorted by y.  Throws std::invalid_argument
    // for ring ends that are not non-decreasing up to n_vertices.
    PointIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings);

    // The contract at (px, py), the same answer as polygon.contains(px, py, rule).
    bool contains(double px, double py, FillRule rule = FillRule::even_odd) const;
    // The same, adding to `work` how many edges and bands the query visited.
    bool contains(double px, double py, FillRule rule, int64_t &work) const;

    // Every crossing of the line y = py: x_cross and the winding (+1 where y[i] > y[j],
    // as crossing.h counts it) of each edge that crosses
    // it, in no particular order.  Appended to the two vectors, which are cleared first.
    void row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const;

    // The bounding box of the edges: no point outside it is inside.
    double x_min() const { return x_min_; }
    double x_max() const { return x_max_; }
    double y_min() const { return y_min_; }
    double y_max() const { return y_max_; }
    // The bands of the first level (0 without edges), and of all levels.
    int64_t band_count() const { return levels_.empty() ? 0 : static_cast<int64_t>(levels_[0].bands); }
    int64_t all_bands() const { return static_cast<int64_t>(child_.size()); }
    int64_t level_count() const { return static_cast<int64_t>(levels_.size()); }
    // How many edge copies the bands hold in total (each edge once per band it meets).
    int64_t stored_edges() const { return static_cast<int64_t>(partial_.size() + span_ref_.size()); }
    // How many of them span their band and are sorted by x.
    int64_t spanning_edges() const { return static_cast<int64_t>(span_ref_.size()); }
    // The heap bytes the index holds.
    int64_t memory_bytes() const;
    // What a query costs on average (edges tested, bands visited), for a
    // point spread evenly over the index's rows: what work is cut by.
    double mean_query_work() const { return mean_work_; }

private:
    struct BandEdge {
        double xi, yi, xj, yj;  // in the contract's direction: x_cross uses these operands
    };
    // A copy of an edge that crosses its whole band, kept in x order.
    struct SpanRef {
        uint32_t edge;           // into edges_
        int32_t winding_before;  // summed winding of the band's spanning edges before this one
    };
    // One set of equal bands over [y_min, y_max): the first level covers the
    // polygon, each further level one crowded band of a level above it.
    struct Level {
        double y_min, y_max, scale;  // scale: bands per unit of y, for a first guess
        uint32_t first_band, bands, first_bottom;
        bool even;  // equal bands, else cut at the edges' end-points
    };
    struct Builder;
    friend struct Builder;

    void build(std::vector<BandEdge> &&edges);
    // The band b of `level` with bottom[b] <= py < bottom[b + 1], for py in
    // the level's range.  Equal bands: a guess from the spacing, corrected
    // against the stored bottoms, so rounding in the guess cannot misplace
    // py; bands cut at end-points: a binary search.  (Inline: the builds and
    // the queries call it for every edge and point.)
    int64_t band_of(const Level &level, double py) const
    {
        const int64_t bands = level.bands;
        const double *bottom = band_bottom_.data() + level.first_bottom;
        if (!level.even) {
            const int64_t b = std::upper_bound(bottom + 1, bottom + bands, py) - bottom - 1;
            return b < 0 ? 0 : b > bands - 1 ? bands - 1 : b;
        }
        const double guess = (py - level.y_min) * level.scale;
        int64_t b = guess > 0 ? static_cast<int64_t>(std::min(guess, static_cast<double>(bands - 1))) : 0;
        while (b > 0 && py < bottom[b]) --b;
        while (b < bands - 1 && py >= bottom[b + 1]) ++b;
        return b;
    }
    // Adds the crossings right of px in `level` (if py is in its range) to parity and winding.
    void visit(const Level &level, double px, double py, bool &parity, int &winding, int64_t &work) const;
    template <class Add>
    void each_crossing(const Level &level, double py, Add &&add) const;

    double x_min_ = 0, x_max_ = 0, y_min_ = 0, y_max_ = 0;
    double margin_ = 0;
    double mean_work_ = 1;
    std::vector<BandEdge> edges_;        // every edge once
    std::vector<Level> levels_;
    std::vector<double> band_bottom_;    // per level: bands + 1 bottoms, from its first_bottom
    // Per band g (all levels, in order): its partial edges (those that start
    // or end inside it, or are wide in it) are partial_[partial_begin_[g],
    // partial_begin_[g + 1]), unless child_[g] >= 0: then the level
    // levels_[child_[g]] holds them.  Its spanning edges are
    // span_x_low_/span_ref_[span_begin_[g], span_begin_[g + 1]), sorted by x_low.
    std::vector<uint32_t> partial_begin_, span_begin_;
    std::vector<int32_t> child_;
    std::vector<double> span_width_;     // the widest x_high - x_low of each band's spans
    std::vector<int32_t> span_winding_;  // each band's spanning edges' summed winding
    std::vector<uint32_t> partial_;
    std::vector<double> span_x_low_;
    std::vector<SpanRef> span_ref_;
};

// out[k] = 1 if the point (x[k], y[k]) is inside `polygon` under `rule`,
// else 0, for k in [0, n).  Threads over blocks of points (threads: an upper
// bound, 0 for the default count: core.hpp, resolve_threads), with the
// interrupt check between blocks.
POLYMASK_API void contains_points(const Polygon &polygon, const double *x, const double *y, int64_t n,
                                  uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// The same with an index already built (PointIndex's constructors poll
// for Ctrl-C too): the binding builds it straight from the caller's rings.
POLYMASK_API void contains_points(const PointIndex &index, const double *x, const double *y, int64_t n,
                                  uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// The contract on a rectilinear grid: out[r * width + c] = 1 if the point
// (x[c], y[r]) is inside, else 0.  x must be non-decreasing (any spacing:
// Gaussian latitudes, stretched axes); y may be in any order.  Each row's
// crossings are computed once and compared with the sorted x by binary
// search, as the scanline fill compares them with ceil(x_cross): the same
// bits as contains_points at every (x[c], y[r]).  Threads over rows.
POLYMASK_API void contains_grid(const Polygon &polygon, const double *x, int64_t width, const double *y,
                                int64_t height, uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

POLYMASK_API void contains_grid(const PointIndex &index, const double *x, int64_t width, const double *y,
                                int64_t height, uint8_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// out[k] = p + 1 for the last polygon p (in [0, n_polygons)) whose region
// holds the point (x[k], y[k]), or 0 where none does: later polygons over
// earlier ones, as rasterize lays them.  (LabelIndex below, over copies of
// the polygons' rings.)
POLYMASK_API void which_polygon(const Polygon *polygons, int64_t n_polygons, const double *x, const double *y,
                                int64_t n, int64_t *out, FillRule rule = FillRule::even_odd, int threads = 0);

// Many polygons, asked which of them holds a point.  Each polygon's box
// (its vertices' x range, widened by the rounding x_cross can show, and its
// edges' exact y range) is filed in a grid of cells over all the boxes, so
// a point tests only the polygons whose box holds it, the last first.  A
// polygon of a few edges is tested edge by edge on its rings (crossing.h);
// a larger one gets a PointIndex.  Memory: about 40 bytes a polygon, the
// larger polygons' indexes, no copy of the small ones' vertices.
//
// The polygons are flat rings as polygons_from_rings (rasterize.hpp) takes
// them: polygon p has rings [polygon_ends[p-1], polygon_ends[p]) of
// ring_ends, over the (x, y) pairs xy.  The index refers to xy and
// ring_ends, which must outlive it and stay unchanged.  The build runs on
// the threading layer's calling thread and polls for Ctrl-C (Interrupted).
class POLYMASK_API LabelIndex {
public:
    LabelIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
               const int64_t *polygon_ends, int64_t n_polygons);
    ~LabelIndex();
    LabelIndex(const LabelIndex &) = delete;
    LabelIndex &operator=(const LabelIndex &) = delete;

    // out[k] = p + 1 for the last polygon p holding (x[k], y[k]), else 0.
    void which(const double *x, const double *y, int64_t n, int64_t *out, FillRule rule = FillRule::even_odd,
               int threads = 0) const;
    // The same on a rectilinear grid: out[r * width + c] for the point
    // (x[c], y[r]); x non-decreasing.  Each row paints the spans of the
    // polygons whose rows it meets, earlier ones first, as the scanline does.
    void which_grid(const double *x, int64_t width, const double *y, int64_t height, int64_t *out,
                    FillRule rule = FillRule::even_odd, int threads = 0) const;

    int64_t polygon_count() const;
    int64_t indexed_polygons() const;  // how many got a PointIndex
    int64_t memory_bytes() const;      // the heap bytes held, indexes included

private:
    struct Parts;
    std::unique_ptr<Parts> parts_;
};

}  // namespace polymask
