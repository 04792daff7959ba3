// Small masks spelled out as pictures: the contract's conventions, readable.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "test_support.hpp"
#include "edges.hpp"

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

// ---- the polygon's own storage ------------------------------------------------

namespace {

// The edge table as the contract describes it, built independently: each
// ring's edges from vertex j = i - 1 to i, horizontal ones dropped, stably
// sorted by y_low.
std::vector<polymask::Edge> reference_edges(const std::vector<double> &xy, const std::vector<int64_t> &ring_ends)
{
    std::vector<polymask::Edge> edges;
    int64_t start = 0;
    for (int64_t end : ring_ends) {
        for (int64_t i = start; i < end; ++i) {
            const int64_t j = i == start ? end - 1 : i - 1;
            const double yi = xy[2 * i + 1], yj = xy[2 * j + 1];
            if (yi == yj) continue;
            edges.push_back({xy[2 * i], yi, xy[2 * j], yj, std::min(yi, yj), std::max(yi, yj), yi > yj ? 1 : -1});
        }
        start = end;
    }
    std::stable_sort(edges.begin(), edges.end(),
                     [](const polymask::Edge &a, const polymask::Edge &b) { return a.y_low < b.y_low; });
    return edges;
}

void expect_same_edges(const std::vector<polymask::Edge> &expected, polymask::ConstSpan<polymask::Edge> got,
                       const std::string &what)
{
    ASSERT_EQ(got.size(), expected.size()) << what;
    for (size_t k = 0; k < expected.size(); ++k) {
        const polymask::Edge &a = expected[k], &b = got[k];
        EXPECT_TRUE(a.xi == b.xi && a.yi == b.yi && a.xj == b.xj && a.yj == b.yj && a.y_low == b.y_low &&
                    a.y_high == b.y_high && a.winding == b.winding)
            << what << ": edge " << k;
    }
}

}  // namespace

// Vertices, ring ends and the edge table live in one block: each must read
// back as given, the table stably sorted (grid vertices tie on y_low), on
// both sides of the 32-edge line where the sort changes.
TEST(PolygonStorage, HoldsTheVerticesRingsAndSortedEdgeTable)
{
    std::mt19937_64 rng(20261122);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> xy;
        std::vector<int64_t> ring_ends;
        const int rings = 1 + trial % 3;
        for (int r = 0; r < rings; ++r) {
            const int n = static_cast<int>(rng() % 40);  // 0 to 39 vertices, some rings empty
            const std::vector<double> ring = random_grid_vertices(rng, n, 0, 6, 1.0);
            xy.insert(xy.end(), ring.begin(), ring.end());
            ring_ends.push_back(static_cast<int64_t>(xy.size() / 2));
        }
        const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2), ring_ends.data(),
                                        static_cast<int64_t>(ring_ends.size()));
        const std::string what = "trial " + std::to_string(trial);
        EXPECT_EQ(values_of(polygon.xy()), xy) << what;
        EXPECT_EQ(values_of(polygon.ring_ends()), ring_ends) << what;
        EXPECT_EQ(polygon.vertex_count(), static_cast<int64_t>(xy.size() / 2)) << what;
        expect_same_edges(reference_edges(xy, ring_ends), edges_by_y(polygon), what);
    }
}

TEST(PolygonStorage, CopiesAreDeepAndMovesLeaveAnEmptyPolygon)
{
    const std::vector<double> xy = {0, 0, 9, 1, 8, 7, 1, 6, 3, 3, 5, 3, 4, 5};
    const std::vector<int64_t> ring_ends = {4, 7};
    const std::vector<polymask::Edge> expected = reference_edges(xy, ring_ends);
    auto original = std::make_unique<polymask::Polygon>(xy.data(), 7, ring_ends.data(), 2);
    polymask::Polygon copy(*original);
    polymask::Polygon assigned;
    assigned = *original;
    const polymask::Polygon &same = assigned;
    assigned = same;  // self-assignment keeps it
    original.reset();     // the copies own their storage (ASan in CI would see a shared block)
    for (const polymask::Polygon *p : {&copy, &assigned}) {
        EXPECT_EQ(values_of(p->xy()), xy);
        EXPECT_EQ(values_of(p->ring_ends()), ring_ends);
        expect_same_edges(expected, edges_by_y(*p), "copy");
        EXPECT_TRUE(p->contains(2.0, 2.0));
        EXPECT_FALSE(p->contains(4.0, 4.0));  // inside the hole
    }
    polymask::Polygon moved(std::move(copy));
    expect_same_edges(expected, edges_by_y(moved), "moved");
    EXPECT_EQ(copy.vertex_count(), 0);  // NOLINT(bugprone-use-after-move): the state is part of the contract
    EXPECT_EQ(copy.ring_count(), 0);
    EXPECT_TRUE(copy.xy().empty() && copy.ring_ends().empty() && edges_by_y(copy).empty());
    polymask::Polygon target(xy.data(), 3);
    target = std::move(moved);
    expect_same_edges(expected, edges_by_y(target), "move-assigned");
    EXPECT_TRUE(edges_by_y(moved).empty());  // NOLINT(bugprone-use-after-move)
    const polymask::Polygon empty;
    EXPECT_TRUE(empty.xy().empty() && edges_by_y(empty).empty() && empty.ring_ends().empty());
    EXPECT_FALSE(empty.contains(0.0, 0.0));
}
