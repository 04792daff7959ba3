// test_support.hpp -- small helpers shared by the core's tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "polymask/core.hpp"

namespace polymask_test {

using polymask::FillRule;
using polymask::Polygon;
using polymask::Window;

// A mask as rows of '#' (inside) and '.' (outside), for readable failures.
// A copy of a view's values, for comparisons and messages.
template <class T>
std::vector<T> values_of(polymask::ConstSpan<T> view)
{
    return std::vector<T>(view.begin(), view.end());
}

inline std::vector<std::string> picture(const std::vector<uint8_t> &mask, int64_t rows, int64_t cols)
{
    std::vector<std::string> lines;
    for (int64_t r = 0; r < rows; ++r) {
        std::string line;
        for (int64_t c = 0; c < cols; ++c) line += mask[r * cols + c] ? '#' : '.';
        lines.push_back(line);
    }
    return lines;
}

enum class Fill { per_pixel, scanline };

inline std::vector<uint8_t> full_mask(const Polygon &polygon, int64_t rows, int64_t cols, Fill fill,
                                      FillRule rule = FillRule::even_odd, int threads = 0)
{
    // 0xAA, not 0: the fills must write every byte, and a stale value shows.
    std::vector<uint8_t> mask(static_cast<size_t>(rows * cols), 0xAA);
    const Window window{0, 0, rows, cols};
    if (fill == Fill::per_pixel) {
        polymask::fill_per_pixel(polygon, window, mask.data(), cols, rule, threads);
    } else {
        polymask::fill_scanline(polygon, window, mask.data(), cols, rule, threads);
    }
    return mask;
}

// n random vertices, uniform in [lo, hi) on both axes.
inline std::vector<double> random_vertices(std::mt19937_64 &rng, int n, double lo, double hi)
{
    std::uniform_real_distribution<double> coordinate(lo, hi);
    std::vector<double> xy(2 * static_cast<size_t>(n));
    for (double &v : xy) v = coordinate(rng);
    return xy;
}

// n random vertices on the integer (or half-integer when step = 0.5) grid.
inline std::vector<double> random_grid_vertices(std::mt19937_64 &rng, int n, int lo, int hi, double step)
{
    std::uniform_int_distribution<int> coordinate(static_cast<int>(lo / step), static_cast<int>(hi / step));
    std::vector<double> xy(2 * static_cast<size_t>(n));
    for (double &v : xy) v = coordinate(rng) * step;
    return xy;
}

}  // namespace polymask_test
