// coverage_vertex_row.hpp -- the coverage sweep's path for a row strip that
// vertices cut but no two edges cross (RowSweep::sweep_pieces and
// store_pieces).  A smooth outline puts a vertex in a quarter of its rows,
// and each polygon's top and bottom vertices fall in some row; the general
// sweep (coverage_row.hpp) finds crossings there that do not exist.
//
// What changes from the simple row (coverage_simple_row.hpp): the strip is
// cut at every vertex ordinate inside it into pieces, and each piece is a
// simple strip of height h.  In a piece every edge keeps its place in the x
// order, so it adds h times its share (right_share) to the cells it passes,
// and between edges the piece is wholly inside or outside.  A cell no edge
// passes through in any piece lies in one connected part of the plane
// minus the boundary, so it is wholly in or out: exactly 0 or 1.  A cell
// some edge passes through is the pieces' shares, summed in area_ (piece by
// piece from the bottom, edges in x order), plus h of every piece that is
// inside there, taken in the same order: each term depends on the strip
// and the cell alone, so windows equal slices and threads change nothing.
// Internal: included by coverage.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "coverage_simple_row.hpp"

namespace polymask::detail::coverage_sweep {

// Pieces beyond this many take the general sweep, which costs the edges in
// each piece rather than every edge of the row per piece; so do strips
// crossed by more edges than kMostEdges, where a crossing is likely (a
// random 1,000-vertex polygon has hundreds in a row) and pieces built only
// to find one are wasted.
constexpr size_t kMostPieces = 8;
constexpr size_t kMostEdges = 64;

// See RowSweep::sweep_pieces in coverage_row.hpp.
template <class Wide>
bool RowSweep<Wide>::sweep_pieces(int64_t row, std::vector<int32_t> &active)
{
    pieces_row_ = false;
    if (row_flats_begin_ != row_flats_end_ || active.size() > kMostEdges) return false;
    const double y_top = static_cast<double>(row) - 0.5, y_bottom = static_cast<double>(row) + 0.5;
    piece_ends_.clear();
    piece_ends_.push_back(y_top);
    for (int32_t s : active) {
        const Segment &seg = segments_[s];
        if (seg.y0 > y_top) piece_ends_.push_back(seg.y0);
        if (seg.y1 < y_bottom) piece_ends_.push_back(seg.y1);
    }
    // A few ordinates, usually one or two: insertion sort.
    detail::insertion_sort(piece_ends_.data() + 1, piece_ends_.size() - 1, std::less<double>());
    piece_ends_.erase(std::unique(piece_ends_.begin(), piece_ends_.end()), piece_ends_.end());
    if (piece_ends_.back() != y_bottom) piece_ends_.push_back(y_bottom);
    // One piece is a strip sweep_simple has refused already: two edges cross.
    if (piece_ends_.size() == 2 || piece_ends_.size() > kMostPieces + 1) return false;
    pieces_.clear();
    simple_.clear();
    const bool even_odd = rule_ == FillRule::even_odd;
    // Bottom to top: the bottom piece's edges then lead simple_, where the
    // next row follows them (follow_simple).
    for (size_t p = piece_ends_.size() - 1; p-- > 0;) {
        const double ya = piece_ends_[p], yb = piece_ends_[p + 1];
        const size_t begin = simple_.size();
        for (int32_t s : active) {
            const Segment &seg = segments_[s];
            if (seg.y0 > ya || seg.y1 < yb) continue;  // not across this piece
            SimpleEdge &edge = simple_.emplace_back();
            edge.x_top = seg.x_at(ya);
            edge.x_bottom = seg.x_at(yb);
            edge.key = static_cast<double>(edge.x_top);
            edge.other = static_cast<double>(edge.x_bottom);
            edge.segment = s;
        }
        SimpleEdge *const edges = simple_.data() + begin;
        const size_t n = simple_.size() - begin;
        if (!detail::insertion_sort(edges, n, crossing_less<SimpleEdge>, 4 * n + 32)) {
            std::sort(edges, edges + n, crossing_less<SimpleEdge>);
        }
        int left = 0;
        for (size_t k = 0; k < n; ++k) {
            if (k > 0 && edges[k - 1].other > edges[k].other) return false;  // two edges cross in the piece
            const int winding = segments_[edges[k].segment].winding;
            edges[k].sign = boundary_sign(left, winding, even_odd);
            left += even_odd ? 1 : winding;
        }
        pieces_.push_back({yb - ya, begin, simple_.size(), 0});
    }
    ticker_.tick(static_cast<int64_t>(simple_.size()));
    // The next row starts from the order at this one's bottom, and a simple
    // next row with the same edges follows the last piece as it would a
    // simple row: its edges' x at the bottom and their signs.
    active.clear();
    for (size_t k = pieces_.front().begin; k < pieces_.front().end; ++k) active.push_back(simple_[k].segment);
    follow_size_ = pieces_.front().end;
    simple_valid_ = true;
    simple_last_row_ = row;
    pieces_row_ = true;
    return true;
}

// See RowSweep::store_pieces in coverage_row.hpp.
template <class Wide>
template <class Value, class Convert>
void RowSweep<Wide>::store_pieces(Value *line, Convert convert, bool zeroed)
{
    pieces_row_ = false;
    const int64_t col0 = window_.col0;
    // Every piece's runs in x order (its edges of nonzero sign), their
    // shares into area_, and the columns they pass as touched_ runs.
    runs_.clear();
    touched_.clear();
    gap_breaks_.clear();
    for (Piece &piece : pieces_) {
        const size_t first_run = runs_.size();
        for (size_t k = piece.begin; k < piece.end; ++k) {
            const SimpleEdge &edge = simple_[k];
            if (edge.sign == 0) continue;
            EdgeRun &run = runs_.emplace_back();
            edge_run(edge.x_top, edge.x_bottom, edge.sign, run);
            if (run.first > run.last) {
                // On a cell side: no cell to touch, but the inside changes there.
                gap_breaks_.push_back(run.first - col0);
                continue;
            }
            ticker_.tick(run.last - run.first + 1);
            const double height = piece.height * run.step;
            for (int64_t c = run.first; c <= run.last; ++c) {
                area_[c - col0] += height * right_share(run, c - run.origin);
            }
            touched_.push_back({run.first - col0, run.last - col0});
        }
        piece.begin = first_run;  // from here on: the piece's runs
        piece.end = runs_.size();
        piece.inside = 0;
    }
    // Each piece's runs come in x order, the pieces one after the other:
    // nearly sorted, and few.
    sort_touched();
    sort_mostly_sorted(gap_breaks_, std::less<int64_t>());
    // A piece's inside count at window column c: its runs wholly left of c
    // (runs come in order of their last column, as edges do not cross).
    const auto inside_at = [&](Piece &piece, int64_t c) {
        for (; piece.begin < piece.end && runs_[piece.begin].last < c + col0; ++piece.begin) {
            piece.inside += runs_[piece.begin].step;
        }
        return piece.inside;
    };
    const Value outside = convert(0.0), full = convert(1.0);
    int64_t column = 0;  // window-relative from here on
    size_t next = 0, next_break = 0;
    while (column < window_.width) {
        const auto [first, last] = next_touched(next, column);
        while (column < first) {
            // No edge passes through these cells in any piece, so every piece
            // agrees on them; the inside changes only at an edge on a cell side.
            for (; next_break < gap_breaks_.size() && gap_breaks_[next_break] <= column; ++next_break) {
            }
            const int64_t stop = next_break < gap_breaks_.size() ? std::min(first, gap_breaks_[next_break]) : first;
            const int inside = inside_at(pieces_.front(), column);
            if (inside != 0 || !zeroed) std::fill(line + column, line + stop, inside != 0 ? full : outside);
            column = stop;
        }
        for (; column <= last; ++column) {
            double value = area_[column];
            for (Piece &piece : pieces_) value += inside_at(piece, column) != 0 ? piece.height : 0.0;
            line[column] = convert(crossed_value(value, floor_, snap_));
            area_[column] = 0.0;
        }
    }
}

}  // namespace polymask::detail::coverage_sweep
