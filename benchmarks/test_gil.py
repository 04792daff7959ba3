"""Does ``polymask.mask`` release the GIL?  Two Python threads against one.

One thread computes K masks of a 1024x1024 image with 1,000 random vertices
(``standard_problem(1024, 1000)``: a few milliseconds of fill per mask) with
``threads=1`` in the core; then two Python threads each compute K such masks
at the same time.  The core runs single-threaded in both, so any
parallelism comes from the Python threads, which is only possible because
the fill runs without the GIL.  Held, two threads would take twice as long
as one; released, on two free cores, they take about as long as one.

Why 1,000 vertices: with the course's 24, a 1024x1024 fill takes some 30 us,
no more than the Python side of the call (argument checks, under the GIL),
so two threads mostly queue for the GIL and the ratio says little about the
fill.  Tiny masks gain little from Python threads; big fills gain fully.

    pytest benchmarks/test_gil.py --benchmark-only --benchmark-columns=median,iqr,rounds

``test_two_threads_each_k_masks`` records in extra_info the medians of both
runs, timed alternately in the same test so that a change in machine load
hits both, and their ratio ``two_over_one`` (target: well under 2).
"""
from __future__ import annotations

import os
import statistics
import threading
import time

import numpy as np

import polymask
from polymask.course.problems import standard_problem

#: Masks per thread per run.
K = 10
VERTICES, SHAPE = standard_problem(1024, 1000)
EXPECTED = polymask.mask(VERTICES, SHAPE, threads=1)


def _masks(count: int, results: list) -> None:
    out = np.empty(SHAPE, bool)  # preallocated: time the fill, not the page faults
    for _ in range(count):
        polymask.mask(VERTICES, SHAPE, out=out, threads=1)
    results.append(np.array_equal(out, EXPECTED))


def run_in_threads(n_threads: int) -> list:
    """K masks in each of `n_threads` Python threads started together; returns their checks."""
    results: list = []
    if n_threads == 1:
        _masks(K, results)
        return results
    barrier = threading.Barrier(n_threads)

    def body():
        barrier.wait()
        _masks(K, results)

    threads = [threading.Thread(target=body) for _ in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def test_one_thread_k_masks(benchmark):
    benchmark.group = "gil: K masks per Python thread"
    benchmark.extra_info.update(python_threads=1, masks_per_thread=K, core_threads=1)
    assert benchmark(run_in_threads, 1) == [True]


def test_two_threads_each_k_masks(benchmark, request):
    benchmark.group = "gil: K masks per Python thread"
    results = benchmark(run_in_threads, 2)
    assert results == [True, True], "a thread got a wrong mask"

    # The ratio, from rounds that alternate one and two threads.
    # Also the process's CPU time over wall time while two threads run: about
    # 2 when they truly run at once, 1 when the GIL serialises them, whatever
    # else loads the machine (other load only lowers both).
    rounds = 1 if request.config.getoption("benchmark_disable", False) else 15
    one, two, busy = [], [], []
    for _ in range(rounds):
        for n_threads, times in ((1, one), (2, two)):
            started, cpu_started = time.perf_counter(), time.process_time()
            run_in_threads(n_threads)
            times.append(time.perf_counter() - started)
            if n_threads == 2:
                busy.append((time.process_time() - cpu_started) / times[-1])
    one_s, two_s, cpu_over_wall = statistics.median(one), statistics.median(two), statistics.median(busy)
    benchmark.extra_info.update(
        python_threads=2, masks_per_thread=K, core_threads=1, cores=_cores(), rounds=rounds,
        one_thread_median_s=one_s, two_threads_median_s=two_s, two_over_one=two_s / one_s,
        two_threads_cpu_over_wall=cpu_over_wall,
    )
    print(f"\nGIL: one thread {one_s * 1e3:.1f} ms, two threads {two_s * 1e3:.1f} ms for {K} masks each: "
          f"ratio {two_s / one_s:.2f} (held GIL: 2.0); two threads used {cpu_over_wall:.2f} cores "
          f"(held GIL: 1.0) of {_cores()}")
