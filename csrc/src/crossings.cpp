// crossings.cpp -- the one hot loop of the scanline sweep, multiversioned.
//
// crossing_columns (declared in scanline.hpp) computes the contract's
// x_cross for every active edge of a row and turns it into a clamped
// column.  It is the only place the sweep divides, so it is compiled once
// per SIMD width (GCC/Clang function multiversioning): one wheel runs the
// widest division the CPU has, picked once at load time.  Every clone does
// the same IEEE-754 operations per lane as the scalar formula, so all give
// the same bits (see the proof in scanline.hpp).
#include <cmath>
#include <cstdint>

#include "polymask/scanline.hpp"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__linux__) && \
    !defined(POLYMASK_NO_MULTIVERSION)
#define POLYMASK_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define POLYMASK_TARGET_CLONES
#endif

namespace polymask {
namespace detail {

POLYMASK_TARGET_CLONES
void crossing_columns(const double *xi, const double *yi, const double *dx, const double *dy,
                      double *column, int64_t n, double py, double lo, double hi)
{
    for (int64_t k = 0; k < n; ++k) {
        const double x = dx[k] * (py - yi[k]) / dy[k] + xi[k];
        // ceil_clamped in double: x <= lo or NaN -> lo; x >= hi -> hi.
        const double clamped = x > lo ? (x < hi ? x : hi) : lo;
        column[k] = std::ceil(clamped);
    }
}

}  // namespace detail
}  // namespace polymask
