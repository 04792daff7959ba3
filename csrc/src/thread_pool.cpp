// thread_pool.cpp -- the pool, the thread-count policy and the interrupt hook.
//
// See thread_pool.hpp for why this is a pool of our own.  The pieces:
//
// * Job: one parallel_for call, living on its caller's stack.  Chunks are
//   claimed with one atomic fetch_add, so no thread ever waits for another
//   to hand it work, and a chunk is never run twice.
// * Pool: helper threads (started lazily, never more than the cap) that
//   sleep on a condition variable until a job wants helpers.  A caller waits
//   only for helpers that joined its job (helpers_in), i.e. that are running
//   or finishing one of its chunks: never for one that has not woken up.
// * After fork() the child has only the forking thread: a pthread_atfork
//   child handler drops the pool pointer (the old pool is leaked, its mutex
//   may be held by a thread that no longer exists), and the next call starts
//   a fresh pool.
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
#include <pthread.h>
#include <sched.h>
#define POLYMASK_HAVE_PTHREAD_ATFORK 1
#endif
#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

#include "polymask/core.hpp"
#include "row_bands.hpp"
#include "testing.hpp"

namespace polymask {

namespace {

// ---- the caller's interrupt check ------------------------------------------

struct InterruptHook {
    InterruptCheck check = nullptr;
    void *context = nullptr;
};
thread_local InterruptHook interrupt_hook;

// The process-wide check (set_process_interrupt_check), for threads with no
// check of their own.  A check and its context must be read as one pair, so
// the atomic holds a pointer to an immutable hook.  Hooks are never freed (a
// fill on another thread may still be reading the one just replaced); one
// hook is kept per distinct (check, context) pair and reused, so installing
// and removing the same check again and again allocates nothing new.  The
// list lives as long as the process (it is reachable, so no leak is reported).
std::atomic<const InterruptHook *> process_hook{nullptr};
std::mutex process_hooks_mutex;  // guards the list; setting is rare (once at import)
std::vector<const InterruptHook *> *process_hooks = nullptr;

const InterruptHook *process_hook_for(InterruptCheck check, void *context)
{
    if (check == nullptr) return nullptr;
    if (process_hooks == nullptr) process_hooks = new std::vector<const InterruptHook *>();
    for (const InterruptHook *hook : *process_hooks) {
        if (hook->check == check && hook->context == context) return hook;
    }
    process_hooks->push_back(new InterruptHook{check, context});
    return process_hooks->back();
}

// The check a fill on this thread polls: the thread's own, else the process's.
InterruptHook current_interrupt_hook()
{
    if (interrupt_hook.check != nullptr) return interrupt_hook;
    const InterruptHook *shared = process_hook.load(std::memory_order_acquire);
    return shared != nullptr ? *shared : InterruptHook{};
}

// How often a caller polls its check.  Polling takes the GIL in the Python
// binding, which can wait up to the interpreter's switch interval, so short
// fills never poll and long ones poll about every 10 ms: well inside the
// 0.25 s promised for Ctrl-C, and a negligible cost.
constexpr auto kPollInterval = std::chrono::milliseconds(10);

class Poller {
public:
    Poller() : hook_(current_interrupt_hook()), last_(std::chrono::steady_clock::now()) {}
    bool active() const { return hook_.check != nullptr; }
    // True when the check asks to stop; calls it at most every kPollInterval.
    bool should_stop()
    {
        if (hook_.check == nullptr) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < kPollInterval) return false;
        last_ = now;
        return hook_.check(hook_.context);
    }

private:
    InterruptHook hook_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace

InterruptCheck set_interrupt_check(InterruptCheck check, void *context, void **previous_context)
{
    InterruptHook previous = interrupt_hook;
    interrupt_hook.check = check;
    interrupt_hook.context = context;
    if (previous_context != nullptr) *previous_context = previous.context;
    return previous.check;
}

InterruptCheck set_process_interrupt_check(InterruptCheck check, void *context)
{
    const std::lock_guard<std::mutex> lock(process_hooks_mutex);
    const InterruptHook *previous = process_hook.exchange(process_hook_for(check, context), std::memory_order_acq_rel);
    return previous != nullptr ? previous->check : nullptr;
}

Interrupted::Interrupted() : std::runtime_error("polymask: the fill was interrupted") {}
Interrupted::~Interrupted() = default;

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
    // Reading the affinity mask is a system call (0.4 us here), and every
    // fill with the default thread count asks: 1.5% of a 1024x1024 mask.
    // The mask rarely changes, so the count is read again at most every
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
    // that is a system call (0.4 us here), and every fill asks twice.
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

// ---- the pool ------------------------------------------------------------------

namespace {

struct Job {
    int64_t n_chunks = 0;
    ChunkFunction run = nullptr;
    void *context = nullptr;
    std::atomic<int64_t> next{0};
    std::atomic<bool> stop{false};
    bool interrupted = false;  // only the caller's thread reads and writes it
    std::mutex failure_mutex;
    std::exception_ptr failure;
    // Guarded by the pool's mutex:
    int helpers_wanted = 0;  // helpers that may still join
    int helpers_in = 0;      // helpers that joined and have not left
};

// The job whose chunk this thread is running, if any, and the one that
// chunk belongs to in turn: a chunk may start a job of its own (an instance
// of a batch swept in bands, one polygon's coverage), and that inner job
// stops when the enclosing one does.  Without it a helper deep in one huge
// instance of a batch ran on after Ctrl-C, and the caller, which waits for
// its helpers, with it.  The caller's thread also keeps its poller here, so
// interruption_point() can poll from inside a long chunk.
struct ChunkContext {
    Job *job;
    Poller *poller;  // the caller's only: signals reach the thread that waits in Python
    const ChunkContext *enclosing;
};
thread_local const ChunkContext *current_chunk = nullptr;

// Claim and run chunks of `job` until none is left or it must stop.  Only
// the caller passes a poller.  Returns whether it stopped because the
// enclosing job did; `ran` counts the chunks this thread ran.
bool work_on(Job &job, Poller *poller, int64_t *ran = nullptr)
{
    const ChunkContext *const enclosing = current_chunk;
    const ChunkContext here{&job, poller, enclosing};
    current_chunk = &here;
    bool enclosing_stopped = false;
    while (!job.stop.load(std::memory_order_relaxed)) {
        if (poller != nullptr && poller->should_stop()) {
            job.interrupted = true;
            job.stop.store(true);
            break;
        }
        if (enclosing != nullptr && enclosing->job->stop.load(std::memory_order_relaxed)) {
            enclosing_stopped = true;
            job.stop.store(true);
            break;
        }
        const int64_t chunk = job.next.fetch_add(1, std::memory_order_relaxed);
        if (chunk >= job.n_chunks) break;
        if (ran != nullptr) ++*ran;
        try {
            job.run(job.context, chunk);
        } catch (...) {
            std::lock_guard<std::mutex> lock(job.failure_mutex);
            if (!job.failure) job.failure = std::current_exception();
            job.stop.store(true);
        }
    }
    current_chunk = enclosing;
    return enclosing_stopped;
}

class Pool;
void worker_main(Pool *pool);

std::atomic<ThreadStarter> thread_starter{nullptr};

class Pool {
public:
    // Offer `job` to up to `helpers` pool threads, starting threads if too
    // few are idle.  Returns how many threads it started.
    int offer(Job &job, int helpers)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job.helpers_wanted = helpers;
        jobs_.push_back(&job);
        const int cap = thread_cap();
        int missing = helpers - idle_;
        int started = 0;
        while (missing > 0 && workers_ < cap) {
            ThreadStarter starter = thread_starter.load();
            if (starter == nullptr) starter = start_std_thread;
            Pool *self = this;
            // A thread that cannot start means fewer helpers, nothing more:
            // the caller claims every chunk nobody else does.
            if (!starter([self] { worker_main(self); })) break;
            ++workers_;
            ++idle_;  // counts as idle until it takes a job; it checks jobs_ first
            --missing;
            ++started;
        }
        for (int k = 0; k < helpers; ++k) work_ready_.notify_one();
        return started;
    }

    // Close `job` to new helpers and wait until every helper that joined has
    // left, polling for interrupts meanwhile.
    void retire(Job &job, Poller &poller)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), &job), jobs_.end());
        while (job.helpers_in > 0) {
            if (!poller.active() || job.stop.load()) {
                helper_left_.wait(lock, [&] { return job.helpers_in == 0; });
                break;
            }
            helper_left_.wait_for(lock, kPollInterval);
            if (job.helpers_in == 0) break;
            lock.unlock();  // the check may take the GIL: never hold our mutex meanwhile
            if (poller.should_stop()) {
                job.interrupted = true;
                job.stop.store(true);
            }
            lock.lock();
        }
    }

    void worker_loop()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            Job *job = nullptr;
            for (Job *open : jobs_) {
                if (open->helpers_wanted > 0 && !open->stop.load(std::memory_order_relaxed) &&
                    open->next.load(std::memory_order_relaxed) < open->n_chunks) {
                    job = open;
                    break;
                }
            }
            if (job == nullptr) {
                work_ready_.wait(lock);
                continue;
            }
            --job->helpers_wanted;
            ++job->helpers_in;
            --idle_;
            lock.unlock();
            work_on(*job, nullptr);
            lock.lock();
            ++idle_;
            if (--job->helpers_in == 0) helper_left_.notify_all();
        }
    }

    int workers()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        return workers_;
    }

private:
    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable helper_left_;
    std::vector<Job *> jobs_;
    int workers_ = 0;
    int idle_ = 0;
};

void worker_main(Pool *pool) { pool->worker_loop(); }

// The pool of this process.  Never destroyed: helper threads sleep in it
// until the process exits, and a static destructor would pull the mutex out
// from under them.  Replaced (and the old one leaked) in a forked child.
std::atomic<Pool *> current_pool{nullptr};

#ifdef POLYMASK_HAVE_PTHREAD_ATFORK
void after_fork_in_child() { current_pool.store(nullptr); }
#endif

Pool &pool()
{
    Pool *existing = current_pool.load();
    if (existing != nullptr) return *existing;
#ifdef POLYMASK_HAVE_PTHREAD_ATFORK
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, after_fork_in_child); });
#endif
    // Lock-free on purpose: a lock here could be held, in a forked child, by
    // a thread that did not survive the fork.
    Pool *fresh = new Pool();
    if (current_pool.compare_exchange_strong(existing, fresh)) return *fresh;
    delete fresh;
    return *existing;
}

}  // namespace

bool start_std_thread(std::function<void()> work)
{
    try {
        std::thread thread(std::move(work));
        thread.detach();
        return true;
    } catch (...) {  // std::system_error (EAGAIN: no memory, thread limits), std::bad_alloc
        return false;
    }
}

ThreadStarter set_thread_starter(ThreadStarter starter) { return thread_starter.exchange(starter); }

int pool_workers()
{
    Pool *existing = current_pool.load();
    return existing == nullptr ? 0 : existing->workers();
}

void forget_pool_after_fork() { current_pool.store(nullptr); }

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

int64_t nanoseconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// CPU time the calling thread has used (ns), or -1 where it cannot be read.
int64_t thread_cpu_ns()
{
#if defined(__unix__) || defined(__APPLE__)
    timespec now{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
#endif
    return -1;
}

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
    return static_cast<int>(std::max(0L, std::min<long>(online - runnable, kUnknownFreeCores)));
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

void interruption_point()
{
    const ChunkContext *const here = current_chunk;
    for (const ChunkContext *c = here; c != nullptr; c = c->enclosing) {
        if (c->job->stop.load(std::memory_order_relaxed)) throw Interrupted();
    }
    if (here != nullptr && here->poller != nullptr && here->poller->should_stop()) {
        here->job->interrupted = true;
        here->job->stop.store(true);
        throw Interrupted();
    }
}

void run_chunks(int64_t n_chunks, int team, ChunkFunction run, void *context)
{
    if (n_chunks <= 0) return;
    Job job;
    job.n_chunks = n_chunks;
    job.run = run;
    job.context = context;
    Poller poller;
    const int helpers = static_cast<int>(std::min<int64_t>(team, n_chunks)) - 1;
    bool enclosing_stopped;
    if (helpers > 0) {
        Pool &shared = pool();
        const auto offered = std::chrono::steady_clock::now();
        const int64_t cpu_before = thread_cpu_ns();
        const int started = shared.offer(job, helpers);
        int64_t caller_chunks = 0;
        enclosing_stopped = work_on(job, &poller, &caller_chunks);  // the caller works too, on the same counter
        const int64_t cpu_after = thread_cpu_ns();
        const auto caller_done = std::chrono::steady_clock::now();
        shared.retire(job, poller);
        // A finished call says whether its helpers paid, unless it had to
        // start them: creating a thread is paid once, not on every call.
        if (!job.stop.load() && started == 0) {
            report_helpers(n_chunks, caller_chunks, cpu_before >= 0 && cpu_after >= 0 ? cpu_after - cpu_before : -1,
                           nanoseconds_between(offered, caller_done),
                           nanoseconds_between(caller_done, std::chrono::steady_clock::now()));
        }
    } else {
        enclosing_stopped = work_on(job, &poller);  // a lone caller needs no pool
    }
    if (job.failure) std::rethrow_exception(job.failure);
    // Unfinished either way: the chunk that started this job must not go on
    // as if it were done (the enclosing job discards it).
    if (job.interrupted || enclosing_stopped) throw Interrupted();
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
