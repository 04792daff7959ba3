// How many blocks the core asks for: a binary of its own, because it
// replaces the global operator new to count them.
//
// A label image of a million polygons made four million small blocks when
// each polygon kept its vertices, ring ends and edges in vectors of their
// own (and stable_sort took a buffer), and freeing them after Ctrl-C took
// 0.3-0.6 s for two million, past the 0.25 s promise.  A polygon now takes
// one block.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "polymask/core.hpp"
#include "edges.hpp"

namespace {
std::atomic<long> g_blocks{0};

void *counted(std::size_t size)
{
    g_blocks.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(size > 0 ? size : 1);
}
}  // namespace

void *operator new(std::size_t size)
{
    if (void *p = counted(size)) return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t size)
{
    if (void *p = counted(size)) return p;
    throw std::bad_alloc();
}
void *operator new(std::size_t size, const std::nothrow_t &) noexcept { return counted(size); }
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept { return counted(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

namespace {

long blocks_to_build(const std::vector<double> &xy, const std::vector<int64_t> &ring_ends)
{
    const long before = g_blocks.load();
    const polymask::Polygon polygon(xy.data(), static_cast<int64_t>(xy.size() / 2), ring_ends.data(),
                                    static_cast<int64_t>(ring_ends.size()));
    const long after = g_blocks.load();
    EXPECT_EQ(polygon.vertex_count(), static_cast<int64_t>(xy.size() / 2));
    return after - before;
}

}  // namespace

TEST(Allocations, APolygonOfUpTo32EdgesIsOneBlock)
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> coordinate(0.0, 100.0);
    for (int n : {3, 4, 8, 24, 32}) {
        std::vector<double> xy(2 * static_cast<size_t>(n));
        for (double &v : xy) v = coordinate(rng);
        EXPECT_EQ(blocks_to_build(xy, {n}), 1) << n << " vertices, one ring";
        EXPECT_EQ(blocks_to_build(xy, {n / 2, n}), 1) << n << " vertices, two rings";
    }
    EXPECT_EQ(blocks_to_build({}, {}), 0) << "no vertices";
}

TEST(Allocations, ALargePolygonIsTheBlockAndItsSortBuffer)
{
    std::vector<double> xy(2 * 1000);
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> coordinate(0.0, 100.0);
    for (double &v : xy) v = coordinate(rng);
    EXPECT_LE(blocks_to_build(xy, {1000}), 2);
    // Copies take one block too.
    const polymask::Polygon polygon(xy.data(), 1000);
    const long before = g_blocks.load();
    const polymask::Polygon copy(polygon);
    EXPECT_EQ(g_blocks.load() - before, 1);
    EXPECT_EQ(edges_by_y(copy).size(), edges_by_y(polygon).size());
}
