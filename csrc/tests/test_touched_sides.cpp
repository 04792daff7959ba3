// all_touched's side tolerance (coverage.hpp: fill_touched, side_tolerance):
// a cell is touched when it shares area with the region both as given and
// with the coordinates within the tolerance of a cell side moved onto it, so
// a border stored an ulp past a grid line touches nothing beyond it.
// Checked against the exact rule applied to the given polygon and to one
// moved here, independently, in long double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"
#include "test_support.hpp"

using namespace polymask_test;

namespace {

constexpr double kTolerance = polymask::kTouchedSideTolerance;

std::vector<uint8_t> touched(const Polygon &polygon, const Window &window, double side_tolerance, int threads = 1,
                             FillRule rule = FillRule::even_odd)
{
    std::vector<uint8_t> out(static_cast<size_t>(window.height * window.width), 9);
    polymask::fill_touched(polygon, window, out.data(), window.width, rule, threads, false, side_tolerance);
    return out;
}

// The reference move: the nearest half-integer, found in long double.
double moved_reference(double v, double side_tolerance)
{
    const long double side = std::floor(static_cast<long double>(v)) + 0.5L;
    const long double distance = std::fabs(static_cast<long double>(v) - side);
    return distance <= static_cast<long double>(side_tolerance) ? static_cast<double>(side) : v;
}

}  // namespace

// A strip whose top edge reaches 2^-k of a cell into row 0: touched exactly
// for every k, and with the tolerance only while the reach exceeds it.
TEST(TouchedSides, AnEdgeJustPastAGridLineTouchesNothingBeyondIt)
{
    const Window window{0, 0, 4, 5};
    for (int k : {10, 20, 23, 24, 30, 40}) {
        const double reach = std::ldexp(1.0, -k);
        const std::vector<double> xy = {0.5, 0.5 - reach, 3.5, 0.5 - reach, 3.5, 2.5, 0.5, 2.5};
        const Polygon strip(xy.data(), 4);
        const std::vector<uint8_t> exact = touched(strip, window, 0.0), loose = touched(strip, window, kTolerance);
        const bool kept = reach > kTolerance;
        for (int64_t c = 0; c < 5; ++c) {
            const bool inside = c >= 1 && c <= 3;
            EXPECT_EQ(exact[c], inside ? 1 : 0) << "k " << k << " col " << c;
            EXPECT_EQ(loose[c], inside && kept ? 1 : 0) << "k " << k << " col " << c;
        }
        for (size_t cell = 5; cell < 20; ++cell) EXPECT_EQ(loose[cell], exact[cell]) << "k " << k;
        // The label image: the strip's value over a background of 5.
        std::vector<int32_t> labels(20, 5);
        const int32_t value = 2;
        polymask::rasterize_touched(&strip, 1, &value, window, labels.data(), 5, FillRule::even_odd, 2, kTolerance);
        for (size_t cell = 0; cell < 20; ++cell) EXPECT_EQ(labels[cell], loose[cell] ? 2 : 5) << "k " << k;
    }
}

// A vertex an ulp past a cell's corner and 1e-12 below its row's side
// clips the cell below; an edge tilted by 1e-13 off a grid line clips a
// column of cells.
TEST(TouchedSides, NearCornersAndTiltedEdgesAreMovedToo)
{
    const Window window{0, 0, 5, 5};
    const double past = std::nextafter(1.5, 2.0);
    const std::vector<double> below = {past, 1.5 - 1e-12, 3.5, 1.5, 3.5, 3.5, 1.5, 3.5};
    const Polygon reaching(below.data(), 4);
    EXPECT_EQ(touched(reaching, window, 0.0)[1 * 5 + 2], 1);  // a sliver reaches row 1
    EXPECT_EQ(touched(reaching, window, 0.0)[1 * 5 + 1], 0);
    EXPECT_EQ(touched(reaching, window, kTolerance)[1 * 5 + 2], 0);
    const std::vector<double> tilted = {1.5, 0.5, 1.5 - 1e-13, 3.5, 3.5, 3.5, 3.5, 0.5};
    const Polygon leaning(tilted.data(), 4);
    const std::vector<uint8_t> exact = touched(leaning, window, 0.0), loose = touched(leaning, window, kTolerance);
    EXPECT_EQ(exact[2 * 5 + 1], 1);  // column 1 shares a sliver of row 2
    for (int64_t r = 0; r < 5; ++r) EXPECT_EQ(loose[r * 5 + 1], 0) << "row " << r;
    for (int64_t r = 1; r < 3; ++r) EXPECT_EQ(loose[r * 5 + 2], 1) << "row " << r;
}

// An edge exactly through a cell corner from a vertex 2^-40 past a row's
// side: moved onto the side, the vertex turns the edge into a graze of the
// cell beside the corner, which the tolerance must not add (it only leaves
// cells out).
TEST(TouchedSides, MovingAVertexAddsNoCornerGraze)
{
    const double delta = std::ldexp(1.0, -40);
    // A' = (0, 1/2 + delta); the corner (-1/2, 3/2); B' = A' + 9/4 (corner - A').
    const std::vector<double> xy = {0.0, 0.5 + delta, -1.125, 2.75 - 1.25 * delta, 3.25, 2.75};
    const std::vector<double> moved = {0.0, 0.5, -1.125, 2.75 - 1.25 * delta, 3.25, 2.75};
    const Polygon given(xy.data(), 3), reference(moved.data(), 3);
    const Window window{0, -2, 5, 7};
    const size_t beside = 1 * 7 + 1;  // row 1, column -1: left of the corner's row
    EXPECT_EQ(touched(given, window, 0.0)[beside], 0);
    EXPECT_EQ(touched(reference, window, 0.0)[beside], 1);  // the construction grazes once moved
    EXPECT_EQ(touched(given, window, kTolerance)[beside], 0);
    std::vector<int32_t> labels(35, -1);
    const int32_t value = 3;
    polymask::rasterize_touched(&given, 1, &value, window, labels.data(), 7, FillRule::even_odd, 1, kTolerance);
    const std::vector<uint8_t> loose = touched(given, window, kTolerance);
    for (size_t cell = 0; cell < 35; ++cell) EXPECT_EQ(labels[cell], loose[cell] ? 3 : -1) << "cell " << cell;
}

// Random polygons whose coordinates sit on, near and far from cell sides:
// the tolerant answer is the exact answer for the given polygon and for the
// reference-moved one, with holes, both fill rules, any thread count, and
// the label image alike.
TEST(TouchedSides, EqualsTheExactRuleForTheMovedPolygon)
{
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> side(-2, 12), pick(0, 5);
    std::uniform_real_distribution<double> anywhere(-2.0, 12.0);
    const double offsets[] = {0.0, 1e-13, -3e-9, 9.9e-8, -1e-7, 1.01e-7};
    const Window window{-1, -2, 14, 15};
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> xy, moved;
        const int n = 3 + trial % 9;
        for (int k = 0; k < 2 * (n + 4); ++k) {
            const double v = pick(rng) == 5 ? anywhere(rng) : side(rng) + 0.5 + offsets[pick(rng)];
            xy.push_back(v);
            moved.push_back(moved_reference(v, kTolerance));
        }
        const std::vector<int64_t> ends = {n, n + 4};  // an outer ring and a 4-vertex second ring
        const Polygon polygon(xy.data(), n + 4, ends.data(), 2);
        const Polygon reference(moved.data(), n + 4, ends.data(), 2);
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            std::vector<uint8_t> expected = touched(reference, window, 0.0, 1, rule);
            const std::vector<uint8_t> given = touched(polygon, window, 0.0, 1, rule);
            for (size_t cell = 0; cell < expected.size(); ++cell) expected[cell] &= given[cell];
            EXPECT_EQ(touched(polygon, window, kTolerance, 1 + trial % 3, rule), expected) << "trial " << trial;
            std::vector<int32_t> labels(expected.size(), -1);
            const int32_t value = 4;
            polymask::rasterize_touched(&polygon, 1, &value, window, labels.data(), window.width, rule, 2,
                                        kTolerance);
            for (size_t cell = 0; cell < labels.size(); ++cell) {
                ASSERT_EQ(labels[cell], expected[cell] ? 4 : -1) << "trial " << trial << " cell " << cell;
            }
        }
    }
}

// Found by csrc/fuzz: with a coordinate beyond 2^40 the exact rule is the
// area sweep, whose abscissae err by whole pixels, so the moved polygon can
// touch cells beyond the given one's box; the rule "both touch it" must
// still hold there (the exact answer is taken over the whole window).
TEST(TouchedSides, FarCoordinatesStillOnlyLeaveCellsOut)
{
    const std::vector<double> xy = {
        0x1.56b000a8p+29, -0x1.494fff18p+29, 0x1.56b000a8p+29, -0x1.494fff58p+29,
        0x1.56b000a8p+29, 0x1.fffffep-42, 0x1.6e6e6ep-17, 0x1.6e6e6ep-17,
        -0x1.926e6ep+86, -0x1.4950038b9p+29, 0x1.56affc747p+29, -0x1.4950038b9p+29,
        0x1.56affc747p+29, -0x1.4950038b9p+29, 0x1.56affc747p+29, -0x1.4950038b9p+29,
        0x1.56affc747p+29, -0x1.4950038b9p+29, 0x1.56affc747p+29, -0x1.4950038b9p+29,
        0x1.56affc747p+29, -0x1.4950038b9p+29, 0x1.56affc747p+29, -0x1.4950038b9p+29,
        0x1.56affc747p+29, -0x1.4950038b9p+29, 0x1.56affc747p+29, -0x1.4950038b9p+29,
        0x1.56affc747p+29, -0x1.495p+29, 0x1.56bp+29, -0x1.495p+29,
        0x1.56bp+29, -0x1.495p+29, 0x1.56bp+29, -0x1.495p+29,
        0x1.56bp+29, -0x1.495p+29, 0x1.56bp+29, -0x1.495p+29,
        0x1.56bp+29, -0x1.495p+29, 0x1.56bp+29, -0x1.495001c8p+29,
        0x1.56afffa8p+29, -0x1.49500058p+29, 0x1.56b000a8p+29, -0x1.494fff58p+29,
        0x1.56bp+29, -0x1.495p+29, 0x1.56b000a8p+29, -0x1.494fff58p+29,
        0x1.56b000a8p+29, -0x1.494fff58p+29, 0x1.56b000a8p+29, -0x1.4950005p+29,
        0x1.56b000a8p+29, -0x1.494fff58p+29, 0x1.56b000a8p+29, -0x1.494fff58p+29,
        0x1.56b000a8p+29, -0x1.494ffffd08p+29, 0x1.56bp+29, -0x1.495p+29,
        0x1.56bp+29, -0x1.495p+29,
    };
    const std::vector<int64_t> ends = {10, 18, 26, 33};
    const Polygon polygon(xy.data(), 33, ends.data(), 4);
    const Window window{-690618368, 718667776, 40, 40};
    for (int threads : {1, 2}) {
        const std::vector<uint8_t> exact = touched(polygon, window, 0.0, threads);
        const std::vector<uint8_t> loose = touched(polygon, window, 0.25, threads);
        for (size_t cell = 0; cell < exact.size(); ++cell) {
            EXPECT_FALSE(loose[cell] && !exact[cell]) << "cell " << cell << ", threads " << threads;
        }
    }
}

TEST(TouchedSides, RefusesTolerancesOutsideZeroToOneHalf)
{
    const std::vector<double> xy = {0.5, 0.5, 3.5, 0.5, 3.5, 2.5};
    const Polygon triangle(xy.data(), 3);
    std::vector<uint8_t> out(16);
    std::vector<int32_t> labels(16);
    const int32_t value = 1;
    for (double tolerance : {-1e-9, 0.5, std::nan("")}) {
        EXPECT_THROW(polymask::fill_touched(triangle, Window{0, 0, 4, 4}, out.data(), 4, FillRule::even_odd, 1,
                                            false, tolerance),
                     std::invalid_argument);
        EXPECT_THROW(polymask::rasterize_touched(&triangle, 1, &value, Window{0, 0, 4, 4}, labels.data(), 4,
                                                 FillRule::even_odd, 1, tolerance),
                     std::invalid_argument);
    }
}
