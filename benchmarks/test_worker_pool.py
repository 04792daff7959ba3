"""Threads where pipelines run them: a busy worker pool, and one process alone.

Two scenarios from issue 11, each compared with ``threads=1`` in the same
run (ratios, never absolute times):

* **worker pool**: one process per CPU, each filling many masks (1024x1024
  and 4096x4096, 24 vertices), as a multiprocessing / joblib / DataLoader
  pool does.  Every core is busy already, so threads cannot help; the
  default must not hurt (target: wall time at most 1.15x that of
  ``threads=1``).
* **worker pool, label images**: the same pool, each worker burning 10,000
  small 16-vertex stars into a 4096x4096 uint16 label image
  (``polymask.rasterize``, centre rule and ``all_touched``), the way a
  pipeline rasterizes tiles of building footprints.  Same target: at most
  1.15x ``threads=1``.
* **idle machine**: one process filling masks alone.  Threads should help
  on large masks (target: 4096x4096 default at most 0.6x ``threads=1`` on an
  idle 2-core machine) and never hurt on small ones (1024x1024 default at
  most 1.0x).

Run as a script for the ratio table (``python benchmarks/test_worker_pool.py
[--rounds N]``), or under pytest-benchmark (``pytest
benchmarks/test_worker_pool.py --benchmark-only``); in CI
(``--benchmark-disable``) each case runs once on small inputs.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

import numpy as np
import pytest

import polymask
from polymask.course.problems import random_polygon, small_polygons

SIZES = (1024, 4096)
#: Masks each worker fills per timed round: about a fifth of a second of work.
MASKS_PER_WORKER = {1024: 2000, 4096: 60}
THREAD_SETTINGS = (None, 1)


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _fill_many(job) -> float:
    """Fill `count` masks of `size` with `threads`; return the seconds it took (in the worker)."""
    size, count, threads = job
    vertices = random_polygon(24, size)
    out = np.empty((size, size), dtype=bool)
    started = time.perf_counter()
    for _ in range(count):
        polymask.mask(vertices, (size, size), threads=threads, out=out)
    return time.perf_counter() - started


#: The label-image scenario: each worker burns this many stars into a LABEL_SIZE square image.
LABEL_STARS, LABEL_SIZE = 10_000, 4096
#: Each worker's label-image polygons, made once per process (outside the timed pool.map calls).
_STARS: dict = {}


def small_stars(count: int, size: int) -> np.ndarray:
    """`count` 16-vertex stars, 3-20 px in radius, anywhere in a size x size image (polymask.course.problems)."""
    if (count, size) not in _STARS:
        _STARS[(count, size)] = small_polygons(count, (size, size), n_vertices=16, seed=0)
    return _STARS[(count, size)]


def _burn_many(job) -> float:
    """Burn `count` label images of `stars` small stars with `threads`; return the seconds it took."""
    stars, size, count, threads, all_touched = job
    polygons = small_stars(stars, size)
    out = np.zeros((size, size), dtype=np.uint16)
    started = time.perf_counter()
    for _ in range(count):
        polymask.rasterize(polygons, (size, size), out=out, threads=threads, all_touched=all_touched)
    return time.perf_counter() - started


def worker_pool_seconds(pool, workers: int, size: int, count: int, threads) -> float:
    """Wall time for `workers` processes to fill `count` masks each, all at once."""
    started = time.perf_counter()
    pool.map(_fill_many, [(size, count, threads)] * workers, chunksize=1)
    return time.perf_counter() - started


def idle_seconds_per_mask(size: int, threads, repeats: int) -> float:
    """Median seconds of one mask filled by this process alone."""
    vertices = random_polygon(24, size)
    out = np.empty((size, size), dtype=bool)
    polymask.mask(vertices, (size, size), threads=threads, out=out)  # warm: pool started, pages touched
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        polymask.mask(vertices, (size, size), threads=threads, out=out)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def worker_pool_label_seconds(pool, workers: int, count: int, threads, all_touched: bool) -> float:
    """Wall time for `workers` processes to burn `count` label images of LABEL_STARS stars each, all at once."""
    started = time.perf_counter()
    pool.map(_burn_many, [(LABEL_STARS, LABEL_SIZE, count, threads, all_touched)] * workers, chunksize=1)
    return time.perf_counter() - started


def _alternated(rounds: int, seconds_of, **arguments) -> dict:
    """Medians of seconds_of(threads=t, **arguments) over `rounds` rounds, t alternating, and their ratio."""
    times = {threads: [] for threads in THREAD_SETTINGS}
    for _ in range(rounds):
        for threads in THREAD_SETTINGS:
            times[threads].append(seconds_of(threads=threads, **arguments))
    default, single = (statistics.median(times[t]) for t in THREAD_SETTINGS)
    return {"default_s": default, "threads1_s": single, "ratio": default / single}


def measure(rounds: int = 5, scale: float = 1.0) -> dict:
    """Medians over `rounds` rounds, default and threads=1 alternating; and their ratios."""
    workers = _cpus()
    results: dict = {"cpus": workers, "rounds": rounds, "pool": {}, "labels": {}, "idle": {}}
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers) as pool:
        pool.map(_fill_many, [(256, 1, None)] * workers, chunksize=1)  # start every worker
        for size in SIZES:
            count = max(1, int(MASKS_PER_WORKER[size] * scale))
            results["pool"][size] = {
                **_alternated(rounds, worker_pool_seconds, pool=pool, workers=workers, size=size, count=count),
                "masks_per_worker": count}
        count = max(1, int(6 * scale))
        for all_touched in (False, True):
            worker_pool_label_seconds(pool, workers, 1, 1, all_touched)  # every worker makes its stars
            results["labels"]["all_touched" if all_touched else "centre"] = {
                **_alternated(rounds, worker_pool_label_seconds, pool=pool, workers=workers, count=count,
                              all_touched=all_touched),
                "images_per_worker": count}
    for size in SIZES:
        repeats = max(3, int((400 if size == 1024 else 40) * scale))
        results["idle"][size] = _alternated(rounds, idle_seconds_per_mask, size=size, repeats=repeats)
    return results


#: The issue's targets: ratio of default-threads time to threads=1 time.
TARGETS = {("pool", 1024): 1.15, ("pool", 4096): 1.15, ("idle", 1024): 1.0, ("idle", 4096): 0.6}


def report(results: dict) -> str:
    lines = [f"polymask {polymask.__version__}, {results['cpus']} CPUs, "
             f"{polymask.build_info()['threading']}; medians of {results['rounds']} rounds",
             "",
             "| scenario | size | default threads | threads=1 | ratio | target |",
             "|---|---|---|---|---|---|"]
    for scenario in ("pool", "idle"):
        for size, row in results[scenario].items():
            unit = "s wall" if scenario == "pool" else "ms/mask"
            factor = 1.0 if scenario == "pool" else 1e3
            lines.append(f"| {'worker pool, one process per CPU' if scenario == 'pool' else 'one process, idle'} "
                         f"| {size}x{size} | {row['default_s'] * factor:.3f} {unit} "
                         f"| {row['threads1_s'] * factor:.3f} {unit} | {row['ratio']:.2f}x "
                         f"| <= {TARGETS[(scenario, size)]:.2f}x |")
    for rule, row in results.get("labels", {}).items():
        lines.append(f"| worker pool, label images ({rule}) | 4096x4096 | {row['default_s']:.3f} s wall "
                     f"| {row['threads1_s']:.3f} s wall | {row['ratio']:.2f}x | <= 1.15x |")
    return "\n".join(lines)


# ---- pytest-benchmark ----------------------------------------------------------------

@pytest.fixture(scope="module")
def process_pool():
    workers = _cpus()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        pool.map(_fill_many, [(64, 1, None)] * workers, chunksize=1)
        yield pool, workers


@pytest.mark.parametrize("threads", THREAD_SETTINGS, ids=["default", "threads1"])
@pytest.mark.parametrize("size", SIZES)
def test_worker_pool(benchmark, request, process_pool, size, threads):
    pool, workers = process_pool
    fast = request.config.polymask_fast_mode
    size = 256 if fast else size
    count = 2 if fast else MASKS_PER_WORKER[size]
    benchmark.group = f"worker pool {size}x{size}, {workers} processes"
    benchmark.extra_info.update(scenario="worker_pool", size=[size, size], threads=threads or 0,
                                workers=workers, masks_per_worker=count)
    benchmark.pedantic(worker_pool_seconds, args=(pool, workers, size, count, threads), rounds=1 if fast else 5)


@pytest.mark.parametrize("threads", THREAD_SETTINGS, ids=["default", "threads1"])
@pytest.mark.parametrize("all_touched", [False, True], ids=["centre", "all-touched"])
def test_worker_pool_label_images(benchmark, request, process_pool, all_touched, threads):
    pool, workers = process_pool
    fast = request.config.polymask_fast_mode
    stars, size, count = (200, 256, 1) if fast else (LABEL_STARS, LABEL_SIZE, 6)
    benchmark.group = f"worker pool label images {size}x{size}, {workers} processes"
    benchmark.extra_info.update(scenario="worker_pool_labels", size=[size, size], threads=threads or 0,
                                workers=workers, stars=stars, images_per_worker=count, all_touched=all_touched)
    jobs = [(stars, size, count, threads, all_touched)] * workers
    benchmark.pedantic(pool.map, args=(_burn_many, jobs), kwargs={"chunksize": 1}, rounds=1 if fast else 5)


@pytest.mark.parametrize("threads", THREAD_SETTINGS, ids=["default", "threads1"])
@pytest.mark.parametrize("size", SIZES)
def test_idle_process(benchmark, request, size, threads):
    size = 256 if request.config.polymask_fast_mode else size
    vertices = random_polygon(24, size)
    out = np.empty((size, size), dtype=bool)
    benchmark.group = f"one process {size}x{size}"
    benchmark.extra_info.update(scenario="idle", size=[size, size], threads=threads or 0)
    result = benchmark(polymask.mask, vertices, (size, size), threads=threads, out=out)
    np.testing.assert_array_equal(result, polymask.mask(vertices, (size, size), threads=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per case (medians are reported)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the masks per round (e.g. 0.2: quick)")
    arguments = parser.parse_args()
    print(report(measure(arguments.rounds, arguments.scale)))
