// thread_pool.cpp -- the pool: jobs, helper threads, and fork safety.
//
// See thread_pool.hpp for why this is a pool of our own.  How many threads
// is thread_counts.cpp, what the pool learns about the machine
// pool_learning.cpp, the interrupt check interrupts.cpp.  The pieces:
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

#include "interrupt_hook.hpp"
#include "polymask/core.hpp"
#include "row_bands.hpp"
#include "testing.hpp"

namespace polymask {

namespace detail {

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
    // helpers_in, readable without the mutex (retire's spin): a helper's
    // decrement is its last touch of the job.
    std::atomic<int> helpers_working{0};
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

// How long an idle helper watches for the next offer before it sleeps.
constexpr std::chrono::microseconds kSpinBeforeSleep{100};

// Watches done() for up to kSpinBeforeSleep, pausing between looks; whether
// it came true meanwhile.
template <class Done>
bool watch_briefly(Done done)
{
    const auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
    for (int looks = 1;; ++looks) {
        if (done()) return true;
        if ((looks & 63) == 0 && std::chrono::steady_clock::now() >= until) return false;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#else
        std::this_thread::yield();
#endif
    }
}

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
        offers_.fetch_add(1, std::memory_order_release);
        for (int k = 0; k < helpers; ++k) work_ready_.notify_one();
        return started;
    }

    // Close `job` to new helpers and wait until every helper that joined has
    // left, polling for interrupts meanwhile.
    void retire(Job &job, Poller &poller)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), &job), jobs_.end());
        if (job.helpers_in > 0) {
            // A helper finishing its last chunk is usually microseconds
            // away: watch for it before sleeping (a wake-up costs more).
            // helpers_working falls to 0 only after the last helper's last
            // touch of the job, so the job may then end without the mutex.
            lock.unlock();
            if (watch_briefly([&] { return job.helpers_working.load(std::memory_order_acquire) == 0; })) return;
            lock.lock();
        }
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
                if (spin_for_offer(lock)) continue;
                work_ready_.wait(lock);
                continue;
            }
            --job->helpers_wanted;
            ++job->helpers_in;
            job->helpers_working.fetch_add(1, std::memory_order_relaxed);
            --idle_;
            lock.unlock();
            work_on(*job, nullptr);
            lock.lock();
            ++idle_;
            const bool last = --job->helpers_in == 0;
            job->helpers_working.fetch_sub(1, std::memory_order_release);  // the last touch of the job
            if (last) helper_left_.notify_all();
        }
    }

    // Before it sleeps, an idle helper watches for a new offer for a while,
    // the mutex released (thread_pool.hpp says why).  True when one came.
    bool spin_for_offer(std::unique_lock<std::mutex> &lock)
    {
        const uint64_t seen = offers_.load(std::memory_order_acquire);
        lock.unlock();
        spinning_.fetch_add(1, std::memory_order_relaxed);
        const bool offered = watch_briefly([&] { return offers_.load(std::memory_order_acquire) != seen; });
        spinning_.fetch_sub(1, std::memory_order_relaxed);
        lock.lock();
        return offered;
    }

    int spinning() const { return spinning_.load(std::memory_order_relaxed); }

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
    std::atomic<uint64_t> offers_{0};  // offers made so far, for spin_for_offer
    // Helpers in spin_for_offer now (see spinning_helpers); per pool, so a
    // forked child's fresh pool starts from 0.
    std::atomic<int> spinning_{0};
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

int spinning_helpers()
{
    Pool *existing = current_pool.load();
    return existing == nullptr ? 0 : existing->spinning();
}

namespace {

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

}  // namespace polymask
