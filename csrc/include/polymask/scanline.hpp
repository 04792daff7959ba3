// scanline.hpp -- the scanline sweep behind every fast fill.
//
// For each row, the core computes the contract's x_cross once per edge that
// crosses the row, sorts those crossings, and turns them into spans of
// inside columns.  Pixel c is inside iff the count of crossings with
// c < x_cross is odd (even-odd) or their signed sum is non-zero (nonzero);
// since every row of a closed polygon has an even number of crossings
// summing to zero winding, that equals a prefix count from the left, so a
// span that starts after crossing x begins at column ceil(x).  The result is
// therefore identical to the per-pixel rule, not an approximation.
//
// The sweep keeps an active-edge list: edges are sorted by their lowest row
// and enter and leave the list as the sweep passes their row span, so a row
// only touches the edges that cross it.  Crossings are re-sorted by
// insertion sort, which is linear when the order barely changes from one row
// to the next (the usual case), with a fallback to std::sort when it does.
//
// SpanSink is any object with begin_row(row), span(col_begin, col_end) and
// end_row(); spans arrive in increasing, disjoint order, clipped to the
// window's columns.  That lets one sweep serve masks and label images.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

// The smallest integer >= x, clamped to [lo, hi].  Safe for any double,
// including NaN, infinities and values far outside the int64 range.  Clamps
// in double first, then takes the ceiling by truncation, which avoids a libm
// call per crossing on plain x86-64 (no SSE4.1 round instruction).
inline int64_t ceil_clamped(double x, int64_t lo, int64_t hi)
{
    if (!(x > static_cast<double>(lo))) return lo;  // also catches NaN
    if (x >= static_cast<double>(hi)) return hi;
    const int64_t truncated = static_cast<int64_t>(x);  // x is in (lo, hi): no overflow
    return truncated + (static_cast<double>(truncated) < x ? 1 : 0);
}

// Rows [first, end) of the window that an edge crosses.  Under the half-open
// rule an edge crosses row r iff y_low <= r < y_high, i.e.
// ceil(y_low) <= r < ceil(y_high), which is exact in floating point.
struct EdgeRows {
    int64_t first;
    int64_t end;
};

inline void edge_rows_in_window(const std::vector<Edge> &edges, const Window &window,
                                std::vector<EdgeRows> &rows)
{
    const int64_t row_end = window.row0 + window.height;
    rows.resize(edges.size());
    for (size_t k = 0; k < edges.size(); ++k) {
        rows[k].first = ceil_clamped(edges[k].y_low, window.row0, row_end);
        rows[k].end = ceil_clamped(edges[k].y_high, window.row0, row_end);
    }
}

inline std::vector<EdgeRows> edge_rows_in_window(const std::vector<Edge> &edges, const Window &window)
{
    std::vector<EdgeRows> rows;
    edge_rows_in_window(edges, window, rows);
    return rows;
}

// Rows [first, end) of the window where the edges can produce spans: the
// union of their row spans (first == end when none crosses a window row).
inline EdgeRows rows_with_crossings(const std::vector<EdgeRows> &rows)
{
    EdgeRows extent{0, 0};
    bool any = false;
    for (const EdgeRows &r : rows) {
        if (r.end <= r.first) continue;
        if (!any) {
            extent = r;
            any = true;
        } else {
            extent.first = std::min(extent.first, r.first);
            extent.end = std::max(extent.end, r.end);
        }
    }
    return extent;
}

struct ActiveCrossing {
    double x;      // x_cross on the current row
    int32_t edge;  // index into the polygon's edge table
};

// Sort by x, cheap when `crossings` is already nearly sorted.  Gives up on
// insertion sort after a linear budget of moves, so adversarial polygons
// (many edges swapping order between rows) stay O(n log n) per row.
inline void sort_crossings(std::vector<ActiveCrossing> &crossings)
{
    const size_t n = crossings.size();
    size_t moves_left = 8 * n + 64;
    for (size_t k = 1; k < n; ++k) {
        const ActiveCrossing item = crossings[k];
        size_t pos = k;
        while (pos > 0 && crossings[pos - 1].x > item.x) {
            crossings[pos] = crossings[pos - 1];
            --pos;
            if (--moves_left == 0) {
                crossings[pos] = item;
                std::sort(crossings.begin(), crossings.end(),
                          [](const ActiveCrossing &a, const ActiveCrossing &b) { return a.x < b.x; });
                return;
            }
        }
        crossings[pos] = item;
    }
}

// Sweep rows [row_begin, row_end) of `window` (absolute row numbers).
template <class SpanSink>
void scan_rows(const std::vector<Edge> &edges, const std::vector<EdgeRows> &rows,
               const Window &window, FillRule rule, int64_t row_begin, int64_t row_end,
               SpanSink &sink)
{
    const int64_t col_begin = window.col0;
    const int64_t col_end = window.col0 + window.width;
    const size_t n_edges = edges.size();

    std::vector<ActiveCrossing> active;
    size_t next_edge = 0;  // edges before this one have entered the sweep
    int64_t next_expiry = std::numeric_limits<int64_t>::max();  // first row some active edge ends

    for (int64_t row = row_begin; row < row_end; ++row) {
        // Edges whose span has ended leave, in order, so the sort stays
        // cheap.  Only rows where some edge ends pay for the pass.
        if (row >= next_expiry) {
            next_expiry = std::numeric_limits<int64_t>::max();
            size_t kept = 0;
            for (const ActiveCrossing &a : active) {
                const int64_t end = rows[a.edge].end;
                if (end <= row) continue;
                next_expiry = std::min(next_expiry, end);
                active[kept++] = a;
            }
            active.resize(kept);
        }
        // Edges whose row span has started join; rows[] is sorted by first.
        while (next_edge < n_edges && rows[next_edge].first <= row) {
            const int64_t end = rows[next_edge].end;
            if (end > row) {
                active.push_back({0.0, static_cast<int32_t>(next_edge)});
                next_expiry = std::min(next_expiry, end);
            }
            ++next_edge;
        }

        const double py = static_cast<double>(row);
        for (ActiveCrossing &a : active) {
            const Edge &e = edges[a.edge];
            const double x = pm_x_cross(e.xi, e.yi, e.xj, e.yj, py);
            // px < NaN is false for every px, exactly like px < -inf.
            a.x = std::isnan(x) ? -std::numeric_limits<double>::infinity() : x;
        }
        sort_crossings(active);

        sink.begin_row(row);
        if (rule == FillRule::even_odd) {
            // Inside between crossings 2m and 2m+1.  A closed polygon has an
            // even count; an odd one (non-finite input) drops the last.
            for (size_t k = 0; k + 1 < active.size(); k += 2) {
                const int64_t begin = ceil_clamped(active[k].x, col_begin, col_end);
                const int64_t end = ceil_clamped(active[k + 1].x, col_begin, col_end);
                if (end > begin) sink.span(begin, end);
            }
        } else {
            // Inside wherever the winding sum left of x is non-zero;
            // neighbouring inside stretches merge into one span.
            int winding = 0;
            int64_t span_begin = 0;
            for (size_t k = 0; k < active.size(); ++k) {
                const bool was_inside = winding != 0;
                winding += edges[active[k].edge].winding;
                const bool inside = winding != 0;
                if (inside == was_inside) continue;
                const int64_t col = ceil_clamped(active[k].x, col_begin, col_end);
                if (inside) {
                    span_begin = col;
                } else if (col > span_begin) {
                    sink.span(span_begin, col);
                }
            }
        }
        sink.end_row();
    }
}

}  // namespace detail
}  // namespace polymask
