// thread_pool.hpp -- the process-wide pool behind detail::parallel_for.
//
// Internal to the core's sources and its tests.  parallel.hpp is what fills
// call; this header is the machinery and the hooks tests need (an injectable
// thread starter, the pool's size, a fork simulation).
//
// Why a pool of our own and not OpenMP: an OpenMP team's implicit barrier
// waits for every member, so one descheduled thread stalls the whole fill
// (many times slower with one busy process per core: csrc/bench/STEPS.md);
// libgomp hangs a forked child in its next
// parallel region; and it aborts the process when a thread cannot be created.
// Here the calling thread claims chunks too, helpers claim the rest from one
// atomic counter, and a call waits only for chunks a helper has actually
// started: a helper that never woke up costs nothing, a helper that could not
// be created means fewer helpers, and a forked child starts a fresh pool.
//
// Waking a sleeping thread costs tens of microseconds on a virtual machine,
// as much as a small fill's whole work, and calls often come back to back
// (a loop over tiles, a benchmark).  So an idle helper, and a caller whose
// helper is finishing its last chunk, watch an atomic for up to 100 us
// (pause, no mutex held) before they sleep: coverage of the standard polygon
// at 1024x1024 went from 1.2x to 1.8x faster on two threads than on one.
// A helper spins only after a job, and jobs are offered only where a core
// is free, so a busy machine sees no spinning.
#pragma once

#include <cstdint>
#include <functional>

namespace polymask {
namespace detail {

// One call's work, type-erased: run(context, chunk) for chunk in [0, n_chunks).
using ChunkFunction = void (*)(void *context, int64_t chunk);

// Run every chunk exactly once on at most `team` threads (the caller
// included), polling the caller's interrupt check between chunks.  Rethrows
// the first exception a chunk threw (later chunks are then skipped), or
// throws polymask::Interrupted when the check asked to stop; either way it
// returns only once no thread still runs one of this call's chunks.
void run_chunks(int64_t n_chunks, int team, ChunkFunction run, void *context);

// Called from inside a chunk: throws polymask::Interrupted when the job (or
// one enclosing it) is stopping, or when this is the caller's thread and its
// interrupt check asks to stop (polled at most every 10 ms).  A chunk whose
// work is unbounded (a sweep through one band of a pathological polygon)
// calls it every bounded amount of work, so Ctrl-C lands within the promise
// whatever a chunk holds.  Outside any job it does nothing.
void interruption_point();

// Starts a detached thread running `work`; returns false if it could not.
// Replaceable so tests can make thread creation fail.
using ThreadStarter = bool (*)(std::function<void()> work);
ThreadStarter set_thread_starter(ThreadStarter starter);  // nullptr: the default; returns the previous
bool start_std_thread(std::function<void()> work);        // the default starter

// Helper threads started so far by this process's pool (not counting callers).
int pool_workers();

// ---- whether helpers pay, learned while the process runs --------------------
// A helper pays when it wakes in time to take part of a call's chunks and the
// caller does not then wait long for it.  On an idle machine a helper wakes in
// some tens of microseconds; with the other cores busy it may wake only after
// the caller has done everything, or take a chunk and then lose its core for a
// whole scheduler slice (milliseconds) while the caller waits.  Every threaded
// call reports how its helpers did: a call they did not pay for doubles the
// work a thread must be worth before a helper is woken (up to 64x), a call
// they paid for halves it again.  Calls that the raised bar keeps on one
// thread would never report, so every kProbeEvery-th of them still uses the
// base bar: the bar comes down again once the machine is idle.

// The work (pixel units) a thread must be worth now: kWorkPerThread times
// 2^penalty.  `work` is the call's; it decides whether this call is a probe.
double work_per_thread_for(double work);

// (pool_statistics() and reset_pool_learning() in core.hpp report and reset it.)

// ---- whether a core is free now ------------------------------------------------
// A helper gains only on a core nobody else wants.  The kernel counts the
// threads that are runnable right now (the fourth field of /proc/loadavg,
// the calling thread included); online CPUs minus that count is how many
// helpers could run at once without taking a core from someone.  Read at
// most every 2 ms (kIdleReadInterval; a read costs a few microseconds), so a call
// sees the machine as it was up to that long ago.  Returns a large number
// where it cannot be read (not Linux, no /proc) and while learning is off
// (reset_pool_learning(false): tests that need a fixed plan).
int helpers_with_a_free_core();

// Where that count comes from: online CPUs minus runnable threads, or a
// large number where unknown.  Replaceable so tests can pretend an idle or a
// busy machine; setting a reader makes the next plan read it.
using FreeCoresReader = int (*)();
FreeCoresReader set_free_cores_reader(FreeCoresReader reader);  // nullptr: the default; returns the previous
int free_cores_from_loadavg();                                   // the default reader
constexpr int kUnknownFreeCores = 1 << 20;

// Idle helpers of this pool that are watching for the next offer before they
// sleep (thread_pool.cpp: spin_for_offer).  Waking a sleeping helper costs
// tens of microseconds on a virtual machine, as much as a small fill's
// whole work, so after a job a helper watches for 100 us first.  The kernel
// counts such a helper as runnable, but its core is the pool's to use:
// helpers_with_a_free_core counts it as free.
int spinning_helpers();

// What run_chunks reports after a threaded call: the caller ran
// `caller_chunks` of `n_chunks` using `caller_cpu_ns` of CPU (-1: unknown)
// in `working_ns` of wall time, then waited `waiting_ns` for its helpers.
// Exposed for tests, which feed it calls no machine can be made to produce.
void report_helpers(int64_t n_chunks, int64_t caller_chunks, int64_t caller_cpu_ns, int64_t working_ns,
                    int64_t waiting_ns);

// What the pthread_atfork child handler does: forget the pool (its threads
// do not exist in a child) so the next call starts a fresh one.  Tests call
// it to simulate a fork without forking.
void forget_pool_after_fork();

}  // namespace detail
}  // namespace polymask
