// bounds.hpp -- a polygon's bounding box, the one way the core computes it.
//
// Two boxes, for two questions: edge_bounds is the box of the edges that
// cross rows (edges_by_y: horizontal ones are dropped), where a centre-rule
// span can be; vertex_bounds is the box of every vertex, where a cell can
// touch the polygon (all_touched, the coverage sweep's origin).  Both keep
// the first value where a NaN compares false, as std::min and std::max do,
// so callers that test a NaN bound see it.  CrossingBox is edge_bounds for
// code that reads edges one by one from the rings (the point indexes), with
// the least rise that x_cross_margin (x_margin.hpp) needs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "polymask/core.hpp"
#include "edges.hpp"

namespace polymask {
namespace detail {

struct Bounds {
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
};

// Edges sorted by y_low (edges_by_y, edges.hpp), at least one: y_min is the
// first edge's y_low.
inline Bounds edge_bounds(ConstSpan<Edge> edges)
{
    Bounds box;
    box.x_min = box.x_max = edges.front().xi;
    box.y_min = edges.front().y_low;
    box.y_max = edges.front().y_high;
    for (const Edge &e : edges) {
        box.x_min = std::min({box.x_min, e.xi, e.xj});
        box.x_max = std::max({box.x_max, e.xi, e.xj});
        box.y_max = std::max(box.y_max, e.y_high);
    }
    return box;
}

// Vertices (x, y) interleaved (Polygon::xy), at least one.
inline Bounds vertex_bounds(ConstSpan<double> xy)
{
    Bounds box;
    box.x_min = box.x_max = xy[0];
    box.y_min = box.y_max = xy[1];
    for (size_t k = 0; k + 1 < xy.size(); k += 2) {
        box.x_min = std::min(box.x_min, xy[k]), box.x_max = std::max(box.x_max, xy[k]);
        box.y_min = std::min(box.y_min, xy[k + 1]), box.y_max = std::max(box.y_max, xy[k + 1]);
    }
    return box;
}

// The box of the edges that cross rows, one edge at a time, and the least
// rise of those edges.  Empty (no edge added): an inverted box, +inf rise.
struct CrossingBox {
    Bounds box{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
               std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    double least_rise = std::numeric_limits<double>::infinity();
    int64_t edges = 0;

    // Adds edge (xi, yi)-(xj, yj) unless it crosses no row: a horizontal edge
    // (or one with a NaN ordinate) is dropped, as Polygon drops it.
    void add(double xi, double yi, double xj, double yj)
    {
        if (!(yi < yj) && !(yi > yj)) return;
        ++edges;
        box.x_min = std::min({box.x_min, xi, xj}), box.x_max = std::max({box.x_max, xi, xj});
        box.y_min = std::min({box.y_min, yi, yj}), box.y_max = std::max({box.y_max, yi, yj});
        least_rise = std::min(least_rise, std::fabs(yi - yj));
    }
};

}  // namespace detail
}  // namespace polymask
