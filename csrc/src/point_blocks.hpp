// point_blocks.hpp -- how the point queries (points.cpp, point_labels.cpp)
// spread many queries over the threading layer.
//
// Internal to the core's sources.
#pragma once

#include <cstdint>

#include "parallel.hpp"

namespace polymask {
namespace detail {

// Run body(begin, end) over [0, n) points (or rows) in blocks, on as many
// threads as `work_per_point` (pixel units, parallel.hpp) times n is worth.
// The chunks bound the work between interrupt checks only on average: a
// body ticks an InterruptTicker (cell_geometry.hpp) by the work it did, so
// one crowded query cannot hold Ctrl-C off.
template <class Body>
void for_point_blocks(int64_t n, double work_per_point, int threads, Body &&body)
{
    if (n <= 0) return;
    const double work = static_cast<double>(n) * work_per_point;
    const int team = threads_for_work(threads, work);
    const int64_t chunks = chunks_for_work(team, work, n);
    parallel_for(chunks, team, [&](int64_t chunk) { body(n * chunk / chunks, n * (chunk + 1) / chunks); });
}

}  // namespace detail
}  // namespace polymask
