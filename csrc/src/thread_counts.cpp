// thread_counts.cpp -- how many threads: the machine's hardware threads, the
// process-wide cap, the POLYMASK_THREADS default and what threads=0 or a
// negative count resolves to; and the tests' forced chunk height.  The pool
// that runs them is thread_pool.cpp.
#include "thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#endif

#include "polymask/core.hpp"
#include "row_bands.hpp"
#include "testing.hpp"

namespace polymask {

// ---- how many threads -------------------------------------------------------

namespace {

int read_hardware_threads()
{
#if defined(__linux__)
    // The CPUs this process may run on (taskset, cgroup cpusets), not the machine's.
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
#endif
    const unsigned count = std::thread::hardware_concurrency();
    return count > 0 ? static_cast<int>(count) : 1;
}

}  // namespace

int hardware_threads()
{
    // Reading the affinity mask is a system call, and every fill with the
    // default thread count asks: a visible part of a small fill
    // (csrc/bench/STEPS.md).  The mask rarely changes, so the count is read again at most every
    // 100 ms (a change is seen that much later).
    static std::atomic<int> cached{0};
    static std::atomic<int64_t> read_at{0};
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    const int known = cached.load(std::memory_order_relaxed);
    if (known > 0 && now - read_at.load(std::memory_order_relaxed) < 100) return known;
    const int count = read_hardware_threads();
    cached.store(count, std::memory_order_relaxed);
    read_at.store(now, std::memory_order_relaxed);
    return count;
}

int thread_cap()
{
    // More threads than a few per core only add switching; a caller asking
    // for thousands gets this many at most.
    return std::max(4, 4 * hardware_threads());
}

namespace {

// A positive count from an environment variable ("4", or OpenMP's "4,2"
// nesting list, whose first entry applies), or 0 when unset or unreadable.
int threads_from_environment(const char *name)
{
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0') return 0;
    char *end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || value <= 0) return 0;
    return value > 1 << 20 ? 1 << 20 : static_cast<int>(value);
}

}  // namespace

int default_threads()
{
    int wanted = threads_from_environment("POLYMASK_NUM_THREADS");
    if (wanted == 0) wanted = threads_from_environment("OMP_NUM_THREADS");
    if (wanted == 0) wanted = hardware_threads();
    return std::min(wanted, thread_cap());
}

int resolve_threads(int threads)
{
    if (threads <= 0) return default_threads();
    // The cap is never below 4, so small counts need no look at the CPUs:
    // that is a system call, and every fill asks twice.
    if (threads <= 4) return threads;
    return std::min(threads, thread_cap());
}

namespace {
std::atomic<int64_t> chunk_rows_for_testing{0};
}

int64_t testing::set_chunk_rows_for_testing(int64_t rows)
{
    return chunk_rows_for_testing.exchange(rows > 0 ? rows : 0);
}

namespace detail {

int64_t forced_rows_per_chunk() { return chunk_rows_for_testing.load(std::memory_order_relaxed); }

}  // namespace detail

}  // namespace polymask
