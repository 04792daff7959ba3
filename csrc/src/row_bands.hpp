// row_bands.hpp -- split a window's rows into one contiguous band per thread.
//
// Internal to the core's sources (fill.cpp, rasterize.cpp): every threaded
// fill runs its body on bands of rows, so each thread writes only its own
// rows and no two threads ever touch the same byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

// Below this many rows per thread, starting a thread costs more than it saves.
constexpr int64_t kMinRowsPerThread = 16;

// Run body(row_begin, row_end) on contiguous bands of `window`'s rows, one
// per thread (threads = 0: all).  Exceptions (bad_alloc) must not cross the
// OpenMP region: the first is kept and rethrown on the calling thread.
template <class Body>
void for_row_bands(const Window &window, int threads, Body body)
{
    const int64_t useful = std::max<int64_t>(1, window.height / kMinRowsPerThread);
    const int team = static_cast<int>(std::min<int64_t>(resolve_threads(threads), useful));
    std::exception_ptr failure;
#pragma omp parallel num_threads(team) if (team > 1)
    {
        int member = 0, members = 1;
#ifdef _OPENMP
        member = omp_get_thread_num();
        members = omp_get_num_threads();
#endif
        const int64_t begin = window.row0 + window.height * member / members;
        const int64_t end = window.row0 + window.height * (member + 1) / members;
        try {
            body(begin, end);
        } catch (...) {
#pragma omp critical(polymask_row_band_failure)
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace detail
}  // namespace polymask
