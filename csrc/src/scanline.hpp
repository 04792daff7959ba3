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
// only touches the edges that cross it.  Only ceil(x_cross) matters (and
// ceil is monotone), so each crossing becomes its clamped column at once,
// in one vectorized pass over the active edges (crossing_columns, below);
// the list stays in the previous row's column order, which is checked in
// one pass and repaired by insertion sort on the rare rows where two edges
// swap, with a fallback to a full sort when many do.
//
// The layout's gain, and a division-free variant (x from a per-edge slope,
// with a proven error bound and the exact formula near integers) that was
// slower than the division it avoided, are in csrc/bench/STEPS.md; so the
// sweep computes the contract's formula itself.
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
#include "edges.hpp"
#include "sorting.hpp"

namespace polymask {
namespace detail {

// The smallest integer >= x, clamped to [lo, hi].  Safe for any double,
// including NaN, infinities and values far outside the int64 range.  Clamps
// in double first, then takes the ceiling: SSE4.1's round instruction where
// the compiler may use it, else by truncation, which avoids a libm call per
// crossing on plain x86-64.  Both are exact, so they agree bit for bit.
inline int64_t ceil_clamped(double x, int64_t lo, int64_t hi)
{
    if (!(x > static_cast<double>(lo))) return lo;  // also catches NaN
    if (x >= static_cast<double>(hi)) return hi;
    // x is in (lo, hi): no overflow either way.
#if defined(__SSE4_1__)
    return static_cast<int64_t>(std::ceil(x));  // one roundsd (the core builds for x86-64-v2)
#else
    const int64_t truncated = static_cast<int64_t>(x);  // std::ceil would be a call into libm
    return truncated + (static_cast<double>(truncated) < x ? 1 : 0);
#endif
}

// Rows [first, end) of the window that an edge crosses.  Under the half-open
// rule an edge crosses row r iff y_low <= r < y_high, i.e.
// ceil(y_low) <= r < ceil(y_high), which is exact in floating point.
struct EdgeRows {
    int64_t first;
    int64_t end;
};

inline void edge_rows_in_window(ConstSpan<Edge> edges, const Window &window,
                                std::vector<EdgeRows> &rows)
{
    const int64_t row_end = window.row0 + window.height;
    rows.resize(edges.size());
    for (size_t k = 0; k < edges.size(); ++k) {
        rows[k].first = ceil_clamped(edges[k].y_low, window.row0, row_end);
        rows[k].end = ceil_clamped(edges[k].y_high, window.row0, row_end);
    }
}

inline std::vector<EdgeRows> edge_rows_in_window(ConstSpan<Edge> edges, const Window &window)
{
    std::vector<EdgeRows> rows;
    edge_rows_in_window(edges, window, rows);
    return rows;
}

// The (edge, row) pairs of the edges within the window's rows, without
// keeping the rows: what the work estimates of label images and coverage
// sum (parallel.hpp).
inline double crossings_in_window(ConstSpan<Edge> edges, const Window &window)
{
    const int64_t row_end = window.row0 + window.height;
    double crossings = 0;
    for (const Edge &e : edges) {
        crossings += static_cast<double>(ceil_clamped(e.y_high, window.row0, row_end) -
                                         ceil_clamped(e.y_low, window.row0, row_end));
    }
    return crossings;
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

// The clamped crossing columns of n active edges on row py, in one pass
// (csrc/src/crossings.cpp, vectorized where the CPU allows):
// column[k] = ceil_clamped(x_cross, lo, hi) as a double, where
//
//     x_cross = dx[k] * (py - yi[k]) / dy[k] + xi[k]
//
// with dx = fl(xj - xi) and dy = fl(yj - yi) computed once per edge: the
// contract's operations on the contract's operands, so every lane rounds
// exactly like the scalar formula (IEEE-754 SIMD arithmetic is correctly
// rounded per lane, and nothing is fused).  NaN goes to lo, as px < NaN is
// false for every px.  Returns whether the columns are in non-decreasing
// order.
bool crossing_columns(const double *xi, const double *yi, const double *dx, const double *dy,
                      double *column, int64_t n, double py, double lo, double hi);

// crossing_columns' implementation for this CPU, looked up once per sweep
// so the row loop makes one plain indirect call.
using CrossingPass = bool (*)(const double *, const double *, const double *, const double *, double *,
                              int64_t, double, double, double);
CrossingPass crossing_pass();

// Whether this build has AVX2 code paths and the CPU runs them (asked of the
// CPU once); the crossing pass and all_touched's marking both choose by it.
bool cpu_has_avx2();

// The same without SIMD, whatever the CPU: the tests compare both.
bool crossing_columns_portable(const double *xi, const double *yi, const double *dx, const double *dy,
                               double *column, int64_t n, double py, double lo, double hi);

// The edges crossing the current row, as parallel arrays (so the crossing
// pass above vectorizes), kept in the order of their columns on the
// previous row: that order rarely changes from one row to the next, so
// re-sorting is nearly free.
struct ActiveEdges {
    std::vector<double> xi, yi, dx, dy, column;
    std::vector<int64_t> end;      // first row the edge no longer crosses
    std::vector<int32_t> winding;  // +1 upward in y, -1 downward

    size_t size() const { return column.size(); }

    void reserve(size_t n)
    {
        xi.reserve(n), yi.reserve(n), dx.reserve(n), dy.reserve(n), column.reserve(n);
        end.reserve(n), winding.reserve(n);
    }
    void push(const Edge &e, int64_t end_row)
    {
        xi.push_back(e.xi), yi.push_back(e.yi), dx.push_back(e.xj - e.xi), dy.push_back(e.yj - e.yi);
        column.push_back(0.0), end.push_back(end_row), winding.push_back(e.winding);
    }
    void move(size_t to, size_t from)
    {
        xi[to] = xi[from], yi[to] = yi[from], dx[to] = dx[from], dy[to] = dy[from];
        column[to] = column[from], end[to] = end[from], winding[to] = winding[from];
    }
    void resize(size_t n)
    {
        xi.resize(n), yi.resize(n), dx.resize(n), dy.resize(n), column.resize(n);
        end.resize(n), winding.resize(n);
    }
};

// The active edges as sorting.hpp's items, by column.
struct ActiveByColumn {
    struct Held {
        double xi, yi, dx, dy, column;
        int64_t end;
        int32_t winding;
    };
    ActiveEdges &active;

    size_t size() const { return active.size(); }
    bool less(size_t a, size_t b) const { return active.column[a] < active.column[b]; }
    bool less(const Held &held, size_t b) const { return held.column < active.column[b]; }
    Held take(size_t k) const
    {
        return {active.xi[k], active.yi[k], active.dx[k], active.dy[k], active.column[k], active.end[k],
                active.winding[k]};
    }
    void move(size_t to, size_t from) { active.move(to, from); }
    void put(size_t k, const Held &held)
    {
        active.xi[k] = held.xi, active.yi[k] = held.yi, active.dx[k] = held.dx, active.dy[k] = held.dy;
        active.column[k] = held.column, active.end[k] = held.end, active.winding[k] = held.winding;
    }
};

// Sort the active edges by column: insertion sort (sorting.hpp), linear when
// the order barely changed since the last row.  After a linear budget of moves it
// sorts a permutation instead, so adversarial polygons (many edges swapping
// order between rows) stay O(n log n) per row.  `fresh`: the edges have
// just joined in y order (a band's first row), so the insertion sort would
// only spend its budget: the permutation is sorted at once (csrc/bench/STEPS.md).
// Both ways give the same, stable order.
inline void sort_active(ActiveEdges &active, std::vector<size_t> &order, ActiveEdges &scratch, bool fresh = false)
{
    const size_t n = active.size();
    ActiveByColumn items{active};
    if (insertion_sort(items, fresh ? 0 : 8 * n + 64)) return;
    order.resize(n);
    for (size_t k = 0; k < n; ++k) order[k] = k;
    // Ties by index: the stable order, without stable_sort's buffer.
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return active.column[a] < active.column[b] || (active.column[a] == active.column[b] && a < b);
    });
    scratch.resize(n);
    for (size_t k = 0; k < n; ++k) {
        const size_t from = order[k];
        scratch.xi[k] = active.xi[from], scratch.yi[k] = active.yi[from];
        scratch.dx[k] = active.dx[from], scratch.dy[k] = active.dy[from];
        scratch.column[k] = active.column[from], scratch.end[k] = active.end[from];
        scratch.winding[k] = active.winding[from];
    }
    std::swap(active, scratch);
}

// A sweep's working arrays.  A caller that sweeps many polygons in a row
// (a label image's, a batch's) passes one to every sweep, so the arrays
// keep their room instead of being allocated for each polygon.
struct SweepBuffers {
    ActiveEdges active, scratch;
    std::vector<size_t> order;
};

// Sweep rows [row_begin, row_end) of `window` (absolute row numbers).
template <class SpanSink>
void scan_rows(ConstSpan<Edge> edges, const std::vector<EdgeRows> &rows,
               const Window &window, FillRule rule, int64_t row_begin, int64_t row_end,
               SpanSink &sink, SweepBuffers &buffers)
{
    const int64_t col_begin = window.col0;
    const int64_t col_end = window.col0 + window.width;
    const double lo = static_cast<double>(col_begin), hi = static_cast<double>(col_end);
    const size_t n_edges = edges.size();

    ActiveEdges &active = buffers.active, &scratch = buffers.scratch;
    std::vector<size_t> &order = buffers.order;
    active.resize(0);
    const CrossingPass pass = crossing_pass();
    size_t next_edge = 0;  // edges before this one have entered the sweep
    int64_t next_expiry = std::numeric_limits<int64_t>::max();  // first row some active edge ends

    for (int64_t row = row_begin; row < row_end; ++row) {
        // Edges whose span has ended leave, in order, so the sort stays
        // cheap.  Only rows where some edge ends pay for the pass.
        if (row >= next_expiry) {
            next_expiry = std::numeric_limits<int64_t>::max();
            size_t kept = 0;
            for (size_t k = 0; k < active.size(); ++k) {
                if (active.end[k] <= row) continue;
                next_expiry = std::min(next_expiry, active.end[k]);
                if (kept != k) active.move(kept, k);
                ++kept;
            }
            active.resize(kept);
        }
        // Edges whose row span has started join; rows[] is sorted by first.
        while (next_edge < n_edges && rows[next_edge].first <= row) {
            const int64_t end = rows[next_edge].end;
            if (end > row) {
                if (active.size() == 0) active.reserve(16);
                active.push(edges[next_edge], end);
                next_expiry = std::min(next_expiry, end);
            }
            ++next_edge;
        }

        const int64_t n_active = static_cast<int64_t>(active.size());
        const bool in_order = pass(active.xi.data(), active.yi.data(), active.dx.data(),
                                   active.dy.data(), active.column.data(), n_active, static_cast<double>(row),
                                   lo, hi);
        if (!in_order) sort_active(active, order, scratch, row == row_begin);

        sink.begin_row(row);
        const double *column = active.column.data();
        if (rule == FillRule::even_odd) {
            // Inside between crossings 2m and 2m+1.  A closed polygon has an
            // even count; an odd one (non-finite input) drops the last.
            for (int64_t k = 0; k + 1 < n_active; k += 2) {
                if (column[k + 1] > column[k]) {
                    sink.span(static_cast<int64_t>(column[k]), static_cast<int64_t>(column[k + 1]));
                }
            }
        } else {
            // Inside wherever the winding sum left of x is non-zero;
            // neighbouring inside stretches merge into one span.
            int winding = 0;
            double span_begin = 0.0;
            for (int64_t k = 0; k < n_active; ++k) {
                const bool was_inside = winding != 0;
                winding += active.winding[k];
                const bool inside = winding != 0;
                if (inside == was_inside) continue;
                if (inside) {
                    span_begin = column[k];
                } else if (column[k] > span_begin) {
                    sink.span(static_cast<int64_t>(span_begin), static_cast<int64_t>(column[k]));
                }
            }
        }
        sink.end_row();
    }
}

// The same with buffers of its own: one polygon, or a band of one.
template <class SpanSink>
void scan_rows(ConstSpan<Edge> edges, const std::vector<EdgeRows> &rows,
               const Window &window, FillRule rule, int64_t row_begin, int64_t row_end,
               SpanSink &sink)
{
    SweepBuffers buffers;
    scan_rows(edges, rows, window, rule, row_begin, row_end, sink, buffers);
}

}  // namespace detail
}  // namespace polymask
