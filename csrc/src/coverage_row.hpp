// coverage_row.hpp -- the row sweep of coverage.cpp (RowSweep): one row
// strip's edges cut into pieces at the vertices inside it, their crossings
// found as swaps, each edge integrated between its own crossings, and the
// row stored as areas, exact 0s and exact 1s.  coverage.cpp's header comment
// gives the method; the two heavy members, add_piece and integrate, are
// defined in coverage_integrate.hpp.  Internal: included by coverage.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cell_geometry.hpp"
#include "checks.hpp"
#include "coverage_pieces.hpp"
#include "parallel.hpp"
#include "polymask/coverage.hpp"
#include "scanline.hpp"
#include "sorting.hpp"

namespace polymask::detail::coverage_sweep {

// Per-thread buffers for one row of the window.
template <class Wide>
class RowSweep {
    using Segment = SegmentT<Wide>;
    using Crossing = CrossingT<Wide>;
    using EdgeState = EdgeStateT<Wide>;
    using SimpleEdge = SimpleEdgeT<Wide>;
    static constexpr int kLeft = 2;  // EdgeState::sign of an edge that has left the strip

public:
    // exact_zeros: the polygon has no edges overlapping along a stretch
    // (detail::may_overlap is false), so a cell has positive area iff an
    // edge passes through its open interior or it lies wholly inside; see
    // store().
    RowSweep(const std::vector<Segment> &segments, const Window &window, FillRule rule, bool exact_zeros)
        : segments_(segments), window_(window), rule_(rule), exact_zeros_(exact_zeros),
          area_(static_cast<size_t>(window.width), 0.0), crossed_(static_cast<size_t>(window.width), 0),
          step_(static_cast<size_t>(window.width), 0.0), floor_(exact_zeros ? kTiny : 0.0),
          snap_(exact_zeros ? 0.0 : kResidue)
    {
    }

    // The horizontal edges of the next row: those with row - 1/2 <= y <= row + 1/2.
    void use_flats(const Flat *begin, const Flat *end)
    {
        row_flats_begin_ = begin;
        row_flats_end_ = end;
    }

    // Accumulate row `row` given the segments overlapping its strip; then
    // values(c) gives the coverage of window column c.
    POLYMASK_FLATTEN void sweep(int64_t row, std::vector<int32_t> &active)
    {
        touched_.clear();
        steps_left_.clear();
        base_ = 0.0;
        const double y_top = static_cast<double>(row) - 0.5;
        const double y_bottom = static_cast<double>(row) + 0.5;
        y_bottom_ = y_bottom;

        state_.clear();
        current_.clear();
        starting_.clear();
        ending_.clear();
        for (int32_t s : active) {
            const Segment &seg = segments_[s];
            const double ya = std::max(seg.y0, y_top), yb = std::min(seg.y1, y_bottom);
            const Wide wa = seg.x_at(ya), wb = seg.x_at(yb);
            const double xa = static_cast<double>(wa), xb = static_cast<double>(wb);
            const Columns marked = mark(std::min(xa, xb), std::max(xa, xb));
            if (exact_zeros_) mark_open(std::min(wa, wb), std::max(wa, wb));
            const auto slot = static_cast<int32_t>(state_.size());
            state_.push_back({s, 0, ya, wa, wa, wb, marked.first, marked.last});
            if (seg.y0 > y_top) {
                starting_.push_back(slot);
            } else {
                current_.push_back({0, 0, s, 0, 0, slot, 0, 0});
            }
            if (seg.y1 < y_bottom) ending_.push_back({seg.y1, s, slot});
        }
        for (const Flat *flat = row_flats_begin_; flat != row_flats_end_; ++flat) {
            if (flat->y >= y_top && flat->y <= y_bottom) mark(flat->x_min, flat->x_max);
            if (exact_zeros_) {
                if (flat->y > y_top && flat->y < y_bottom && flat->x_min < flat->x_max) mark_open(flat->x_min, flat->x_max);
            } else if (flat->y > y_top && flat->y < y_bottom) {
                // A horizontal edge inside the strip splits the cells it
                // passes, though no edge piece integrates over them.
                const int64_t end = window_.col0 + window_.width;
                const int64_t first = detail::ceil_clamped(flat->x_min - 0.5, window_.col0, end);
                const int64_t last = floor_clamped(flat->x_max + 0.5, window_.col0 - 1, end - 1);
                for (int64_t c = first; c <= last; ++c) crossed_[c - window_.col0] = 1;
            }
        }
        ticker_.tick(static_cast<int64_t>(state_.size()));
        // Edges enter at their top and leave at their bottom: the pieces then
        // hold only the edges that span them, so a strip cut by many
        // vertices (a detailed outline, many vertices per cell) costs the
        // edges in each piece, not all of them.  Edges that start inside the
        // strip joined `active` this row, in the order of their tops
        // (segments are numbered by it): already sorted, nearly always.
        const auto by_top = [&](int32_t a, int32_t b) { return state_[a].segment < state_[b].segment; };
        if (!std::is_sorted(starting_.begin(), starting_.end(), by_top)) {
            std::sort(starting_.begin(), starting_.end(), by_top);
        }
        sort_mostly_sorted(ending_, [](const Leaving &a, const Leaving &b) {
            return a.y < b.y || (a.y == b.y && a.segment < b.segment);
        });
        // The pieces' ends: the strip's, and every vertex inside it (both lists are sorted).
        breaks_.clear();
        breaks_.push_back(y_top);
        size_t next_start = 0, next_end = 0;
        while (next_start < starting_.size() || next_end < ending_.size()) {
            const double start = next_start < starting_.size() ? segments_[state_[starting_[next_start]].segment].y0 : y_bottom;
            const double end = next_end < ending_.size() ? ending_[next_end].y : y_bottom;
            const double y = std::min(start, end);
            if (y != breaks_.back()) breaks_.push_back(y);
            next_start += start == y ? 1 : 0;
            next_end += end == y ? 1 : 0;
        }
        if (y_bottom != breaks_.back()) breaks_.push_back(y_bottom);
        next_start = 0;
        next_end = 0;
        for (size_t b = 0; b + 1 < breaks_.size(); ++b) {
            const double ya = breaks_[b], yb = breaks_[b + 1];
            if (next_end < ending_.size() && ending_[next_end].y <= ya) {
                for (; next_end < ending_.size() && ending_[next_end].y <= ya; ++next_end) {
                    EdgeState &edge = state_[ending_[next_end].slot];
                    flush(edge, ending_[next_end].y, edge.x_strip_bottom);
                    edge.sign = kLeft;
                }
                current_.erase(std::remove_if(current_.begin(), current_.end(),
                                              [&](const Crossing &c) { return state_[c.slot].sign == kLeft; }),
                               current_.end());
            }
            for (; next_start < starting_.size() && segments_[state_[starting_[next_start]].segment].y0 <= ya;
                 ++next_start) {
                const int32_t slot = starting_[next_start];
                current_.push_back({0, 0, state_[slot].segment, 0, 0, slot, 0, 0});
            }
            add_piece(ya, yb);
        }
        // The edges left, in x order at the row's bottom, are the next row's
        // `active`: its pieces' sorts then start nearly sorted and cost O(n).
        active.clear();
        for (const Crossing &c : current_) {
            flush(state_[c.slot], y_bottom, state_[c.slot].x_strip_bottom);
            active.push_back(c.segment);
        }
    }

    // The same as sweep() for a row strip that no vertex, horizontal edge
    // or crossing of two edges falls in (coverage_simple_row.hpp), at a
    // fraction of its cost; false, with nothing changed, for any other row.
    bool sweep_simple(int64_t row, std::vector<int32_t> &active);

    // store() for a row sweep_simple() took.
    template <class Value, class Convert>
    void store_simple(Value *line, Convert convert, bool zeroed);

    // The same for a row strip that vertices cut but no two edges cross and
    // no horizontal edge meets (coverage_vertex_row.hpp); false, with
    // `active` unchanged, for any other row.  store_pieces() stores it.
    bool sweep_pieces(int64_t row, std::vector<int32_t> &active);
    template <class Value, class Convert>
    void store_pieces(Value *line, Convert convert, bool zeroed);

    // Write the row into line[0, width): touched cells get their area
    // (clamped to [0, 1]), the runs between them exactly 0 or 1, written as
    // spans.  area_ is cleared on the way, ready for the next row.
    template <class Value, class Convert>
    void store(Value *line, Convert convert, bool zeroed)
    {
        if (simple_row_) {
            store_simple(line, convert, zeroed);
            return;
        }
        if (pieces_row_) {
            store_pieces(line, convert, zeroed);
            return;
        }
        // Both lists come in runs sorted by x (edges are visited in x order),
        // usually nearly sorted as a whole; stable_sort allocated every row.
        sort_touched();
        // The steps left of the window, column by column, as the full row
        // would add them: each column's steps summed in the order the sweep
        // made them, then the columns in order.  Inside the window the same
        // sums sit in step_ (below), so windows equal slices bit for bit.
        double running = base_;
        if (!steps_left_.empty()) {
            std::stable_sort(steps_left_.begin(), steps_left_.end(),
                             [](const Step &a, const Step &b) { return a.column < b.column; });
            for (size_t k = 0; k < steps_left_.size();) {
                double delta = 0.0;
                const int64_t at = steps_left_[k].column;
                for (; k < steps_left_.size() && steps_left_[k].column == at; ++k) delta += steps_left_[k].delta;
                running += delta;
            }
        }
        int64_t column = 0;
        size_t k = 0;
        while (column < window_.width) {
            const auto [first, last] = next_touched(k, column);
            // Untouched run [column, first): steps fall only inside touched
            // runs or on the first column after one (see integrate), so the
            // run is constant, exactly 0 or 1.
            if (column < first) {
                running += step_[column];
                step_[column] = 0.0;
                if (running > 0.5 || !zeroed) std::fill(line + column, line + first, convert(running > 0.5 ? 1.0 : 0.0));
                column = first;
            }
            for (; column <= last; ++column) {
                running += step_[column];
                step_[column] = 0.0;
                line[column] = convert(cell_value(area_[column] + running, crossed_[column] != 0, running));
                area_[column] = 0.0;
                crossed_[column] = 0;
            }
        }
    }

private:
    // A touched cell's value in [0, 1] from its summed area `value`, whether
    // crossed_ marks it, and the running sum of the cells left and right of
    // every edge there.  A cell no edge piece passes through is wholly in or
    // out, whatever the sums' rounding (1e-17): exactly 0 or 1, taken from
    // its sum where edges decide touch, else from the running sum (a marked
    // cell no piece reached must not turn 0 into "touched").
    double cell_value(double value, bool crossed, double running) const
    {
        if (crossed) return crossed_value(value, floor_, snap_);
        return (exact_zeros_ ? value : running) > 0.5 ? 1.0 : 0.0;
    }

    // A crossed cell's value from its summed area, without branches.  Where
    // edges decide touch (floor kTiny, snap 0) an edge through the open cell
    // leaves some area, however little the sums say (a corner cut off is
    // 1e-20), so > 0 stays all_touched; otherwise (floor 0, snap kResidue)
    // a few ulps left by pieces that cancel exactly (edges crossing inside
    // the cell, or overlapping) are not area.  Within kResidue of 1 is 1.
    static double crossed_value(double value, double floor, double snap)
    {
        value = value > 1.0 - kResidue ? 1.0 : value;
        value = value >= snap ? value : 0.0;  // NaN -> 0
        return value >= floor ? value : floor;
    }

    struct Columns {
        int64_t first, last;  // window-relative, inclusive
    };
    // touched_ in order, and the next of its runs from index `next` on, not
    // left of `column`, merged with any it overlaps or abuts; {width, width
    // - 1} past the last.
    void sort_touched()
    {
        sort_mostly_sorted(touched_, [](const Columns &a, const Columns &b) {
            return a.first < b.first || (a.first == b.first && a.last < b.last);
        });
    }
    Columns next_touched(size_t &next, int64_t column) const
    {
        if (next >= touched_.size()) return {window_.width, window_.width - 1};
        Columns run{std::max(touched_[next].first, column), touched_[next].last};
        while (++next < touched_.size() && touched_[next].first <= run.last + 1) {
            run.last = std::max(run.last, touched_[next].last);
        }
        return run;
    }
    struct Step {
        int64_t column;  // absolute; from here on every column changes by delta
        double delta;
    };

    // crossed_ for the columns whose open cell an edge piece spanning
    // abscissae [lo, hi] passes through (exact_zeros_ only).
    template <class X>
    void mark_open(X lo, X hi)
    {
        int64_t first, last;
        detail::open_cells(lo, hi, window_.col0, window_.col0 + window_.width, first, last);
        if (first <= last) {
            std::fill(crossed_.begin() + (first - window_.col0), crossed_.begin() + (last - window_.col0) + 1,
                      uint8_t{1});
        }
    }

    // Columns whose closed cell [c - 1/2, c + 1/2] meets [x_min, x_max], one
    // extra each side against rounding of the interpolated ends.
    // Returns the run (empty when first > last).
    Columns mark(double x_min, double x_max)
    {
        const int64_t end = window_.col0 + window_.width;
        const int64_t first = floor_clamped(x_min - 0.5, window_.col0, end);
        const int64_t last = detail::ceil_clamped(x_max + 0.5, window_.col0 - 1, end - 1);
        const Columns run{first - window_.col0, last - window_.col0};
        if (first <= last) touched_.push_back(run);
        return run;
    }

    // The piece [ya, yb] of the strip between two vertex ordinates: every
    // edge in current_ spans it.  Each edge is a left boundary of the inside
    // (sign -1), a right one (+1) or neither (0, nonzero only); the sign
    // depends on the edges left of it, so it changes only where the edge
    // crosses another (vertices add or remove edges in pairs of opposite
    // winding, which changes neither parity nor winding count further
    // right).  The order at ya gives every sign; re-sorting by x at yb
    // yields each crossing as a swap.  An edge's integral is taken only
    // where its sign changes (flush), so a piece costs its edges and its
    // crossings, and an edge the cells it passes: O(edges + crossings).
    POLYMASK_FLATTEN void add_piece(double ya, double yb);

    // Integrate `edge` from its y_from to y (where x is x_to) under the sign
    // it has had since, and start its next stretch there.
    void flush(EdgeState &edge, double y, Wide x_to)
    {
        if (edge.sign != 0 && y > edge.y_from) integrate(edge, edge.y_from, y, edge.sign, edge.x_from, x_to);
        edge.y_from = y;
        edge.x_from = x_to;
    }

    // Add sign * integral over [y0, y1] of clamp(x(y) - c, -1/2, 1/2) to
    // every column c: +sign*h/2 for columns left of the edge (a constant,
    // base_), -sign*h/2 right of it (a step in steps_), the exact mean for
    // the columns it passes.
    void integrate(const EdgeState &edge, double y0, double y1, int sign, Wide a, Wide b);

    struct Event {
        double y;
        int32_t index;  // the edge's position at the piece's top
        int32_t delta;  // change of the edge's left count at y
    };
    const std::vector<Segment> &segments_;
    const Window &window_;
    FillRule rule_;
    bool exact_zeros_;
    std::vector<double> area_;      // partial areas per column, zero outside touched runs
    // 1 where an edge passes through the open cell (exact_zeros_), else
    // where some edge piece reached the closed cell.
    std::vector<uint8_t> crossed_;
    // A difference array of full-cell heights: from column c on every
    // column changes by step_[c] (window-relative, zero between rows), and
    // the steps left of the window, kept apart.
    std::vector<double> step_;
    std::vector<Step> steps_left_;
    std::vector<Columns> touched_;  // runs of columns some edge passes
    std::vector<double> breaks_;  // the general sweep's piece ends
    std::vector<Event> events_, by_edge_;  // a piece's crossings, as found and by edge
    std::vector<size_t> first_event_, fill_at_;
    std::vector<Crossing> current_;  // the edges spanning the current piece
    static bool ordered(const SimpleEdge &a, const SimpleEdge &b);
    bool follow_simple(double y_bottom, const std::vector<int32_t> &active);
    bool build_simple(double y_top, double y_bottom, std::vector<int32_t> &active);
    void edge_run(Wide x_top, Wide x_bottom, int sign, EdgeRun &run) const;
    static double right_share(const EdgeRun &edge, int64_t k);
    static double first_share(const EdgeRun &edge);
    static double last_share(const EdgeRun &edge);
    template <class Value, class Convert>
    void write_run(const EdgeRun &edge, int inside, Value *out, Convert convert);
    template <class Value, class Convert>
    int store_cluster(const EdgeRun *begin, const EdgeRun *end, int64_t first, int64_t last, int inside, Value *line,
                      Convert convert);
    std::vector<SimpleEdge> simple_;  // the edges of a simple row in x order, or a cut row's by piece
    std::vector<EdgeRun> runs_;       // a simple row's runs in x order, or a cut row's by piece
    bool simple_row_ = false;         // the last row was swept by sweep_simple
    bool pieces_row_ = false;         // ... by sweep_pieces
    std::vector<Piece> pieces_;       // a cut row's pieces, top to bottom
    std::vector<double> piece_ends_;  // their ordinates
    std::vector<int64_t> gap_breaks_; // columns where an edge on a cell side changes the inside
    // simple_[0, follow_size_) holds the edges at the bottom of row
    // simple_last_row_ (simple, or cut: its bottom piece) while simple_valid_.
    bool simple_valid_ = false;
    int64_t simple_last_row_ = 0;
    size_t follow_size_ = 0;
    // crossed_value's bounds: an edge through the open cell leaves at least
    // floor_ (exact_zeros_), and values below snap_ are rounding (otherwise).
    double floor_, snap_;
    std::vector<EdgeState> state_;   // every edge of the row's strip, by slot
    struct Leaving {
        double y;  // the edge's lower end, inside the strip
        int32_t segment, slot;
    };
    std::vector<int32_t> starting_;  // slots of the edges that begin inside the strip
    std::vector<Leaving> ending_;    // the edges that end inside it
    const Flat *row_flats_begin_ = nullptr, *row_flats_end_ = nullptr;  // the horizontal edges of the row
    detail::InterruptTicker ticker_;
    double base_ = 0.0;  // added to every column of the row
    double y_bottom_ = 0.0;  // the current strip's bottom
};

}  // namespace polymask::detail::coverage_sweep
