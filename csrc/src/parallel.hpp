// parallel.hpp -- the one threading entry point of the production fills.
//
// Internal to the core's sources.  Every production fill (mask, masks,
// rasterize, coverage, RLE) cuts its work into chunks and hands them to
// parallel_for, which runs body(chunk) exactly once for every chunk in
// [0, n_chunks) on at most `threads` threads, the calling thread included.
// The first exception a chunk throws is rethrown on the calling thread.
//
// This first version runs on OpenMP with dynamic scheduling; the
// threading-layer work (issue 11) replaces the mechanism behind the same
// signature, so callers written against it need no change.
#pragma once

#include <cstdint>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

template <class Body>
void parallel_for(int64_t n_chunks, int threads, Body &&body)
{
    if (n_chunks <= 0) return;
    const int64_t wanted = resolve_threads(threads);
    const int team = static_cast<int>(wanted < n_chunks ? wanted : n_chunks);
    std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
    for (int64_t chunk = 0; chunk < n_chunks; ++chunk) {
        try {
            body(chunk);
        } catch (...) {
#pragma omp critical(polymask_parallel_for_failure)
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace detail
}  // namespace polymask
