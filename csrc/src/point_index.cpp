// point_index.cpp -- PointIndex (csrc/include/polymask/points.hpp): the
// polygon's edges in bands of y, and bands of bands where edges crowd.
//
// A level cuts a range of y into equal bands; each band keeps the edges
// that span it sorted by x (a query counts those right of its point by a
// binary search) and tests the rest.  When more than kCrowded edges start
// or end inside one band (a comb: 200k teeth in one band of the outline),
// those edges get a level of their own, cut at their own end-points, where
// they mostly span the bands (point_index_build.cpp).  Copies are bounded:
// the first level holds at most 2 per edge (up to 16 for polygons of fewer
// than 2^14 edges, a few MB at most), the levels below 2 more, each copy 4
// bytes (tested) or 16 (sorted), so the index is O(N) with a small
// constant.  The build ticks the threading layer's interrupt check (Ctrl-C).
#include "point_bands.hpp"
#include "edges.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cell_geometry.hpp"  // detail::InterruptTicker
#include "checks.hpp"
#include "parallel.hpp"

namespace polymask {

// The build runs as one chunk of the threading layer, so that its ticks can
// poll the caller's interrupt check (parallel.hpp) wherever it is built.
PointIndex::PointIndex(const Polygon &polygon) : bands_(std::make_unique<Bands>())
{
    detail::parallel_for(1, 1, [&](int64_t) {
        std::vector<Bands::BandEdge> edges;
        edges.reserve(edges_by_y(polygon).size());
        for (const Edge &e : edges_by_y(polygon)) edges.push_back(Bands::BandEdge{e.xi, e.yi, e.xj, e.yj});
        bands_->build(std::move(edges));
    });
}

PointIndex::PointIndex(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings)
    : bands_(std::make_unique<Bands>())
{
    detail::check_ends("polymask::PointIndex", "ring_ends", ring_ends, n_rings, n_vertices, "vertex count");
    if (n_vertices > 0 && xy == nullptr) throw std::invalid_argument("polymask::PointIndex: null vertex pointer");
    detail::parallel_for(1, 1, [&](int64_t) {
        std::vector<Bands::BandEdge> edges;
        edges.reserve(static_cast<size_t>(n_vertices));
        detail::InterruptTicker ticker;
        for (int64_t r = 0, begin = 0; r < n_rings; begin = ring_ends[r++]) {
            // Edge (i, j = i - 1) of each ring, as Polygon keeps it; horizontal
            // edges (and those with a NaN ordinate) never cross a row.
            for (int64_t i = begin, j = ring_ends[r] - 1; i < ring_ends[r]; j = i++) {
                const double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
                if (yi < yj || yi > yj) edges.push_back(Bands::BandEdge{xi, yi, xj, yj});
            }
            ticker.tick(ring_ends[r] - begin + 1);
        }
        bands_->build(std::move(edges));
    });
}

PointIndex::PointIndex(const PointIndex &other)
    : bands_(other.bands_ ? std::make_unique<Bands>(*other.bands_) : nullptr)
{
}

PointIndex &PointIndex::operator=(const PointIndex &other)
{
    if (this != &other) bands_ = other.bands_ ? std::make_unique<Bands>(*other.bands_) : nullptr;
    return *this;
}

PointIndex::PointIndex(PointIndex &&other) noexcept = default;
PointIndex &PointIndex::operator=(PointIndex &&other) noexcept = default;
PointIndex::~PointIndex() = default;

void PointIndex::Bands::visit(const Level &level, double px, double py, bool &parity, int &winding, int64_t &work) const
{
    // Outside [y_min, y_max) none of the level's edges crosses the line y = py (half-open rule).
    if (!(py >= level.y_min && py < level.y_max)) return;
    const uint32_t g = level.first_band + static_cast<uint32_t>(band_of(level, py));
    if (child_[g] >= 0) visit(levels_[static_cast<size_t>(child_[g])], px, py, parity, winding, work);
    // The edges that start, end or are wide in the band: each tested.
    for (uint32_t k = partial_begin_[g]; k < partial_begin_[g + 1]; ++k) {
        const BandEdge &edge = edges_[partial_[k]];
        if (pm_edge_crosses_row(edge.yi, edge.yj, py) && px < pm_x_cross(edge.xi, edge.yi, edge.xj, edge.yj, py)) {
            parity = !parity;
            winding += (edge.yi > edge.yj) ? 1 : -1;
        }
    }
    work += 1 + (partial_begin_[g + 1] - partial_begin_[g]);
    // The edges that span the band, sorted by x_low: those wholly right of px all cross
    // to its right; only those whose range may hold px need the test.
    const double *first = span_x_low_.data() + span_begin_[g], *end = span_x_low_.data() + span_begin_[g + 1];
    if (first == end) return;
    const double *right = std::upper_bound(first, end, px);
    if (right != end) {
        parity ^= ((end - right) & 1) != 0;
        winding += span_winding_[g] - span_ref_[right - span_x_low_.data()].winding_before;
    }
    const double *near = std::lower_bound(first, right, px - span_width_[g]);
    work += (right - near) + 8;
    for (; near != right; ++near) {
        const BandEdge &edge = edges_[span_ref_[near - span_x_low_.data()].edge];
        if (pm_edge_crosses_row(edge.yi, edge.yj, py) && px < pm_x_cross(edge.xi, edge.yi, edge.xj, edge.yj, py)) {
            parity = !parity;
            winding += (edge.yi > edge.yj) ? 1 : -1;
        }
    }
}

bool PointIndex::Bands::contains(double px, double py, FillRule rule, int64_t &work) const
{
    if (levels_.empty() || !(py >= y_min_ && py < y_max_)) return false;
    if (px < x_min_ - margin_ || px > x_max_ + margin_) return false;
    bool parity = false;
    int winding = 0;
    visit(levels_[0], px, py, parity, winding, work);
    return rule == FillRule::even_odd ? parity : winding != 0;
}

// The query hot path: one load of bands_, then Bands::contains (inlined here).
bool PointIndex::contains(double px, double py, FillRule rule, int64_t &work) const
{
    return bands_ != nullptr && bands_->contains(px, py, rule, work);
}

bool PointIndex::contains(double px, double py, FillRule rule) const
{
    int64_t work = 0;
    return contains(px, py, rule, work);
}

template <class Add>
void PointIndex::Bands::each_crossing(const Level &level, double py, Add &&add) const
{
    if (!(py >= level.y_min && py < level.y_max)) return;
    const uint32_t g = level.first_band + static_cast<uint32_t>(band_of(level, py));
    if (child_[g] >= 0) each_crossing(levels_[static_cast<size_t>(child_[g])], py, add);
    for (uint32_t k = partial_begin_[g]; k < partial_begin_[g + 1]; ++k) add(edges_[partial_[k]]);
    for (uint32_t k = span_begin_[g]; k < span_begin_[g + 1]; ++k) add(edges_[span_ref_[k].edge]);
}

void PointIndex::row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const
{
    if (bands_ != nullptr) {
        bands_->row_crossings(py, x_cross, winding);
    } else {
        x_cross.clear();
        winding.clear();
    }
}

void PointIndex::Bands::row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const
{
    x_cross.clear();
    winding.clear();
    if (levels_.empty()) return;
    each_crossing(levels_[0], py, [&](const BandEdge &edge) {
        if (pm_edge_crosses_row(edge.yi, edge.yj, py)) {
            x_cross.push_back(pm_x_cross(edge.xi, edge.yi, edge.xj, edge.yj, py));
            winding.push_back((edge.yi > edge.yj) ? 1 : -1);
        }
    });
}

int64_t PointIndex::memory_bytes() const
{
    return bands_ != nullptr ? static_cast<int64_t>(sizeof(Bands)) + bands_->memory_bytes() : 0;
}

double PointIndex::x_min() const { return bands_ != nullptr ? bands_->x_min_ : 0; }
double PointIndex::x_max() const { return bands_ != nullptr ? bands_->x_max_ : 0; }
double PointIndex::y_min() const { return bands_ != nullptr ? bands_->y_min_ : 0; }
double PointIndex::y_max() const { return bands_ != nullptr ? bands_->y_max_ : 0; }
double PointIndex::mean_query_work() const { return bands_ != nullptr ? bands_->mean_work_ : 1; }

int64_t PointIndex::band_count() const
{
    return bands_ == nullptr || bands_->levels_.empty() ? 0 : static_cast<int64_t>(bands_->levels_[0].bands);
}

int64_t PointIndex::all_bands() const { return bands_ != nullptr ? static_cast<int64_t>(bands_->child_.size()) : 0; }
int64_t PointIndex::level_count() const
{
    return bands_ != nullptr ? static_cast<int64_t>(bands_->levels_.size()) : 0;
}

int64_t PointIndex::stored_edges() const
{
    return bands_ != nullptr ? static_cast<int64_t>(bands_->partial_.size() + bands_->span_ref_.size()) : 0;
}

int64_t PointIndex::spanning_edges() const
{
    return bands_ != nullptr ? static_cast<int64_t>(bands_->span_ref_.size()) : 0;
}

int64_t PointIndex::Bands::memory_bytes() const
{
    const auto bytes = [](const auto &values) {
        return static_cast<int64_t>(values.capacity() * sizeof(values[0]));
    };
    return bytes(edges_) + bytes(levels_) + bytes(band_bottom_) + bytes(partial_begin_) + bytes(span_begin_) +
           bytes(child_) + bytes(span_width_) + bytes(span_winding_) + bytes(partial_) + bytes(span_x_low_) +
           bytes(span_ref_);
}

}  // namespace polymask
