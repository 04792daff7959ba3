// coverage.hpp -- exact area fractions: how much of each pixel's cell lies inside.
//
// The cell of pixel (row, col) is the unit square [col - 1/2, col + 1/2] x
// [row - 1/2, row + 1/2] centred on the contract's sample point (with a
// transform, Python maps the vertices into this frame first: area ratios
// survive an affine map).  The coverage of a pixel is the area of its cell
// where the fill rule says "inside" (even-odd or nonzero, self-intersecting
// polygons included), a number in [0, 1].
//
// The sweep (coverage.cpp) integrates, row strip by row strip, each edge
// between its own crossings with other edges, signed by whether the fill
// rule makes it open or close an inside run there; the integral over each
// column it passes is a closed form (x is linear).  Cells no edge touches are
// filled with exactly 0 or 1, like the mask; only cells an edge passes need
// geometry.
#pragma once

#include <cstdint>

#include "polymask/core.hpp"
#include "polymask/masks.hpp"

namespace polymask {

// Fill `window` of the coverage raster: out[r * row_stride + c] (r, c
// relative to the window; row_stride in elements) becomes the fraction of
// pixel (window.row0 + r, window.col0 + c)'s cell inside `polygon`.  Every
// element of the window is written, unless `zeroed` says the window is
// already all zero (a fresh np.zeros array): then only the cells the region
// meets are.  threads: an upper bound, 0 for the default count (core.hpp, resolve_threads).
//
// Value is double or float (the fraction), or uint8_t: round(255 * fraction)
// with halves rounded up, so 0 and 1 map to 0 and 255 exactly.
//
// Accuracy: each fraction is within 1e-10 of the exact rational area for
// coordinates within +-2^20 on x86 (the error grows about linearly with the
// coordinates' magnitude: a few ulps of the edge's length per edge piece in
// the cell; beyond 2^16 the sweep uses x87 extended precision where the
// platform has it).  Throws std::invalid_argument for non-finite vertices.
template <class Value>
POLYMASK_API void coverage(const Polygon &polygon, const Window &window, Value *out, int64_t row_stride,
                           FillRule rule = FillRule::even_odd, int threads = 0, bool zeroed = false);

// Coverage of many polygons, each over its own box (zonal statistics over
// many regions): polygon p's fractions inside boxes[p] go to out + offsets[p],
// rows boxes[p].width elements apart, exactly as coverage() with that box as
// its window.  The crops must hold zeros: only the cells a region meets are
// written.  Boxes with no cells are skipped.  Threads across polygons, each
// polygon on one thread; threads as in core.hpp (resolve_threads).
template <class Value>
POLYMASK_API void coverage_crops(const Polygon *polygons, int64_t n_polygons, const MaskBox *boxes, Value *out,
                                 const int64_t *offsets, FillRule rule = FillRule::even_odd, int threads = 0);

// all_touched: out becomes 1 where the cell shares positive area with the
// filled region (the coverage above is > 0) and 0 elsewhere.  Every byte of
// the window is written, unless `zeroed` says the window is already all zero
// (a fresh np.zeros array): then only the ones are, and pages the polygon
// does not reach stay untouched.  threads as in core.hpp (resolve_threads).
// See csrc/src/touched.cpp for how.
//
// side_tolerance > 0 first moves every vertex coordinate that lies within
// side_tolerance of a cell side (c + 1/2, r + 1/2) onto that side, then
// decides as above for the moved polygon.  Real borders are stored an ulp or
// so off the grid lines they follow (Natural Earth's 49th parallel at
// 49.000000000000114): exactly, a whole row of cells beyond the line shares
// a sliver of 1e-12 of its area with the region.  0 (the default) moves
// nothing.  Throws std::invalid_argument unless 0 <= side_tolerance < 1/2.
POLYMASK_API void fill_touched(const Polygon &polygon, const Window &window, uint8_t *out, int64_t row_stride,
                               FillRule rule = FillRule::even_odd, int threads = 0, bool zeroed = false,
                               double side_tolerance = 0.0);

// The side_tolerance of polymask's all_touched=True, in pixels (cell sides):
// 1e-7 of a cell is below a millimetre on a 0.1 degree grid and takes in
// the ulps of projected coordinates (a northing of 5e6 m has ulps of 1e-9 m)
// down to 1 cm cells.  On Natural Earth's 177 countries at 0.1 degree,
// GDAL's all_touched then differs in 15 cells instead of 86
// (benchmarks/all_touched_natural_earth.py).
constexpr double kTouchedSideTolerance = 1e-7;

extern template void coverage<double>(const Polygon &, const Window &, double *, int64_t, FillRule, int, bool);
extern template void coverage<float>(const Polygon &, const Window &, float *, int64_t, FillRule, int, bool);
extern template void coverage<uint8_t>(const Polygon &, const Window &, uint8_t *, int64_t, FillRule, int, bool);
extern template void coverage_crops<double>(const Polygon *, int64_t, const MaskBox *, double *, const int64_t *,
                                            FillRule, int);
extern template void coverage_crops<float>(const Polygon *, int64_t, const MaskBox *, float *, const int64_t *,
                                           FillRule, int);
extern template void coverage_crops<uint8_t>(const Polygon *, int64_t, const MaskBox *, uint8_t *, const int64_t *,
                                             FillRule, int);

}  // namespace polymask
