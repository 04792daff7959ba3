// coverage_pieces.hpp -- the small parts of the coverage sweep (coverage.cpp):
// the residue and floor of a cell's value, the mean of a clamped linear
// abscissa over a cell (mean_clamped), what the row sweep keeps of an edge
// (CrossingT, EdgeStateT), and the orderings it sorts them by.  Internal:
// included by coverage_row.hpp only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cell_geometry.hpp"
#include "sorting.hpp"

namespace polymask::detail::coverage_sweep {

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
inline double mean_clamped(double a, double b, double inverse_span)
{
    if (b <= -0.5) return -0.5;
    if (a >= 0.5) return 0.5;
    const double below = a < -0.5 ? (-0.5 - a) * inverse_span : 0.0;  // share of the run left of the cell
    const double above = b > 0.5 ? (b - 0.5) * inverse_span : 0.0;    // share right of it
    const double middle = 1.0 - below - above;
    const double middle_mean = 0.5 * (std::max(a, -0.5) + std::min(b, 0.5));
    return 0.5 * (above - below) + middle * middle_mean;
}

// The same where the run may also cross the whole cell (a < -1/2 and
// b > 1/2): then the mean of x over the part inside the cell is 0, so only
// the shares left and right of it count.
inline double cell_mean(double a, double b, double inverse_span)
{
    if (a < -0.5 && b > 0.5) return 0.5 * ((b - 0.5) - (-0.5 - a)) * inverse_span;
    return mean_clamped(a, b, inverse_span);
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

// An edge's boundary sign from the edges left of it (`left`: their count
// under even-odd, their winding under nonzero): -1 where it opens an inside
// run (a left boundary), +1 where it closes one, 0 for neither.
inline int boundary_sign(int left, int winding, bool even_odd)
{
    if (even_odd) return (left & 1) ? 1 : -1;
    const bool was_inside = left != 0, inside = left + winding != 0;
    return was_inside == inside ? 0 : (inside ? -1 : 1);
}

// Coverage in bytes: value * 255, rounded.  value is in [0, 1] here, so
// truncation is the floor (and no libm call per cell, which took a twelfth
// of the sweep).  The sweep may also hand it a crossed cell's raw sum, which
// is within 2^-40 of [0, 1] (kResidue): such a sum rounds to the byte its
// clamped and snapped value would, so the clamps are skipped
// (kTakesRawSums), taking three selects off each cell's chain.
struct ToByte {
    static constexpr bool kTakesRawSums = true;
    uint8_t operator()(double value) const { return static_cast<uint8_t>(static_cast<int>(value * 255.0 + 0.5)); }
};

// Whether Convert rounds a crossed cell's raw sum as it would its clamped value.
template <class Convert, class = void>
struct TakesRawSums : std::false_type {};
template <class Convert>
struct TakesRawSums<Convert, std::void_t<decltype(Convert::kTakesRawSums)>>
    : std::bool_constant<Convert::kTakesRawSums> {};

// An edge of a simple row strip (or of a piece of one): its x at the
// strip's top and bottom (key, other and x_top, x_bottom as in CrossingT)
// and its boundary sign.
template <class Wide>
struct SimpleEdgeT {
    double key, other;
    int32_t segment;
    int sign;
    Wide x_top, x_bottom;
};

// What a simple strip writes for an edge of nonzero sign: +1 where it opens
// an inside run (-1 where it closes one), its open cells in the window
// [first, last], and its cells [origin, origin + cells) unclipped with its
// abscissae relative to the left side of the first (low, high) and
// 1 / (high - low).
struct EdgeRun {
    int step;
    int64_t first, last, origin, cells;
    double low, high, inverse;
};

// A piece of a row strip cut at vertices: its height, and its edges
// [begin, end) (in the sweep, then its runs in the store) and its inside
// count left of the column the store has reached.
struct Piece {
    double height;
    size_t begin, end;
    int inside;
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

}  // namespace polymask::detail::coverage_sweep
