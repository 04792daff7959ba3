// row_bands.hpp -- cut a window's rows into chunks for parallel_for.
//
// Internal to the core's sources (fill.cpp, rasterize.cpp): every threaded
// fill runs its body on bands of whole rows, so each thread writes only the
// rows of the band it claimed and no two threads ever touch the same byte.
// Bands are chunks of parallel_for (parallel.hpp): claimed dynamically, the
// calling thread included, with interrupt checks in between.
#pragma once

#include <algorithm>
#include <cstdint>

#include "parallel.hpp"
#include "polymask/core.hpp"
#include "polymask/scanline.hpp"

namespace polymask {
namespace detail {

// Rows per band when a test forces the chunking (0: chosen by the work).
int64_t forced_rows_per_chunk();

// A scanline row's cost: writing its width, plus a few units per crossing
// (`crossings`: (edge, row) pairs over the whole window).
inline double scanline_work_per_row(double crossings, const Window &window)
{
    return static_cast<double>(window.width) + 8.0 * crossings / static_cast<double>(std::max<int64_t>(1, window.height));
}

inline double scanline_work_per_row(const std::vector<EdgeRows> &rows, const Window &window)
{
    double crossings = 0;
    for (const EdgeRows &edge : rows) crossings += static_cast<double>(edge.end - edge.first);
    return scanline_work_per_row(crossings, window);
}

// Run body(row_begin, row_end) on bands of `window`'s rows, on at most
// `threads` threads (0: the default).  work_per_row is the cost of one row
// in pixel units (see parallel.hpp); negative means the window's width.
template <class Body>
void for_row_bands(const Window &window, int threads, Body body, double work_per_row = -1.0)
{
    if (window.height <= 0) return;
    if (work_per_row < 0) work_per_row = static_cast<double>(window.width);
    const double work = work_per_row * static_cast<double>(window.height);
    int team;
    int64_t bands;
    const int64_t forced = forced_rows_per_chunk();
    if (forced > 0) {  // tests: any chunking, any thread count, whatever the work
        bands = (window.height + forced - 1) / forced;
        team = static_cast<int>(std::min<int64_t>(resolve_threads(threads), bands));
    } else {
        team = threads_for_work(threads, work);
        bands = chunks_for_work(team, work, window.height);
    }
    parallel_for(bands, team, [&](int64_t band) {
        const int64_t begin = window.row0 + window.height * band / bands;
        const int64_t end = window.row0 + window.height * (band + 1) / bands;
        if (begin < end) body(begin, end);
    });
}

}  // namespace detail
}  // namespace polymask
