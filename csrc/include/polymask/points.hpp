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

    PointIndex(const PointIndex &other);
    PointIndex &operator=(const PointIndex &other);
    // A moved-from index holds no edges: no point is inside it.
    PointIndex(PointIndex &&other) noexcept;
    PointIndex &operator=(PointIndex &&other) noexcept;
    ~PointIndex();

    // The contract at (px, py), the same answer as polygon.contains(px, py, rule).
    bool contains(double px, double py, FillRule rule = FillRule::even_odd) const;
    // The same, adding to `work` how many edges and bands the query visited.
    bool contains(double px, double py, FillRule rule, int64_t &work) const;

    // Every crossing of the line y = py: x_cross and the winding (+1 where y[i] > y[j],
    // as crossing.h counts it) of each edge that crosses
    // it, in no particular order.  Appended to the two vectors, which are cleared first.
    void row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const;

    // The bounding box of the edges: no point outside it is inside.
    double x_min() const;
    double x_max() const;
    double y_min() const;
    double y_max() const;
    // The bands of the first level (0 without edges), and of all levels.
    int64_t band_count() const;
    int64_t all_bands() const;
    int64_t level_count() const;
    // How many edge copies the bands hold in total (each edge once per band it meets).
    int64_t stored_edges() const;
    // How many of them span their band and are sorted by x.
    int64_t spanning_edges() const;
    // The heap bytes the index holds.
    int64_t memory_bytes() const;
    // What a query costs on average (edges tested, bands visited), for a
    // point spread evenly over the index's rows: what work is cut by.
    double mean_query_work() const;

private:
    // The bands and their edges (csrc/src/point_bands.hpp): one pointer, so
    // their layout is the core's own and a query follows it once.
    struct Bands;
    std::unique_ptr<Bands> bands_;
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
