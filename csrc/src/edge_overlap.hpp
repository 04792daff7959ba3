// edge_overlap.hpp -- whether two edges of a polygon may lie on one line
// along a stretch of positive length (may_overlap).  Where none can, a cell
// has positive area exactly when an edge passes through its open interior or
// it lies wholly inside, so the cell sweeps (edges_decide_touch, below) take
// zeros from the edges rather than from sums.
// Internal to the core's sources.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cell_geometry.hpp"

namespace polymask::detail {

// may_overlap's arrays, reused from polygon to polygon (a label image's).
struct OverlapScratch {
    struct Line {
        double slope, offset, y0, y1;
    };
    std::vector<Line> lines, run;
    std::vector<Flat> sorted;
    std::vector<int64_t> buckets;  // slopes_apart's hash table
};

// An edge's slope dx/dy, the one key both the screen and the sorts compare:
// the screen's promise holds only for the same rounded value.
template <class Segment>
inline double line_slope(const Segment &s)
{
    return (s.x1 - s.x0) / (s.y1 - s.y0);
}

// A key for a slope dx/dy such that two slopes within may_overlap's
// tolerance (1e-9 * max(1, |a|, |b|)) have keys at most 1 apart: buckets
// 2^-29 wide (above the tolerance) for |slope| <= 1, and above 1 buckets of
// 2^25 units in the last place (2^-27 of the value, again above it), the
// two ranges meeting at 1.  Monotone in the slope; finite for every slope.
inline int64_t slope_bucket(double slope)
{
    constexpr int64_t kUnitBuckets = int64_t{1} << 29;
    const double size = std::fabs(slope);
    if (!(size > 1.0)) return static_cast<int64_t>(std::floor(slope * 0x1p29));
    uint64_t bits, one_bits;
    const double one = 1.0;
    std::memcpy(&bits, &size, sizeof bits);
    std::memcpy(&one_bits, &one, sizeof one_bits);
    const int64_t above_one = kUnitBuckets + static_cast<int64_t>((bits - one_bits) >> 25);
    return slope < 0.0 ? -above_one : above_one;
}

// A screen in O(n) before may_overlap's sorts: true when no two
// non-horizontal edges have slopes within its tolerance, so none can lie on
// one line (most polygons that are not drawn on a grid: a smooth
// 1,000-vertex outline spent half of a small coverage window sorting).
// Each slope's bucket goes into an open-addressing table; a bucket, or a
// neighbour, already there ends the screen (false: sort and compare).
template <class Wide>
inline bool slopes_apart(const std::vector<SegmentT<Wide>> &segments, std::vector<int64_t> &table)
{
    constexpr int64_t kEmpty = std::numeric_limits<int64_t>::min();
    size_t size = 16;
    while (size < 2 * segments.size()) size *= 2;
    table.assign(size, kEmpty);
    const size_t mask = size - 1;
    const auto slot = [mask](int64_t key) {
        return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15u) >> 32) & mask;
    };
    const auto holds = [&](int64_t key) {
        for (size_t at = slot(key);; at = (at + 1) & mask) {
            if (table[at] == kEmpty) return false;
            if (table[at] == key) return true;
        }
    };
    for (const auto &s : segments) {
        const double slope = line_slope(s);
        if (!(slope == slope)) return false;  // overflowed to inf / inf: let the sorts decide
        const int64_t key = slope_bucket(slope);
        if (holds(key) || holds(key - 1) || holds(key + 1)) return false;
        size_t at = slot(key);
        while (table[at] != kEmpty) at = (at + 1) & mask;
        table[at] = key;
    }
    return true;
}

// Whether two horizontal edges overlap along a stretch: the same ordinate
// and overlapping abscissae, compared exactly.
inline bool flats_overlap(const std::vector<Flat> &flats, std::vector<Flat> &sorted)
{
    sorted.clear();
    for (const Flat &f : flats) {
        if (f.x_min < f.x_max) sorted.push_back(f);  // a point overlaps nothing along a stretch
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const Flat &a, const Flat &b) { return a.y < b.y || (a.y == b.y && a.x_min < b.x_min); });
    for (size_t k = 0; k < sorted.size();) {
        size_t e = k + 1;
        double reach = sorted[k].x_max;
        for (; e < sorted.size() && sorted[e].y == sorted[k].y; ++e) {
            if (sorted[e].x_min < reach) return true;
            reach = std::max(reach, sorted[e].x_max);
        }
        k = e;
    }
    return false;
}

// Whether two edges of the polygon may lie on one line along a stretch of
// positive length.  Conservative: false only when no two edges can overlap
// (true costs speed, never correctness).  Non-horizontal edges are compared
// by slope dx/dy and abscissa on a common ordinate, with a relative
// tolerance far above their rounding; horizontal ones by their ordinate,
// exactly.  O(n log n): sorting, then runs of near-equal keys.
template <class Wide>
inline bool may_overlap(const std::vector<SegmentT<Wide>> &segments, const std::vector<Flat> &flats,
                        OverlapScratch &scratch)
{
    using Line = OverlapScratch::Line;
    // Small polygons (a label image's) sort faster than they hash.
    constexpr size_t kScreenFrom = 32;
    if (segments.size() > kScreenFrom && slopes_apart(segments, scratch.buckets)) {
        return flats_overlap(flats, scratch.sorted);
    }
    std::vector<Line> &lines = scratch.lines;
    lines.clear();
    double y_ref = 0.0, largest = 1.0;
    if (!segments.empty()) y_ref = segments[segments.size() / 2].y0;
    for (const auto &s : segments) {
        largest = std::max({largest, std::fabs(s.x0), std::fabs(s.x1), std::fabs(s.y0), std::fabs(s.y1)});
    }
    for (const auto &s : segments) {
        const double slope = line_slope(s);
        lines.push_back({slope, s.x0 + slope * (y_ref - s.y0), s.y0, s.y1});
    }
    constexpr double kTolerance = 1e-9;
    std::sort(lines.begin(), lines.end(), [](const Line &a, const Line &b) { return a.slope < b.slope; });
    std::vector<Line> &run = scratch.run;
    for (size_t begin = 0; begin < lines.size();) {
        // A run of slopes, each within the tolerance of the one before.
        size_t end = begin + 1;
        while (end < lines.size() &&
               lines[end].slope - lines[end - 1].slope <=
                   kTolerance * std::max({1.0, std::fabs(lines[end].slope), std::fabs(lines[end - 1].slope)})) {
            ++end;
        }
        if (end - begin > 1) {
            run.assign(lines.begin() + static_cast<std::ptrdiff_t>(begin), lines.begin() + static_cast<std::ptrdiff_t>(end));
            double steepest = 0.0;
            for (const Line &l : run) steepest = std::max(steepest, std::fabs(l.slope));
            const double offset_tolerance = kTolerance * largest * (1.0 + steepest);
            std::sort(run.begin(), run.end(), [](const Line &a, const Line &b) { return a.offset < b.offset; });
            for (size_t b = 0; b < run.size();) {
                // A run of near-equal offsets: near-collinear edges.  Any two
                // whose ordinate ranges overlap may overlap on the line.
                size_t e = b + 1;
                while (e < run.size() && run[e].offset - run[e - 1].offset <= offset_tolerance) ++e;
                if (e - b > 1) {
                    std::sort(run.begin() + static_cast<std::ptrdiff_t>(b), run.begin() + static_cast<std::ptrdiff_t>(e),
                              [](const Line &l, const Line &r) { return l.y0 < r.y0; });
                    double reach = run[b].y1;
                    for (size_t k = b + 1; k < e; ++k) {
                        if (run[k].y0 < reach) return true;
                        reach = std::max(reach, run[k].y1);
                    }
                }
                b = e;
            }
        }
        begin = end;
    }
    return flats_overlap(flats, scratch.sorted);
}

// Whether a cell's share of the region is positive exactly when an edge
// passes through the open cell or the contract's mask takes its centre (see
// touched.cpp): true unless edges may overlap along a stretch, or some
// coordinate is beyond 2^40 or a nonzero one below 2^-480, where the
// contract's x_cross (in double) may overflow, underflow, or err by a
// sizeable fraction of a pixel.  coverage.cpp and touched.cpp must agree on
// it: it decides which cells are exactly 0.
template <class Wide>
bool edges_decide_touch(const Polygon &polygon, const std::vector<SegmentT<Wide>> &segments,
                        const std::vector<Flat> &flats, OverlapScratch &scratch)
{
    for (double v : polygon.xy()) {
        const double size = std::fabs(v);
        if (!(size <= kContractIsAccurate)) return false;
        if (size > 0.0 && size < kContractUnderflows) return false;
    }
    return !may_overlap(segments, flats, scratch);
}

template <class Wide>
bool edges_decide_touch(const Polygon &polygon, const std::vector<SegmentT<Wide>> &segments,
                        const std::vector<Flat> &flats)
{
    OverlapScratch scratch;
    return edges_decide_touch(polygon, segments, flats, scratch);
}

}  // namespace polymask::detail
