// checks.hpp -- the argument checks every entry point of the core shares.
//
// Internal to the core's sources.  The Python layer validates first and says
// what was wrong in its terms; these checks keep the core memory-safe when
// it is called directly (GoogleTest, the fuzzer, a learner's .pyx), with one
// wording everywhere.  Each throws std::invalid_argument naming `who`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "polymask/core.hpp"

namespace polymask {
namespace detail {

// A window with sides >= 0; when it is not empty, `out` must exist and rows
// must be at least `window.width` elements apart.
inline void check_window(const char *who, const Window &window, const void *out, int64_t row_stride)
{
    if (window.height < 0 || window.width < 0) {
        throw std::invalid_argument(std::string(who) + ": window height and width must be >= 0");
    }
    if (window.height > 0 && window.width > 0) {
        if (out == nullptr) throw std::invalid_argument(std::string(who) + ": null output pointer");
        if (row_stride < window.width) {
            throw std::invalid_argument(std::string(who) + ": row_stride is smaller than the window width");
        }
    }
}

// all_touched's side tolerance (coverage.hpp: fill_touched): 0 <= t < 1/2,
// so a coordinate moves onto one side at most.
inline void check_side_tolerance(const char *who, double side_tolerance)
{
    if (!(side_tolerance >= 0.0 && side_tolerance < 0.5)) {
        throw std::invalid_argument(std::string(who) + ": side_tolerance must be >= 0 and < 1/2");
    }
}

// Cumulative ends: ends[0..n) non-decreasing, each at most `total`, the last
// equal to `total` (ring ends over vertices, polygon ends over rings).
inline void check_ends(const char *who, const char *name, const int64_t *ends, int64_t n, int64_t total,
                       const char *total_name)
{
    if (n < 0 || total < 0) throw std::invalid_argument(std::string(who) + ": negative count");
    if (n > 0 && ends == nullptr) throw std::invalid_argument(std::string(who) + ": null " + name);
    int64_t previous = 0;
    for (int64_t k = 0; k < n; ++k) {
        if (ends[k] < previous || ends[k] > total) {
            throw std::invalid_argument(std::string(who) + ": " + name + " must be non-decreasing and at most the " +
                                        total_name + ", got " + name + "[" + std::to_string(k) +
                                        "] = " + std::to_string(ends[k]));
        }
        previous = ends[k];
    }
    if (previous != total) {
        throw std::invalid_argument(std::string(who) + ": the last of " + name + " must be the " + total_name +
                                    " (" + std::to_string(total) + "), got " + std::to_string(previous));
    }
}

}  // namespace detail
}  // namespace polymask
