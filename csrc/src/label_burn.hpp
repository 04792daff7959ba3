// label_burn.hpp -- the one skeleton of a label image's burn.
//
// rasterize (centre rule, rasterize.cpp) and rasterize_touched (all_touched,
// touched.cpp) burn many polygons into one image the same way; only what is
// prepared per polygon and how a polygon's rows are burned differ:
//
// 1. the arguments are checked, with the caller's name in the messages;
// 2. every polygon is prepared (where it can burn, its crossings in the
//    window, whatever its burn needs), in chunks with the interrupt check
//    between them, on the threads the preparation is worth;
// 3. the polygons are listed by the blocks of rows they reach
//    (PolygonsByRows), and the window's rows are cut into bands by the work
//    of their crossings, pixels and looks at polygons;
// 4. each thread burns, in each band it claims, the polygons that reach the
//    band, in index order, so "later over earlier" holds exactly at any
//    thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "checks.hpp"
#include "parallel.hpp"
#include "polymask/core.hpp"
#include "row_bands.hpp"

namespace polymask {
namespace detail {

// Burn `window` of a label image (the arguments of rasterize; `who` names
// the caller in errors).  Prepared is one polygon's preparation, with
//   int64_t row_first, row_end;  // the window's rows it can burn
//   double crossings;            // its (edge, row) pairs in the window
//   bool burns() const;          // false: it burns nothing in the window
// prepare(p, prepared, scratch) fills polygons[p]'s, in chunks of polygons;
// each chunk has a Scratch of its own (reused over its polygons).
// preparation_of(p) is that work in parallel.hpp's pixel units.
// make_burner() -- or make_burner(band_begin, band_end), where it takes the
// band's rows -- is called once per band, on the thread that burns it, and
// returns burn(p, prepared, row_begin, row_end), which burns polygons[p]
// over those rows (never empty, inside its rows and the band) with
// whatever state it keeps for the band.  A burned row costs
// work_factor times a centre-rule burn's row.
template <class Scratch, class Prepared, class Label, class PreparationOf, class Prepare, class MakeBurner>
void burn_labels(const char *who, int64_t n_polygons, const Polygon *polygons, const Label *values,
                 const Window &window, Label *out, int64_t row_stride, int threads, double work_factor,
                 PreparationOf &&preparation_of, Prepare &&prepare, MakeBurner &&make_burner)
{
    check_window(who, window, out, row_stride);
    if (n_polygons < 0) throw std::invalid_argument(std::string(who) + ": negative polygon count");
    if (window.height == 0 || window.width == 0 || n_polygons == 0) return;
    if (polygons == nullptr || values == nullptr) throw std::invalid_argument(std::string(who) + ": null pointer");

    std::vector<Prepared> prepared(static_cast<size_t>(n_polygons));
    const ItemPlan plan = plan_items(n_polygons, threads, preparation_of);
    parallel_for(plan.chunks, plan.team, [&](int64_t chunk) {
        Scratch scratch;
        const int64_t end = n_polygons * (chunk + 1) / plan.chunks;
        for (int64_t p = n_polygons * chunk / plan.chunks; p < end; ++p) {
            prepare(p, prepared[static_cast<size_t>(p)], scratch);
        }
    });

    double crossings = 0;
    for (const Prepared &polygon : prepared) crossings += polygon.crossings;
    const PolygonsByRows by_rows(
        window, n_polygons, [&](int64_t p) { return prepared[static_cast<size_t>(p)].row_first; },
        [&](int64_t p) {
            const Prepared &polygon = prepared[static_cast<size_t>(p)];
            return polygon.burns() ? polygon.row_end : polygon.row_first;
        });
    const double work_per_row = work_factor * burn_work_per_row(crossings, by_rows, window);

    for_row_bands(window, threads, [&](int64_t band_begin, int64_t band_end) {
        auto burn = [&] {
            if constexpr (std::is_invocable_v<MakeBurner &, int64_t, int64_t>) {
                return make_burner(band_begin, band_end);
            } else {
                return make_burner();
            }
        }();
        by_rows.for_each(band_begin, band_end, [&](int64_t p) {
            const Prepared &polygon = prepared[static_cast<size_t>(p)];
            const int64_t row_begin = std::max(band_begin, polygon.row_first);
            const int64_t row_end = std::min(band_end, polygon.row_end);
            if (row_begin >= row_end) return;  // polygons missing the window are in no block
            burn(p, polygon, row_begin, row_end);
        });
    }, work_per_row);
}

}  // namespace detail
}  // namespace polymask
