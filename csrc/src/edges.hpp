// edges.hpp -- a polygon's edge table: the core's own layout, not the API.
//
// Polygon (csrc/include/polymask/core.hpp) keeps its edges in the block
// that holds its vertices, built once by polygon.cpp; every fill reads them
// through edges_by_y.  Beside the sources, not under include/: a user of
// the core never depends on this layout, so it may change.
#pragma once

#include "polymask/core.hpp"

namespace polymask {

// One edge of a ring, kept in its original direction (from vertex j to
// vertex i = j + 1) so x_cross is computed with the contract's operands.
struct Edge {
    double xi, yi, xj, yj;
    double y_low, y_high;  // min and max of yi, yj
    int winding;           // +1 if the edge runs upward in y, -1 otherwise
};

namespace detail {

// The one way into a polygon's edge table (Polygon names it a friend).
struct PolygonEdges {
    static ConstSpan<Edge> of(const Polygon &polygon)
    {
        return {reinterpret_cast<const Edge *>(polygon.edge_table()), polygon.n_edges_};
    }
};

}  // namespace detail

// Non-horizontal edges of all rings, sorted by y_low (horizontal edges
// never cross a row under the half-open rule, so they are dropped).
inline ConstSpan<Edge> edges_by_y(const Polygon &polygon) { return detail::PolygonEdges::of(polygon); }

}  // namespace polymask
