// How many threads a call gets: the cap per core and the environment,
// small work on one thread, the plan of a batch of items, row bands that
// cover every row once for any chunking, and the work estimates that decide
// whether a fill starts a helper at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "parallel.hpp"
#include "parallel_test_support.hpp"
#include "row_bands.hpp"
#include "test_support.hpp"
#include "testing.hpp"
#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"

TEST(ThreadCount, CappedAtAFewPerCore)
{
    EXPECT_GE(polymask::hardware_threads(), 1);
    EXPECT_EQ(polymask::thread_cap(), std::max(4, 4 * polymask::hardware_threads()));
    EXPECT_EQ(polymask::resolve_threads(1 << 30), polymask::thread_cap());
    EXPECT_EQ(polymask::resolve_threads(1), 1);
    EXPECT_GE(polymask::resolve_threads(0), 1);
}

TEST(ThreadCount, EnvironmentWithinTheCap)
{
    setenv("OMP_NUM_THREADS", "100000", 1);
    EXPECT_EQ(polymask::default_threads(), polymask::thread_cap());
    setenv("OMP_NUM_THREADS", "3,2", 1);
    EXPECT_EQ(polymask::default_threads(), std::min(3, polymask::thread_cap()));
    setenv("POLYMASK_NUM_THREADS", "2", 1);
    EXPECT_EQ(polymask::default_threads(), 2);  // polymask's own variable wins
    setenv("POLYMASK_NUM_THREADS", "junk", 1);
    EXPECT_EQ(polymask::default_threads(), std::min(3, polymask::thread_cap()));
    unsetenv("POLYMASK_NUM_THREADS");
    unsetenv("OMP_NUM_THREADS");
    EXPECT_EQ(polymask::default_threads(), std::min(polymask::hardware_threads(), polymask::thread_cap()));
}

TEST(ThreadCount, SmallWorkRunsOnOneThread)
{
    const FixedBar bar;
    EXPECT_EQ(polymask::detail::threads_for_work(8, 1000.0), 1);
    EXPECT_EQ(polymask::detail::threads_for_work(1, 1e12), 1);
    EXPECT_EQ(polymask::detail::threads_for_work(2, 1e12), 2);
}

TEST(ItemPlan, ThreadsAndChunksFollowTheItemsWork)
{
    const FixedBar bar;
    using polymask::detail::plan_items;
    using polymask::detail::kWorkPerThread;
    // Many items too small to share: one thread, whatever the count.
    const auto tiny = plan_items(1000, 8, [](int64_t) { return 10.0; });
    EXPECT_EQ(tiny.team, 1);
    EXPECT_GE(tiny.chunks, 1);
    EXPECT_LE(tiny.chunks, 1000);
    // Worth two threads: two, with threads=2 or more allowed.
    const auto two = plan_items(100, 8, [](int64_t) { return kWorkPerThread * 2.5 / 100; });
    EXPECT_EQ(two.team, 2);
    EXPECT_EQ(plan_items(100, 1, [](int64_t) { return kWorkPerThread; }).team, 1);  // threads is an upper bound
    // Huge items: every allowed thread, and never more chunks than items.
    const auto huge = plan_items(3, 2, [](int64_t) { return 1e12; });
    EXPECT_EQ(huge.team, 2);
    EXPECT_EQ(huge.chunks, 3);
    EXPECT_EQ(plan_items(0, 4, [](int64_t) { return 1.0; }).chunks, 0);
    // A big batch is summed only until every thread is worth it.
    int64_t looked = 0;
    plan_items(1000000, 2, [&](int64_t) { ++looked; return kWorkPerThread; });
    EXPECT_LE(looked, 3);
}

TEST(RowBands, EveryRowOnceForAnyChunking)
{
    const polymask::Window window{5, 0, 97, 10};
    for (int64_t rows : {0, 1, 3, 16, 200}) {
        const int64_t previous = polymask::testing::set_chunk_rows_for_testing(rows);
        for (int threads : {1, 2, 5}) {
            std::vector<std::atomic<int>> seen(static_cast<size_t>(window.height));
            polymask::detail::for_row_bands(window, threads, [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) seen[static_cast<size_t>(r - window.row0)].fetch_add(1);
            });
            for (const auto &count : seen) ASSERT_EQ(count.load(), 1) << rows << " rows per chunk";
        }
        polymask::testing::set_chunk_rows_for_testing(previous);
    }
}

TEST(RowBands, MasksAreTheSameForAnyChunkingAndThreads)
{
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> coordinate(-5.0, 70.0);
    std::vector<double> xy;
    for (int k = 0; k < 40; ++k) xy.push_back(coordinate(rng));
    const polymask::Polygon polygon(xy.data(), 20);
    const auto reference = polymask_test::full_mask(polygon, 64, 61, polymask_test::Fill::per_pixel,
                                                    polymask::FillRule::even_odd, 1);
    for (int64_t rows : {1, 2, 7, 64}) {
        const int64_t previous = polymask::testing::set_chunk_rows_for_testing(rows);
        for (int threads : {1, 2, 4}) {
            EXPECT_EQ(polymask_test::full_mask(polygon, 64, 61, polymask_test::Fill::scanline,
                                               polymask::FillRule::even_odd, threads),
                      reference);
        }
        polymask::testing::set_chunk_rows_for_testing(previous);
    }
}

// ---- work estimates: who starts a helper -------------------------------------
// Each fresh pool has no helper; a call that starts one thought its work
// worth two threads.

namespace {

// A comb over `width` columns and `rows` rows whose `teeth` cross every row.
polymask::Polygon comb(int teeth, double width, double rows)
{
    std::vector<double> xy;
    for (int k = 0; k <= 2 * teeth; ++k) {
        xy.push_back(width * k / (2.0 * teeth));
        xy.push_back(k % 2 == 0 ? 0.5 : rows - 0.5);
    }
    xy.insert(xy.end(), {width, rows + 1.0, 0.0, rows + 1.0});
    return polymask::Polygon(xy.data(), static_cast<int64_t>(xy.size() / 2));
}

}  // namespace

TEST(WorkEstimates, SmallCoverageStartsNoHelper)
{
    const FixedBar bar;
    // 12 vertices on 130x130: 50-90 us on one thread, and two threads took
    // 1.4-1.5x that (waking the helper), so the sweep must not start one.
    std::mt19937_64 rng(5);
    const std::vector<double> xy = polymask_test::random_vertices(rng, 12, 0.0, 130.0);
    const polymask::Polygon polygon(xy.data(), 12);
    std::vector<double> out(130 * 130);
    polymask::detail::forget_pool_after_fork();
    polymask::coverage<double>(polygon, polymask::Window{0, 0, 130, 130}, out.data(), 130,
                               polymask::FillRule::even_odd, 4, false);
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
    // Hundreds of crossings a row are worth a helper, however narrow the
    // raster (200 rows: four chunks of the sweep).
    const polymask::Polygon teeth = comb(400, 64, 200);
    polymask::coverage<double>(teeth, polymask::Window{0, 0, 200, 64}, out.data(), 64,
                               polymask::FillRule::even_odd, 2, false);
    EXPECT_GE(polymask::detail::pool_workers(), 1);
}

TEST(WorkEstimates, ASmallPolygonInAHugeZeroedMaskStartsNoHelper)
{
    // 300 px wide in 8192 columns: the spans (and their page faults) are
    // the work, not the mask's width; a helper only faulted pages of the
    // same process and never paid (benchmarks/threads_default.py).
    const FixedBar bar;
    std::vector<double> xy;
    for (int k = 0; k < 40; ++k) {
        const double angle = 2.0 * 3.141592653589793 * k / 40, radius = k % 2 == 0 ? 150.0 : 110.0;
        xy.push_back(4000.3 + radius * std::cos(angle));
        xy.push_back(4000.3 + radius * std::sin(angle));
    }
    const polymask::Polygon star(xy.data(), 40);
    const polymask::Window huge{0, 0, 8192, 8192};
    std::vector<uint8_t> out(size_t(8192) * 8192);
    polymask::detail::forget_pool_after_fork();
    polymask::fill_scanline_spans(star, huge, out.data(), 8192, polymask::FillRule::even_odd, 2);
    polymask::fill_touched(star, huge, out.data(), 8192, polymask::FillRule::even_odd, 2, true);
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
    // The same star 25x wider is worth a helper.
    for (double &value : xy) value = (value - 4000.0) * 25.0 + 4096.0;
    const polymask::Polygon wide(xy.data(), 40);
    polymask::fill_scanline_spans(wide, huge, out.data(), 8192, polymask::FillRule::even_odd, 2);
    EXPECT_EQ(polymask::detail::pool_workers(), 1);
}

TEST(WorkEstimates, LabelImagesCountTheirCrossings)
{
    const FixedBar bar;
    // 64 columns, 2,000 rows, 800 crossings a row: 1.6 million (edge, row)
    // pairs.  Counting only the pixels and the polygons, this was one band
    // on one thread (and Ctrl-C waited for the whole of it).
    const polymask::Polygon teeth = comb(400, 64, 2000);
    const polymask::Window window{0, 0, 2000, 64};
    std::vector<uint8_t> out(2000 * 64);
    const uint8_t value = 1;
    polymask::detail::forget_pool_after_fork();
    polymask::rasterize<uint8_t>(&teeth, 1, &value, window, out.data(), 64, polymask::FillRule::even_odd, 2);
    EXPECT_GE(polymask::detail::pool_workers(), 1);
    polymask::detail::forget_pool_after_fork();
    polymask::rasterize_touched<uint8_t>(&teeth, 1, &value, window, out.data(), 64, polymask::FillRule::even_odd,
                                         2);
    EXPECT_GE(polymask::detail::pool_workers(), 1);
    // And a small label image starts none.
    const polymask::Polygon small = comb(2, 20, 20);
    polymask::detail::forget_pool_after_fork();
    polymask::rasterize<uint8_t>(&small, 1, &value, polymask::Window{0, 0, 64, 64}, out.data(), 64,
                                 polymask::FillRule::even_odd, 2);
    polymask::rasterize_touched<uint8_t>(&small, 1, &value, polymask::Window{0, 0, 64, 64}, out.data(), 64,
                                         polymask::FillRule::even_odd, 2);
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
}

TEST(WorkEstimates, LabelImagesPrepareTheirPolygonsOnTheThreadsTheyAreWorth)
{
    const FixedBar bar;
    // all_touched prepares every polygon (its cell edges, the overlap
    // check) before the sweep: 2,000 octagons are about 16 million units of
    // that, worth a helper even when the window they burn is 16x16 and its
    // sweep is not; the result is the same on one thread.
    std::mt19937_64 rng(23);
    std::vector<std::vector<double>> vertices;
    std::vector<polymask::Polygon> polygons;
    for (int p = 0; p < 2000; ++p) vertices.push_back(polymask_test::random_vertices(rng, 8, -2.0, 18.0));
    for (const auto &xy : vertices) polygons.emplace_back(xy.data(), 8);
    std::vector<uint16_t> values(polygons.size());
    for (size_t p = 0; p < values.size(); ++p) values[p] = static_cast<uint16_t>(p + 1);
    const polymask::Window window{0, 0, 16, 16};
    std::vector<uint16_t> one(16 * 16), two(16 * 16);
    polymask::rasterize_touched<uint16_t>(polygons.data(), 2000, values.data(), window, one.data(), 16,
                                          polymask::FillRule::even_odd, 1);
    polymask::detail::forget_pool_after_fork();
    polymask::rasterize_touched<uint16_t>(polygons.data(), 2000, values.data(), window, two.data(), 16,
                                          polymask::FillRule::even_odd, 2);
    EXPECT_GE(polymask::detail::pool_workers(), 1);
    EXPECT_EQ(one, two);
    // Ten of them are worth no helper.
    polymask::detail::forget_pool_after_fork();
    polymask::rasterize_touched<uint16_t>(polygons.data(), 10, values.data(), window, two.data(), 16,
                                          polymask::FillRule::even_odd, 2);
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
}
