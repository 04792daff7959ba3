// The scanline fill equals the per-pixel rule, bit for bit, on many polygons.
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

using namespace polymask_test;

namespace {

void expect_fills_agree(const std::vector<double> &xy, int64_t rows, int64_t cols, const std::string &what)
{
    const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        const auto reference = full_mask(polygon, rows, cols, Fill::per_pixel, rule, 1);
        for (int threads : {1, 2, 3}) {
            const auto scanline = full_mask(polygon, rows, cols, Fill::scanline, rule, threads);
            ASSERT_EQ(scanline, reference) << what << ", rule " << static_cast<int>(rule)
                                           << ", threads " << threads;
        }
    }
}

}  // namespace

TEST(FillsAgree, RandomFloatPolygons)
{
    std::mt19937_64 rng(20140101);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 3 + trial % 40;
        expect_fills_agree(random_vertices(rng, n, -8.0, 72.0), 64, 61, "float trial " + std::to_string(trial));
    }
}

TEST(FillsAgree, IntegerAndHalfIntegerPolygons)
{
    // Grid vertices put crossings exactly on pixel centres: the half-open
    // rule and ceil() at span starts must agree there.
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        const double step = (trial % 2 == 0) ? 1.0 : 0.5;
        const int n = 3 + trial % 25;
        expect_fills_agree(random_grid_vertices(rng, n, -4, 36, step), 33, 34,
                           "grid trial " + std::to_string(trial));
    }
}

TEST(FillsAgree, AxisAlignedAndRepeatedVertices)
{
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> coordinate(0, 20);
    for (int trial = 0; trial < 100; ++trial) {
        // A rectilinear walk: every edge horizontal or vertical, with repeats.
        std::vector<double> xy;
        double x = coordinate(rng), y = coordinate(rng);
        for (int k = 0; k < 12; ++k) {
            xy.push_back(x);
            xy.push_back(y);
            if (k % 3 == 2) continue;  // repeat this vertex
            (k % 2 == 0 ? x : y) = coordinate(rng);
        }
        expect_fills_agree(xy, 21, 22, "rectilinear trial " + std::to_string(trial));
    }
}

TEST(FillsAgree, ManyVertices)
{
    std::mt19937_64 rng(3);
    expect_fills_agree(random_vertices(rng, 2000, 0.0, 48.0), 48, 47, "2000 vertices");
}

TEST(FillsAgree, HugeAndTinyCoordinates)
{
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 50; ++trial) {
        auto xy = random_vertices(rng, 6, -10.0, 40.0);
        xy[2 * (trial % 6)] = (trial % 2 ? 1e300 : -1e300);      // far-out x
        xy[2 * ((trial + 3) % 6) + 1] = (trial % 3 ? 1e-300 : -1e15);  // tiny or far y
        expect_fills_agree(xy, 32, 32, "huge trial " + std::to_string(trial));
    }
    // x differences that overflow to infinity make x_cross NaN on some rows.
    expect_fills_agree({-1.7e308, 0, 1.7e308, 10, 1.7e308, 30, 5, 20}, 32, 32, "overflowing x");
}
