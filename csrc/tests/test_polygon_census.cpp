// polygon_census(): every Polygon alive, and the vertices and bytes it holds,
// through every way a polygon is made, copied, moved and dropped.  The
// exercise checker reads it to see that a Cython class frees its polygon.
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "polymask/core.hpp"
#include "edges.hpp"

using polymask::Polygon;
using polymask::polygon_census;

namespace {

// The census since `start`: (polygons, vertices, bytes) made and not freed.
struct Change {
    int64_t polygons, vertices, bytes;
};

Change since(const polymask::PolygonCensus &start)
{
    const auto now = polygon_census();
    return {now.polygons - start.polygons, now.vertices - start.vertices, now.bytes - start.bytes};
}

std::vector<double> ring(int n)
{
    std::vector<double> xy;
    for (int k = 0; k < n; ++k) {
        xy.push_back(k % 2 ? 10.0 * k : 0.0);
        xy.push_back(static_cast<double>(k));
    }
    return xy;
}

}  // namespace

TEST(PolygonCensus, CountsAPolygonAndItsVerticesUntilDeleted)
{
    const auto start = polygon_census();
    const auto xy = ring(7);
    auto *polygon = new Polygon(xy.data(), 7);
    const Change made = since(start);
    EXPECT_EQ(made.polygons, 1);
    EXPECT_EQ(made.vertices, 7);
    // The edge table, the vertices and one ring end, at least.
    EXPECT_GE(made.bytes, static_cast<int64_t>(7 * (sizeof(polymask::Edge) + 2 * sizeof(double)) + 8));
    delete polygon;
    const Change left = since(start);
    EXPECT_EQ(left.polygons, 0);
    EXPECT_EQ(left.vertices, 0);
    EXPECT_EQ(left.bytes, 0);
}

TEST(PolygonCensus, ALeakedPolygonStaysCounted)
{
    const auto start = polygon_census();
    const auto xy = ring(5);
    std::unique_ptr<Polygon> kept(new Polygon(xy.data(), 5));
    Polygon *leaked = new Polygon(xy.data(), 5);
    kept.reset();
    const Change left = since(start);
    EXPECT_EQ(left.polygons, 1);
    EXPECT_EQ(left.vertices, 5);
    delete leaked;
    EXPECT_EQ(since(start).polygons, 0);
}

TEST(PolygonCensus, CopiesMovesAndAssignmentsBalance)
{
    const auto start = polygon_census();
    const auto a = ring(4), b = ring(9);
    {
        Polygon first(a.data(), 4), second(b.data(), 9);
        Polygon copy(first);  // a second block of 4 vertices
        EXPECT_EQ(since(start).vertices, 4 + 9 + 4);
        Polygon moved(std::move(copy));  // the same block, one more (empty) object
        EXPECT_EQ(since(start).polygons, 4);
        EXPECT_EQ(since(start).vertices, 4 + 9 + 4);
        moved = second;  // frees moved's 4, copies second's 9
        EXPECT_EQ(since(start).vertices, 4 + 9 + 9);
        moved = std::move(first);  // frees the copy of 9, takes first's 4
        EXPECT_EQ(since(start).vertices, 4 + 9);
        moved = std::move(moved);  // self-move keeps what it had
        EXPECT_EQ(since(start).vertices, 4 + 9);
        Polygon empty;  // counted, holding nothing
        EXPECT_EQ(since(start).polygons, 5);
        std::vector<Polygon> grown;
        for (int k = 0; k < 20; ++k) grown.emplace_back(a.data(), 4);  // growth moves them
        EXPECT_EQ(since(start).polygons, 25);
        EXPECT_EQ(since(start).vertices, 4 + 9 + 20 * 4);
    }
    const Change left = since(start);
    EXPECT_EQ(left.polygons, 0);
    EXPECT_EQ(left.vertices, 0);
    EXPECT_EQ(left.bytes, 0);
}

TEST(PolygonCensus, AConstructorThatThrowsCountsNothing)
{
    const auto start = polygon_census();
    const auto xy = ring(4);
    const int64_t bad_ends[] = {3, 2};  // decreasing ring ends
    EXPECT_THROW(Polygon(xy.data(), 4, bad_ends, 2), std::invalid_argument);
    const Change left = since(start);
    EXPECT_EQ(left.polygons, 0);
    EXPECT_EQ(left.vertices, 0);
    EXPECT_EQ(left.bytes, 0);
}

TEST(PolygonCensus, APolygonMadeOnAThreadThatEndedIsCountedUntilFreedElsewhere)
{
    const auto start = polygon_census();
    const auto xy = ring(6);
    Polygon *made = nullptr;
    std::thread([&] { made = new Polygon(xy.data(), 6); }).join();
    EXPECT_EQ(since(start).polygons, 1);
    EXPECT_EQ(since(start).vertices, 6);
    delete made;  // +1 on the ended thread, -1 here
    EXPECT_EQ(since(start).polygons, 0);
    EXPECT_EQ(since(start).vertices, 0);
    EXPECT_EQ(since(start).bytes, 0);
}
