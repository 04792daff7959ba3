// LabelIndex: which of many polygons holds a point, bit for bit the last
// polygon whose Polygon::contains says so, for scattered points and on
// rectilinear grids, with small polygons (tested edge by edge), large ones
// (their own PointIndex) and boxes the grid of cells cannot file.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "polymask/points.hpp"
#include "test_support.hpp"

using namespace polymask_test;
using polymask::LabelIndex;

namespace {

struct FlatPolygons {
    std::vector<double> xy;
    std::vector<int64_t> ring_ends, polygon_ends;
    std::vector<Polygon> polygons;

    void add(const std::vector<double> &ring)
    {
        xy.insert(xy.end(), ring.begin(), ring.end());
        ring_ends.push_back(static_cast<int64_t>(xy.size() / 2));
        polygon_ends.push_back(static_cast<int64_t>(ring_ends.size()));
        polygons.emplace_back(ring.data(), static_cast<int64_t>(ring.size() / 2));
    }
    LabelIndex index() const
    {
        return LabelIndex(xy.data(), static_cast<int64_t>(xy.size() / 2), ring_ends.data(),
                          static_cast<int64_t>(ring_ends.size()), polygon_ends.data(),
                          static_cast<int64_t>(polygon_ends.size()));
    }
    int64_t expected(double px, double py, FillRule rule) const
    {
        for (size_t p = polygons.size(); p-- > 0;) {
            if (polygons[p].contains(px, py, rule)) return static_cast<int64_t>(p) + 1;
        }
        return 0;
    }
};

FlatPolygons mixed_polygons(std::mt19937_64 &rng)
{
    FlatPolygons flat;
    std::uniform_real_distribution<double> centre(-100, 100), size(0.5, 20);
    for (int p = 0; p < 300; ++p) {
        const double cx = centre(rng), cy = centre(rng), half = size(rng);
        const int n = p % 50 == 7 ? 200 : 3 + p % 6;  // a few large polygons among small ones
        flat.add(p % 3 ? random_vertices(rng, n, -half, half) : random_grid_vertices(rng, n, -8, 8, 0.5));
        for (size_t k = flat.xy.size() - 2 * n; k < flat.xy.size(); k += 2) flat.xy[k] += cx, flat.xy[k + 1] += cy;
        flat.polygons.back() = Polygon(flat.xy.data() + flat.xy.size() - 2 * n, n);
    }
    return flat;
}

}  // namespace

TEST(PointLabels, WhichEqualsTheLastPolygonHoldingThePoint)
{
    std::mt19937_64 rng(41);
    const FlatPolygons flat = mixed_polygons(rng);
    const LabelIndex index = flat.index();
    EXPECT_GT(index.indexed_polygons(), 0);
    EXPECT_LT(index.indexed_polygons(), index.polygon_count());
    std::uniform_real_distribution<double> coordinate(-130, 130);
    std::vector<double> x, y;
    for (int k = 0; k < 20000; ++k) x.push_back(coordinate(rng)), y.push_back(coordinate(rng));
    for (size_t k = 0; k + 1 < flat.xy.size(); k += 2) x.push_back(flat.xy[k]), y.push_back(flat.xy[k + 1]);
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        for (int threads : {1, 2}) {
            std::vector<int64_t> out(x.size(), -1);
            index.which(x.data(), y.data(), static_cast<int64_t>(x.size()), out.data(), rule, threads);
            for (size_t k = 0; k < x.size(); ++k) {
                ASSERT_EQ(out[k], flat.expected(x[k], y[k], rule)) << "point " << x[k] << ", " << y[k];
            }
        }
    }
}

TEST(PointLabels, GridEqualsWhichAtEveryPoint)
{
    std::mt19937_64 rng(42);
    const FlatPolygons flat = mixed_polygons(rng);
    const LabelIndex index = flat.index();
    std::uniform_real_distribution<double> coordinate(-120, 120);
    std::vector<double> x, y;
    for (int k = 0; k < 150; ++k) x.push_back(coordinate(rng)), y.push_back(coordinate(rng));
    for (int k = 0; k < 40; ++k) x.push_back(flat.xy[2 * k]), y.push_back(flat.xy[2 * k + 1]);  // on vertices
    std::sort(x.begin(), x.end());
    std::vector<double> px, py;
    for (double row : y) {
        for (double col : x) px.push_back(col), py.push_back(row);
    }
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        std::vector<int64_t> grid(px.size(), -1), points(px.size(), -1);
        index.which_grid(x.data(), static_cast<int64_t>(x.size()), y.data(), static_cast<int64_t>(y.size()),
                         grid.data(), rule, 2);
        index.which(px.data(), py.data(), static_cast<int64_t>(px.size()), points.data(), rule, 1);
        ASSERT_EQ(grid, points);
    }
}

TEST(PointLabels, BoxesBeyondTheGridAndEmptyPolygons)
{
    // A polygon whose x_cross may overflow has no trusted x range: it is
    // asked for every point.  One with only horizontal edges holds nothing.
    FlatPolygons flat;
    flat.add({0, 0, 4, 0, 4, 4, 0, 4});
    flat.add({-1e300, -1, 1e300, -1, 1e300, 1e10, -1e300, 1e10});  // x extent times y extent overflows
    flat.add({0, 2, 9, 2, 5, 2});
    flat.add({1, 1, 2, 1, 2, 2, 1, 2});
    const LabelIndex index = flat.index();
    const double x[] = {0.5, 1.5, 3, 5, 1e299, -5, 1.5, 0.5};
    const double y[] = {0.5, 1.5, 3, 0, 0.5, -1, 2, 2};
    int64_t out[8];
    for (FillRule rule : {FillRule::even_odd, FillRule::nonzero}) {
        index.which(x, y, 8, out, rule, 1);
        for (int k = 0; k < 8; ++k) EXPECT_EQ(out[k], flat.expected(x[k], y[k], rule)) << k;
    }
    EXPECT_EQ(out[0], 2);
    EXPECT_EQ(out[1], 4);
}

TEST(PointLabels, BadRingsAreRefused)
{
    const double xy[] = {0, 0, 1, 0, 1, 1};
    const int64_t ring_ends[] = {2}, polygon_ends[] = {1};
    EXPECT_THROW(LabelIndex(xy, 3, ring_ends, 1, polygon_ends, 1), std::invalid_argument);
}
