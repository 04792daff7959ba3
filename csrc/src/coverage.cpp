// coverage.cpp -- the exact coverage sweep behind polymask.coverage and all_touched.
//
// One row strip y in [row - 1/2, row + 1/2] at a time:
//
//   1. the edges that overlap the strip mark the columns they pass ("touched");
//      every other cell of the row is wholly inside or wholly outside;
//   2. the strip is cut at every vertex inside it into pieces; in a piece
//      every edge spans it, and the crossings of two edges inside it are the
//      swaps of an insertion sort from the order at the piece's top to the
//      order at its bottom;
//   3. the inside length in column c at height y is the sum over edges of
//      sign * clamp(x(y) - c, -1/2, 1/2), sign -1 for an edge that opens an
//      inside run and +1 for one that closes it (0 for neither, nonzero
//      only).  The sign follows from the edges left of it (parity, or the
//      winding count), so it changes only where the edge crosses another:
//      vertices add and remove edges in pairs of opposite winding.  Each edge
//      is therefore integrated once between consecutive crossings of its own,
//      O(edges + crossings) per piece;
//   4. the integral of clamp(x(y) - c, ...) over a stretch where x is linear
//      is a closed form (mean_clamped) for the columns the edge passes; to
//      the columns left of it the edge adds the constant sign * h / 2 (base_)
//      and to those right of it -sign * h / 2 (a step, in a per-column
//      difference array), so a wide inside run costs O(1) plus the columns
//      its edges pass.
//
// At the end of the row, cells an edge passes through take the summed area,
// clamped to [2^-126, 1] (an edge through the open cell always leaves some
// area inside, however little the sums say); all others are exactly 0 or 1.
// That is the open-cell test of touched.cpp (cell_geometry.hpp), so
// coverage > 0 is all_touched exactly; polygons whose edges may overlap along
// a stretch fall back to the sums, with residues below 2^-40 taken as 0.
// Every sum is taken in an order that depends on the geometry only, never on
// the window or the thread count, so windows equal slices bit for bit.
//
// Error: abscissae are interpolated in double (vertices within 2^16) or x87
// extended precision (beyond), then taken relative to the cell, so the error
// per edge piece is a few ulps of |x1 - x0| times h: measured 5e-14 for edges
// 2^21 long through a cell, 4e-12 for edges 2^17 long in double, under the
// promised 1e-10 for coordinates within +-2^20.
#include "polymask/coverage.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cell_geometry.hpp"
#include "checks.hpp"
#include "parallel.hpp"
#include "scanline.hpp"
#include "sorting.hpp"

namespace polymask {

namespace {

using detail::Extended;
using detail::Flat;
using detail::floor_clamped;
using detail::SegmentT;

// Cell values closer than this to 0 or 1 are taken as exactly 0 or 1.  The
// sums of a cell cancel to a few ulps (1e-16) where the exact area is 0 or 1
// (self-intersections cut pieces at rounded ordinates); 2^-40 (9.1e-13) is far
// above that and far below the promised 1e-10, so fractions stay within their
// bound, and all_touched ignores overlaps smaller than 2^-40 of a cell.
constexpr double kResidue = 0x1p-40;

// The least value a cell an edge passes through gets: the smallest normal
// float, so it stays > 0 in float32 output too.  It is below any bound on
// the fractions' error, and only cells whose true area is below 1e-12 get it.
constexpr double kTiny = 0x1p-126;

// Mean of clamp(x, -1/2, 1/2) as x runs linearly from a to b (a <= b),
// given inverse_span = 1 / (b - a), or 0 where b - a is 0 or below 2^-900
// (then x is taken as constant: an error below 2^-900).  A multiplication by
// the piece's one reciprocal, not two divisions per cell: the divisions'
// latency was a sixth of the coverage sweep on the random 1,000-vertex
// polygon.
double mean_clamped(double a, double b, double inverse_span)
{
    if (b <= -0.5) return -0.5;
    if (a >= 0.5) return 0.5;
    const double below = a < -0.5 ? (-0.5 - a) * inverse_span : 0.0;  // share of the run left of the cell
    const double above = b > 0.5 ? (b - 0.5) * inverse_span : 0.0;    // share right of it
    const double middle = 1.0 - below - above;
    const double middle_mean = 0.5 * (std::max(a, -0.5) + std::min(b, 0.5));
    return 0.5 * (above - below) + middle * middle_mean;
}

template <class Wide>
struct CrossingT {
    double key;    // x where the order is taken
    double other;  // tie-break: x at the other end of the piece
    int32_t segment;
    int left;      // edges (even-odd) or winding (nonzero) left of it at the piece's top
    int32_t index; // its position at the piece's top
    int32_t slot;  // its EdgeState in the row (RowSweep::state_)
    Wide x_top, x_bottom;  // x at the piece's top and bottom, unrounded
};

// What the row's sweep keeps of an edge while it crosses the strip: the
// stretch [y_from, now) not yet integrated, all of one boundary sign.
// Integrals are taken only where the sign changes (a crossing) or the edge
// leaves, so an edge costs the cells it passes, however many vertices of
// other edges cut the strip into pieces on its way.
template <class Wide>
struct EdgeStateT {
    int32_t segment;
    int sign;        // boundary sign since y_from (see boundary_sign); kLeft once gone
    double y_from;
    Wide x_from;     // x at y_from
    Wide x_next;     // x at the top of the next piece
    Wide x_strip_bottom;  // x where the edge leaves the strip, min(y1, row + 1/2)
    int64_t marked_first, marked_last;  // the columns sweep() marked for it (window-relative)
};

template <class Crossing>
bool crossing_less(const Crossing &a, const Crossing &b)
{
    // The segment index breaks exact ties, so the order (and with it the
    // order of floating-point sums) never depends on which rows came before.
    if (a.key != b.key) return a.key < b.key;
    if (a.other != b.other) return a.other < b.other;
    return a.segment < b.segment;
}


// Sort by (key, other); calls swapped(a, b) for every pair it swaps.
template <class Crossing, class OnSwap>
void insertion_sort(std::vector<Crossing> &items, OnSwap swapped)
{
    const auto by_key = [](const Crossing &a, const Crossing &b) {
        return a.key < b.key || (a.key == b.key && a.other < b.other);
    };
    detail::insertion_sort(items.data(), items.size(), by_key, detail::kUnlimitedMoves,
                           [&](const auto &sorted, size_t j, const Crossing &item) { swapped(sorted[j], item); });
}

// Sort by `less`, a strict total order on the values that matter (so the
// result does not depend on the input order): insertion sort while the input
// proves nearly sorted, std::sort (which, unlike stable_sort, allocates
// nothing) once a linear budget of moves is spent, e.g. on two sorted runs
// one after the other.
template <class Item, class Less>
void sort_mostly_sorted(std::vector<Item> &items, Less less)
{
    if (!detail::insertion_sort(items.data(), items.size(), less, 4 * items.size() + 32)) {
        std::sort(items.begin(), items.end(), less);
    }
}

// Per-thread buffers for one row of the window.
template <class Wide>
class RowSweep {
    using Segment = SegmentT<Wide>;
    using Crossing = CrossingT<Wide>;
    using EdgeState = EdgeStateT<Wide>;
    static constexpr int kLeft = 2;  // EdgeState::sign of an edge that has left the strip

public:
    // exact_zeros: the polygon has no edges overlapping along a stretch
    // (detail::may_overlap is false), so a cell has positive area iff an
    // edge passes through its open interior or it lies wholly inside; see
    // store().
    RowSweep(const std::vector<Segment> &segments, const Window &window, FillRule rule, bool exact_zeros)
        : segments_(segments), window_(window), rule_(rule), exact_zeros_(exact_zeros),
          area_(static_cast<size_t>(window.width), 0.0), crossed_(static_cast<size_t>(window.width), 0),
          step_(static_cast<size_t>(window.width), 0.0)
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
        y_top_ = y_top;
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

    // Write the row into line[0, width): touched cells get their area
    // (clamped to [0, 1]), the runs between them exactly 0 or 1, written as
    // spans.  area_ is cleared on the way, ready for the next row.
    template <class Value, class Convert>
    void store(Value *line, Convert convert, bool zeroed)
    {
        // Both lists come in runs sorted by x (edges are visited in x order),
        // usually nearly sorted as a whole; stable_sort allocated every row.
        sort_mostly_sorted(touched_, [](const Columns &a, const Columns &b) {
            return a.first < b.first || (a.first == b.first && a.last < b.last);
        });
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
            // The next touched run (merged with any it overlaps or abuts), or none.
            int64_t first = window_.width, last = window_.width - 1;
            if (k < touched_.size()) {
                first = std::max(touched_[k].first, column);
                last = touched_[k].last;
                while (++k < touched_.size() && touched_[k].first <= last + 1) last = std::max(last, touched_[k].last);
            }
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
                double value = area_[column] + running;
                if (exact_zeros_) {
                    if (!crossed_[column]) {
                        // No edge passes through the open cell: it is wholly
                        // in or out, whatever the sums' rounding (1e-17).
                        value = value > 0.5 ? 1.0 : 0.0;
                    } else {
                        // An edge passes through it: some area is inside,
                        // however little the sums say (an edge grazing a
                        // corner cuts off 1e-20), so > 0 stays all_touched.
                        if (value > 1.0 - kResidue) value = 1.0;
                        if (!(value >= kTiny)) value = kTiny;
                    }
                } else {
                    if (!crossed_[column]) {
                        // Marked, but no edge piece reached the closed cell:
                        // it is wholly in or out, and the running sum's
                        // rounding (1e-17) must not turn 0 into "touched".
                        value = running > 0.5 ? 1.0 : 0.0;
                    }
                    // A few ulps left by summing pieces that cancel exactly
                    // (edges crossing inside the cell, or overlapping) are
                    // not area: 0 and 1 stay exact.
                    if (value < kResidue) value = 0.0;  // NaN stays, and becomes 0 below
                    if (value > 1.0 - kResidue) value = 1.0;
                }
                area_[column] = 0.0;
                crossed_[column] = 0;
                line[column] = convert(value > 0.0 ? (value < 1.0 ? value : 1.0) : 0.0);  // NaN -> 0
            }
        }
    }

private:
    struct Columns {
        int64_t first, last;  // window-relative, inclusive
    };
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
    POLYMASK_FLATTEN void add_piece(double ya, double yb)
    {
        if (current_.empty()) return;
        ticker_.tick(static_cast<int64_t>(current_.size()));
        for (Crossing &c : current_) {
            const EdgeState &edge = state_[c.slot];
            const Wide x_top = edge.x_next;
            const Wide x_bottom = yb == y_bottom_ ? edge.x_strip_bottom : segments_[c.segment].x_at(yb);
            c.key = static_cast<double>(x_top);
            c.other = static_cast<double>(x_bottom);
            c.x_top = x_top;
            c.x_bottom = x_bottom;
        }
        sort_mostly_sorted(current_, crossing_less<Crossing>);
        const bool even_odd = rule_ == FillRule::even_odd;
        int left = 0;  // edges (even-odd) or winding (nonzero) left of the current one
        bool crossing = false;
        for (size_t k = 0; k < current_.size(); ++k) {
            Crossing &c = current_[k];
            c.left = left;
            c.index = static_cast<int32_t>(k);
            const int winding = segments_[c.segment].winding;
            EdgeState &edge = state_[c.slot];
            const int sign = boundary_sign(left, winding, even_odd);
            if (sign != edge.sign) {
                flush(edge, ya, c.x_top);
                edge.sign = sign;
            }
            left += even_odd ? 1 : winding;
            crossing = crossing || (k > 0 && current_[k - 1].other > c.other);
        }
        // No two edges cross inside the piece (the usual case: no adjacent
        // pair is out of order at yb): each edge keeps its sign to yb.
        if (!crossing) {
            for (const Crossing &c : current_) state_[c.slot].x_next = c.x_bottom;
            return;
        }
        events_.clear();
        for (Crossing &c : current_) std::swap(c.key, c.other);
        insertion_sort(current_, [&](const Crossing &l, const Crossing &r) {
            // l was left of r at ya and is right of it at yb: they cross.
            const double gap_top = r.other - l.other;  // >= 0
            const double gap_bottom = l.key - r.key;   // >= 0
            double y = ya + (yb - ya) * (gap_top / (gap_top + gap_bottom));
            y = y > ya ? (y < yb ? y : yb) : ya;  // also maps NaN (identical edges) to ya
            events_.push_back({y, l.index, even_odd ? 1 : segments_[r.segment].winding});
            events_.push_back({y, r.index, even_odd ? -1 : -segments_[l.segment].winding});
            ticker_.tick(2);
        });
        // Each edge's crossings, by its position at ya (a counting sort:
        // std::sort of all of them was a fifth of a piece's time), then by
        // ordinate within an edge (few each, as a rule).
        const size_t n_edges = current_.size();
        first_event_.assign(n_edges + 1, 0);
        for (const Event &event : events_) ++first_event_[static_cast<size_t>(event.index) + 1];
        for (size_t k = 0; k < n_edges; ++k) first_event_[k + 1] += first_event_[k];
        by_edge_.resize(events_.size());
        fill_at_.assign(first_event_.begin(), first_event_.end() - 1);
        for (const Event &event : events_) by_edge_[fill_at_[static_cast<size_t>(event.index)]++] = event;
        ticker_.tick(static_cast<int64_t>(events_.size()));
        for (const Crossing &c : current_) {
            const Segment &seg = segments_[c.segment];
            EdgeState &edge = state_[c.slot];
            Event *const begin = by_edge_.data() + first_event_[static_cast<size_t>(c.index)];
            Event *const end = by_edge_.data() + first_event_[static_cast<size_t>(c.index) + 1];
            const auto earlier = [](const Event &a, const Event &b) { return a.y < b.y; };
            if (end - begin > 16) {
                std::sort(begin, end, earlier);
            } else {
                for (Event *e = begin + 1; e < end; ++e) {
                    const Event event = *e;
                    Event *at = e;
                    for (; at > begin && earlier(event, at[-1]); --at) *at = at[-1];
                    *at = event;
                }
            }
            int count = c.left;
            for (const Event *e = begin; e != end; ++e) {
                count += e->delta;
                const int sign = boundary_sign(count, seg.winding, even_odd);
                if (sign != edge.sign) {
                    const double y = e->y;
                    flush(edge, y, y == ya ? c.x_top : (y == yb ? c.x_bottom : seg.x_at(y)));
                    edge.sign = sign;
                }
            }
            edge.x_next = c.x_bottom;
        }
    }

    // Integrate `edge` from its y_from to y (where x is x_to) under the sign
    // it has had since, and start its next stretch there.
    void flush(EdgeState &edge, double y, Wide x_to)
    {
        if (edge.sign != 0 && y > edge.y_from) integrate(edge, edge.y_from, y, edge.sign, edge.x_from, x_to);
        edge.y_from = y;
        edge.x_from = x_to;
    }

    // -1: the edge opens an inside run (left boundary); +1: it closes one.
    static int boundary_sign(int left, int winding, bool even_odd)
    {
        if (even_odd) return (left & 1) ? 1 : -1;
        const bool was_inside = left != 0, inside = left + winding != 0;
        return was_inside == inside ? 0 : (inside ? -1 : 1);
    }

    // Add sign * integral over [y0, y1] of clamp(x(y) - c, -1/2, 1/2) to
    // every column c: +sign*h/2 for columns left of the edge (a constant,
    // base_), -sign*h/2 right of it (a step in steps_), the exact mean for
    // the columns it passes.
    void integrate(const EdgeState &edge, double y0, double y1, int sign, Wide a, Wide b)
    {
        const double height = y1 - y0;
        if (sign == 0 || !(height > 0.0)) return;
        const double signed_height = sign * height;
        // Columns in absolute terms, clamped only far away: what is summed,
        // and in which order, must not depend on the window.
        constexpr int64_t far = int64_t{1} << 60;
        const int64_t first = detail::ceil_clamped(static_cast<double>(std::min(a, b) - 0.5), -far, far);
        const int64_t last = floor_clamped(static_cast<double>(std::max(a, b) + 0.5), -far, far);
        const int64_t hi = window_.col0 + window_.width;
        base_ += 0.5 * signed_height;
        // The step is at last + 1: inside the edge's marked run or just after
        // it (the run is pushed below when not), as store() requires.
        if (last + 1 < hi) {
            if (last + 1 > window_.col0) {
                step_[last + 1 - window_.col0] -= signed_height;
            } else {
                steps_left_.push_back({last + 1, -signed_height});
            }
        }
        const int64_t begin = std::max(first, window_.col0), end = std::min(last, hi - 1);
        if (begin > end) return;
        ticker_.tick(end - begin + 1);
        // Abscissae relative to the edge's own first column, formed once in
        // Wide: small numbers from here on, so plain double loses nothing
        // that matters, and the anchor (unlike the window) is the same for
        // every window, so windows equal slices bit for bit.
        const int64_t anchor = first;
        const Wide origin = static_cast<Wide>(anchor);
        double low = static_cast<double>(a - origin), high = static_cast<double>(b - origin);
        if (low > high) std::swap(low, high);
        const double inverse_span = high - low > 0x1p-900 ? 1.0 / (high - low) : 0.0;
        double *area = area_.data() + (begin - window_.col0);
        // These columns are nearly always marked already; on absurd input (a
        // slope that overflows) x need not stay between the piece's ends, and
        // area_ and crossed_ must only ever be written inside touched runs,
        // which store() clears.
        // Inside the run sweep() marked for this edge (nearly always): a
        // second, overlapping run would only make store()'s sort costlier.
        const Columns run{begin - window_.col0, end - window_.col0};
        if (run.first < edge.marked_first || run.last > edge.marked_last) touched_.push_back(run);
        if (!exact_zeros_) {
            std::fill(crossed_.begin() + (begin - window_.col0), crossed_.begin() + (end - window_.col0) + 1,
                      uint8_t{1});
        }
        for (int64_t k = 0; k <= end - begin; ++k) {
            const double offset = static_cast<double>(begin + k - anchor);
            const double a_k = low - offset, b_k = high - offset;
            double mean;
            if (a_k < -0.5 && b_k > 0.5) {
                // The edge crosses the whole cell: the mean of x over the part
                // inside it is 0, so only the shares left and right count.
                mean = 0.5 * ((b_k - 0.5) - (-0.5 - a_k)) * inverse_span;
            } else {
                mean = mean_clamped(a_k, b_k, inverse_span);
            }
            area[k] += signed_height * (mean - 0.5);
        }
    }

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
    std::vector<double> breaks_;
    std::vector<Event> events_, by_edge_;  // a piece's crossings, as found and by edge
    std::vector<size_t> first_event_, fill_at_;
    std::vector<Crossing> current_;  // the edges spanning the current piece
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
    double y_top_ = 0.0, y_bottom_ = 0.0;  // the current strip
};

// Rows per chunk of parallel_for for a team of threads: each chunk sorts
// its first row from scratch, so chunks are not too small (16 rows, each
// chunk then also building its own sweep, spent a tenth of the time
// there), yet a 4096-row window still makes 64.  A lone thread needs chunks
// only for the interrupt checks, so it cuts as coarsely as the mask's bands
// do (chunks_for_work): in 64-row chunks the smooth 1,000-vertex outline at
// 4096x4096 spent a tenth of its coverage on them (csrc/bench/STEPS.md).
constexpr int64_t kRowsPerChunk = 64;

// The sweep's work over `window` in parallel.hpp's pixel units, for the
// thread count (one raster) and the plan of a batch (coverage_crops): a few
// units a cell, and about a thousand an (edge, row) pair, its piece and the
// areas of the cells it passes.  Measured on 12 random vertices, one thread
// against two: 260x260 88 against 126 us (so one), 400x400 151 against
// 137 us; the random 1,000-vertex polygon costs about 2,500 units a pair,
// so the estimate errs towards one thread.
double coverage_work(const Polygon &polygon, const Window &window)
{
    const double cells = static_cast<double>(window.height) * static_cast<double>(window.width);
    return 4.0 * cells + 1000.0 * detail::crossings_in_window(polygon.edges_by_y(), window);
}

template <class Wide, class Store>
void sweep_window(const Polygon &polygon, const Window &window, FillRule rule, int threads, Store store_row)
{
    using Segment = SegmentT<Wide>;
    if (window.height < 0 || window.width < 0) {
        throw std::invalid_argument("polymask::coverage: window height and width must be >= 0");
    }
    if (window.height == 0 || window.width == 0) return;
    detail::check_finite_vertices(polygon, "polymask::coverage");
    std::vector<Segment> segments;
    std::vector<Flat> flats;
    detail::cell_edges(polygon, segments, flats);
    const bool exact_zeros = detail::edges_decide_touch(polygon, segments, flats);

    // Threads only when the work pays for waking them, and a lone thread in
    // coarse chunks (see kRowsPerChunk).  A window of one chunk's rows or fewer
    // (each small crop of coverage_crops) is one chunk either way, so it
    // needs no estimate.
    int team = 1;
    int64_t rows_per_chunk = window.height;
    if (window.height > kRowsPerChunk) {
        const double work = coverage_work(polygon, window);
        team = threads == 1 ? 1 : detail::threads_for_work(threads, work);
        rows_per_chunk = kRowsPerChunk;
        if (team == 1) {
            const int64_t lone_chunks = detail::chunks_for_work(1, work, window.height);
            rows_per_chunk = (window.height + lone_chunks - 1) / lone_chunks;
        }
    }
    const int64_t n_chunks = (window.height + rows_per_chunk - 1) / rows_per_chunk;
    // One sweep (its per-column buffers, three of the window's width) per
    // thread of the team, built by the first chunk that claims it and reused
    // by the next: at most `team` chunks run at once, so a chunk always finds
    // one free.  Building one per 64-row chunk cost the smooth outline
    // about 5% with two threads (csrc/bench/STEPS.md).  A chunk that throws
    // (bad_alloc) keeps its slot, whose sums may be half made: the job then
    // stops and starts no chunk that could need it.
    struct Slot {
        std::atomic<bool> busy{false};
        std::unique_ptr<RowSweep<Wide>> sweep;
    };
    const int slot_count = static_cast<int>(std::min<int64_t>(team, n_chunks));
    std::unique_ptr<Slot[]> slots(new Slot[static_cast<size_t>(slot_count)]);
    const auto chunk_top = [&](int64_t chunk) { return static_cast<double>(window.row0 + chunk * rows_per_chunk) - 0.5; };
    const auto chunk_bottom = [&](int64_t chunk) {
        return static_cast<double>(std::min(window.row0 + (chunk + 1) * rows_per_chunk, window.row0 + window.height)) -
               0.5;
    };
    // The segments each chunk's rows can reach, in order of their top, as
    // one list per chunk (offsets into reaching): one pass over the
    // segments, where a scan per chunk cost every chunk all the segments
    // above it (a quarter of the sweep for 10^6 vertices on 32 chunks).
    std::vector<int64_t> first_of_chunk(static_cast<size_t>(n_chunks) + 1, 0);
    std::vector<int32_t> reaching;
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<int64_t> filled(first_of_chunk.begin(), first_of_chunk.end() - 1);
        for (size_t s = 0; s < segments.size(); ++s) {
            const Segment &seg = segments[s];
            // Chunks whose rows' strips meet (y0, y1), with a chunk's margin
            // against the division's rounding; the exact test decides.
            const double span = static_cast<double>(rows_per_chunk);
            const int64_t first = floor_clamped((seg.y0 + 0.5 - static_cast<double>(window.row0)) / span - 1.0, 0,
                                                n_chunks - 1);
            const int64_t last = floor_clamped((seg.y1 + 0.5 - static_cast<double>(window.row0)) / span + 1.0, 0,
                                               n_chunks - 1);
            for (int64_t c = first; c <= last; ++c) {
                if (!(seg.y0 < chunk_bottom(c) && seg.y1 > chunk_top(c))) continue;
                if (pass == 0) {
                    ++first_of_chunk[static_cast<size_t>(c) + 1];
                } else {
                    reaching[static_cast<size_t>(filled[static_cast<size_t>(c)]++)] = static_cast<int32_t>(s);
                }
            }
        }
        if (pass == 0) {
            for (size_t c = 1; c < first_of_chunk.size(); ++c) first_of_chunk[c] += first_of_chunk[c - 1];
            reaching.resize(static_cast<size_t>(first_of_chunk.back()));
        }
    }
    // Horizontal edges by ordinate: each row takes those in its closed strip.
    std::sort(flats.begin(), flats.end(), [](const Flat &a, const Flat &b) { return a.y < b.y; });
    detail::parallel_for(n_chunks, team, [&](int64_t chunk) {
        const int64_t row_begin = window.row0 + chunk * rows_per_chunk;
        const int64_t row_end = std::min(row_begin + rows_per_chunk, window.row0 + window.height);
        const int32_t *const candidates = reaching.data() + first_of_chunk[static_cast<size_t>(chunk)];
        const int64_t n_candidates = first_of_chunk[static_cast<size_t>(chunk) + 1] - first_of_chunk[static_cast<size_t>(chunk)];
        const Flat *flats_begin = std::lower_bound(flats.data(), flats.data() + flats.size(), chunk_top(chunk),
                                                   [](const Flat &f, double y) { return f.y < y; });
        const Flat *flats_end = flats_begin;
        const Flat *const flats_last = flats.data() + flats.size();
        int claimed = static_cast<int>(chunk % slot_count);
        while (slots[claimed].busy.exchange(true, std::memory_order_acquire)) claimed = (claimed + 1) % slot_count;
        Slot &slot = slots[claimed];
        if (!slot.sweep) slot.sweep = std::make_unique<RowSweep<Wide>>(segments, window, rule, exact_zeros);
        RowSweep<Wide> &sweep = *slot.sweep;
        std::vector<int32_t> active;
        int64_t next = 0;
        for (int64_t row = row_begin; row < row_end; ++row) {
            const double y_top = static_cast<double>(row) - 0.5, y_bottom = static_cast<double>(row) + 0.5;
            active.erase(std::remove_if(active.begin(), active.end(),
                                        [&](int32_t s) { return segments[s].y1 <= y_top; }),
                         active.end());
            while (next < n_candidates && segments[candidates[next]].y0 < y_bottom) {
                if (segments[candidates[next]].y1 > y_top) active.push_back(candidates[next]);
                ++next;
            }
            while (flats_begin != flats_last && flats_begin->y < y_top) ++flats_begin;
            if (flats_end < flats_begin) flats_end = flats_begin;
            while (flats_end != flats_last && flats_end->y <= y_bottom) ++flats_end;
            if (active.empty() && flats_begin == flats_end) {
                store_row(row, static_cast<RowSweep<Wide> *>(nullptr));
                continue;
            }
            sweep.use_flats(flats_begin, flats_end);
            sweep.sweep(row, active);
            store_row(row, &sweep);
        }
        slot.busy.store(false, std::memory_order_release);
    });
}

// Run the sweep in double when every vertex is within 2^16, else in Extended.
template <class Store>
void sweep_any(const Polygon &polygon, const Window &window, FillRule rule, int threads, Store store_row)
{
    if (detail::double_is_enough(polygon)) {
        sweep_window<double>(polygon, window, rule, threads, store_row);
    } else {
        sweep_window<Extended>(polygon, window, rule, threads, store_row);
    }
}

}  // namespace

template <class Value>
void coverage(const Polygon &polygon, const Window &window, Value *out, int64_t row_stride, FillRule rule,
              int threads, bool zeroed)
{
    detail::check_window("polymask::coverage", window, out, row_stride);
    sweep_any(polygon, window, rule, threads, [&](int64_t row, auto *sweep) {
        Value *line = out + (row - window.row0) * row_stride;
        if (sweep == nullptr) {
            if (!zeroed) std::fill(line, line + window.width, Value(0));
            return;
        }
        sweep->store(line, [](double value) {
            if constexpr (std::is_same_v<Value, uint8_t>) {
                // value is in [0, 1] here, so truncation is the floor (and
                // no libm call per cell, which took a twelfth of the sweep).
                return static_cast<uint8_t>(static_cast<int>(value * 255.0 + 0.5));
            } else {
                return static_cast<Value>(value);
            }
        }, zeroed);
    });
}

template <class Value>
void coverage_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, Value *out,
                    const int64_t *offsets, FillRule rule, int threads)
{
    if (n_polygons < 0) throw std::invalid_argument("polymask::coverage_crops: negative polygon count");
    if (n_polygons == 0) return;
    if (polygons == nullptr || boxes == nullptr || offsets == nullptr) {
        throw std::invalid_argument("polymask::coverage_crops: null pointer");
    }
    // Every input checked on the calling thread, before any work starts.
    const auto has_cells = [boxes](int64_t p) { return boxes[p].height > 0 && boxes[p].width > 0; };
    for (int64_t p = 0; p < n_polygons; ++p) {
        if (!has_cells(p)) continue;
        if (out == nullptr) throw std::invalid_argument("polymask::coverage_crops: null output pointer");
        detail::check_finite_vertices(polygons[p], "polymask::coverage_crops");
    }
    // A crop's work: its sweep's (coverage_work), plus its own bookkeeping.
    const auto work_of = [&](int64_t p) {
        const MaskBox &box = boxes[p];
        return has_cells(p) ? 64.0 + coverage_work(polygons[p], Window{box.row0, box.col0, box.height, box.width})
                            : 64.0;
    };
    detail::for_items(n_polygons, threads, work_of, [&](int64_t p) {
        if (!has_cells(p)) return;
        const MaskBox &box = boxes[p];
        coverage<Value>(polygons[p], Window{box.row0, box.col0, box.height, box.width}, out + offsets[p], box.width,
                        rule, 1, true);
    });
}

void detail::fill_touched_by_area(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride,
                                  FillRule rule, int threads)
{
    detail::check_window("polymask::fill_touched", window, out, row_stride);
    sweep_any(polygon, window, rule, threads, [&](int64_t row, auto *sweep) {
        uint8_t *line = out + (row - window.row0) * row_stride;
        if (sweep == nullptr) {
            std::fill(line, line + window.width, uint8_t{0});
            return;
        }
        sweep->store(line, [](double value) { return static_cast<uint8_t>(value > 0.0 ? 1 : 0); }, false);
    });
}

template void coverage<double>(const Polygon &, const Window &, double *, int64_t, FillRule, int, bool);
template void coverage<float>(const Polygon &, const Window &, float *, int64_t, FillRule, int, bool);
template void coverage<uint8_t>(const Polygon &, const Window &, uint8_t *, int64_t, FillRule, int, bool);
template void coverage_crops<double>(const Polygon *, int64_t, const MaskBox *, double *, const int64_t *, FillRule,
                                     int);
template void coverage_crops<float>(const Polygon *, int64_t, const MaskBox *, float *, const int64_t *, FillRule,
                                    int);
template void coverage_crops<uint8_t>(const Polygon *, int64_t, const MaskBox *, uint8_t *, const int64_t *, FillRule,
                                      int);

}  // namespace polymask
