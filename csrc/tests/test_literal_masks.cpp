// Small masks spelled out as pictures: the contract's conventions, readable.
#include <gtest/gtest.h>

#include "test_support.hpp"

using namespace polymask_test;

namespace {

void expect_mask(const std::vector<double> &xy, int64_t rows, int64_t cols,
                 const std::vector<std::string> &expected)
{
    const Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
    EXPECT_EQ(picture(full_mask(polygon, rows, cols, Fill::per_pixel), rows, cols), expected) << "per-pixel";
    EXPECT_EQ(picture(full_mask(polygon, rows, cols, Fill::scanline), rows, cols), expected) << "scanline";
}

}  // namespace

TEST(LiteralMasks, AxisAlignedSquareIsHalfOpen)
{
    // Left and top edges are in, right and bottom edges are out.
    expect_mask({1, 1, 4, 1, 4, 4, 1, 4}, 6, 6,
                {"......",
                 ".###..",
                 ".###..",
                 ".###..",
                 "......",
                 "......"});
}

TEST(LiteralMasks, Triangle)
{
    expect_mask({0, 0, 6, 0, 0, 6}, 7, 7,
                {"######.",
                 "#####..",
                 "####...",
                 "###....",
                 "##.....",
                 "#......",
                 "......."});
}

TEST(LiteralMasks, ConcaveUShape)
{
    expect_mask({1, 1, 7, 1, 7, 6, 5, 6, 5, 3, 3, 3, 3, 6, 1, 6}, 7, 8,
                {"........",
                 ".######.",
                 ".######.",
                 ".##..##.",
                 ".##..##.",
                 ".##..##.",
                 "........"});
}

TEST(LiteralMasks, FigureEightUsesEvenOdd)
{
    // Two squares joined at a corner by one self-intersecting ring.
    expect_mask({1, 1, 3, 1, 3, 3, 5, 3, 5, 5, 3, 5, 3, 3, 1, 3}, 6, 6,
                {"......",
                 ".##...",
                 ".##...",
                 "...##.",
                 "...##.",
                 "......"});
}

TEST(LiteralMasks, PentagramCentreIsOutsideUnderEvenOdd)
{
    const std::vector<double> star = {5, 0, 8, 9, 0, 3, 10, 3, 2, 9};
    const Polygon polygon(star.data(), 5);
    EXPECT_FALSE(polygon.contains(5, 5, FillRule::even_odd));
    EXPECT_TRUE(polygon.contains(5, 5, FillRule::nonzero));
    const auto even_odd = full_mask(polygon, 10, 11, Fill::scanline, FillRule::even_odd);
    const auto nonzero = full_mask(polygon, 10, 11, Fill::scanline, FillRule::nonzero);
    EXPECT_EQ(even_odd[5 * 11 + 5], 0);
    EXPECT_EQ(nonzero[5 * 11 + 5], 1);
    EXPECT_EQ(even_odd, full_mask(polygon, 10, 11, Fill::per_pixel, FillRule::even_odd));
    EXPECT_EQ(nonzero, full_mask(polygon, 10, 11, Fill::per_pixel, FillRule::nonzero));
}

TEST(LiteralMasks, PartlyOutsideTheImage)
{
    expect_mask({-3, -3, 3, -3, 3, 2, -3, 2}, 4, 5,
                {"###..",
                 "###..",
                 ".....",
                 "....."});
}

TEST(LiteralMasks, DegeneratePolygonsAreEmpty)
{
    const std::vector<std::string> empty = {"....", "....", "....", "...."};
    expect_mask({}, 4, 4, empty);                       // no vertices
    expect_mask({1, 1}, 4, 4, empty);                   // one vertex
    expect_mask({1, 1, 3, 3}, 4, 4, empty);             // a segment
    expect_mask({0, 1, 2, 1, 4, 1}, 4, 4, empty);       // collinear, zero area
    expect_mask({9, 9, 12, 9, 12, 12}, 4, 4, empty);    // wholly outside
}

TEST(LiteralMasks, RepeatedVerticesChangeNothing)
{
    expect_mask({1, 1, 1, 1, 4, 1, 4, 4, 4, 4, 1, 4, 1, 1}, 6, 6,
                {"......",
                 ".###..",
                 ".###..",
                 ".###..",
                 "......",
                 "......"});
}

TEST(LiteralMasks, HoleAsSecondRing)
{
    const std::vector<double> xy = {0, 0, 6, 0, 6, 6, 0, 6,   // outer
                                    2, 2, 4, 2, 4, 4, 2, 4};  // hole
    const int64_t ring_ends[] = {4, 8};
    const Polygon polygon(xy.data(), 8, ring_ends, 2);
    for (FillRule rule : {FillRule::even_odd}) {
        const auto mask = full_mask(polygon, 7, 7, Fill::scanline, rule);
        EXPECT_EQ(picture(mask, 7, 7), (std::vector<std::string>{
                                           "######.",
                                           "######.",
                                           "##..##.",
                                           "##..##.",
                                           "######.",
                                           "######.",
                                           "......."}));
        EXPECT_EQ(mask, full_mask(polygon, 7, 7, Fill::per_pixel, rule));
    }
}

TEST(LiteralMasks, NonzeroFillsSameDirectionOverlap)
{
    // Two overlapping squares, both counter-clockwise: even-odd cuts the
    // overlap out, nonzero keeps it.
    const std::vector<double> xy = {0, 0, 4, 0, 4, 4, 0, 4, 2, 2, 6, 2, 6, 6, 2, 6};
    const int64_t ring_ends[] = {4, 8};
    const Polygon polygon(xy.data(), 8, ring_ends, 2);
    EXPECT_FALSE(polygon.contains(3, 3, FillRule::even_odd));
    EXPECT_TRUE(polygon.contains(3, 3, FillRule::nonzero));
    EXPECT_EQ(full_mask(polygon, 7, 7, Fill::scanline, FillRule::nonzero),
              full_mask(polygon, 7, 7, Fill::per_pixel, FillRule::nonzero));
}

TEST(Polygon, RejectsInconsistentRings)
{
    const std::vector<double> xy = {0, 0, 1, 0, 1, 1};
    const int64_t decreasing[] = {2, 1};
    EXPECT_THROW(Polygon(xy.data(), 3, decreasing, 2), std::invalid_argument);
    const int64_t short_end[] = {2};
    EXPECT_THROW(Polygon(xy.data(), 3, short_end, 1), std::invalid_argument);
    EXPECT_THROW(Polygon(xy.data(), -1), std::invalid_argument);
}

TEST(Fills, RejectBadWindows)
{
    const std::vector<double> xy = {0, 0, 4, 0, 4, 4};
    const Polygon polygon(xy.data(), 3);
    std::vector<uint8_t> out(16);
    EXPECT_THROW(polymask::fill_scanline(polygon, Window{0, 0, -1, 4}, out.data(), 4), std::invalid_argument);
    EXPECT_THROW(polymask::fill_scanline(polygon, Window{0, 0, 4, 4}, out.data(), 3), std::invalid_argument);
    EXPECT_THROW(polymask::fill_per_pixel(polygon, Window{0, 0, 4, 4}, nullptr, 4), std::invalid_argument);
    EXPECT_NO_THROW(polymask::fill_scanline(polygon, Window{0, 0, 0, 4}, nullptr, 4));
}
