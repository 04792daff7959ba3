// cell_geometry.hpp -- a polygon's edges as the cell sweeps see them.
//
// Internal to the core's sources.  Both sweeps that reason about whole cells
// (the unit squares [c - 1/2, c + 1/2] x [r - 1/2, r + 1/2] around the
// contract's sample points) start here: coverage.cpp integrates the area of
// each cell inside the region, touched.cpp marks the cells an edge passes
// through (all_touched).  They must take the same abscissae, bit for bit, so
// that `coverage > 0` and all_touched are one predicate: both build their
// edges with cell_edges() and interpolate with SegmentT::x_at.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "polymask/core.hpp"
#include "edges.hpp"
#include "bounds.hpp"
#include "scanline.hpp"
#include "thread_pool.hpp"

// Inline every call in the hot loops of the cell sweeps.  GCC kept
// std::vector::push_back out of line there, and passing each small struct
// through memory to it stalled on store forwarding (a 16-byte load of two
// 8-byte stores): a fifth of the coverage sweep, measured with perf.
#if defined(__GNUC__) || defined(__clang__)
#define POLYMASK_FLATTEN __attribute__((flatten))
#else
#define POLYMASK_FLATTEN
#endif

namespace polymask {
namespace detail {

// Abscissae are interpolated in type Wide (see SegmentT).  Each loses
// about (its distance from the origin) * 2^-53 in double: under 1e-11 while
// every coordinate is within 2^16, so such polygons (nearly all) use double.
// Larger ones use x87 extended precision where the platform has it (64-bit
// mantissa, |x1 - x0| * 2^-64), which keeps coverage's 1e-10 bound for edges
// 2^21 long (measured 1.6e-10 with plain double, 5e-14 extended); it is
// ~1.5x slower.
#if defined(__x86_64__) || defined(__i386__)
using Extended = long double;
#else
using Extended = double;
#endif
constexpr double kDoubleIsEnough = 65536.0;  // 2^16

// A non-horizontal edge with y0 < y1 (the lower end first).
//
// x at ordinate y is one division of an exact-as-possible numerator,
//     x = origin + ((x0 - origin)(y1 - y) + (x1 - origin)(y - y0)) / (y1 - y0),
// with one origin per polygon.  For vertices on a fine dyadic grid (integers,
// halves: the inputs the contract is exact for) the numerator is exact, so x
// is the correctly rounded abscissa of the LINE at y: edges that lie on one
// line (a zero-area spike, a collinear sliver, a ring traced back over
// itself) give bit-identical abscissae, and a correctly rounded x equals a
// cell side c + 1/2 exactly when the line passes through it.  For other
// inputs the error is a few ulps of the polygon's extent around the origin.
template <class Wide>
struct SegmentT {
    double x0, y0, x1, y1;
    int winding;
    double origin;
    Wide dx0, dx1;  // x0 - origin, x1 - origin

    // x on the edge at ordinate y (clamped to the edge); the ends are exact,
    // a vertical edge's x is its own, and x never leaves [x0, x1].  The
    // numerator's two products need not sum to (x - origin) times the height
    // where y0 or y1 is not dyadic (y0 = -0.2 put a vertical edge on the cell
    // side 1.5 at 1.4999999999999996, giving the next cell a residue of area
    // where the exact answer is 0): the line's true x lies in [x0, x1], so
    // clamping only moves x towards it.
    Wide x_at(double y) const
    {
        if (y <= y0) return x0;
        if (y >= y1) return x1;
        if (x0 == x1) return x0;
        const Wide below = static_cast<Wide>(y) - static_cast<Wide>(y0);
        const Wide above = static_cast<Wide>(y1) - static_cast<Wide>(y);
        const Wide x = static_cast<Wide>(origin) +
                       (dx0 * above + dx1 * below) / (static_cast<Wide>(y1) - static_cast<Wide>(y0));
        if (!(x == x)) return Wide(0);  // overflow on absurd input: keep sorting well-defined
        const Wide low = x0 < x1 ? x0 : x1, high = x0 < x1 ? x1 : x0;
        return x < low ? low : (x > high ? high : x);
    }
};

template <class Wide>
SegmentT<Wide> make_segment(double x0, double y0, double x1, double y1, int winding, double origin)
{
    return {x0, y0, x1, y1, winding, origin,
            static_cast<Wide>(x0) - static_cast<Wide>(origin), static_cast<Wide>(x1) - static_cast<Wide>(origin)};
}

// Polls for Ctrl-C (thread_pool.hpp: interruption_point) once every
// kEvery units of a sweep's work: a unit is an edge in a piece, a crossing,
// a column an edge passes, each well under a microsecond, so a sweep checks
// every millisecond or so whatever the input, also inside one band of rows.
// (The check itself reads the clock and polls the caller's hook at most
// every 10 ms.)
class InterruptTicker {
public:
    void tick(int64_t units)
    {
        left_ -= units;
        if (left_ <= 0) {
            left_ = kEvery;
            interruption_point();
        }
    }

private:
    static constexpr int64_t kEvery = int64_t{1} << 14;
    int64_t left_ = kEvery;
};

// A horizontal edge: it bounds area without spanning any height.
struct Flat {
    double y, x_min, x_max;
};

// The floor of x, clamped to [lo, hi] (safe for any double, NaN gives lo).
inline int64_t floor_clamped(double x, int64_t lo, int64_t hi)
{
    return -ceil_clamped(-x, -hi, -lo);
}

// Throws std::invalid_argument, naming `who`, unless every vertex is finite.
inline void check_finite_vertices(const Polygon &polygon, const char *who)
{
    for (double v : polygon.xy()) {
        if (!std::isfinite(v)) throw std::invalid_argument(std::string(who) + ": vertices must be finite");
    }
}

// Whether double abscissae are enough (every |coordinate| <= 2^16).
inline bool double_is_enough(const Polygon &polygon)
{
    double largest = 0.0;
    for (double v : polygon.xy()) largest = std::max(largest, std::fabs(v));  // NaN: ignored, refused later
    return largest <= kDoubleIsEnough;
}

// The polygon's edges for a cell sweep: non-horizontal ones as segments
// (lower end first, in edges_by_y order, so sorted by y0) and horizontal
// ones as flats, with one origin for every segment (see SegmentT): an
// integer in the middle of the polygon's columns, so numerators stay small
// and exact on grids.
template <class Wide>
void cell_edges(const Polygon &polygon, std::vector<SegmentT<Wide>> &segments, std::vector<Flat> &flats)
{
    const ConstSpan<double> xy = polygon.xy();
    const detail::Bounds box = xy.empty() ? detail::Bounds{} : detail::vertex_bounds(xy);
    const double origin = std::floor(0.5 * box.x_min + 0.5 * box.x_max);
    segments.clear();
    segments.reserve(edges_by_y(polygon).size());
    for (const Edge &e : edges_by_y(polygon)) {
        if (e.yi < e.yj) {
            segments.push_back(make_segment<Wide>(e.xi, e.yi, e.xj, e.yj, e.winding, origin));
        } else {
            segments.push_back(make_segment<Wide>(e.xj, e.yj, e.xi, e.yi, e.winding, origin));
        }
    }
    flats.clear();
    int64_t ring_start = 0;
    for (int64_t ring_end : polygon.ring_ends()) {
        for (int64_t i = ring_start, j = ring_end - 1; i < ring_end; j = i++) {
            if (xy[2 * i + 1] == xy[2 * j + 1]) {
                flats.push_back({xy[2 * i + 1], std::min(xy[2 * i], xy[2 * j]), std::max(xy[2 * i], xy[2 * j])});
            }
        }
        ring_start = ring_end;
    }
}

// Columns c of the window whose open cell (c - 1/2, c + 1/2) meets the open
// interval (lo, hi), or the point lo == hi: c - 1/2 < hi and c + 1/2 > lo.
// In double without a libm call (this runs for every edge and row).
inline void open_cells(double lo, double hi, int64_t col0, int64_t col_end, int64_t &first, int64_t &last)
{
    first = detail::floor_clamped(lo - 0.5, col0 - 1, col_end - 1) + 1;
    last = detail::ceil_clamped(hi + 0.5, col0, col_end) - 1;
}

inline void open_cells(long double lo, long double hi, int64_t col0, int64_t col_end, int64_t &first,
                       int64_t &last)
{
    const long double below = std::floor(lo - 0.5L), above = std::ceil(hi + 0.5L);
    first = below < static_cast<long double>(col0 - 1) ? col0 : (below >= static_cast<long double>(col_end - 1) ? col_end : static_cast<int64_t>(below) + 1);
    last = above <= static_cast<long double>(col0) ? col0 - 1 : (above >= static_cast<long double>(col_end) ? col_end - 1 : static_cast<int64_t>(above) - 1);
}

// Beyond this magnitude the contract's x_cross (in double) may overflow or
// err by a sizeable fraction of a pixel (see edges_decide_touch).
constexpr double kContractIsAccurate = 0x1p40;

// Below this magnitude (and not zero) a coordinate can make the product in
// x_cross, dx * (py - yi), underflow to a subnormal and lose its precision.
// With every nonzero coordinate at least 2^-480 in magnitude, a nonzero dx
// is at least 2^-532 (a unit in the last place of 2^-480) and a nonzero
// py - yi at least 2^-480 (py is an integer), so the product is at least
// 2^-1012, a normal number, and x_cross keeps its usual few-ulp error.
// Found by csrc/fuzz: a triangle with a vertex at y = 2^-1074 put x_cross
// at 2.0 instead of 2.5, so the centre rule took a cell with no area.
constexpr double kContractUnderflows = 0x1p-480;

// The polygon with every vertex coordinate that lies within `tolerance` of
// a cell side (a half-integer) moved onto it, or nothing when none moves
// (nearly always: the caller then keeps its own polygon, uncopied).  Only
// coordinates below 2^40 move: there floor(v) + 1/2 is exact, and so is
// v - side (Sterbenz: v and the side are within a factor of two, or the
// side is 1/2 and v within `tolerance` of it), so "within" is decided
// exactly.  Beyond 2^40 the ulps are past any useful tolerance.
inline std::optional<Polygon> with_coordinates_on_cell_sides(const Polygon &polygon, double tolerance)
{
    if (!(tolerance > 0.0)) return std::nullopt;
    const ConstSpan<double> xy = polygon.xy();
    const auto moves = [tolerance](double v, double &side) {
        side = std::floor(v) + 0.5;
        return std::fabs(v) < kContractIsAccurate && v != side && std::fabs(v - side) <= tolerance;
    };
    double side = 0.0;
    size_t first = 0;
    while (first < xy.size() && !moves(xy[first], side)) ++first;
    if (first == xy.size()) return std::nullopt;
    std::vector<double> moved(xy.begin(), xy.end());
    for (size_t k = first; k < moved.size(); ++k) {
        if (moves(moved[k], side)) moved[k] = side;
    }
    const ConstSpan<int64_t> ends = polygon.ring_ends();
    return Polygon(moved.data(), polygon.vertex_count(), ends.begin(), polygon.ring_count());
}

// all_touched by the area sweep of coverage.cpp: exact for every polygon,
// edges that overlap along a stretch included, and much slower than the
// edge marking of touched.cpp, which calls it only for such polygons.
void fill_touched_by_area(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride,
                          FillRule rule, int threads);

}  // namespace detail
}  // namespace polymask
