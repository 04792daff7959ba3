// crossings.cpp -- the one hot loop of the scanline sweep, per SIMD width.
//
// crossing_columns (declared in scanline.hpp) computes the contract's
// x_cross for every active edge of a row, turns it into a clamped column
// and says whether the columns are still in order.  It is the only place
// the sweep divides, so x86-64 gets an AVX2 version (four divisions per
// instruction, the order check done in registers) picked once at run time
// when the CPU has AVX2: one wheel, the fastest path the CPU has.  Every
// version does the same IEEE-754 operations per lane as the scalar formula
// -- subtract, multiply, divide, add, each correctly rounded, never fused --
// so all give the same bits (tests: csrc/tests/test_masks.cpp).
#include <cmath>
#include <cstdint>
#include <limits>

#include "scanline.hpp"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(POLYMASK_NO_SIMD)
#define POLYMASK_X86_AVX2 1
#include <immintrin.h>
#endif

namespace polymask {
namespace detail {

namespace {

// ceil_clamped in double: x <= lo or NaN -> lo; x >= hi -> hi; else ceil(x).
inline double clamped_column(double x, double lo, double hi)
{
    const double clamped = x > lo ? (x < hi ? x : hi) : lo;
    return std::ceil(clamped);
}

bool crossing_columns_scalar(const double *xi, const double *yi, const double *dx, const double *dy,
                             double *column, int64_t n, double py, double lo, double hi)
{
    double previous = -std::numeric_limits<double>::infinity();
    bool in_order = true;
    for (int64_t k = 0; k < n; ++k) {
        const double c = clamped_column(dx[k] * (py - yi[k]) / dy[k] + xi[k], lo, hi);
        in_order &= !(previous > c);
        previous = c;
        column[k] = c;
    }
    return in_order;
}

#ifdef POLYMASK_X86_AVX2
__attribute__((target("avx2"))) bool crossing_columns_avx2(const double *xi, const double *yi,
                                                            const double *dx, const double *dy,
                                                            double *column, int64_t n, double py,
                                                            double lo, double hi)
{
    const __m256d row = _mm256_set1_pd(py), low = _mm256_set1_pd(lo), high = _mm256_set1_pd(hi);
    __m256d previous = _mm256_set1_pd(-std::numeric_limits<double>::infinity());  // column k - 1, all lanes
    __m256d descents = _mm256_setzero_pd();
    int64_t k = 0;
    for (; k + 4 <= n; k += 4) {
        // (dx * (py - yi)) / dy + xi: the contract's operations, in its order.
        const __m256d product = _mm256_mul_pd(_mm256_loadu_pd(dx + k), _mm256_sub_pd(row, _mm256_loadu_pd(yi + k)));
        const __m256d x = _mm256_add_pd(_mm256_div_pd(product, _mm256_loadu_pd(dy + k)), _mm256_loadu_pd(xi + k));
        // x > lo ? (x < hi ? x : hi) : lo, NaN comparing false like the scalar code.
        const __m256d below_high = _mm256_blendv_pd(high, x, _mm256_cmp_pd(x, high, _CMP_LT_OQ));
        const __m256d clamped = _mm256_blendv_pd(low, below_high, _mm256_cmp_pd(x, low, _CMP_GT_OQ));
        const __m256d c = _mm256_round_pd(clamped, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
        _mm256_storeu_pd(column + k, c);
        // Lanes (c[k-1], c[k], c[k+1], c[k+2]) against (c[k], ..., c[k+3]).
        const __m256d shifted = _mm256_blend_pd(_mm256_permute4x64_pd(c, 0x90), previous, 0x1);
        descents = _mm256_or_pd(descents, _mm256_cmp_pd(shifted, c, _CMP_GT_OQ));
        previous = _mm256_permute4x64_pd(c, 0xFF);
    }
    bool in_order = _mm256_movemask_pd(descents) == 0;
    double last = _mm256_cvtsd_f64(previous);
    for (; k < n; ++k) {
        const double c = clamped_column(dx[k] * (py - yi[k]) / dy[k] + xi[k], lo, hi);
        in_order &= !(last > c);
        last = c;
        column[k] = c;
    }
    return in_order;
}
#endif

CrossingPass pick_crossing_pass()
{
#ifdef POLYMASK_X86_AVX2
    if (cpu_has_avx2()) return crossing_columns_avx2;
#endif
    return crossing_columns_scalar;
}

}  // namespace

bool cpu_has_avx2()
{
#ifdef POLYMASK_X86_AVX2
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return yes;
#else
    return false;
#endif
}

CrossingPass crossing_pass()
{
    static const CrossingPass pass = pick_crossing_pass();  // chosen once, thread-safely
    return pass;
}

bool crossing_columns(const double *xi, const double *yi, const double *dx, const double *dy, double *column,
                      int64_t n, double py, double lo, double hi)
{
    return crossing_pass()(xi, yi, dx, dy, column, n, py, lo, hi);
}

bool crossing_columns_portable(const double *xi, const double *yi, const double *dx, const double *dy,
                               double *column, int64_t n, double py, double lo, double hi)
{
    return crossing_columns_scalar(xi, yi, dx, dy, column, n, py, lo, hi);
}

}  // namespace detail
}  // namespace polymask
