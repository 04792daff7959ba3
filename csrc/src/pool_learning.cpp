// pool_learning.cpp -- what the pool learns about the machine: whether
// helpers paid on recent calls (and the bar a thread's work must clear,
// raised while they do not), whether a core is free now (the load average),
// and the statistics and reset the tests and benchmarks read.  The pool
// itself is thread_pool.cpp; thread_pool.hpp documents the policy.
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

#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

#include "polymask/core.hpp"
#include "row_bands.hpp"
#include "testing.hpp"

namespace polymask {

namespace detail {

// ---- whether helpers pay (see thread_pool.hpp) ---------------------------------

namespace {

constexpr int kMaxPenalty = 6;        // the bar rises to 64x kWorkPerThread at most
constexpr uint32_t kProbeEvery = 8;   // plans the raised bar keeps alone between two probes, at least
constexpr std::chrono::nanoseconds kProbeInterval = std::chrono::milliseconds(50);  // ... and this long
std::atomic<int64_t> last_probe_ns{0};
std::atomic<int> helper_penalty{0};
std::atomic<bool> adaptive_bar{true};
std::atomic<uint32_t> kept_alone{0};
std::atomic<int64_t> threaded_calls{0}, unpaid_calls{0}, waited_ns{0}, longest_wait_ns{0};

}  // namespace

// A threaded call's outcome: the caller ran `caller_chunks` of `n_chunks`,
// using `caller_cpu_ns` of CPU in `working_ns` of wall time (from offering
// the job until it found no chunk left), then waited `waiting_ns` for its
// helpers.  On one thread with a core of its own the call would have taken
// about caller_cpu_ns * n_chunks / caller_chunks (the caller's own cost per
// chunk, for every chunk); it took working_ns + waiting_ns.  The helpers
// paid if that is a gain of at least kPaidSpeedUp.  This catches a helper
// that woke too late to take a chunk, one that took a chunk and then lost
// its core (the caller's wait), and a helper sharing the caller's core with
// other work (the caller's CPU time then falls behind its wall time).
constexpr double kPaidSpeedUp = 1.1;

void report_helpers(int64_t n_chunks, int64_t caller_chunks, int64_t caller_cpu_ns, int64_t working_ns,
                    int64_t waiting_ns)
{
    threaded_calls.fetch_add(1, std::memory_order_relaxed);
    waited_ns.fetch_add(waiting_ns, std::memory_order_relaxed);
    int64_t longest = longest_wait_ns.load(std::memory_order_relaxed);
    while (waiting_ns > longest && !longest_wait_ns.compare_exchange_weak(longest, waiting_ns)) {
    }
    const double own_cost = static_cast<double>(caller_cpu_ns >= 0 ? caller_cpu_ns : working_ns);
    const double alone = own_cost * static_cast<double>(n_chunks) / static_cast<double>(std::max<int64_t>(1, caller_chunks));
    const bool paid = caller_chunks < n_chunks &&
                      alone >= kPaidSpeedUp * static_cast<double>(working_ns + waiting_ns);
    if (!paid) unpaid_calls.fetch_add(1, std::memory_order_relaxed);
    if (!adaptive_bar.load(std::memory_order_relaxed)) return;
    int penalty = helper_penalty.load(std::memory_order_relaxed);
    const int next = paid ? std::max(0, penalty - 1) : std::min(kMaxPenalty, penalty + 1);
    if (helper_penalty.compare_exchange_strong(penalty, next, std::memory_order_relaxed) && penalty == 0 &&
        next > 0) {
        last_probe_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch()).count());  // no probe at once
    }
}

double work_per_thread_for(double work)
{
    const int penalty = helper_penalty.load(std::memory_order_relaxed);
    const double raised = std::ldexp(kWorkPerThread, penalty);
    if (penalty == 0 || work >= 2.0 * raised) return raised;
    // Kept alone by the raised bar only: now and then such a call tries
    // helpers at the base bar, so the bar can learn that they pay again.  At
    // most one probe per kProbeEvery such plans and per kProbeInterval: a
    // call may plan several fills (coverage plans a few), and short calls
    // come by the thousand, so a count alone would probe too often.
    if (kept_alone.fetch_add(1, std::memory_order_relaxed) + 1 < kProbeEvery) return raised;
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch()).count();
    int64_t last = last_probe_ns.load(std::memory_order_relaxed);
    if (now - last < kProbeInterval.count() || !last_probe_ns.compare_exchange_strong(last, now)) return raised;
    kept_alone.store(0, std::memory_order_relaxed);
    return kWorkPerThread;
}

// ---- whether a core is free now (see thread_pool.hpp) ----------------------------

namespace {

constexpr std::chrono::nanoseconds kIdleReadInterval = std::chrono::milliseconds(2);
std::atomic<int64_t> free_cores_read_ns{0};
std::atomic<int> free_cores{kUnknownFreeCores};
std::atomic<FreeCoresReader> free_cores_reader{nullptr};

}  // namespace

int free_cores_from_loadavg()
{
#if defined(__linux__)
    const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return kUnknownFreeCores;
    char text[128];
    const ssize_t length = ::read(fd, text, sizeof(text) - 1);
    ::close(fd);
    if (length <= 0) return kUnknownFreeCores;
    text[length] = '\0';
    // "0.46 0.78 0.88 1/82 10742": runnable threads / all threads is the fourth field.
    const char *field = text;
    for (int skip = 0; skip < 3; ++skip) {
        field = std::strchr(field, ' ');
        if (field == nullptr) return kUnknownFreeCores;
        ++field;
    }
    char *end = nullptr;
    const long runnable = std::strtol(field, &end, 10);
    // Reading the online CPUs costs as much again (glibc reads /sys), and they
    // rarely change: once a second.
    static std::atomic<long> online_cpus{0};
    static std::atomic<int64_t> online_read_ms{0};
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now().time_since_epoch()).count();
    long online = online_cpus.load(std::memory_order_relaxed);
    if (online < 1 || now_ms - online_read_ms.load(std::memory_order_relaxed) >= 1000) {
        online = ::sysconf(_SC_NPROCESSORS_ONLN);
        online_cpus.store(online, std::memory_order_relaxed);
        online_read_ms.store(now_ms, std::memory_order_relaxed);
    }
    if (end == field || *end != '/' || runnable < 1 || online < 1) return kUnknownFreeCores;
    // Our own helpers that watch for the next offer are runnable, but
    // their cores are ours (thread_pool.hpp: spinning_helpers).
    const long free = online - runnable + spinning_helpers();
    return static_cast<int>(std::max(0L, std::min<long>(free, kUnknownFreeCores)));
#else
    return kUnknownFreeCores;
#endif
}

FreeCoresReader set_free_cores_reader(FreeCoresReader reader)
{
    const FreeCoresReader previous = free_cores_reader.exchange(reader);
    free_cores_read_ns.store(0);
    return previous;
}

int helpers_with_a_free_core()
{
    if (!adaptive_bar.load(std::memory_order_relaxed)) return kUnknownFreeCores;
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch()).count();
    int64_t last = free_cores_read_ns.load(std::memory_order_relaxed);
    // One thread reads; the others use what was read last.
    if (now - last >= kIdleReadInterval.count() && free_cores_read_ns.compare_exchange_strong(last, now)) {
        const FreeCoresReader reader = free_cores_reader.load();
        free_cores.store(reader != nullptr ? reader() : free_cores_from_loadavg(), std::memory_order_relaxed);
    }
    return free_cores.load(std::memory_order_relaxed);
}

}  // namespace detail

PoolStatistics pool_statistics()
{
    PoolStatistics statistics;
    statistics.threaded_calls = detail::threaded_calls.load();
    statistics.unpaid_calls = detail::unpaid_calls.load();
    statistics.waited_ns = detail::waited_ns.load();
    statistics.longest_wait_ns = detail::longest_wait_ns.load();
    statistics.penalty = detail::helper_penalty.load();
    return statistics;
}

void reset_pool_learning(bool adaptive)
{
    detail::adaptive_bar.store(adaptive);
    detail::helper_penalty.store(0);
    detail::kept_alone.store(0);
    detail::last_probe_ns.store(0);
    detail::threaded_calls.store(0);
    detail::unpaid_calls.store(0);
    detail::waited_ns.store(0);
    detail::longest_wait_ns.store(0);
    detail::free_cores_read_ns.store(0);  // the next plan looks at the machine again
}

}  // namespace polymask
