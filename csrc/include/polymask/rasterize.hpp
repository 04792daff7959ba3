// rasterize.hpp -- label images: many polygons burned into one integer image.
//
// The burn reuses the core's scanline sweep (csrc/src/scanline.hpp) with a sink that writes
// the polygon's value inside each span and leaves every other pixel alone,
// so the pixels a polygon claims are exactly the pixels of its mask, bit for
// bit.  Polygons are burned in order, later over earlier.  Because the
// contract's rule is half-open, polygons that share an edge neither overlap
// nor leave a gap, so a partition of the plane burns every pixel once.
//
// Threads split the window into bands of rows; each thread burns every
// polygon, in order, inside its own band, so "later over earlier" holds
// exactly whatever the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "polymask/core.hpp"

namespace polymask {

// Split one flat vertex list into polygons: polygon p owns rings
// [polygon_ends[p-1], polygon_ends[p]) of ring_ends (with polygon_ends[-1]
// taken as 0), and ring k owns vertices [ring_ends[k-1], ring_ends[k]), as
// in Polygon's ring constructor.  Replaces the contents of `polygons`.
// Throws std::invalid_argument when the ends are not cumulative counts.
// The polygons are built in chunks on up to `threads` threads (0: the
// default), as many as their vertices are worth, with the interrupt check
// between chunks (Interrupted), so a million of them neither hold Ctrl-C
// back nor wait on one core.
POLYMASK_API void polygons_from_rings(const double *xy, int64_t n_vertices, const int64_t *ring_ends,
                                      int64_t n_rings, const int64_t *polygon_ends, int64_t n_polygons,
                                      std::vector<Polygon> &polygons, int threads = 1);

// Burn `window` of a label image: for p = 0, 1, ..., n_polygons - 1, every
// pixel of the window inside polygons[p] (under `rule`) becomes values[p].
// Pixels inside no polygon keep what `out` held: clear it first for a
// background.  out[r * row_stride + c] is the pixel (window.row0 + r,
// window.col0 + c); row_stride counts elements, not bytes.  threads: an
// upper bound, 0 for the default count (core.hpp, resolve_threads).
// add: each polygon adds its value to its pixels (GDAL's MERGE_ALG=ADD)
// instead of replacing them, in polygon order, so a float sum is the same
// at any thread count.
//
// overlap: when not null, *overlap becomes whether some pixel of the
// window is inside two of the polygons, found in the same burn (a bit per
// pixel of each band of rows, not a second burn).
//
// Label is one of uint8_t, uint16_t, int32_t, uint32_t, int64_t, float,
// double (explicitly instantiated in rasterize.cpp).
template <class Label>
POLYMASK_API void rasterize(const Polygon *polygons, int64_t n_polygons, const Label *values,
                            const Window &window, Label *out, int64_t row_stride,
                            FillRule rule = FillRule::even_odd, int threads = 0, bool add = false,
                            bool *overlap = nullptr);

// all_touched for a label image: for p = 0, 1, ..., every pixel of the
// window whose cell shares positive area with polygons[p]'s region (as
// fill_touched in coverage.hpp decides it) becomes values[p], later over
// earlier; other pixels keep what `out` held.  Arguments as rasterize's;
// side_tolerance as fill_touched's, for each polygon.
// Instantiated for the same Label types (in touched.cpp).
template <class Label>
POLYMASK_API void rasterize_touched(const Polygon *polygons, int64_t n_polygons, const Label *values,
                                    const Window &window, Label *out, int64_t row_stride,
                                    FillRule rule = FillRule::even_odd, int threads = 0,
                                    double side_tolerance = 0.0, bool add = false);

extern template void rasterize<uint8_t>(const Polygon *, int64_t, const uint8_t *, const Window &,
                                        uint8_t *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &,
                                         uint16_t *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &,
                                        int32_t *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &,
                                         uint32_t *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &,
                                        int64_t *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<float>(const Polygon *, int64_t, const float *, const Window &,
                                      float *, int64_t, FillRule, int, bool, bool *);
extern template void rasterize<double>(const Polygon *, int64_t, const double *, const Window &,
                                       double *, int64_t, FillRule, int, bool, bool *);

extern template void rasterize_touched<uint8_t>(const Polygon *, int64_t, const uint8_t *, const Window &,
                                                uint8_t *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<uint16_t>(const Polygon *, int64_t, const uint16_t *, const Window &,
                                                uint16_t *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<int32_t>(const Polygon *, int64_t, const int32_t *, const Window &,
                                                int32_t *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<uint32_t>(const Polygon *, int64_t, const uint32_t *, const Window &,
                                                uint32_t *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<int64_t>(const Polygon *, int64_t, const int64_t *, const Window &,
                                                int64_t *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<float>(const Polygon *, int64_t, const float *, const Window &,
                                                float *, int64_t, FillRule, int, double, bool);
extern template void rasterize_touched<double>(const Polygon *, int64_t, const double *, const Window &,
                                                double *, int64_t, FillRule, int, double, bool);

}  // namespace polymask
