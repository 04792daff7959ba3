// parallel_test_support.hpp -- what the tests of the threading layer share:
// chunk counters, scopes that swap one of the pool's hooks (thread starter,
// free-core reader) for one test, a fixed bar for waking helpers, and
// starters that fail or wake late.  Used by test_parallel.cpp,
// test_thread_counts.cpp and test_pool_learning.cpp.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "parallel.hpp"
#include "polymask/core.hpp"

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
