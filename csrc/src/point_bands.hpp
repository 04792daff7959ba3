// point_bands.hpp -- what a PointIndex (csrc/include/polymask/points.hpp)
// holds: the polygon's edges filed in levels of bands of y.
//
// Beside the sources, not under include/: the public class keeps one
// pointer to this, so the layout below is the core's to change.  Queries
// are point_index.cpp, the build point_index_build.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "polymask/points.hpp"

namespace polymask {

struct POLYMASK_HIDDEN PointIndex::Bands {
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

    void build(std::vector<BandEdge> &&edges);
    bool contains(double px, double py, FillRule rule, int64_t &work) const;
    void row_crossings(double py, std::vector<double> &x_cross, std::vector<int> &winding) const;
    int64_t memory_bytes() const;

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

}  // namespace polymask
