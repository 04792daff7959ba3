// parallel.hpp -- the one threading entry point of the production fills.
//
// Internal to the core's sources.  Every production fill (mask, masks,
// rasterize, coverage, RLE) cuts its work into chunks and hands them to
// parallel_for, which runs body(chunk) exactly once for every chunk in
// [0, n_chunks) on at most `threads` threads, the calling thread included.
// The first exception a chunk throws is rethrown on the calling thread (the
// chunks not yet started are then skipped); so is polymask::Interrupted when
// the caller's interrupt check asks to stop.
//
// The mechanism is the pool of thread_pool.cpp (why not OpenMP: see
// thread_pool.hpp).  threads_for_work says how many threads a fill's work is
// worth, and chunks_for_work how finely to cut it; plan_items does both for
// batches of items (objects, instances), and for_items runs such a batch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "polymask/core.hpp"
#include "thread_pool.hpp"

namespace polymask {
namespace detail {

template <class Body>
void parallel_for(int64_t n_chunks, int threads, Body &&body)
{
    if (n_chunks <= 0) return;
    const int64_t wanted = resolve_threads(threads);
    const int team = static_cast<int>(wanted < n_chunks ? wanted : n_chunks);
    using BodyType = std::remove_reference_t<Body>;
    run_chunks(n_chunks, team,
               [](void *context, int64_t chunk) { (*static_cast<BodyType *>(context))(chunk); },
               const_cast<void *>(static_cast<const void *>(&body)));
}

// Work is counted in "pixel units": about the cost of writing one byte of a
// mask row (a crossing costs a few).  A whole 1024x1024 mask is about 2^20
// units, a few tens of microseconds on one thread, which is about what waking
// a sleeping helper costs (more on a busy machine): below kWorkPerThread per
// thread a helper cannot pay for itself, so a fill that small runs on the
// calling thread alone.  Tune with benchmarks/test_worker_pool.py on an idle
// machine (csrc/bench/STEPS.md has the figures).
constexpr double kWorkPerThread = 1 << 20;
// A chunk is at most this much work (about 0.1 ms of mask rows): the caller checks
// for interrupts between chunks, and late helpers find work left to claim.
constexpr double kWorkPerChunk = 1 << 21;
// A lone thread (team 1) needs chunks only for the interrupt checks, and
// every chunk of a row fill restarts the sweep (edges that span its first
// row join again, unsorted), which a lone thread pays for every band of a
// large polygon (csrc/bench/STEPS.md).  So a lone thread cuts 16x coarser:
// chunks of about 2 ms of mask rows, far inside the 0.25 s promised for Ctrl-C.
constexpr double kWorkPerLoneChunk = 16 * kWorkPerChunk;
// Chunks per thread at least.  A caller waits only for chunks a helper has
// claimed; small chunks make it unlikely that a helper is descheduled while
// holding one (on a busy machine that wait is a whole scheduler slice), and
// let the caller take over the rest of the work from a late helper.
constexpr int64_t kChunksPerThread = 16;

// The thread count `work` is worth: at most resolve_threads(threads).  What
// a thread must be worth is kWorkPerThread, raised while helpers have not
// been paying on this machine (thread_pool.hpp: work_per_thread_for).
inline int threads_for_work(int threads, double work)
{
    if (!(work >= 2.0 * kWorkPerThread)) return 1;  // also a NaN estimate: never cast it
    const int wanted = resolve_threads(threads);
    if (wanted <= 1) return 1;
    const double useful = work / work_per_thread_for(work);
    if (useful < 2.0) return 1;
    const int worth = useful < wanted ? static_cast<int>(useful) : wanted;
    // Helpers only on cores that are free now: with every core busy a helper
    // shares one with other work and the call ends waiting for it.
    return std::min(worth, 1 + helpers_with_a_free_core());
}

// How many chunks to cut `work` into for `team` threads, at most `units`
// (e.g. the rows of a window) and at least 1.
inline int64_t chunks_for_work(int team, double work, int64_t units)
{
    const double by_size = work / (team > 1 ? kWorkPerChunk : kWorkPerLoneChunk);
    const int64_t by_team = team > 1 ? kChunksPerThread * team : 1;
    const int64_t sized = by_size > 1e15 ? int64_t(1e15) : by_size >= 1.0 ? static_cast<int64_t>(by_size) : 1;
    int64_t chunks = std::max<int64_t>(by_team, sized);
    return std::max<int64_t>(1, std::min(chunks, units));
}

// How to spread n_items independent items of varying cost (objects to
// encode, instances to fill) over threads: the thread count their summed
// work is worth, and how many chunks of whole items to cut them into.
// work_of(i) is item i's cost in pixel units.  The sum stops once every
// allowed thread is worth it and the rest is extrapolated, so a big batch
// costs a glance at its first items.
struct ItemPlan {
    int team;
    int64_t chunks;
};

template <class WorkOf>
ItemPlan plan_items(int64_t n_items, int threads, WorkOf &&work_of)
{
    if (n_items <= 0) return {1, 0};
    const double enough = kWorkPerThread * (resolve_threads(threads) + 1);
    double work = 0;
    int64_t seen = 0;
    while (seen < n_items && work < enough) work += work_of(seen++);
    const double total = work * (static_cast<double>(n_items) / static_cast<double>(seen));
    const int team = threads_for_work(threads, total);
    return {team, chunks_for_work(team, total, n_items)};
}

// Run body(i) for every item i, on as many threads as the items' work is
// worth (work_of(i), as for plan_items), grouped in chunks of whole items.
template <class WorkOf, class Body>
void for_items(int64_t n_items, int threads, WorkOf &&work_of, Body &&body)
{
    const ItemPlan plan = plan_items(n_items, threads, work_of);
    parallel_for(plan.chunks, plan.team, [&](int64_t chunk) {
        const int64_t end = n_items * (chunk + 1) / plan.chunks;
        for (int64_t i = n_items * chunk / plan.chunks; i < end; ++i) body(i);
    });
}

}  // namespace detail
}  // namespace polymask
