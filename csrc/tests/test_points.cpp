// Points: PointIndex answers the contract at any (x, y), bit for bit the
// per-point rule of Polygon::contains, and contains_points at the grid's
// points equals the per-pixel mask.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "polymask/points.hpp"
#include "test_support.hpp"

using namespace polymask_test;
using polymask::PointIndex;

namespace {

// Points that stress the index: random ones, every vertex, the edges'
// midpoints and their neighbours one ulp away, and rows through vertices.
std::vector<std::pair<double, double>> hard_points(const std::vector<double> &xy, std::mt19937_64 &rng,
                                                   double lo, double hi)
{
    std::vector<std::pair<double, double>> points;
    std::uniform_real_distribution<double> coordinate(lo - 1, hi + 1);
    for (int k = 0; k < 2000; ++k) points.emplace_back(coordinate(rng), coordinate(rng));
    const size_t n = xy.size() / 2;
    for (size_t i = 0; i < n; ++i) {
        const size_t j = (i + 1) % n;
        const double x = xy[2 * i], y = xy[2 * i + 1];
        const double mx = 0.5 * (x + xy[2 * j]), my = 0.5 * (y + xy[2 * j + 1]);
        for (double dx : {-1.0, 0.0, 1.0}) {
            for (double dy : {-1.0, 0.0, 1.0}) {
                points.emplace_back(std::nextafter(x, x + dx), std::nextafter(y, y + dy));
                points.emplace_back(std::nextafter(mx, mx + dx), std::nextafter(my, my + dy));
            }
        }
        points.emplace_back(coordinate(rng), y);  // on the row of a vertex
    }
    return points;
}

void expect_index_agrees(const Polygon &polygon, const std::vector<std::pair<double, double>> &points)
{
    const PointIndex index(polygon);
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        for (const auto &[px, py] : points) {
            ASSERT_EQ(index.contains(px, py, rule), polygon.contains(px, py, rule))
                << "point (" << px << ", " << py << ") rule " << static_cast<int>(rule);
        }
    }
}

}  // namespace

TEST(Points, IndexEqualsTheRuleOnRandomPolygons)
{
    std::mt19937_64 rng(35);
    for (int n : {3, 4, 7, 24, 100, 1000}) {
        const auto xy = random_vertices(rng, n, -50, 50);
        expect_index_agrees(Polygon(xy.data(), n), hard_points(xy, rng, -50, 50));
        const auto grid = random_grid_vertices(rng, n, -20, 20, 0.5);  // horizontal edges, shared rows
        expect_index_agrees(Polygon(grid.data(), n), hard_points(grid, rng, -20, 20));
    }
}

TEST(Points, IndexEqualsTheRuleWithHolesAndFarCoordinates)
{
    const double xy[] = {0, 0, 10, 0, 10, 10, 0, 10,  2, 2, 4, 2, 4, 4, 2, 4,
                         1048576, -1048576, -1048576, 1048576, 1048576, 1048576};
    const int64_t ends[] = {4, 8, 11};
    const Polygon polygon(xy, 11, ends, 3);
    std::mt19937_64 rng(2);
    expect_index_agrees(polygon, hard_points(std::vector<double>(xy, xy + 22), rng, -1048576, 1048576));
}

TEST(Points, StarKeepsMemoryLinear)
{
    // Every edge of a star spans most of its height: the bands must not
    // hold N edges each, nor many copies of each edge.
    const int n = 2000;
    std::vector<double> xy;
    for (int k = 0; k < n; ++k) {
        const double angle = 2 * M_PI * k / n, radius = (k % 2) ? 100 : 5;
        xy.push_back(radius * std::cos(angle));
        xy.push_back(radius * std::sin(angle));
    }
    const Polygon polygon(xy.data(), n);
    const PointIndex index(polygon);
    EXPECT_LE(index.stored_edges(), 18 * n);  // a small polygon may hold 16 copies an edge, and 2 more below
    EXPECT_LE(index.memory_bytes(), 400 * n);
    std::mt19937_64 rng(3);
    expect_index_agrees(polygon, hard_points(xy, rng, -100, 100));
    // A large star: under 100 bytes a vertex (issue 41's aim).
    const int large = 300000;
    xy.clear();
    for (int k = 0; k < large; ++k) {
        const double angle = 2 * M_PI * k / large, radius = (k % 2) ? 100 : 5;
        xy.push_back(radius * std::cos(angle));
        xy.push_back(radius * std::sin(angle));
    }
    const PointIndex large_index(xy.data(), large, std::vector<int64_t>{large}.data(), 1);
    EXPECT_LE(large_index.stored_edges(), 4 * large);
    EXPECT_LE(large_index.memory_bytes(), 100 * large);
}

TEST(Points, ACombGetsALevelOfItsOwn)
{
    // Issue 41: every tooth of a comb lies in the lowest band of its outline,
    // and each query tested all of them.  The crowded band gets a level of
    // its own, where the teeth span its bands and are searched, not tested.
    const int teeth = 4000;
    std::vector<double> xy;
    for (int k = 0; k < teeth; ++k) {
        xy.push_back(1000.0 * k / (teeth - 1));
        xy.push_back(k % 2 ? 1e-3 : 0.0);
    }
    for (double v : {1000.0, 1e6, 0.0, 1e6}) xy.push_back(v);
    const int n = teeth + 2;
    const Polygon polygon(xy.data(), n);
    const PointIndex index(polygon);
    EXPECT_GE(index.level_count(), 2);
    EXPECT_LE(index.memory_bytes(), 100 * n);
    EXPECT_LT(index.mean_query_work(), 100.0);
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> across(0, 1000), up(0, 1e-3);
    std::vector<std::pair<double, double>> points = hard_points(xy, rng, 0, 1000);
    int64_t work = 0;
    for (int k = 0; k < 2000; ++k) {
        const double px = across(rng), py = up(rng);
        points.emplace_back(px, py);
        index.contains(px, py, FillRule::even_odd, work);
    }
    EXPECT_LT(work, 2000 * 100);  // a few edges a query, not all 4000
    expect_index_agrees(polygon, points);
}

TEST(Points, ShallowAndSteepEdgesTogether)
{
    // A zig-zag of long, nearly horizontal edges beside steep spikes: wide
    // and narrow spans in the same bands, points on and one ulp off them.
    std::vector<double> xy;
    for (int k = 0; k < 300; ++k) {
        xy.push_back(k % 2 ? 1000.0 + 0.37 * k : 0.13 * k);
        xy.push_back(0.5 * k + (k % 3) * 0.001);
    }
    for (int k = 0; k < 300; ++k) {
        xy.push_back(1200.0 - 3.0 * k);
        xy.push_back(k % 2 ? 150.0 : -5.0 + 0.01 * k);
    }
    const int n = static_cast<int>(xy.size() / 2);
    std::mt19937_64 rng(6);
    auto points = hard_points(xy, rng, -10, 1250);
    std::uniform_real_distribution<double> row(-5, 155);
    for (int k = 0; k < 3000; ++k) {  // on the edges: x_cross itself, and its neighbours
        const int i = static_cast<int>(rng() % n), j = (i + n - 1) % n;
        const double py = row(rng);
        if (!polymask::pm_edge_crosses_row(xy[2 * i + 1], xy[2 * j + 1], py)) continue;
        const double x = polymask::pm_x_cross(xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1], py);
        for (double to : {-1e300, 0.0, 1e300}) points.emplace_back(to == 0 ? x : std::nextafter(x, to), py);
    }
    expect_index_agrees(Polygon(xy.data(), n), points);
}

TEST(Points, EmptyAndDegeneratePolygonsHoldNoPoint)
{
    const double flat[] = {0, 1, 5, 1, 9, 1};  // only horizontal edges
    for (const Polygon &polygon : {Polygon(), Polygon(flat, 3), Polygon(flat, 2)}) {
        const PointIndex index(polygon);
        EXPECT_FALSE(index.contains(1, 1));
        EXPECT_FALSE(index.contains(-1, 0.5, FillRule::nonzero));
        // Through the threaded calls too: a polygon without edges has no
        // bands, and the work estimate was 0/0 (UBSan: NaN cast to int64).
        std::vector<double> x(100000, 1.0), y(100000, 1.0), row(300, 1.0), column(300, 1.0);
        std::vector<uint8_t> out(x.size(), 7), grid(row.size() * column.size(), 7);
        polymask::contains_points(polygon, x.data(), y.data(), static_cast<int64_t>(x.size()), out.data(),
                                  FillRule::even_odd, 2);
        polymask::contains_grid(polygon, row.data(), 300, column.data(), 300, grid.data(), FillRule::nonzero, 2);
        EXPECT_EQ(std::count(out.begin(), out.end(), 0), static_cast<std::ptrdiff_t>(out.size()));
        EXPECT_EQ(std::count(grid.begin(), grid.end(), 0), static_cast<std::ptrdiff_t>(grid.size()));
    }
}

TEST(Points, ContainsPointsAtTheGridEqualsTheMask)
{
    std::mt19937_64 rng(4);
    const int64_t rows = 61, cols = 53;
    std::vector<double> x, y;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            x.push_back(static_cast<double>(c));
            y.push_back(static_cast<double>(r));
        }
    }
    for (int trial = 0; trial < 20; ++trial) {
        const auto xy = random_grid_vertices(rng, 30, -5, 65, 1.0);
        const Polygon polygon(xy.data(), 30);
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            for (int threads : {1, 2, 0}) {
                std::vector<uint8_t> inside(x.size(), 0xAA);
                polymask::contains_points(polygon, x.data(), y.data(), static_cast<int64_t>(x.size()),
                                          inside.data(), rule, threads);
                ASSERT_EQ(inside, full_mask(polygon, rows, cols, Fill::per_pixel, rule));
            }
        }
    }
}

TEST(Points, WhichPolygonPutsLaterOverEarlier)
{
    const double left[] = {0, 0, 4, 0, 4, 4, 0, 4};
    const double right[] = {2, 0, 6, 0, 6, 4, 2, 4};
    const std::vector<Polygon> polygons{Polygon(left, 4), Polygon(right, 4)};
    const double x[] = {1, 3, 5, 7, 3};
    const double y[] = {1, 1, 1, 1, 4};
    int64_t out[5] = {-9, -9, -9, -9, -9};
    polymask::which_polygon(polygons.data(), 2, x, y, 5, out, FillRule::even_odd, 1);
    EXPECT_EQ(std::vector<int64_t>(out, out + 5), (std::vector<int64_t>{1, 2, 2, 0, 0}));
}

TEST(Points, ContainsGridEqualsContainsPointsAtEveryPoint)
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> coordinate(-60, 60);
    for (int trial = 0; trial < 12; ++trial) {
        const auto xy = trial % 2 ? random_grid_vertices(rng, 40, -50, 50, 1.0) : random_vertices(rng, 40, -50, 50);
        const Polygon polygon(xy.data(), 40);
        // Uneven x (sorted, with repeats and the vertices' own x) and y in any order.
        std::vector<double> x, y;
        for (int k = 0; k < 70; ++k) x.push_back(coordinate(rng));
        for (int k = 0; k < 40; ++k) x.push_back(xy[2 * k]);
        x.push_back(x[3]);
        std::sort(x.begin(), x.end());
        for (int k = 0; k < 50; ++k) y.push_back(coordinate(rng));
        for (int k = 0; k < 40; ++k) y.push_back(xy[2 * k + 1]);
        const int64_t width = static_cast<int64_t>(x.size()), height = static_cast<int64_t>(y.size());
        std::vector<double> px, py;
        for (double row : y) {
            for (double col : x) {
                px.push_back(col);
                py.push_back(row);
            }
        }
        for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
            std::vector<uint8_t> grid(px.size(), 0xAA), points(px.size(), 0xAA);
            polymask::contains_grid(polygon, x.data(), width, y.data(), height, grid.data(), rule, trial % 3);
            polymask::contains_points(polygon, px.data(), py.data(), width * height, points.data(), rule, 1);
            ASSERT_EQ(grid, points) << "trial " << trial;
        }
    }
}

TEST(Points, AProductThatOverflowsIsACrossingAsTheContractComputesIt)
{
    // (xj - xi) * (py - yi) = 2.2 * -DBL_MAX is -inf, so this edge crosses the
    // row y = 0 at x = +inf: right of every point, and (8960, 0) is inside by
    // the contract's arithmetic, as the mask has it.  The index's x ranges
    // had called every point right of x = 2.2 outside.
    const double xy[] = {0x1.19999ap+1, -0x1.999a8p-102, 0x1.003101e666607p-911, 0x1.fffffffffffffp+1023,
                         0x0.0000000000003p-1022, 0.0};
    const Polygon polygon(xy, 3);
    const double x[] = {8960.0, 3.0, 1.0, -5.0, 1e300}, y[] = {0.0, 0.0, 0.0, 0.0, 0.0};
    uint8_t out[5];
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        polymask::contains_points(polygon, x, y, 5, out, rule, 1);
        for (int k = 0; k < 5; ++k) EXPECT_EQ(out[k], polygon.contains(x[k], y[k], rule) ? 1 : 0) << x[k];
    }
    EXPECT_TRUE(polygon.contains(8960.0, 0.0));
}

TEST(Points, ASubnormalProductRoundsAsTheContractRoundsIt)
{
    // The edge from (10, 5e-324) to (2.5, 0) crosses y = 0 at x_cross = 2,
    // not 2.5: (2.5 - 10) * (0 - 5e-324) is 7.5 units of 2^-1074, rounded to
    // 8, and divided by a rise of one unit.  So (2, 0) is inside by the
    // contract, as the mask has it; the index had ruled out every point left
    // of x = 2.5 minus a few ulps.
    const double xy[] = {0x1.006ffep+33, 0.0, 2.5, 0.0, 10.0, 0x0.0000000000001p-1022};
    const Polygon polygon(xy, 3);
    const double x[] = {1.0, 2.0, 2.25, 2.5, 3.0}, y[] = {0.0, 0.0, 0.0, 0.0, 0.0};
    uint8_t out[5];
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        polymask::contains_points(polygon, x, y, 5, out, rule, 1);
        for (int k = 0; k < 5; ++k) EXPECT_EQ(out[k], polygon.contains(x[k], y[k], rule) ? 1 : 0) << x[k];
    }
    EXPECT_TRUE(polygon.contains(2.0, 0.0));
}

TEST(Points, CoordinatesAtTheEndsOfTheDoubles)
{
    // x from -DBL_MAX to DBL_MAX: xj - xi is inf, and at an edge's end-point
    // inf * 0 is NaN; no x range can be trusted, every edge is tested.
    const double big = 0x1.fffffffffffffp+1023;
    const double xy[] = {-big, 1.0, big, 62.5, -big, -big};
    const Polygon polygon(xy, 3);
    const double x[] = {-big, 0.0, big, -1e300, 1e300, 5.0}, y[] = {-0x1.ffffffffffffep+1023, 0.0, 1.0, 2.0, 60.0, -1e300};
    uint8_t out[6];
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        polymask::contains_points(polygon, x, y, 6, out, rule, 1);
        for (int k = 0; k < 6; ++k) EXPECT_EQ(out[k], polygon.contains(x[k], y[k], rule) ? 1 : 0) << k;
    }
}

TEST(Points, AnIndexOfRingsEqualsAnIndexOfTheirPolygon)
{
    // The binding indexes the caller's rings without a Polygon (no edge
    // table sorted by y): the same answers, and the same refusals.
    std::mt19937_64 rng(12);
    auto xy = random_grid_vertices(rng, 60, -20, 20, 0.5);  // horizontal edges too
    const auto hole = random_vertices(rng, 9, -10, 10);
    xy.insert(xy.end(), hole.begin(), hole.end());
    const int64_t ends[] = {60, 69};
    const Polygon polygon(xy.data(), 69, ends, 2);
    const PointIndex rings(xy.data(), 69, ends, 2);
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        for (const auto &[px, py] : hard_points(xy, rng, -20, 20)) {
            ASSERT_EQ(rings.contains(px, py, rule), polygon.contains(px, py, rule)) << px << ", " << py;
        }
    }
    EXPECT_EQ(rings.stored_edges(), PointIndex(polygon).stored_edges());
    const int64_t bad[] = {70, 69};
    EXPECT_THROW(PointIndex(xy.data(), 69, bad, 2), std::invalid_argument);
}

TEST(Points, ACopyAnswersAsTheOriginalAndAMovedFromIndexHoldsNothing)
{
    // The index's state is the core's own (one pointer to it): a copy owns
    // a copy of it, a move hands it over.
    std::mt19937_64 rng(54);
    const auto xy = random_vertices(rng, 200, -30, 30);
    const Polygon polygon(xy.data(), 200);
    PointIndex original(polygon);
    const PointIndex copy(original);
    PointIndex assigned(Polygon(random_vertices(rng, 5, 0, 1).data(), 5));
    assigned = copy;
    const auto points = hard_points(xy, rng, -30, 30);
    for (const auto &[px, py] : points) {
        ASSERT_EQ(copy.contains(px, py), polygon.contains(px, py)) << px << ", " << py;
        ASSERT_EQ(assigned.contains(px, py), polygon.contains(px, py)) << px << ", " << py;
    }
    EXPECT_EQ(copy.stored_edges(), original.stored_edges());
    EXPECT_GT(copy.memory_bytes(), 0);  // a copy's vectors may hold less spare room

    PointIndex moved(std::move(original));
    EXPECT_EQ(moved.stored_edges(), copy.stored_edges());
    // NOLINTNEXTLINE(bugprone-use-after-move): a moved-from index is empty, not broken
    EXPECT_EQ(original.stored_edges(), 0);
    EXPECT_EQ(original.memory_bytes(), 0);
    std::vector<double> x_cross;
    std::vector<int> winding;
    original.row_crossings(0.0, x_cross, winding);
    EXPECT_TRUE(x_cross.empty() && winding.empty());
    for (const auto &[px, py] : points) ASSERT_FALSE(original.contains(px, py));
    original = moved;  // and it can be assigned again
    for (const auto &[px, py] : points) ASSERT_EQ(original.contains(px, py), polygon.contains(px, py));
}
