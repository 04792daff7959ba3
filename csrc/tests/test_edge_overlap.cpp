// The O(n) screen before may_overlap's sorts (edge_overlap.hpp): two slopes
// within the tolerance must never pass it, whatever their size or sign, and
// may_overlap must still find edges that lie on one line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "edge_overlap.hpp"

namespace {

using polymask::detail::Flat;
using polymask::detail::make_segment;
using polymask::detail::OverlapScratch;
using polymask::detail::SegmentT;
using polymask::detail::slope_bucket;
using polymask::detail::slopes_apart;

constexpr double kTolerance = 1e-9;  // may_overlap's

bool within_tolerance(double a, double b)
{
    return std::fabs(a - b) <= kTolerance * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// A segment from (0, 0) with slope dx/dy = `slope`, of height `height`.
SegmentT<double> with_slope(double slope, double height = 8.0)
{
    return make_segment<double>(0.0, 0.0, slope * height, height, 1, 0.0);
}

TEST(SlopeBucket, NearSlopesAreAtMostOneBucketApart)
{
    std::mt19937_64 rng(56);
    std::uniform_real_distribution<double> exponent(-40.0, 40.0), unit(-1.0, 1.0);
    for (int trial = 0; trial < 200000; ++trial) {
        double a = std::pow(2.0, exponent(rng)) * (unit(rng) < 0 ? -1.0 : 1.0);
        if (trial % 4 == 0) a = (unit(rng) < 0 ? -1.0 : 1.0) * (1.0 + 3e-9 * unit(rng));  // around 1
        if (trial % 4 == 1) a = 1e-9 * unit(rng);                                           // around 0
        const double b = a + unit(rng) * kTolerance * std::max(1.0, std::fabs(a));
        if (!within_tolerance(a, b)) continue;
        const int64_t ka = slope_bucket(a), kb = slope_bucket(b);
        ASSERT_LE(std::llabs(ka - kb), 1) << a << " and " << b;
        if (a < b) ASSERT_LE(ka, kb) << a << " < " << b;  // monotone
    }
}

TEST(SlopeBucket, FarSlopesPassTheScreen)
{
    // A smooth outline: every slope differs from every other by far more
    // than the tolerance, so no sort is needed.
    std::vector<SegmentT<double>> segments;
    for (int k = 1; k < 1000; ++k) segments.push_back(with_slope(std::tan(3.0 * k / 1000.0 - 1.5)));
    std::vector<int64_t> table;
    EXPECT_TRUE(slopes_apart(segments, table));
}

TEST(SlopeBucket, TheScreenNeverPassesTwoNearSlopes)
{
    std::mt19937_64 rng(2014);
    std::uniform_real_distribution<double> exponent(-30.0, 30.0), unit(-1.0, 1.0);
    std::vector<int64_t> table;
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<double> slopes;
        for (int k = 0; k < 40; ++k) slopes.push_back(std::pow(2.0, exponent(rng)) * unit(rng));
        // Now and then one slope a hair (within the tolerance) from another.
        if (trial % 2 == 0) slopes.push_back(slopes[5] * (1.0 + 0.9 * kTolerance * unit(rng)));
        bool near = false;
        for (size_t i = 0; i < slopes.size(); ++i) {
            for (size_t j = i + 1; j < slopes.size(); ++j) near = near || within_tolerance(slopes[i], slopes[j]);
        }
        std::vector<SegmentT<double>> segments;
        for (double s : slopes) segments.push_back(with_slope(s));
        if (near) {
            ASSERT_FALSE(slopes_apart(segments, table)) << "trial " << trial;
        }
    }
}

TEST(MayOverlap, FindsEdgesOnOneLineWhateverTheScreen)
{
    OverlapScratch scratch;
    const std::vector<Flat> no_flats;
    // Two edges on the line x = 2y, overlapping over y in [2, 3].
    std::vector<SegmentT<double>> segments = {make_segment<double>(0.0, 0.0, 6.0, 3.0, 1, 0.0),
                                              make_segment<double>(4.0, 2.0, 10.0, 5.0, -1, 0.0),
                                              make_segment<double>(0.0, 0.0, -1.0, 7.0, 1, 0.0)};
    EXPECT_TRUE(polymask::detail::may_overlap(segments, no_flats, scratch));
    // Parallel but apart: the screen sends them to the sorts, which clear them.
    segments[1] = make_segment<double>(5.0, 2.0, 11.0, 5.0, -1, 0.0);
    EXPECT_FALSE(polymask::detail::may_overlap(segments, no_flats, scratch));
    // Slopes all apart: only the horizontal edges are left to compare.
    segments[1] = make_segment<double>(5.0, 2.0, 12.0, 5.0, -1, 0.0);
    EXPECT_FALSE(polymask::detail::may_overlap(segments, no_flats, scratch));
    const std::vector<Flat> overlapping = {{1.0, 0.0, 2.0}, {1.0, 1.5, 3.0}};
    EXPECT_TRUE(polymask::detail::may_overlap(segments, overlapping, scratch));

    // Past the size where the screen runs first: 40 edges of distinct slopes
    // pass it, and then only the horizontal edges decide.
    std::vector<SegmentT<double>> many;
    for (int k = 0; k < 40; ++k) many.push_back(make_segment<double>(k, 0.0, 2.0 * k + 0.37 * k * k, 5.0, 1, 0.0));
    std::vector<int64_t> table;
    ASSERT_TRUE(slopes_apart(many, table));
    EXPECT_FALSE(polymask::detail::may_overlap(many, no_flats, scratch));
    EXPECT_TRUE(polymask::detail::may_overlap(many, overlapping, scratch));
    // Two of them on one line, overlapping over y in [3, 5]: the screen
    // stops and the sorts find them.
    many.push_back(make_segment<double>(many[7].x0 + 3.0 / 5.0 * (many[7].x1 - many[7].x0), 3.0,
                                        many[7].x0 + 9.0 / 5.0 * (many[7].x1 - many[7].x0), 9.0, -1, 0.0));
    EXPECT_FALSE(slopes_apart(many, table));
    EXPECT_TRUE(polymask::detail::may_overlap(many, no_flats, scratch));
}

}  // namespace
