"""The call users make (default threads) against ``threads=1``, sparse and dense, idle and busy.

Every production fill picks its thread count from its work, and the core's
pool raises the bar for waking a helper while helpers do not pay on this
machine (csrc/src/thread_pool.hpp).  This benchmark checks the outcome the
way a user meets it: the same call with ``threads=None`` and with
``threads=1``, alternated call by call so both see the same load, medians
over many rounds, on

* ``small-8192``: a 40-vertex star about 300 px wide in an 8192x8192 mask
  (only its rows cost anything; OpenCV's fillPoly is timed beside it);
* ``4096-24`` and ``4096-1000``: random polygons of 24 and 1,000 vertices
  filling a 4096x4096 mask;
* ``coco-1000``: ``polymask.masks`` of 1,000 COCO-like instances on 640x480;
* ``label-10000``: ``polymask.rasterize`` of 10,000 small stars into a
  4096x4096 label image;
* ``coverage-outline``: ``polymask.coverage`` of a smooth 1,000-vertex
  outline at 4096x4096;

first on the machine as it is ("idle"), then with one spinning process per
spare CPU started by the benchmark ("busy").  The table gives the medians,
their ratio (default / threads=1) and the pool's counters for the run.

    python -m benchmarks.threads_default               # 25 rounds a case
    python -m benchmarks.threads_default --rounds 41 --cases small-8192 4096-24
    python -m benchmarks.threads_default --quick       # small sizes, 3 rounds: a smoke run
"""
from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import time
from typing import Callable, Iterator

import numpy as np

import polymask
from polymask import _core
from polymask.course import peers, problems

# small-8192 comes last: it times OpenCV too, and OpenCV's pool thread spins for a
# while after each call, taking the other core from the cases after it.
CASES = ("4096-24", "4096-1000", "coco-1000", "label-10000", "coverage-outline", "small-8192")


def _outline(n_vertices: int, size: int) -> np.ndarray:
    from benchmarks.test_coverage import outline

    return outline(n_vertices, (size / 2, size / 2), 0.45 * size, np.random.default_rng(2014))


def case_call(name: str, quick: bool = False) -> tuple[Callable[[int | None], object], Callable[[], object] | None]:
    """(call(threads), OpenCV's call or None) for the case `name`; `quick` shrinks it to a smoke run."""
    big = 512 if quick else 4096
    if name == "small-8192":
        vertices, shape = problems.small_in_large_image(1024 if quick else 8192)
        opencv = peers.get("opencv").function
        return (lambda threads: polymask.mask(vertices, shape, threads=threads)), (lambda: opencv(vertices, shape))
    if name in ("4096-24", "4096-1000"):
        vertices = problems.random_polygon(int(name.split("-")[1]), big)
        return (lambda threads: polymask.mask(vertices, (big, big), threads=threads)), None
    if name == "coco-1000":
        polygons, shape = problems.instance_polygons(count=100 if quick else 1000)
        return (lambda threads: polymask.masks(polygons, shape, threads=threads)), None
    if name == "label-10000":
        stars = problems.small_polygons(1000 if quick else 10000, (big, big))
        return (lambda threads: polymask.rasterize(stars, (big, big), dtype=np.uint16, threads=threads)), None
    if name == "coverage-outline":
        vertices = _outline(1000, big)
        return (lambda threads: polymask.coverage(vertices, (big, big), threads=threads)), None
    raise ValueError(f"unknown case {name!r}; expected one of {', '.join(CASES)}")


def _spin(stop) -> None:
    while not stop.is_set():
        pass


@contextlib.contextmanager
def busy_cpus(count: int) -> Iterator[None]:
    """`count` processes that spin until the block ends: the other cores busy, as on a shared machine."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    spinners = [context.Process(target=_spin, args=(stop,), daemon=True) for _ in range(count)]
    for spinner in spinners:
        spinner.start()
    time.sleep(0.2)  # let them reach their loops
    try:
        yield
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join(5)
            if spinner.is_alive():
                spinner.terminate()


def measure(call, opencv, rounds: int) -> dict:
    """Medians (ms) of the default call, threads=1 (and OpenCV), alternated call by call."""
    default, single, peer = [], [], []
    call(None), call(1)  # warm: imports, the pool's threads, the allocator
    _core._reset_pool_learning()
    for round_number in range(rounds):
        # ABBA: the first call of a pair pays for the allocator state the second
        # left (about 5% here), so each goes first in every other round.
        pair = ((None, default), (1, single))
        for threads, times in pair if round_number % 2 == 0 else pair[::-1]:
            start = time.perf_counter()
            call(threads)
            times.append(time.perf_counter() - start)
        if opencv is not None:
            start = time.perf_counter()
            opencv()
            peer.append(time.perf_counter() - start)
    result = {"default": statistics.median(default) * 1e3, "threads=1": statistics.median(single) * 1e3,
              "pool": _core.pool_statistics()}
    result["ratio"] = result["default"] / result["threads=1"]
    if peer:
        result["opencv"] = statistics.median(peer) * 1e3
    return result


def run(cases, rounds: int, quick: bool = False, settings=("idle", "busy")) -> dict:
    """{(case, setting): measure(...)} for every case, idle then busy."""
    spare = max(1, len(os.sched_getaffinity(0)) - 1) if hasattr(os, "sched_getaffinity") else 1
    results = {}
    for setting in settings:
        with busy_cpus(spare) if setting == "busy" else contextlib.nullcontext():
            for name in cases:
                call, opencv = case_call(name, quick)
                results[name, setting] = measure(call, opencv, rounds)
    return results


def report(results: dict) -> str:
    lines = ["| case | setting | default (ms) | threads=1 (ms) | default / threads=1 | OpenCV (ms) "
             "| threaded calls | unpaid | longest wait (ms) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (name, setting), row in results.items():
        pool = row["pool"]
        opencv = f"{row['opencv']:.3f}" if "opencv" in row else ""
        lines.append(f"| {name} | {setting} | {row['default']:.3f} | {row['threads=1']:.3f} | {row['ratio']:.2f} "
                     f"| {opencv} | {pool['threaded_calls']} | {pool['unpaid_calls']} "
                     f"| {pool['longest_wait_ms']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25, help="alternated rounds a case (default 25)")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--settings", nargs="+", choices=("idle", "busy"), default=["idle", "busy"])
    parser.add_argument("--quick", action="store_true", help="small sizes and 3 rounds: a smoke run")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    if rounds < 1:
        parser.error(f"--rounds must be at least 1, got {rounds}")
    print(f"polymask {polymask.__version__}, {len(os.sched_getaffinity(0))} CPUs, {rounds} rounds a case")
    print(report(run(args.cases, rounds, args.quick, tuple(args.settings))))


if __name__ == "__main__":
    main()
