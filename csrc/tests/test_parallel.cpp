// The threading layer itself (csrc/src/parallel.hpp, thread_pool.cpp):
// every chunk runs exactly once, exceptions and interrupts reach the caller,
// a thread that cannot start costs nothing but speed, nested and concurrent
// callers work, and a forked child gets a working pool.  How many threads a
// call gets is test_thread_counts.cpp; what the pool learns about the
// machine, test_pool_learning.cpp.
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

TEST(ParallelFor, HelpersWatchForTheNextCallThenSleep)
{
    // After a call its helpers watch for the next one (spinning_helpers
    // counts them, as free cores) and then sleep; the count is the pool's
    // own, so a forked child's fresh pool starts from none.  Chunks of a few
    // microseconds, so the caller is back before the helper's watch ends;
    // each call polled for up to 50 ms, so a helper that has to wait a
    // scheduler slice for a core (other tests on the machine) is still seen.
    const auto busy_chunk = [](int64_t) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(5);
        while (std::chrono::steady_clock::now() < until) {
        }
    };
    polymask::detail::forget_pool_after_fork();
    bool seen_spinning = false;
    for (int attempt = 0; attempt < 40 && !seen_spinning; ++attempt) {
        parallel_for(8, 2, busy_chunk);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
        while (!seen_spinning && std::chrono::steady_clock::now() < until) {
            seen_spinning = polymask::detail::spinning_helpers() > 0;
        }
    }
    EXPECT_TRUE(seen_spinning);
    polymask::detail::forget_pool_after_fork();
    EXPECT_EQ(polymask::detail::spinning_helpers(), 0);
    parallel_for(8, 2, busy_chunk);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // far past the watch
    EXPECT_EQ(polymask::detail::spinning_helpers(), 0);
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
