// The coverage sweep: known fractions, sums equal areas, windows equal
// slices, thread counts agree, all_touched is coverage > 0, bad input throws.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "test_support.hpp"
#include "testing.hpp"

using namespace polymask_test;

namespace {

std::vector<double> coverage_of(const Polygon &polygon, Window window, FillRule rule = FillRule::even_odd,
                                int threads = 1)
{
    // NaN, not 0: every element must be written.
    std::vector<double> out(static_cast<size_t>(window.height * window.width),
                            std::numeric_limits<double>::quiet_NaN());
    polymask::coverage<double>(polygon, window, out.data(), window.width, rule, threads);
    return out;
}

double shoelace(const std::vector<double> &xy)
{
    const size_t n = xy.size() / 2;
    double twice = 0.0;
    for (size_t i = 0, j = n - 1; i < n; j = i++) twice += xy[2 * j] * xy[2 * i + 1] - xy[2 * i] * xy[2 * j + 1];
    return std::fabs(0.5 * twice);
}

// A simple polygon: n vertices at sorted angles, random radii.
std::vector<double> star(std::mt19937_64 &rng, int n, double cx, double cy, double radius)
{
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> angles(static_cast<size_t>(n));
    for (double &a : angles) a = 2 * M_PI * unit(rng);
    std::sort(angles.begin(), angles.end());
    std::vector<double> xy;
    for (double a : angles) {
        const double r = radius * (0.3 + 0.7 * unit(rng));
        xy.push_back(cx + r * std::cos(a));
        xy.push_back(cy + r * std::sin(a));
    }
    return xy;
}

}  // namespace

TEST(Coverage, SquareOnSamplePoints)
{
    const std::vector<double> xy{0, 0, 2, 0, 2, 2, 0, 2};
    const auto out = coverage_of(Polygon(xy.data(), 4), Window{0, 0, 3, 3});
    const std::vector<double> expected{0.25, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.25};
    EXPECT_EQ(out, expected);
}

TEST(Coverage, TriangleHalfCells)
{
    // The diagonal of cell (0, 0) ... (1, 1) corners: cells on it are half covered.
    const std::vector<double> xy{-0.5, -0.5, 2.5, -0.5, 2.5, 2.5};
    const auto out = coverage_of(Polygon(xy.data(), 3), Window{0, 0, 3, 3});
    const std::vector<double> expected{0.5, 1, 1, 0, 0.5, 1, 0, 0, 0.5};
    EXPECT_EQ(out, expected);
}

TEST(Coverage, BowtieBothRules)
{
    const std::vector<double> xy{0.5, 0.5, 2.5, 2.5, 2.5, 0.5, 0.5, 2.5};
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        const auto out = coverage_of(Polygon(xy.data(), 4), Window{0, 0, 4, 4}, rule);
        for (int64_t r = 0; r < 4; ++r) {
            for (int64_t c = 0; c < 4; ++c) {
                const bool middle = r >= 1 && r <= 2 && c >= 1 && c <= 2;
                EXPECT_EQ(out[r * 4 + c], middle ? 0.5 : 0.0) << r << ", " << c;
            }
        }
    }
}

TEST(Coverage, SumEqualsShoelaceArea)
{
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 10; ++trial) {
        const auto xy = star(rng, 40, 30.3, 31.7, 25.0);
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            const auto out = coverage_of(Polygon(xy.data(), 40), Window{0, 0, 64, 64}, rule);
            double total = 0.0;
            for (double v : out) {
                ASSERT_GE(v, 0.0);
                ASSERT_LE(v, 1.0);
                total += v;
            }
            EXPECT_NEAR(total, shoelace(xy), 1e-9 * shoelace(xy));
        }
    }
}

TEST(Coverage, WindowsEqualSlicesAndThreadsAgree)
{
    std::mt19937_64 rng(5);
    const auto xy = random_vertices(rng, 30, -5.0, 45.0);
    const Polygon polygon(xy.data(), 30);
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        const auto full = coverage_of(polygon, Window{0, 0, 40, 40}, rule);
        EXPECT_EQ(coverage_of(polygon, Window{0, 0, 40, 40}, rule, 2), full);
        const Window window{7, 11, 20, 13};
        const auto part = coverage_of(polygon, window, rule);
        for (int64_t r = 0; r < window.height; ++r) {
            for (int64_t c = 0; c < window.width; ++c) {
                ASSERT_EQ(part[r * window.width + c], full[(r + 7) * 40 + (c + 11)]) << r << ", " << c;
            }
        }
    }
}

// Long edges and few vertices: nearly every row strip is simple (no vertex
// or crossing in it) and written in one pass, run by run.  A wedge whose two
// edges pass the same cells (overlapping runs), a sliver, shallow edges with
// long runs: every window's cut through a run equals the slice, two threads
// the one, and the fractions sum to the area.
TEST(Coverage, SimpleRowsEqualTheirWindowsAndSumToTheArea)
{
    const std::vector<std::vector<double>> polygons{
        {3.2, 0.2, 4.9, 38.5, 4.4, 38.5},                                // narrow wedge
        {2.3, 0.3, 2.3 + 1e-7, 0.3, 11.1 + 1e-7, 38.6, 11.1, 38.6},      // sliver
        {0.3, 1.2, 38.7, 15.9, 36.2, 37.6, 1.9, 27.1},                    // shallow edges
    };
    constexpr int64_t kSize = 40;
    for (const auto &xy : polygons) {
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        const auto full = coverage_of(polygon, Window{0, 0, kSize, kSize});
        EXPECT_EQ(coverage_of(polygon, Window{0, 0, kSize, kSize}, FillRule::even_odd, 2), full);
        for (int64_t col0 = 0; col0 < kSize; col0 += 3) {
            const Window window{5, col0, 30, std::min<int64_t>(7, kSize - col0)};
            const auto part = coverage_of(polygon, window);
            for (int64_t r = 0; r < window.height; ++r) {
                for (int64_t c = 0; c < window.width; ++c) {
                    ASSERT_EQ(part[r * window.width + c], full[(r + 5) * kSize + (c + col0)]) << col0;
                }
            }
        }
        double total = 0.0;
        for (double value : full) total += value;
        EXPECT_NEAR(total, shoelace(xy), 1e-8);  // each polygon lies inside the image
    }
}

TEST(Coverage, ChunksOfManyRowsReuseTheirThreadsSweeps)
{
    // 300 random vertices on 700x200: enough work for two threads, so the
    // 64-row chunks of a team share two sweeps, and one thread sweeps a few
    // coarse chunks with one.  A sweep that carried sums from one chunk
    // into the next, or two chunks sharing one at once (ThreadSanitizer),
    // would break the agreement with a window cut inside a chunk.  The same
    // vertices snapped to 20 rows (and integer columns) give horizontal
    // edges, which each chunk lists for the sweep it borrows (use_flats).
    std::mt19937_64 rng(13);
    const auto xy = random_vertices(rng, 300, 0.0, 700.0);
    const auto snapped = [&xy] {  // 11 of the 300 edges horizontal
        auto on_grid = xy;
        for (size_t k = 0; k < on_grid.size(); k += 2) {
            on_grid[k] = std::floor(on_grid[k]);
            on_grid[k + 1] = std::floor(on_grid[k + 1] / 35.0) * 35.0;
        }
        return on_grid;
    }();
    for (const std::vector<double> *vertices : {&xy, &snapped}) {
        const Polygon polygon(vertices->data(), 300);
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            const auto one = coverage_of(polygon, Window{0, 0, 700, 200}, rule, 1);
            EXPECT_EQ(coverage_of(polygon, Window{0, 0, 700, 200}, rule, 2), one);
            const Window window{100, 30, 500, 150};
            for (int threads : {1, 2}) {
                const auto part = coverage_of(polygon, window, rule, threads);
                for (int64_t r = 0; r < window.height; ++r) {
                    for (int64_t c = 0; c < window.width; ++c) {
                        ASSERT_EQ(part[r * window.width + c], one[(r + 100) * 200 + (c + 30)]) << r << ", " << c;
                    }
                }
            }
        }
    }
}

TEST(Coverage, TouchedIsCoveragePositive)
{
    std::mt19937_64 rng(9);
    const auto xy = random_vertices(rng, 25, -3.0, 35.0);
    const Polygon polygon(xy.data(), 25);
    const auto fractions = coverage_of(polygon, Window{0, 0, 32, 32});
    std::vector<uint8_t> touched(32 * 32, 0xAA);
    polymask::fill_touched(polygon, Window{0, 0, 32, 32}, touched.data(), 32);
    for (size_t k = 0; k < touched.size(); ++k) EXPECT_EQ(touched[k], fractions[k] > 0.0 ? 1 : 0) << k;
}

// Vertical edges on the cell sides x = 1.5 and 4.5 with ends at y = -0.2 and
// 3.7, not dyadic: interpolated, their abscissae used to land an ulp outside
// the side in some rows, giving the cells beyond a residue of area (and a
// touch) where the exact answer is 0.
TEST(Coverage, VerticalEdgesOnCellSidesLeaveTheNextCellsEmpty)
{
    const std::vector<double> xy{1.5, -0.2, 4.5, -0.2, 4.5, 3.7, 1.5, 3.7};
    const Polygon polygon(xy.data(), 4);
    const auto fractions = coverage_of(polygon, Window{0, 0, 4, 7});
    std::vector<uint8_t> touched(4 * 7, 0xAA);
    polymask::fill_touched(polygon, Window{0, 0, 4, 7}, touched.data(), 7);
    for (int64_t r = 0; r < 4; ++r) {
        for (int64_t c = 0; c < 7; ++c) {
            const double value = fractions[static_cast<size_t>(r * 7 + c)];
            if (c < 2 || c > 4) EXPECT_EQ(value, 0.0) << r << ", " << c;
            if (c >= 2 && c <= 4 && r >= 1 && r <= 2) EXPECT_EQ(value, 1.0) << r << ", " << c;
            EXPECT_EQ(touched[static_cast<size_t>(r * 7 + c)], value > 0.0 ? 1 : 0) << r << ", " << c;
        }
    }
}

// fill_touched marks edges (touched.cpp) unless edges may overlap, when the
// area sweep decides; both must equal coverage > 0, on both rules, any
// window, any thread count, with `zeroed` writing only the ones, and with
// the marking's SIMD and portable code.
TEST(Coverage, TouchedBothPathsZeroedWindowsAndThreads)
{
    std::mt19937_64 rng(21);
    for (int trial = 0; trial < 40; ++trial) {
        auto xy = random_vertices(rng, 5 + trial % 17, -4.0, 28.0);
        if (trial % 4 == 3) {  // trace the first two edges back: overlapping edges, the area path
            const std::vector<double> back{xy[2], xy[3], xy[0], xy[1]};
            xy.insert(xy.begin() + 4, back.begin(), back.end());
        }
        if (trial % 5 == 4) {  // vertices on a half-integer grid: edges through corners and along sides
            for (double &v : xy) v = std::round(v * 2.0) / 2.0;
        }
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            const auto fractions = coverage_of(polygon, Window{0, 0, 24, 24}, rule);
            for (const Window window : {Window{0, 0, 24, 24}, Window{5, 3, 11, 17}}) {
                for (bool zeroed : {false, true}) {
                    for (int threads : {1, 2}) {
                        std::vector<uint8_t> touched(static_cast<size_t>(window.height * window.width),
                                                     zeroed ? 0 : 0xAA);
                        // The portable marking on odd trials (the SIMD one, where the CPU has it, on even).
                        const bool simd = polymask::testing::allow_touched_simd_for_testing(trial % 2 == 0);
                        polymask::fill_touched(polygon, window, touched.data(), window.width, rule, threads, zeroed);
                        polymask::testing::allow_touched_simd_for_testing(simd);
                        for (int64_t r = 0; r < window.height; ++r) {
                            for (int64_t c = 0; c < window.width; ++c) {
                                const double f = fractions[(r + window.row0) * 24 + (c + window.col0)];
                                ASSERT_EQ(touched[r * window.width + c], f > 0.0 ? 1 : 0)
                                    << "trial " << trial << " rule " << static_cast<int>(rule) << " at " << r << ", "
                                    << c;
                            }
                        }
                    }
                }
            }
        }
    }
}

// zeroed = true (a window already all zero) writes only the cells the region
// meets; zeroed = false writes every element, whatever the buffer held.
// Both give the same raster, for every dtype, window and thread count.
TEST(Coverage, ZeroedWritesOnlyTheRegionAndEqualsTheFullWrite)
{
    std::mt19937_64 rng(33);
    for (int trial = 0; trial < 20; ++trial) {
        const auto xy = random_vertices(rng, 6 + trial, -6.0, 38.0);
        const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            for (const Window window : {Window{0, 0, 32, 32}, Window{4, 9, 19, 13}}) {
                for (int threads : {1, 2}) {
                    const size_t n = static_cast<size_t>(window.height * window.width);
                    std::vector<double> zeroed(n, 0.0), full(n, -7.0);
                    polymask::coverage<double>(polygon, window, zeroed.data(), window.width, rule, threads, true);
                    polymask::coverage<double>(polygon, window, full.data(), window.width, rule, threads, false);
                    ASSERT_EQ(zeroed, full) << "trial " << trial;
                    std::vector<uint8_t> bytes_zeroed(n, 0), bytes_full(n, 0xAB);
                    polymask::coverage<uint8_t>(polygon, window, bytes_zeroed.data(), window.width, rule, threads,
                                                true);
                    polymask::coverage<uint8_t>(polygon, window, bytes_full.data(), window.width, rule, threads,
                                                false);
                    ASSERT_EQ(bytes_zeroed, bytes_full) << "trial " << trial;
                }
            }
        }
    }
}

TEST(Coverage, Uint8AndFloatAreRoundedDoubles)
{
    std::mt19937_64 rng(1);
    const auto xy = random_vertices(rng, 12, 0.0, 16.0);
    const Polygon polygon(xy.data(), 12);
    const auto fractions = coverage_of(polygon, Window{0, 0, 16, 16});
    std::vector<uint8_t> bytes(16 * 16);
    std::vector<float> singles(16 * 16);
    polymask::coverage<uint8_t>(polygon, Window{0, 0, 16, 16}, bytes.data(), 16);
    polymask::coverage<float>(polygon, Window{0, 0, 16, 16}, singles.data(), 16);
    for (size_t k = 0; k < fractions.size(); ++k) {
        EXPECT_EQ(bytes[k], static_cast<uint8_t>(std::floor(fractions[k] * 255.0 + 0.5)));
        EXPECT_EQ(singles[k], static_cast<float>(fractions[k]));
    }
}

TEST(Coverage, NonFiniteVerticesThrow)
{
    const std::vector<double> xy{0, 0, std::nan(""), 1, 1, 1};
    std::vector<double> out(4);
    EXPECT_THROW(polymask::coverage<double>(Polygon(xy.data(), 3), Window{0, 0, 2, 2}, out.data(), 2),
                 std::invalid_argument);
}

TEST(Coverage, AbsurdFiniteCoordinatesStayInRange)
{
    const std::vector<double> xy{-1e300, -1e300, 1e300, 3, 5, 1e300, 2.5, 2.5};
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        const auto out = coverage_of(Polygon(xy.data(), 4), Window{0, 0, 6, 6}, rule);
        for (double v : out) EXPECT_TRUE(v >= 0.0 && v <= 1.0);
    }
}

// A vertex at y = 2^-1074 (the smallest subnormal) made the contract's
// x_cross underflow: 2.0 instead of 2.5 for the sliver's edge at row 0, so
// fill_touched took cell (0, 2), which the sliver does not reach (found by
// csrc/fuzz).  Such polygons go to the area sweep, and both agree again;
// so does the label burn.
TEST(Coverage, SubnormalCoordinatesKeepTouchedEqualToCoveragePositive)
{
    const std::vector<double> xy{8604613632.0, 0.0, 2.5, 0.0, 10.0, 4.9406564584124654e-324};
    const Polygon polygon(xy.data(), 3);
    const Window window{0, 0, 25, 34};
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        const auto fractions = coverage_of(polygon, window, rule);
        std::vector<uint8_t> touched(25 * 34, 0xAA);
        polymask::fill_touched(polygon, window, touched.data(), 34, rule);
        std::vector<uint8_t> burned(25 * 34, 0);
        const uint8_t value = 1;
        polymask::rasterize_touched(&polygon, 1, &value, window, burned.data(), 34, rule);
        for (size_t k = 0; k < touched.size(); ++k) {
            EXPECT_EQ(touched[k], fractions[k] > 0.0 ? 1 : 0) << "cell " << k;
            EXPECT_EQ(burned[k], touched[k]) << "cell " << k;
        }
        EXPECT_EQ(touched[2], 0);  // the cell the underflow wrongly took
    }
}
