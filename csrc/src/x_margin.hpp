// x_margin.hpp -- how far outside a polygon's x range the contract's
// x_cross can fall, for the point queries (point_index.cpp, point_labels.cpp).
//
// Internal to the core's sources.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace polymask {
namespace detail {

// Where x_cross can lie: between the edge's end-points up to a few ulps of
// the largest |x| (two roundings of a product, a quotient and a sum).  A
// point farther than this margin right of every vertex meets no crossing
// with px < x_cross; one farther left meets all of them, an even number
// with zero winding (every closed ring crosses a line an even number of
// times, as often upward as downward).  Either way it is outside, exactly.
//
// A product (xj - xi) * (py - yi) below 2^-1022 is subnormal: rounded to
// a multiple of 2^-1074, not to a relative error, and the division by an
// edge's rise scales that absolute error by 1 / rise (an edge rising
// 5e-324 put x_cross 0.5 left of both its end-points): `least_rise`, the
// smallest y_high - y_low of an edge, bounds it.
//
// The bound holds only while the product cannot overflow; it is at most
// the x extent times the y extent (rounding is monotonic).  Coordinates
// beyond about 1e154 can make it +-inf: a crossing right of every point, or
// left of all.  Then the margin is infinite: no x range is trusted.
inline double x_cross_margin(double x_min, double x_max, double y_extent, double least_rise)
{
    const double x_extent = x_max - x_min;
    if (!std::isfinite(4.0 * x_extent) || !std::isfinite(4.0 * x_extent * y_extent)) {
        return std::numeric_limits<double>::infinity();
    }
    // Below a rise of 2^-60 the subnormal term matters; above it, 2^-1000 bounds it
    // (and computing it would cost a subnormal division per polygon of a label set).
    const double subnormal = least_rise < 0x1p-60 ? 4.0 * (0x1p-1074 / least_rise) : 0x1p-1000;
    return std::max(std::fabs(x_min), std::fabs(x_max)) * 0x1p-40 + 1e-300 + subnormal;
}

}  // namespace detail
}  // namespace polymask
