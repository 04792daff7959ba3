// What the pool learns about the machine (csrc/src/pool_learning.cpp):
// helpers that do not pay raise the bar a thread's work must clear, a probe
// brings it down, a fixed bar ignores them; and no helper starts where every
// core is busy, read from the load average at most every few milliseconds.
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
