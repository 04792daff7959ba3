// The threading layer itself (csrc/src/parallel.hpp, thread_pool.cpp):
// every chunk runs exactly once, exceptions and interrupts reach the caller,
// a thread that cannot start costs nothing but speed, nested and concurrent
// callers work, and a forked child gets a working pool.
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
#include "row_bands.hpp"
#include "test_support.hpp"
#include "testing.hpp"
#include "polymask/coverage.hpp"
#include "polymask/rasterize.hpp"

namespace {

using polymask::detail::parallel_for;

// Counts how often each chunk ran.
struct ChunkCounts {
    explicit ChunkCounts(int64_t n) : counts(static_cast<size_t>(n)) {}
    void operator()(int64_t chunk) { counts[static_cast<size_t>(chunk)].fetch_add(1); }
    bool each_once() const
    {
        for (const auto &count : counts)
            if (count.load() != 1) return false;
        return true;
    }
    std::vector<std::atomic<int>> counts;
};

// Swaps in one of the pool's hooks for one test and restores the previous one.
template <class Hook, Hook (*set_hook)(Hook)>
class HookScope {
public:
    explicit HookScope(Hook hook) : previous_(set_hook(hook)) {}
    ~HookScope() { set_hook(previous_); }

private:
    Hook previous_;
};

// The thread starter, and where the free cores are read.
using StarterScope = HookScope<polymask::detail::ThreadStarter, polymask::detail::set_thread_starter>;
using MachineScope = HookScope<polymask::detail::FreeCoresReader, polymask::detail::set_free_cores_reader>;

bool never_start(std::function<void()>) { return false; }

// Keeps the bar for waking a helper at its base for one test: tests that
// count the helpers a fill starts must not depend on how earlier calls'
// helpers did on a busy machine.
class FixedBar {
public:
    FixedBar() { polymask::reset_pool_learning(false); }
    ~FixedBar() { polymask::reset_pool_learning(true); }
};

// A machine with this many free cores, for MachineScope.
template <int kFree>
int free_cores() { return kFree; }

// A starter whose threads sleep before they look for work: helpers that
// always wake too late to take a chunk, as on a machine whose cores are busy.
bool start_late(std::function<void()> work)
{
    return polymask::detail::start_std_thread([work] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        work();
    });
}

std::atomic<int> starts_allowed{0};
bool start_a_few(std::function<void()> work)
{
    if (starts_allowed.fetch_sub(1) <= 0) return false;
    return polymask::detail::start_std_thread(std::move(work));
}

}  // namespace

TEST(ParallelFor, EveryChunkRunsExactlyOnce)
{
    for (int threads : {1, 2, 3, 8, 64}) {
        for (int64_t n : {1, 2, 7, 100, 5000}) {
            ChunkCounts counts(n);
            parallel_for(n, threads, [&](int64_t chunk) { counts(chunk); });
            EXPECT_TRUE(counts.each_once()) << n << " chunks on " << threads << " threads";
        }
    }
}

TEST(ParallelFor, NoChunksIsNoCall)
{
    int calls = 0;
    parallel_for(0, 4, [&](int64_t) { ++calls; });
    parallel_for(-3, 4, [&](int64_t) { ++calls; });
    EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, AnExceptionReachesTheCaller)
{
    for (int threads : {1, 2, 4}) {
        std::atomic<int> ran{0};
        EXPECT_THROW(parallel_for(1000, threads,
                                  [&](int64_t chunk) {
                                      ran.fetch_add(1);
                                      if (chunk == 10) throw std::invalid_argument("chunk 10");
                                  }),
                     std::invalid_argument);
        EXPECT_GE(ran.load(), 11 / threads);  // it ran up to the failing chunk at least
        // The pool is still usable afterwards.
        ChunkCounts counts(50);
        parallel_for(50, threads, [&](int64_t chunk) { counts(chunk); });
        EXPECT_TRUE(counts.each_once());
    }
}

TEST(ParallelFor, BadAllocReachesTheCallerAsItself)
{
    EXPECT_THROW(parallel_for(8, 4, [](int64_t chunk) { if (chunk == 7) throw std::bad_alloc(); }),
                 std::bad_alloc);
}

TEST(ParallelFor, NoThreadCanStartAndEveryChunkStillRuns)
{
    polymask::detail::forget_pool_after_fork();  // a fresh pool, with no threads yet
    StarterScope scope(never_start);
    const auto caller = std::this_thread::get_id();
    ChunkCounts counts(200);
    std::atomic<bool> only_caller{true};
    parallel_for(200, 8, [&](int64_t chunk) {
        if (std::this_thread::get_id() != caller) only_caller = false;
        counts(chunk);
    });
    EXPECT_TRUE(counts.each_once());
    EXPECT_TRUE(only_caller.load());
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
}

TEST(ParallelFor, SomeThreadsCannotStartAndEveryChunkStillRuns)
{
    polymask::detail::forget_pool_after_fork();
    starts_allowed = 1;
    StarterScope scope(start_a_few);
    ChunkCounts counts(300);
    parallel_for(300, 8, [&](int64_t chunk) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        counts(chunk);
    });
    EXPECT_TRUE(counts.each_once());
    EXPECT_EQ(polymask::detail::pool_workers(), 1);
}

TEST(ParallelFor, HelpersReallyHelp)
{
    // With chunks that sleep, more than one thread takes part.
    polymask::detail::forget_pool_after_fork();
    std::mutex mutex;
    std::vector<std::thread::id> seen;
    parallel_for(40, 4, [&](int64_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::lock_guard<std::mutex> lock(mutex);
        if (std::find(seen.begin(), seen.end(), std::this_thread::get_id()) == seen.end())
            seen.push_back(std::this_thread::get_id());
    });
    EXPECT_GT(seen.size(), 1u);
    EXPECT_LE(polymask::detail::pool_workers(), 3);
}

TEST(ParallelFor, NestedCallsComplete)
{
    std::vector<std::unique_ptr<ChunkCounts>> inner;
    for (int k = 0; k < 16; ++k) inner.push_back(std::make_unique<ChunkCounts>(33));
    parallel_for(16, 4, [&](int64_t outer) {
        parallel_for(33, 4, [&](int64_t chunk) { (*inner[static_cast<size_t>(outer)])(chunk); });
    });
    for (const auto &counts : inner) EXPECT_TRUE(counts->each_once());
}

TEST(ParallelFor, ConcurrentCallersEachGetTheirOwnChunks)
{
    constexpr int callers = 8;
    std::vector<std::unique_ptr<ChunkCounts>> counts;
    for (int k = 0; k < callers; ++k) counts.push_back(std::make_unique<ChunkCounts>(500 + k));
    std::vector<std::thread> threads;
    std::atomic<bool> wrong{false};
    for (int k = 0; k < callers; ++k) {
        threads.emplace_back([&, k] {
            for (int repeat = 0; repeat < 20; ++repeat) {
                ChunkCounts local(500 + k);
                parallel_for(500 + k, 1 + k % 4, [&](int64_t chunk) { local(chunk); });
                if (!local.each_once()) wrong = true;
            }
            parallel_for(500 + k, 3, [&](int64_t chunk) { (*counts[static_cast<size_t>(k)])(chunk); });
        });
    }
    for (auto &thread : threads) thread.join();
    EXPECT_FALSE(wrong.load());
    for (const auto &count : counts) EXPECT_TRUE(count->each_once());
}

namespace {
std::atomic<int> checks{0};
bool stop_on_third_check(void *) { return checks.fetch_add(1) >= 2; }
bool never_stop(void *) { return false; }
}  // namespace

TEST(ParallelFor, AnInterruptCheckStopsTheCallAndNothingRunsAfterIt)
{
    for (int threads : {1, 3}) {
        checks = 0;
        polymask::set_interrupt_check(stop_on_third_check, nullptr);
        std::atomic<int> ran{0};
        EXPECT_THROW(parallel_for(100000, threads,
                                  [&](int64_t) {
                                      std::this_thread::sleep_for(std::chrono::microseconds(500));
                                      ran.fetch_add(1);
                                  }),
                     polymask::Interrupted);
        polymask::set_interrupt_check(nullptr, nullptr);
        const int after_return = ran.load();
        EXPECT_LT(after_return, 100000);
        EXPECT_GE(checks.load(), 3);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_EQ(ran.load(), after_return) << "a chunk ran after the call returned";
    }
}

TEST(ParallelFor, ACheckThatNeverStopsChangesNothing)
{
    polymask::set_interrupt_check(never_stop, nullptr);
    ChunkCounts counts(64);
    parallel_for(64, 2, [&](int64_t chunk) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        counts(chunk);
    });
    polymask::set_interrupt_check(nullptr, nullptr);
    EXPECT_TRUE(counts.each_once());
}

TEST(ParallelFor, AfterForgettingThePoolANewOneWorks)
{
    parallel_for(64, 4, [](int64_t) {});
    polymask::detail::forget_pool_after_fork();
    EXPECT_EQ(polymask::detail::pool_workers(), 0);
    ChunkCounts counts(64);
    parallel_for(64, 4, [&](int64_t chunk) { counts(chunk); });
    EXPECT_TRUE(counts.each_once());
}

#if defined(__unix__) || defined(__APPLE__)
TEST(ParallelFor, AForkedChildGetsAWorkingPool)
{
    // The parent's helpers are running (or parked) when it forks; the
    // child has none of them and must neither hang nor crash.
    parallel_for(256, 4, [](int64_t) { std::this_thread::sleep_for(std::chrono::microseconds(50)); });
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        alarm(20);  // a hang becomes a SIGALRM death the parent sees
        std::vector<std::atomic<int>> counts(512);
        parallel_for(512, 4, [&](int64_t chunk) { counts[static_cast<size_t>(chunk)].fetch_add(1); });
        for (const auto &count : counts)
            if (count.load() != 1) _exit(2);
        // Helpers, not just the caller: the inherited pool's threads do not
        // exist here, so only a fresh pool can make this more than one.
        std::mutex mutex;
        std::vector<std::thread::id> seen;
        parallel_for(64, 4, [&](int64_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            std::lock_guard<std::mutex> lock(mutex);
            if (std::find(seen.begin(), seen.end(), std::this_thread::get_id()) == seen.end())
                seen.push_back(std::this_thread::get_id());
        });
        _exit(seen.size() > 1 ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

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

TEST(ParallelFor, AJobStartedInsideAChunkStopsWithTheEnclosingJob)
{
    // Chunk 0 fails once chunk 1 is inside a long job of its own: that inner
    // job must stop at its next chunk (a helper deep in one huge instance of
    // a batch ran on after Ctrl-C), and the failure still reaches the caller.
    std::atomic<bool> inner_started{false};
    std::atomic<int> inner_chunks{0};
    const auto started = std::chrono::steady_clock::now();
    EXPECT_THROW(parallel_for(2, 2, [&](int64_t chunk) {
        if (chunk == 0) {
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            while (!inner_started.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
            throw std::runtime_error("chunk 0 failed");
        }
        parallel_for(1000, 1, [&](int64_t) {
            inner_started = true;
            inner_chunks.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    }), std::runtime_error);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_TRUE(inner_started.load());
    EXPECT_LT(inner_chunks.load(), 500) << "the inner job ran on after the enclosing one stopped";
    EXPECT_LT(seconds, 0.9);
}

TEST(HelpersThatDoNotPay, RaiseTheBarAndAProbeBringsItDown)
{
    using polymask::detail::kWorkPerThread;
    using polymask::detail::threads_for_work;
    polymask::reset_pool_learning(true);
    const MachineScope idle(free_cores<8>);
    const double worth_two = 3.0 * kWorkPerThread;
    EXPECT_EQ(threads_for_work(2, worth_two), 2);
    {
        // Helpers that wake only after the caller has done every chunk: no
        // call they were offered gains, and each one raises the bar (but the
        // first, which started the thread: that cost is paid once).
        polymask::detail::forget_pool_after_fork();
        const StarterScope late(start_late);
        for (int call = 0; call < 4; ++call) {
            ChunkCounts counts(64);
            parallel_for(64, 2, [&](int64_t chunk) { counts(chunk); });
            EXPECT_TRUE(counts.each_once());
        }
        polymask::detail::forget_pool_after_fork();  // the late threads sleep on in the old pool
    }
    const polymask::PoolStatistics raised = polymask::pool_statistics();
    EXPECT_EQ(raised.threaded_calls, 3);
    EXPECT_EQ(raised.unpaid_calls, 3);
    EXPECT_EQ(raised.penalty, 3);
    // A fill worth two threads at the base bar now runs alone ...
    EXPECT_EQ(threads_for_work(2, worth_two), 1);
    // ... and one worth two at the raised bar still gets its helper.
    EXPECT_EQ(threads_for_work(2, 2.0 * 8.0 * kWorkPerThread), 2);
    // Once enough plans were kept alone and time has passed since the bar
    // rose, one plan probes at the base bar; until then none does.
    for (int plan = 0; plan < 20; ++plan) EXPECT_EQ(threads_for_work(2, worth_two), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    int probes = 0;
    for (int plan = 0; plan < 20; ++plan) probes += threads_for_work(2, worth_two) == 2;
    EXPECT_EQ(probes, 1);
    // Calls whose helpers paid lower it again, one step each.
    for (int step = 3; step > 0; --step) {
        EXPECT_EQ(polymask::pool_statistics().penalty, step);
        polymask::detail::report_helpers(64, 32, 1000000, 1000000, 0);  // half the chunks in the same time: 2x
    }
    EXPECT_EQ(polymask::pool_statistics().penalty, 0);
    EXPECT_EQ(threads_for_work(2, worth_two), 2);
    polymask::reset_pool_learning(true);
}

TEST(HelpersThatDoNotPay, WhatCountsAsPaid)
{
    using polymask::detail::report_helpers;
    const auto paid = [](int64_t n, int64_t caller, int64_t cpu, int64_t working, int64_t waiting) {
        polymask::reset_pool_learning(true);
        report_helpers(n, caller, cpu, working, waiting);
        return polymask::pool_statistics().unpaid_calls == 0;
    };
    EXPECT_TRUE(paid(64, 32, 1000, 1000, 0));      // an even split: 2x
    EXPECT_TRUE(paid(64, 40, 1000, 1000, 100));    // the helper did 24 of 64, a short wait: 1.45x
    EXPECT_FALSE(paid(64, 64, 1000, 1000, 0));     // the helper took no chunk
    EXPECT_FALSE(paid(64, 60, 1000, 1000, 0));     // ... or too few to gain 10%
    EXPECT_FALSE(paid(64, 32, 1000, 1000, 2000));  // a helper that lost its core: the caller waited 2x its work
    EXPECT_FALSE(paid(64, 32, 500, 1000, 0));      // the caller had half a core: two threads on one core
    EXPECT_TRUE(paid(64, 32, -1, 1000, 0));        // no CPU clock: wall time stands in
    polymask::reset_pool_learning(true);
}

TEST(HelpersThatDoNotPay, AFixedBarIgnoresThem)
{
    const FixedBar bar;
    polymask::detail::forget_pool_after_fork();
    {
        const StarterScope late(start_late);
        for (int call = 0; call < 2; ++call) {
            ChunkCounts counts(64);
            parallel_for(64, 2, [&](int64_t chunk) { counts(chunk); });
            EXPECT_TRUE(counts.each_once());
        }
        polymask::detail::forget_pool_after_fork();
    }
    EXPECT_EQ(polymask::pool_statistics().threaded_calls, 1);  // the first call started the thread
    EXPECT_EQ(polymask::pool_statistics().unpaid_calls, 1);
    EXPECT_EQ(polymask::pool_statistics().penalty, 0);
    EXPECT_EQ(polymask::detail::threads_for_work(2, 3.0 * polymask::detail::kWorkPerThread), 2);
}

TEST(FreeCores, NoHelperWhereEveryCoreIsBusy)
{
    using polymask::detail::kWorkPerThread;
    using polymask::detail::threads_for_work;
    polymask::reset_pool_learning(true);
    const double worth_eight = 100.0 * kWorkPerThread;
    {
        const MachineScope busy(free_cores<0>);
        EXPECT_EQ(threads_for_work(8, worth_eight), 1);
        EXPECT_EQ(threads_for_work(0, worth_eight), 1);
    }
    {
        const MachineScope one_free(free_cores<1>);
        EXPECT_EQ(threads_for_work(8, worth_eight), 2);  // the caller and one helper
    }
    {
        const MachineScope idle(free_cores<polymask::detail::kUnknownFreeCores>);
        EXPECT_EQ(threads_for_work(8, worth_eight), 8);
        EXPECT_EQ(threads_for_work(3, worth_eight), 3);  // still an upper bound
    }
    {
        // A fixed plan (tests, benchmarks of the plan itself) ignores the machine.
        const MachineScope busy(free_cores<0>);
        const FixedBar bar;
        EXPECT_EQ(threads_for_work(8, worth_eight), 8);
    }
    polymask::reset_pool_learning(true);
}

TEST(FreeCores, TheMachineIsReadAtMostEveryFewMilliseconds)
{
    static std::atomic<int> reads{0};
    polymask::reset_pool_learning(true);
    const MachineScope counting(+[] { ++reads; return 1; });
    reads = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int plan = 0; plan < 1000; ++plan) polymask::detail::helpers_with_a_free_core();
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(reads.load(), 1);
    // One read, then at most one for every 2 ms the loop took.
    EXPECT_LE(reads.load(), 1 + took / std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    polymask::detail::helpers_with_a_free_core();
    EXPECT_GE(reads.load(), 2);
    polymask::reset_pool_learning(true);
}

TEST(FreeCores, LoadavgGivesFewerThanTheOnlineCpus)
{
    const int free = polymask::detail::free_cores_from_loadavg();
#if defined(__linux__)
    // This thread is runnable while it reads, so at least one CPU is taken.
    EXPECT_GE(free, 0);
    EXPECT_LT(free, static_cast<int>(std::thread::hardware_concurrency()) + 1);
#else
    EXPECT_EQ(free, polymask::detail::kUnknownFreeCores);
#endif
}
