// coverage_simple_row.hpp -- the coverage sweep's fast path for a simple row
// strip (RowSweep::sweep_simple and store_simple): no vertex and no
// horizontal edge inside or on the strip, and no two edges crossing in it.
// Most rows of most polygons are simple (24 random vertices over 1,024 rows
// leave over 95% of them so), and there the general sweep's pieces,
// crossings and sign changes reduce to one integral per edge over the whole
// strip, under the sign its place in the x order gives it.  Each edge then
// covers one run of columns, the runs come in x order, and every column
// outside them is exactly 0 or 1: the row is written left to right in one
// pass, the runs' cells from the same integrals the general sweep takes, in
// the same order, so a simple row equals the general sweep's bit for bit.
// Internal: included by coverage.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coverage_row.hpp"

namespace polymask::detail::coverage_sweep {

// See RowSweep::sweep_simple in coverage_row.hpp.
template <class Wide>
bool RowSweep<Wide>::sweep_simple(int64_t row, std::vector<int32_t> &active)
{
    simple_row_ = false;
    if (row_flats_begin_ != row_flats_end_) return false;
    const double y_top = static_cast<double>(row) - 0.5;
    const double y_bottom = static_cast<double>(row) + 0.5;
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
        return false;
    }
    for (size_t k = 1; k < simple_.size(); ++k) {
        if (simple_[k - 1].other > simple_[k].other) return false;  // two edges cross in the strip
    }
    // Simple: every edge keeps one boundary sign over the whole strip, and
    // its run (the closed cells it passes, as integrate() takes them) is in
    // x order with the others', by first and by last column alike.
    constexpr int64_t far = int64_t{1} << 60;
    const bool even_odd = rule_ == FillRule::even_odd;
    int left = 0;
    active.clear();
    for (SimpleEdge &edge : simple_) {
        const int winding = segments_[edge.segment].winding;
        edge.sign = boundary_sign(left, winding, even_odd);
        left += even_odd ? 1 : winding;
        const Wide lo = std::min(edge.x_top, edge.x_bottom), hi = std::max(edge.x_top, edge.x_bottom);
        edge.first = detail::ceil_clamped(static_cast<double>(lo - 0.5), -far, far);
        edge.last = floor_clamped(static_cast<double>(hi + 0.5), -far, far);
        active.push_back(edge.segment);
    }
    ticker_.tick(static_cast<int64_t>(simple_.size()));
    simple_row_ = true;
    return true;
}

// See RowSweep::store_simple in coverage_row.hpp.
template <class Wide>
template <class Value, class Convert>
void RowSweep<Wide>::store_simple(Value *line, Convert convert, bool zeroed)
{
    simple_row_ = false;
    const int64_t col0 = window_.col0, col_end = window_.col0 + window_.width;
    // Left of every run the edges add sign/2 each, right of one -sign/2
    // (integrate's base and steps); each a multiple of 1/2, so exact in any order.
    double running = 0.0;
    for (const SimpleEdge &edge : simple_) running += 0.5 * edge.sign;
    const size_t n = simple_.size();
    size_t stepped = 0;  // edges whose run ends left of `column`: their step is in `running`
    size_t next = 0;     // the next run to write
    int64_t column = col0;
    while (column < col_end) {
        while (stepped < n && simple_[stepped].last < column) running -= simple_[stepped++].sign;
        while (next < n && simple_[next].last < column) ++next;
        const int64_t run_first = next < n ? std::min(std::max(simple_[next].first, column), col_end) : col_end;
        if (column < run_first) {
            // Between runs: wholly inside or wholly outside.
            if (running > 0.5 || !zeroed) {
                std::fill(line + (column - col0), line + (run_first - col0), convert(running > 0.5 ? 1.0 : 0.0));
            }
            column = run_first;
            continue;
        }
        int64_t run_last = simple_[next].last;
        if (next + 1 == n || simple_[next + 1].first > run_last) {
            // One edge's run alone (the usual case): its cells straight into the row.
            run_last = std::min(run_last, col_end - 1);
            write_lone_run(simple_[next], column, run_last, running, line, convert);
            ++next;
            column = run_last + 1;
            continue;
        }
        // A cluster of overlapping runs: their integrals into area_, in x order.
        size_t member = next;
        for (; member < n && simple_[member].first <= run_last; ++member) {
            const SimpleEdge &edge = simple_[member];
            run_last = std::max(run_last, edge.last);
            add_simple_edge(edge, column);
        }
        run_last = std::min(run_last, col_end - 1);
        next = member;
        ticker_.tick(run_last - column + 1);
        for (; column <= run_last; ++column) {
            while (stepped < n && simple_[stepped].last < column) running -= simple_[stepped++].sign;
            const size_t at = static_cast<size_t>(column - col0);
            line[at] = convert(cell_value(area_[at] + running, crossed_[at] != 0, running));
            area_[at] = 0.0;
            crossed_[at] = 0;
        }
    }
}

// The cells [from, to] of one edge's run that no other run meets, written
// straight into line (window-relative): what store_simple's cluster loop
// writes for them, without area_ and crossed_ (0.0 + x is x exactly).
template <class Wide>
template <class Value, class Convert>
void RowSweep<Wide>::write_lone_run(const SimpleEdge &edge, int64_t from, int64_t to, double running, Value *line,
                                    Convert convert)
{
    const int64_t col0 = window_.col0;
    ticker_.tick(to - from + 1);
    int64_t open_first = from, open_last = to;  // the cells crossed_ would mark
    if (exact_zeros_) {
        const Wide lo = std::min(edge.x_top, edge.x_bottom), hi = std::max(edge.x_top, edge.x_bottom);
        detail::open_cells(lo, hi, col0, col0 + window_.width, open_first, open_last);
    } else if (edge.sign == 0) {
        open_last = from - 1;  // integrate() marks nothing for an edge of no sign
    }
    if (edge.sign == 0) {
        for (int64_t c = from; c <= to; ++c) {
            line[c - col0] = convert(cell_value(running, c >= open_first && c <= open_last, running));
        }
        return;
    }
    const EdgeSpan span = edge_span(edge);
    for (int64_t c = from; c <= to; ++c) {
        const double offset = static_cast<double>(c - edge.first);
        const double area = edge.sign * (cell_mean(span.low - offset, span.high - offset, span.inverse) - 0.5);
        line[c - col0] = convert(cell_value(area + running, c >= open_first && c <= open_last, running));
    }
}

// The edge's abscissae over the strip relative to its first column, low to
// high, and the reciprocal of their distance (integrate()'s, for height 1).
template <class Wide>
typename RowSweep<Wide>::EdgeSpan RowSweep<Wide>::edge_span(const SimpleEdge &edge)
{
    const Wide origin = static_cast<Wide>(edge.first);
    double low = static_cast<double>(edge.x_top - origin), high = static_cast<double>(edge.x_bottom - origin);
    if (low > high) std::swap(low, high);
    return {low, high, high - low > 0x1p-900 ? 1.0 / (high - low) : 0.0};
}

// One edge's integral over the whole strip into area_ for the columns of
// its run from `from` on, inside the window (integrate() with height 1,
// without its base and step, which store_simple keeps), and its crossed_
// marks as the general sweep makes them.
template <class Wide>
void RowSweep<Wide>::add_simple_edge(const SimpleEdge &edge, int64_t from)
{
    const int64_t col0 = window_.col0, col_end = window_.col0 + window_.width;
    const int64_t begin = std::max(edge.first, from), end = std::min(edge.last, col_end - 1);
    if (exact_zeros_) {
        mark_open(std::min(edge.x_top, edge.x_bottom), std::max(edge.x_top, edge.x_bottom));
    }
    if (edge.sign == 0 || begin > end) return;
    if (!exact_zeros_) std::fill(crossed_.begin() + (begin - col0), crossed_.begin() + (end - col0) + 1, uint8_t{1});
    const EdgeSpan span = edge_span(edge);
    double *area = area_.data() + (begin - col0);
    for (int64_t k = 0; k <= end - begin; ++k) {
        const double offset = static_cast<double>(begin + k - edge.first);
        area[k] += edge.sign * (cell_mean(span.low - offset, span.high - offset, span.inverse) - 0.5);
    }
}

}  // namespace polymask::detail::coverage_sweep
