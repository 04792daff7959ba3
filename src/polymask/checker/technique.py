"""Technique checks that only the technique can meet, measured from outside the worker.

* **06, prange.**  The learner's own ``mask`` at ``threads=2`` must be
  measurably faster than at ``threads=1`` on the same kind of problem
  (fresh polygons, every answer checked), and the worker's threads seen in
  ``/proc`` must share the CPU work.  A second thread that only burns CPU
  shows two busy threads and no speed-up: FAIL.  When the worker did not
  get two cores' worth of CPU (a busy machine), the verdict is
  *inconclusive*, never PASS.
* **05, cdef class.**  A random number (120 to 240) of ``Polygon`` objects
  of a large polygon are built, asked for a mask (answers checked) and
  dropped; the worker's private memory is read from ``/proc`` before and
  after.
* **03, types.**  Cython's annotation must be white on every line of the
  per-pixel function and of every loop (see :mod:`source`), and the
  learner's ``mask`` must beat the plain compiled stage by a floor, timed
  here on the same polygons.
"""
from __future__ import annotations

import math
import os
import statistics

from polymask.checker import judge
from polymask.checker.runner import Worker

#: 06: how much faster two threads must be than one (an honest prange on two cores: ~1.8x).
THREAD_SPEEDUP_FLOOR = 1.3
#: 06: CPU per wall second the worker must have had to call a missing speed-up a FAIL.
TWO_CORES_SEEN = 1.6
#: 03: how much faster than cython_plain typed loops must be (typed loops: far more).
TYPED_SPEEDUP_FLOOR = 3.0


class Inconclusive(Exception):
    """The machine was too busy to tell; re-run."""


def thread_failure(worker: Worker, rng, limit: float, side: int = 512) -> tuple[str | None, str]:
    """(why 06 fails or None, the note for the PASS line).  Inconclusive when it cannot tell."""
    from polymask.problems import STANDARD_VERTICES

    phase = "the thread check"

    def polygons(count):
        return [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(count)]

    def run(threads, batch):
        answers, seconds = judge.ask(worker, "masks", batch, limit, phase, options={"threads": threads})
        for answer, (vertices, shape) in zip(answers, batch):
            if not judge.is_right(answer, vertices, shape):
                return None
        return seconds / len(batch)

    first = run(1, polygons(1))
    if first is None:
        return f"is wrong on a {side}x{side} problem at threads=1 (the thread check).", ""
    count = max(1, min(16, math.ceil(0.12 / max(first, 1e-6))))
    one, two, cpu, wall = [], [], {}, 0.0
    for _ in range(4):
        per_mask = run(1, polygons(count))
        before = worker.thread_cpu()
        start = os.times().elapsed
        per_mask_two = run(2, polygons(count))
        wall += os.times().elapsed - start
        after = worker.thread_cpu()
        if per_mask is None or per_mask_two is None:
            return f"is wrong on a {side}x{side} problem at threads=1 or 2 (the thread check).", ""
        one.append(per_mask)
        two.append(per_mask_two)
        for tid, seconds in after.items():
            cpu[tid] = cpu.get(tid, 0.0) + seconds - before.get(tid, 0.0)
    speedup = statistics.median(one) / statistics.median(two)
    total = sum(cpu.values())
    busy = [seconds for seconds in cpu.values() if seconds >= max(0.02, 0.15 * total)]
    cores = total / wall if wall > 0 else 0.0
    if speedup >= THREAD_SPEEDUP_FLOOR and len(busy) >= 2:
        return None, f", {speedup:.1f}x faster on 2 threads than on 1"
    if len(busy) < 2:
        return (f"it ran on 1 thread: with threads=2, one thread did all {total:.2f} s of CPU work "
                f"({speedup:.2f}x the speed of threads=1). Split the rows over threads with "
                "cython.parallel.prange(..., nogil=True), and let num_threads follow the `threads` argument."), ""
    if cores >= TWO_CORES_SEEN:
        return (f"two threads were busy ({cores:.1f} CPU seconds per second) but threads=2 was only "
                f"{speedup:.2f}x the speed of threads=1 (at least {THREAD_SPEEDUP_FLOOR}x is needed): a "
                "second thread that burns CPU without taking a share of the rows does not count."), ""
    raise Inconclusive(f"threads=2 was {speedup:.2f}x the speed of threads=1, but the worker got only "
                       f"{cores:.1f} CPU seconds per second: the machine is too busy to tell")


def memory_failure(worker: Worker, rng, limit: float, n_vertices: int = 20_000) -> str | None:
    """05: build, ask and drop Polygon objects a random number of times; memory from /proc."""
    from polymask.problems import random_polygon

    phase = "the memory check"
    base = random_polygon(n_vertices, 64, seed=int(rng.integers(2**31)))
    constructions = int(rng.integers(120, 241))

    def batch(count):
        made = [(base + rng.uniform(-24, 24, size=2), (8, 8)) for _ in range(count)]
        answers, _ = judge.ask(worker, "polygon_masks", made, limit, phase)
        for answer, (vertices, shape) in zip(answers, made):
            if isinstance(answer, dict):
                return f"Polygon(vertices).mask(shape) failed in the memory check: {answer['message']}"
            if not judge.is_right(answer, vertices, shape):
                return "Polygon(vertices).mask(shape) gave a wrong mask in the memory check."
        return None

    problem = batch(4)  # warm up: allocator pools, first-use buffers
    before = worker.anonymous_memory()
    done = 0
    while problem is None and done < constructions:
        step = min(20, constructions - done)
        problem = batch(step)
        done += step
    if problem:
        return problem
    grew = worker.anonymous_memory() - before
    if grew > 0.5 * constructions * base.nbytes:
        return (f"Polygon leaks its C++ polygon: building, asking for a mask and dropping "
                f"Polygon({n_vertices:,} vertices) {constructions} times grew the process by "
                f"{grew / 2**20:.0f} MiB. __dealloc__ must delete what __cinit__ made (del self.polygon).")
    return None


def typed_speed_failure(worker: Worker, stage_worker_factory, rng, limit: float, side: int = 128) -> str | None:
    """03: the learner's mask must be TYPED_SPEEDUP_FLOOR times faster than cython_plain."""
    from polymask.problems import STANDARD_VERTICES

    polygons = [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(3)]
    answers, yours = judge.ask(worker, "masks", polygons, limit, "the speed check")
    if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
        return f"is wrong on a {side}x{side} problem (the speed check)."
    with stage_worker_factory("cython_plain") as stage:
        _, plain = judge.ask(stage, "masks", polygons, limit, "timing cython_plain")
    if plain < TYPED_SPEEDUP_FLOOR * yours:
        return (f"it is only {plain / yours:.1f}x faster than cython_plain on {side}x{side} problems "
                f"(typed loops are at least {TYPED_SPEEDUP_FLOOR:g}x faster): the per-pixel work still "
                "goes through Python objects.")
    return None
