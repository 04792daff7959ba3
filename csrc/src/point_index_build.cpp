// point_index_build.cpp -- how PointIndex (point_index.cpp) files a
// polygon's edges in levels of bands, and what a query then costs.
#include "point_bands.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "bounds.hpp"
#include "cell_geometry.hpp"  // detail::InterruptTicker
#include "x_margin.hpp"

namespace polymask {
namespace {

// Copies per edge the first level may hold: 2 for large polygons, where
// memory is the bound; smaller ones may take more (at most 16 per edge and
// about 4 MB in all), so that spiky ones (a star of 1,000 edges, each across
// a quarter of its height) get thin bands and few edges to test per query.
int64_t first_copies(int64_t n)
{
    return n < (int64_t(1) << 14) ? 16 : n < (int64_t(1) << 17) ? 6 : 2;
}
constexpr int64_t kMoreCopies = 2;   // ... that the levels below may add, per edge
constexpr size_t kCrowded = 16;      // more partial edges than this in a band: a level for them
constexpr int kMaxDepth = 4;         // levels below one another at most
constexpr int64_t kMaxBands = int64_t(1) << 22;

}  // namespace

struct PointIndex::Bands::Builder {
    Builder(Bands &built, bool spans, int64_t copies) : index(built), spans_allowed(spans), copies_left(copies) {}
    Bands &index;
    bool spans_allowed;    // false where x_cross may overflow: then every edge is tested
    int64_t copies_left;   // what the levels below the first may still add
    detail::InterruptTicker ticker;
    struct Pending {
        uint32_t band;  // the band whose crowded edges the level holds
        double lo, hi;
        int depth;
        int64_t limit;  // the copies it may hold
        std::vector<uint32_t> ids;
    };
    std::vector<Pending> pending;
    struct Span {
        double x_low, x_high;
        uint32_t edge;
    };
    std::vector<Span> spans;
    std::vector<uint32_t> partials, crowded, band_copies;
    std::vector<int64_t> starts;
    std::vector<double> widths, ends;
    std::vector<std::pair<int64_t, int64_t>> inner;

    // The bands [first, last] of `level` that the edge's [y_low, y_high) meets, clipped to the level.
    std::pair<int64_t, int64_t> bands_of(const Level &level, const BandEdge &e) const
    {
        const double y_low = std::min(e.yi, e.yj), y_high = std::max(e.yi, e.yj);
        const int64_t first = index.band_of(level, std::max(y_low, level.y_min));
        const double *bottom = index.band_bottom_.data() + level.first_bottom;
        int64_t last = y_high >= level.y_max ? level.bands - 1 : index.band_of(level, y_high);
        while (last > first && bottom[last] >= y_high) --last;
        return {first, last};
    }

    // Cut [lo, hi) into bands, the most (up to one per few edges) whose copies stay within `limit`.
    Level cut(const std::vector<uint32_t> &ids, double lo, double hi, int depth, int64_t limit)
    {
        const double height = hi - lo;
        const int64_t m = static_cast<int64_t>(ids.size());
        double summed = 0;  // the edges' heights inside [lo, hi): copies grow with bands times this
        for (uint32_t id : ids) {
            const BandEdge &e = index.edges_[id];
            summed += std::min(std::max(e.yi, e.yj), hi) - std::max(std::min(e.yi, e.yj), lo);
        }
        int64_t bands = std::max<int64_t>(1, std::min<int64_t>(kMaxBands, m / (depth == 0 ? 2 : 4)));
        if (!std::isfinite(height) || !(height > 0)) bands = 1;
        const double fit = summed > 0 ? static_cast<double>(limit - m) * height / summed : 0;
        if (fit >= 1 && fit < static_cast<double>(bands)) bands = static_cast<int64_t>(fit);
        if (depth > 0) return cut_at_ends(ids, lo, hi, limit);
        Level level{lo, hi, 0, static_cast<uint32_t>(index.child_.size()), 0,
                    static_cast<uint32_t>(index.band_bottom_.size()), true};
        for (;;) {
            index.band_bottom_.resize(level.first_bottom + static_cast<size_t>(bands) + 1);
            double *bottom = index.band_bottom_.data() + level.first_bottom;
            for (int64_t b = 0; b < bands; ++b) {
                // Non-decreasing, since each operation rounds monotonically.
                bottom[b] = std::min(lo + height * (static_cast<double>(b) / static_cast<double>(bands)), hi);
            }
            bottom[bands] = hi;
            level.bands = static_cast<uint32_t>(bands);
            level.scale = std::isfinite(height) && height > 0 ? static_cast<double>(bands) / height : 0.0;
            if (bands == 1) break;
            int64_t copies = 0;
            for (uint32_t id : ids) {
                const auto [first, last] = bands_of(level, index.edges_[id]);
                copies += last - first + 1;
            }
            ticker.tick(m);
            if (copies <= limit) break;
            bands = std::max<int64_t>(1, bands / 2);
        }
        return level;
    }

    // Cut [lo, hi) at the edges' own end-points, every step-th distinct one:
    // a band then holds few edges that start or end inside it, however they
    // cluster (a comb's teeth all start at one y and end at another, and span
    // the band between).  Coarser while the copies exceed `limit`.
    Level cut_at_ends(const std::vector<uint32_t> &ids, double lo, double hi, int64_t limit)
    {
        ends.clear();
        for (uint32_t id : ids) {
            const BandEdge &e = index.edges_[id];
            for (double y : {e.yi, e.yj}) {
                if (y > lo && y < hi) ends.push_back(y);
            }
        }
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        ticker.tick(static_cast<int64_t>(ends.size()) + 1);
        const auto m = static_cast<int64_t>(ids.size());
        // Bottoms at ends[step - 1], ends[2 step - 1], ...: an edge is copied once, and once more
        // per bottom strictly inside it, those of the end-points ends[inner_lo, inner_hi).
        inner.clear();
        for (uint32_t id : ids) {
            const BandEdge &e = index.edges_[id];
            inner.emplace_back(std::upper_bound(ends.begin(), ends.end(), std::min(e.yi, e.yj)) - ends.begin(),
                               std::lower_bound(ends.begin(), ends.end(), std::max(e.yi, e.yj)) - ends.begin());
        }
        ticker.tick(m);
        int64_t step = std::max<int64_t>(1, static_cast<int64_t>(ends.size()) / std::max<int64_t>(1, m / 4));
        double summed = 0;  // copies beyond one per edge are about summed / step
        for (const auto &[inner_lo, inner_hi] : inner) summed += static_cast<double>(inner_hi - inner_lo);
        if (limit > m) step = std::max(step, static_cast<int64_t>(summed / static_cast<double>(limit - m)));
        for (; step < static_cast<int64_t>(ends.size()); step *= 2) {
            int64_t copies = m;
            for (const auto &[inner_lo, inner_hi] : inner) copies += inner_hi / step - inner_lo / step;
            ticker.tick(m);
            if (copies <= limit) break;
        }
        Level level{lo, hi, 0, static_cast<uint32_t>(index.child_.size()), 0,
                    static_cast<uint32_t>(index.band_bottom_.size()), false};
        index.band_bottom_.push_back(lo);
        for (size_t k = static_cast<size_t>(step) - 1; k < ends.size(); k += static_cast<size_t>(step)) {
            index.band_bottom_.push_back(ends[k]);
        }
        index.band_bottom_.push_back(hi);
        level.bands = static_cast<uint32_t>(index.band_bottom_.size() - level.first_bottom - 1);
        return level;
    }

    // Build one level over `ids` and queue levels for its crowded bands.
    void build_level(const std::vector<uint32_t> &ids, double lo, double hi, int depth, int64_t limit)
    {
        const Level level = cut(ids, lo, hi, depth, limit);
        index.levels_.push_back(level);
        const int64_t bands = level.bands;
        starts.assign(static_cast<size_t>(bands) + 1, 0);
        for (uint32_t id : ids) {
            const auto [first, last] = bands_of(level, index.edges_[id]);
            for (int64_t b = first; b <= last; ++b) ++starts[b + 1];
        }
        for (int64_t b = 0; b < bands; ++b) starts[b + 1] += starts[b];
        band_copies.resize(static_cast<size_t>(starts[bands]));
        for (uint32_t id : ids) {
            const auto [first, last] = bands_of(level, index.edges_[id]);
            for (int64_t b = first; b <= last; ++b) band_copies[starts[b]++] = id;
        }
        for (int64_t b = bands; b > 0; --b) starts[b] = starts[b - 1];
        starts[0] = 0;
        const double *bottoms = index.band_bottom_.data() + level.first_bottom;
        for (int64_t b = 0; b < bands; ++b) {
            band(bottoms[b], bottoms[b + 1], band_copies.data() + starts[b], band_copies.data() + starts[b + 1],
                 depth);
            ticker.tick(starts[b + 1] - starts[b] + 1);
        }
    }

    void band(double bottom, double top, const uint32_t *first, const uint32_t *end, int depth)
    {
        const uint32_t g = static_cast<uint32_t>(index.child_.size());
        index.child_.push_back(-1);
        index.partial_begin_.push_back(static_cast<uint32_t>(index.partial_.size()));
        index.span_begin_.push_back(static_cast<uint32_t>(index.span_ref_.size()));
        spans.clear(), partials.clear(), crowded.clear();
        for (const uint32_t *id = first; id != end; ++id) {
            const BandEdge &e = index.edges_[*id];
            const double y_low = std::min(e.yi, e.yj), y_high = std::max(e.yi, e.yj);
            // (x ranges of an edge whose x_cross may overflow could be NaN: inf * 0.)
            if (spans_allowed && y_low <= bottom && y_high >= top && bottom < top) {
                const double at_bottom = pm_x_cross(e.xi, e.yi, e.xj, e.yj, bottom);
                const double at_top = pm_x_cross(e.xi, e.yi, e.xj, e.yj, top);
                spans.push_back(Span{std::min(at_bottom, at_top) - index.margin_,
                                     std::max(at_bottom, at_top) + index.margin_, *id});
            } else {
                crowded.push_back(*id);
            }
        }
        // A few wide spans (nearly horizontal edges) would widen every search of the band:
        // those are tested like the partial edges instead.
        double width_limit = std::numeric_limits<double>::infinity();
        if (spans.size() >= 8) {
            widths.clear();
            for (const Span &span : spans) widths.push_back(span.x_high - span.x_low);
            std::nth_element(widths.begin(), widths.begin() + widths.size() * 3 / 4, widths.end());
            width_limit = 4 * widths[widths.size() * 3 / 4];
        }
        double widest = 0;
        int32_t winding = 0;
        std::sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) { return a.x_low < b.x_low; });
        for (const Span &span : spans) {
            if (span.x_high - span.x_low > width_limit) {
                partials.push_back(span.edge);
                continue;
            }
            const BandEdge &e = index.edges_[span.edge];
            index.span_x_low_.push_back(span.x_low);
            index.span_ref_.push_back(SpanRef{span.edge, winding});
            winding += (e.yi > e.yj) ? 1 : -1;
            widest = std::max(widest, span.x_high - span.x_low);
        }
        // Widened so that x_low < px - width implies x_high < px despite the rounding of both.
        index.span_width_.push_back(widest * (1 + 0x1p-40) + index.margin_);
        index.span_winding_.push_back(winding);
        const auto m = static_cast<int64_t>(crowded.size());
        if (crowded.size() > kCrowded && depth + 1 < kMaxDepth && spans_allowed && 2 * copies_left >= m) {
            double lo = top, hi = bottom;  // the rows the crowded edges occupy inside the band
            for (uint32_t id : crowded) {
                const BandEdge &e = index.edges_[id];
                lo = std::min(lo, std::min(e.yi, e.yj)), hi = std::max(hi, std::max(e.yi, e.yj));
            }
            lo = std::max(lo, bottom), hi = std::min(hi, top);
            if (lo < hi) {
                const int64_t more = std::min(m, copies_left);  // at most doubled, within the budget
                pending.push_back(Pending{g, lo, hi, depth + 1, m + more, crowded});
                copies_left -= more;
                crowded.clear();
            }
        }
        index.partial_.insert(index.partial_.end(), partials.begin(), partials.end());
        index.partial_.insert(index.partial_.end(), crowded.begin(), crowded.end());
    }
};

void PointIndex::Bands::build(std::vector<BandEdge> &&edges)
{
    if (edges.empty()) return;  // no level: no point is inside
    // Copies are counted in uint32: at most 4 per edge.
    if (edges.size() >= (size_t(1) << 30)) throw std::length_error("polymask::PointIndex: too many edges");
    edges_ = std::move(edges);
    detail::CrossingBox crossing;  // every band edge crosses rows: none is dropped
    for (const BandEdge &e : edges_) crossing.add(e.xi, e.yi, e.xj, e.yj);
    x_min_ = crossing.box.x_min, x_max_ = crossing.box.x_max;
    y_min_ = crossing.box.y_min, y_max_ = crossing.box.y_max;
    // Spans keep x ranges widened by the margin; an infinite one (x_cross may
    // overflow) trusts no range: every edge of the point's band is tested.
    margin_ = detail::x_cross_margin(x_min_, x_max_, y_max_ - y_min_, crossing.least_rise);
    const bool x_cross_may_overflow = !std::isfinite(margin_);
    const double x_extent = x_max_ - x_min_;
    const auto n = static_cast<int64_t>(edges_.size());
    Builder builder(*this, !x_cross_may_overflow, kMoreCopies * n);
    {
        std::vector<uint32_t> all(edges_.size());
        for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<uint32_t>(k);
        builder.build_level(all, y_min_, y_max_, 0, first_copies(n) * n);
    }
    for (size_t k = 0; k < builder.pending.size(); ++k) {  // breadth first: a level's bands stay contiguous
        Builder::Pending crowded = std::move(builder.pending[k]);
        child_[crowded.band] = static_cast<int32_t>(levels_.size());
        builder.build_level(crowded.ids, crowded.lo, crowded.hi, crowded.depth, crowded.limit);
    }
    partial_begin_.push_back(static_cast<uint32_t>(partial_.size()));
    span_begin_.push_back(static_cast<uint32_t>(span_ref_.size()));
    // What a query costs, deepest levels first: a band's tested edges (or its
    // level's cost, weighted by the share of the band's rows it covers), a
    // binary search of its spans, and the spans near the point.
    std::vector<double> cost(levels_.size(), 0.0);
    for (size_t l = levels_.size(); l-- > 0;) {
        const Level &level = levels_[l];
        const double *bottom = band_bottom_.data() + level.first_bottom;
        const double height = level.y_max - level.y_min;
        double total = 0;
        for (uint32_t b = 0; b < level.bands; ++b) {
            const uint32_t g = level.first_band + b;
            const double spans = span_begin_[g + 1] - span_begin_[g];
            const double near = x_extent > 0 ? std::min(spans, spans * span_width_[g] / x_extent) : spans;
            double band = 1.0 + (partial_begin_[g + 1] - partial_begin_[g]) + std::log2(1.0 + spans) + near;
            if (child_[g] >= 0) {
                const Level &below = levels_[static_cast<size_t>(child_[g])];
                const double share = bottom[b + 1] > bottom[b]
                                         ? (below.y_max - below.y_min) / (bottom[b + 1] - bottom[b]) : 1.0;
                band += cost[static_cast<size_t>(child_[g])] * std::min(1.0, share);
            }
            const double weight = height > 0 && level.bands > 1 ? (bottom[b + 1] - bottom[b]) / height
                                                                 : 1.0 / level.bands;
            total += band * weight;
        }
        cost[l] = total;
    }
    mean_work_ = std::isfinite(cost[0]) ? 1.0 + cost[0] : 1.0 + static_cast<double>(n);
}

}  // namespace polymask
