// coverage_simple_row.hpp -- the coverage sweep's fast path for a simple row
// strip (RowSweep::sweep_simple and store_simple): no vertex and no
// horizontal edge inside or on the strip, and no two edges crossing in it.
// Most rows of most polygons are simple (24 random vertices over 1,024 rows
// leave over 95% of them so).  There every edge spans the whole strip and
// keeps one place in the x order, so
//
//   * the order, and with it each edge's boundary sign, is the row above's
//     when the row above was simple with the same edges: only x moves, and x
//     at this strip's top is the row above's x at its bottom (the same
//     x_at(row - 1/2), bit for bit);
//   * the inside of the strip, in a column no edge passes through, is
//     exactly 0 or 1, and an edge's share of a column it passes through is a
//     closed form of its two abscissae (right_share): x runs linearly over
//     the strip, so it is spread evenly over [lo, hi], and the cell's area
//     right of the edge is a square over 2(hi - lo) in the edge's first and
//     last cell and linear between;
//   * the row is written left to right in one pass: runs between edges as
//     spans, an edge's cells straight from the closed form, and only where
//     two edges share a cell (a cluster) are shares summed in area_.
//
// A cell's value is (inside count left of it) + (the shares of the edges
// passing through it, summed in x order from 0.0), whichever way the row is
// cut into clusters and windows, so windows equal slices bit for bit; the
// order is the sorted order (key, other, segment), so threads change nothing.
// Internal: included by coverage.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "coverage_row.hpp"

namespace polymask::detail::coverage_sweep {

// See RowSweep::sweep_simple in coverage_row.hpp.
template <class Wide>
POLYMASK_FLATTEN bool RowSweep<Wide>::sweep_simple(int64_t row, std::vector<int32_t> &active)
{
    simple_row_ = false;
    const bool follows = simple_valid_ && row == simple_last_row_ + 1;
    simple_valid_ = false;
    if (row_flats_begin_ != row_flats_end_) return false;
    const double y_top = static_cast<double>(row) - 0.5;
    const double y_bottom = static_cast<double>(row) + 0.5;
    if (!(follows && follow_simple(y_bottom, active))) {
        // A vertex inside the strip: not simple, and no x is worth taking.
        for (int32_t s : active) {
            if (segments_[s].y0 > y_top || segments_[s].y1 < y_bottom) return false;
        }
        if (!build_simple(y_top, y_bottom, active)) return false;
    }
    ticker_.tick(static_cast<int64_t>(simple_.size()));
    simple_valid_ = true;
    simple_last_row_ = row;
    follow_size_ = simple_.size();
    simple_row_ = true;
    return true;
}

// Whether a comes before b in the sorted order (crossing_less) and the two
// do not cross in the strip (a's bottom is not right of b's).
template <class Wide>
bool RowSweep<Wide>::ordered(const SimpleEdge &a, const SimpleEdge &b)
{
    return crossing_less(a, b) && a.other <= b.other;
}

// The row below a simple row (or below the last piece of a cut row), with
// the same edges in `active` (which that row left in its order): each
// edge's top is its old bottom.  False, with
// simple_ spoilt, where an edge ends in the strip or the order breaks.
template <class Wide>
bool RowSweep<Wide>::follow_simple(double y_bottom, const std::vector<int32_t> &active)
{
    simple_.resize(follow_size_);  // a cut row above: its bottom piece
    if (active.size() != simple_.size()) return false;
    for (size_t k = 0; k < simple_.size(); ++k) {
        SimpleEdge &edge = simple_[k];
        if (active[k] != edge.segment) return false;
        const Segment &seg = segments_[edge.segment];
        if (seg.y1 < y_bottom) return false;  // its lower vertex is inside the strip
        edge.x_top = edge.x_bottom;
        edge.key = edge.other;
        edge.x_bottom = seg.x_at(y_bottom);
        edge.other = static_cast<double>(edge.x_bottom);
        if (k > 0 && !ordered(simple_[k - 1], edge)) return false;
    }
    return true;
}

// The edges of a simple strip from scratch: x at both sides, sorted, the
// order checked at the bottom, the signs from the order.  False for a strip
// that is not simple.  Whether it is depends on the strip alone (a sort that
// runs out of insertion moves finishes with std::sort), so every thread
// count and window takes the same path for the same row.
template <class Wide>
bool RowSweep<Wide>::build_simple(double y_top, double y_bottom, std::vector<int32_t> &active)
{
    simple_.clear();
    for (int32_t s : active) {
        const Segment &seg = segments_[s];
        if (seg.y0 > y_top || seg.y1 < y_bottom) return false;  // a vertex inside the strip
        const Wide top = seg.x_at(y_top), bottom = seg.x_at(y_bottom);
        // Written in place: a local pushed back was copied through memory
        // field by field, stalling on store forwarding (a twelfth of the
        // simple row, measured with perf).
        SimpleEdge &edge = simple_.emplace_back();
        edge.key = static_cast<double>(top);
        edge.other = static_cast<double>(bottom);
        edge.segment = s;
        edge.x_top = top;
        edge.x_bottom = bottom;
    }
    // `active` is the previous row's order at this row's top: sorted already, nearly always.
    if (!detail::insertion_sort(simple_.data(), simple_.size(), crossing_less<SimpleEdge>, 4 * simple_.size() + 32)) {
        std::sort(simple_.begin(), simple_.end(), crossing_less<SimpleEdge>);
    }
    for (size_t k = 1; k < simple_.size(); ++k) {
        if (simple_[k - 1].other > simple_[k].other) return false;  // two edges cross in the strip
    }
    const bool even_odd = rule_ == FillRule::even_odd;
    int left = 0;
    active.clear();
    for (SimpleEdge &edge : simple_) {
        const int winding = segments_[edge.segment].winding;
        edge.sign = boundary_sign(left, winding, even_odd);
        left += even_odd ? 1 : winding;
        active.push_back(edge.segment);
    }
    return true;
}

// The run of an edge of nonzero sign for store_simple: its open cells in
// the window (first > last where it passes through none there; first is
// then the first column wholly right of it) and its shape for right_share.
template <class Wide>
void RowSweep<Wide>::edge_run(Wide x_top, Wide x_bottom, int sign, EdgeRun &run) const
{
    constexpr int64_t far = int64_t{1} << 60;
    const int64_t col0 = window_.col0, col_end = window_.col0 + window_.width;
    run.step = sign < 0 ? 1 : -1;
    const Wide lo = std::min(x_top, x_bottom), hi = std::max(x_top, x_bottom);
    // The cells it passes, unclipped: [origin, origin + cells); clipped to
    // the window they are open_cells' (which takes the same floors).
    if constexpr (std::is_same_v<Wide, double>) {
        // Vertices within 2^16 (double_is_enough): no floor needs clamping.
        run.origin = static_cast<int64_t>(std::floor(lo - 0.5)) + 1;
        run.cells = static_cast<int64_t>(std::ceil(hi + 0.5)) - run.origin;
    } else {
        run.origin = floor_clamped(static_cast<double>(std::floor(lo - static_cast<Wide>(0.5))), -far, far) + 1;
        run.cells = detail::ceil_clamped(static_cast<double>(std::ceil(hi + static_cast<Wide>(0.5))), -far, far) -
                    run.origin;
    }
    run.first = std::clamp(run.origin, col0, col_end);
    run.last = std::clamp(run.origin + run.cells - 1, col0 - 1, col_end - 1);
    if constexpr (!std::is_same_v<Wide, double>) {
        // open_cells decides in Wide, beyond 2^53 too.
        detail::open_cells(lo, hi, col0, col_end, run.first, run.last);
    }
    if (run.first > run.last) return;
    // The sides of cell origin + k at k and k + 1 in the frame of low and high.
    const Wide side = static_cast<Wide>(run.origin) - static_cast<Wide>(0.5);
    run.low = static_cast<double>(lo - side);
    run.high = static_cast<double>(hi - side);
    const double width = run.high - run.low;
    // Below 2^-900 the edge is taken as vertical (an error below 2^-900).
    run.inverse = run.cells > 1 && width > 0x1p-900 ? 1.0 / width : 0.0;
}

// The area of the edge's cell k (k in [0, cells)) right of the edge, per
// unit of the strip's height: with x spread evenly over [low, high],
//   one cell:   1 - (low + high) / 2;
//   first cell: (1 - low)^2 / (2 w);
//   last cell:  1 - (high - k)^2 / (2 w);
//   between:    (k + 1/2 - low) / w,
// w = high - low.  Each a few ulps of its value, with no difference of
// large terms, so long shallow edges lose nothing.
template <class Wide>
double RowSweep<Wide>::right_share(const EdgeRun &edge, int64_t k)
{
    if (edge.cells == 1) return 1.0 - 0.5 * (edge.low + edge.high);
    if (k == 0) return first_share(edge);
    if (k == edge.cells - 1) return last_share(edge);
    // Rounded as write_run's loop rounds it, so a window cutting the run
    // changes no bit.
    return (static_cast<double>(k) + (0.5 - edge.low)) * edge.inverse;
}

template <class Wide>
double RowSweep<Wide>::first_share(const EdgeRun &edge)
{
    const double d = 1.0 - edge.low;
    return 0.5 * d * (d * edge.inverse);
}

template <class Wide>
double RowSweep<Wide>::last_share(const EdgeRun &edge)
{
    const double d = edge.high - static_cast<double>(edge.cells - 1);
    return 1.0 - 0.5 * d * (d * edge.inverse);
}

// See RowSweep::store_simple in coverage_row.hpp.
template <class Wide>
template <class Value, class Convert>
POLYMASK_FLATTEN void RowSweep<Wide>::store_simple(Value *line, Convert convert, bool zeroed)
{
    simple_row_ = false;
    const int64_t col0 = window_.col0, col_end = window_.col0 + window_.width;
    // The runs of the edges of nonzero sign in x order, in one pass (an
    // edge of sign 0, nonzero rule with inside on both sides, changes
    // nothing): then each run sees the next one's first cell, to tell
    // whether their cells meet, without a run being copied.
    if (runs_.size() < simple_.size()) runs_.resize(simple_.size());  // only grows: no run is zeroed per row
    EdgeRun *const runs = runs_.data();
    size_t n_runs = 0;
    for (const SimpleEdge &edge : simple_) {
        if (edge.sign != 0) edge_run(edge.x_top, edge.x_bottom, edge.sign, runs[n_runs++]);
    }
    const Value outside = convert(0.0), full = convert(1.0);
    int inside = 0;  // left of every edge: outside
    int64_t column = col0;
    const auto fill = [&](int64_t to) {  // columns [column, to), wholly in or out
        if (column < to && (inside != 0 || !zeroed)) {
            std::fill(line + (column - col0), line + (to - col0), inside != 0 ? full : outside);
        }
    };
    for (size_t k = 0; k < n_runs;) {
        const EdgeRun &run = runs[k];
        int64_t last = run.last;
        if (k + 1 == n_runs || runs[k + 1].first > last) {
            // One edge's cells alone (the usual case): straight into the row.
            fill(run.first);
            if (run.first <= last) write_run(run, inside, line + (run.first - col0), convert);
            inside += run.step;
            ++k;
        } else {
            // Cells shared with the next edges: a cluster.  Its first cell
            // is its members' least: in Extended the order comes from x
            // rounded to double, so a later edge may start a cell earlier
            // (never before `column`, which no member reaches).
            const size_t begin = k;
            int64_t first = run.first;
            for (++k; k < n_runs && runs[k].first <= last; ++k) {
                first = std::min(first, runs[k].first);
                last = std::max(last, runs[k].last);
            }
            first = std::max(first, column);
            fill(first);
            inside = store_cluster(runs + begin, runs + k, first, last, inside, line, convert);
        }
        column = std::max(column, last + 1);
    }
    fill(col_end);
}

// The open cells [first, last] of an edge no other edge's cells meet, from
// `out` on: inside (0 or 1, left of the edge) plus its share.  The same
// values as store_cluster's (0.0 + x is x), with the edge's first and last
// cell taken apart from the loop where the window holds them.
template <class Wide>
template <class Value, class Convert>
void RowSweep<Wide>::write_run(const EdgeRun &run, int inside, Value *out, Convert convert)
{
    // Locals, not members: a uint8 output may alias anything, so every byte
    // stored would otherwise reload the run and the bounds from memory.
    const EdgeRun edge = run;
    const double base = inside, step = edge.step, floor = floor_, snap = snap_;
    const auto value = [base, step, floor, snap, convert](double share) {
        double v = base + step * share;
        if constexpr (TakesRawSums<Convert>::value) return convert(v);
        return convert(crossed_value(v, floor, snap));
    };
    ticker_.tick(edge.last - edge.first + 1);
    if (edge.cells == 1) {
        *out = value(1.0 - 0.5 * (edge.low + edge.high));
        return;
    }
    const int64_t end = edge.origin + edge.cells - 1;  // the last cell
    if (edge.first != edge.origin || edge.last != end) {
        for (int64_t c = edge.first; c <= edge.last; ++c) *out++ = value(right_share(edge, c - edge.origin));
        return;
    }
    *out++ = value(first_share(edge));
    const double offset = 0.5 - edge.low;
    for (int64_t k = 1; k < edge.cells - 1; ++k) *out++ = value((static_cast<double>(k) + offset) * edge.inverse);
    *out = value(last_share(edge));
}

// The runs [begin, end), whose open cells chain together over [first, last]:
// each cell is the inside count left of it plus the shares of the edges
// passing through it, summed in x order in area_ (cells before `first`,
// which a run reaches only where Extended rounding disordered the runs,
// are left out: area_ stays zero outside what is written).  Returns the
// inside count right of them.
template <class Wide>
template <class Value, class Convert>
int RowSweep<Wide>::store_cluster(const EdgeRun *begin, const EdgeRun *end, int64_t first, int64_t last, int inside,
                                  Value *line, Convert convert)
{
    const int64_t col0 = window_.col0;
    for (const EdgeRun *edge = begin; edge != end; ++edge) {
        const int64_t from = std::max(edge->first, first);
        ticker_.tick(edge->last - from + 1);
        for (int64_t c = from; c <= edge->last; ++c) area_[c - col0] += edge->step * right_share(*edge, c - edge->origin);
    }
    const EdgeRun *passed = begin;  // edges wholly left of the column: their steps are in `inside`
    for (int64_t c = first; c <= last; ++c) {
        for (; passed != end && passed->last < c; ++passed) inside += passed->step;
        line[c - col0] = convert(crossed_value(inside + area_[c - col0], floor_, snap_));
        area_[c - col0] = 0.0;
    }
    for (; passed != end; ++passed) inside += passed->step;
    return inside;
}

}  // namespace polymask::detail::coverage_sweep
