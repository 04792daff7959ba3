"""Technique checks that only the technique can meet, measured from outside the worker.

* **06, prange.**  The learner's own ``mask`` at ``threads=2`` must share
  the CPU work between threads, read from ``/proc`` for every thread of
  every process in the worker's tree (forked children included; CPU used
  by a child process fails, since prange forks none): the busiest thread
  may use at most MAX_BUSIEST_SHARE of the serial CPU time, all threads
  together about what ``threads=1`` used, and the threads must
  want a CPU at the same time (run plus runqueue time), not take turns.
  CPU time, unlike wall time, does not depend on how busy the machine is.
  A second thread that only burns CPU: FAIL.  A second thread that got
  little CPU on a busy machine: *inconclusive*, never PASS.
* **05, cdef class.**  A random number (120 to 240) of ``Polygon`` objects,
  each of a random size (most 10,000 to 30,000 vertices, some 3 to 10,000),
  are built, asked for a mask (answers checked) and dropped.  The core counts
  its live C++ polygons (``polygon_census``): each object must make one of its
  vertex count and leave none behind; and the worker's private memory, read
  from ``/proc`` before and after, must not grow by what they held.
* **03, types.**  Cython's annotation must be white on every line of the
  per-pixel function and of every loop (see :mod:`source`), every pixel must
  come from a call of ``point_inside`` (see :mod:`probe`), and the learner's
  ``mask`` must beat the plain compiled stage by a floor, in CPU time on the
  same polygons.
* **08, scanline.**  See :mod:`scaling`.
"""
from __future__ import annotations

import math
import statistics

from polymask.course.checker import judge
from polymask.course.checker.report import quoted
from polymask.course.checker.runner import Worker

#: 06: the fewest threads that must want a CPU at once, on average, at threads=2 (side by side: ~2;
#: taking turns on a lock: ~1).  Read from run and runqueue times, so a busy machine does not lower it.
MIN_DEMAND = 1.3
#: 06: the least CPU time all threads at threads=2 may use, as a share of threads=1's (the same work: ~1).
MIN_TOTAL_RATIO = 0.6
#: 06: the most of the serial stage's CPU time per mask the busiest thread may use at threads=2
#: (rows shared by two threads: about 0.5).
MAX_BUSIEST_SHARE = 0.8
#: 06: the CPU the other threads may use (as a share of the serial stage's) while the busiest
#: does more than MAX_BUSIEST_SHARE, before it counts as burnt rather than starved.
MIN_BURNT_SHARE = 0.4
#: 06: the most CPU all threads together may use at threads=2, as a share of the serial cost (shared rows: ~1).
MAX_TOTAL_SHARE = 1.6
#: 06: the most of the threads=2 CPU time other processes below the worker may use (prange forks none: ~0).
MAX_OUTSIDE_SHARE = 0.1
#: 03: how much faster than cython_plain typed loops must be (typed loops: far more).
TYPED_SPEEDUP_FLOOR = 3.0


def cpu_seconds(worker: Worker, polygons: list, limit: float, phase: str) -> tuple[list, float]:
    """(answers, CPU seconds the worker's whole process tree used for them), read from /proc around the request.

    CPU time, unlike the request's time, is not stretched by a busy machine nor by sleeping.
    """
    before = sum(worker.thread_cpu().values())
    answers, seconds = judge.ask(worker, "masks", polygons, limit, phase)
    used = sum(worker.thread_cpu().values()) - before
    # Below the clock's resolution (no schedstat: 10 ms ticks) the request's own time is the better bound.
    return answers, used if used > 0 else seconds


class Inconclusive(Exception):
    """The machine was too busy to tell; re-run."""


def thread_failure(worker: Worker, stage_worker_factory, baseline: str, rng, limit: float,
                   side: int = 512) -> tuple[str | None, str]:
    """(why 06 fails or None, the note for the PASS line).  Inconclusive when it cannot tell.

    Each round asks the learner for the same fresh polygons at threads=1 and
    threads=2, and polymask's serial `baseline` stage for them too, and reads the
    CPU time of every thread of every process in each worker's tree (so rows done
    in a forked child count).  The verdict comes from CPU time, which a busy
    machine does not change: how the threads=2 work is shared between threads,
    how it compares with threads=1's, and whether the threads wanted a CPU at the
    same time (run plus runqueue time over the request's time), not how long the
    request took.  How many masks a request holds is sized from the baseline's
    CPU time, measured here, never from the learner's own calls.
    """
    from polymask.course.problems import STANDARD_VERTICES

    phase = "the thread check"

    def run(target, batch, options):
        """(seconds per mask, {thread: (CPU, waiting) seconds per mask}), or None when an answer is wrong."""
        before = target.cpu_times()
        answers, seconds = judge.ask(target, "masks", batch, limit, phase, options=options)
        after = target.cpu_times()
        if not all(judge.is_right(answer, vertices, shape) for answer, (vertices, shape) in zip(answers, batch)):
            return None
        n = len(batch)
        return seconds / n, {key: ((cpu - before.get(key, (0.0, 0.0))[0]) / n,
                                   (wait - before.get(key, (0.0, 0.0))[1]) / n) for key, (cpu, wait) in after.items()}

    def polygons(count):
        return [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(count)]

    wrong = f"is wrong on a {side}x{side} problem at threads=1 or 2 (the thread check)."
    stalled = 0.0  # seconds some runnable task waited for a CPU on this machine, during the threads=2 runs
    busiest, others, base_cpu, one_cpu, two_cpu, demand, shared_rounds, two_wall = [], [], [], [], [], [], 0, 0.0
    outside: list[float] = []  # CPU per mask of processes other than the worker (forked children, reaped or not)
    with stage_worker_factory(baseline) as stage:
        probe = run(stage, polygons(2), {})
        per_mask = max(sum(cpu for cpu, _ in probe[1].values()), 1e-4) if probe else 1e-2
        # Enough masks per request for every thread's CPU clock to resolve its share (a few 10 ms ticks).
        count = max(2, min(32, math.ceil(0.3 / per_mask)))
        for _ in range(4):
            batch = polygons(count)
            serial = run(worker, batch, {"threads": 1})
            pressure = cpu_pressure()
            parallel = run(worker, batch, {"threads": 2})
            stalled += cpu_pressure() - pressure
            base = run(stage, batch, {})
            if serial is None or parallel is None or base is None:
                return wrong, ""
            shares = sorted((cpu for cpu, _ in parallel[1].values()), reverse=True)
            busiest.append(shares[0])
            others.append(sum(shares[1:]))
            if len(shares) > 1 and shares[1] >= 0.15 * sum(shares):
                shared_rounds += 1  # a second thread did a real share of this round's work
            two_wall += parallel[0]
            two_cpu.append(sum(shares))
            outside.append(sum(cpu for (pid, thread), (cpu, _) in parallel[1].items()
                               if pid != worker.pid or thread == "reaped"))
            base_cpu.append(sum(cpu for cpu, _ in base[1].values()))
            one_cpu.append(sum(cpu for cpu, _ in serial[1].values()))
            # Threads that wanted a CPU at once: each one's run and runqueue time, over the request's time.
            demand.append(sum(cpu + wait for cpu, wait in parallel[1].values()) / max(parallel[0], 1e-9))
    median = statistics.median
    # The serial cost: the learner's own threads=1 CPU, or the baseline's when that is less (a threads=1
    # path padded with extra work is not the cost of the mask); CPU time, so sleeping pads nothing.
    serial_cpu = max(min(median(one_cpu), median(base_cpu)), 1e-9)
    # Per mask, so the count of masks per request cancels; NaN pressure (no PSI) reads as busy.
    busy = not stalled < 0.25 * two_wall * count
    return thread_verdict(
        busiest_share=median(busiest) / serial_cpu, others_share=median(others) / serial_cpu,
        shared_rounds=shared_rounds, total_ratio=median(two_cpu) / max(median(one_cpu), 1e-9),
        demand=median(demand), baseline=baseline, busy=busy,
        outside_share=median(outside) / max(median(two_cpu), 1e-9))


def cpu_pressure() -> float:
    """Seconds, since boot, that some runnable task on this machine waited for a CPU (Linux PSI), or NaN."""
    try:
        with open("/proc/pressure/cpu") as pressure:
            return int(pressure.readline().rsplit("total=", 1)[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return float("nan")


def thread_verdict(busiest_share: float, others_share: float, shared_rounds: int, total_ratio: float,
                   demand: float, baseline: str, busy: bool = False,
                   outside_share: float = 0.0) -> tuple[str | None, str]:
    """The 06 verdict from CPU times measured at threads=2 (shares of `baseline`'s CPU per mask).

    Rows shared by two threads: the busiest uses about half the serial CPU, the
    others about as much, all together about what threads=1 used, and both
    threads want a CPU at once (`demand`, threads wanting a CPU on average: about
    2; NaN where the kernel does not say).  A busiest thread above
    MAX_BUSIEST_SHARE means the rows were not shared: FAIL if the other threads
    still used MIN_BURNT_SHARE or more (CPU burnt beside the work), inconclusive if
    they got little CPU on a busy machine (the second thread was starved, so the
    first took its rows).  Work done in other processes (`outside_share` of the
    threads=2 CPU time: forked children, alive or reaped) is not threads sharing rows.
    """
    total = busiest_share + others_share
    if outside_share > MAX_OUTSIDE_SHARE:
        return (f"with threads=2, {outside_share:.0%} of its CPU time was used by child processes it started, "
                "not by its own threads: rows computed in a forked process are not rows shared by threads. "
                "Split the rows over the threads of this process with cython.parallel.prange(..., nogil=True)."), ""
    if total > MAX_TOTAL_SHARE:
        return (f"with threads=2 its threads used {total:.0%} of the CPU time one thread needs for the mask: CPU "
                "burnt beside the work. Shared rows cost about the same CPU in all as one thread doing them all."), ""
    if total_ratio < MIN_TOTAL_RATIO:
        return (f"with threads=2 all its threads together used {total_ratio:.0%} of the CPU time its threads=1 "
                "call used for the same masks: threads=2 does not do the work threads=1 does. Split the same "
                "per-pixel loop over threads; the thread count changes who does the rows, not what is done."), ""
    if shared_rounds < 3 and busy:
        raise Inconclusive("with threads=2 one thread did almost all the work while the machine had runnable tasks "
                           "waiting for a CPU (Linux's CPU pressure): the second thread may not have had a core")
    if shared_rounds < 3:
        return ("it ran on 1 thread: with threads=2, one thread did the CPU work. Split the rows over threads "
                "with cython.parallel.prange(..., nogil=True), and let num_threads follow the `threads` "
                "argument."), ""
    if busiest_share > MAX_BUSIEST_SHARE and others_share >= MIN_BURNT_SHARE:
        return (f"with threads=2 its busiest thread used {busiest_share:.0%} of the CPU time {baseline} needs for "
                f"the whole mask on one thread, and the other threads {others_share:.0%} more; with the rows "
                "shared by two threads each would use about half. A second thread that burns CPU without taking "
                "a share of the rows does not count."), ""
    if busiest_share > MAX_BUSIEST_SHARE:
        raise Inconclusive(f"with threads=2 the busiest thread did most of the rows ({busiest_share:.0%} of the CPU "
                           f"time {baseline} needs) while the others got {others_share:.0%}: the second thread had "
                           "too little of a core, the machine is too busy to tell")
    if demand < MIN_DEMAND:
        return (f"with threads=2 its threads shared the rows but took turns: on average {demand:.1f} of them "
                "wanted a CPU at once (running or waiting for a core), where threads that work side by side "
                "make about 2. Hold no lock, and not the GIL, inside the parallel loop (prange(..., nogil=True))."
                ), ""
    return None, (f", the rows shared by threads (the busiest used {busiest_share:.0%} of the CPU time one "
                  "thread needs)")


def core_library() -> str:
    """The path of the core library a learner's module links (the one whose census the worker reads)."""
    from pathlib import Path

    from polymask._install_dirs import get_library_dirs

    for folder in get_library_dirs():
        found = sorted(Path(folder).glob("libpolymask_core.so*"))
        if found:
            return str(found[0])
    raise FileNotFoundError(f"no libpolymask_core.so in {get_library_dirs()}: reinstall polymask")


def _census_entries(reply: dict, count: int, phase: str) -> list:
    """The reply's census per item: None, or [made polygons, vertices, bytes, alive polygons, vertices, bytes]."""
    census = reply.get("census")
    if not isinstance(census, list) or len(census) != count or not all(
            entry is None or (isinstance(entry, list) and len(entry) == 6
                              and all(type(value) is int for value in entry)) for entry in census):
        raise judge.ProtocolError("protocol: a memory check reply without a census of each Polygon", phase)
    return census


def _sizes(values) -> str:
    shown = ", ".join(f"{int(v):,}" for v in values[:4])
    return shown + (", ..." if len(values) > 4 else "")


def memory_failure(worker: Worker, rng, limit: float, most_vertices: int = 30_000) -> str | None:
    """05: build, ask and drop Polygon objects of random sizes a random number of times.

    Two readings, both taken around the learner's code.  Per object, the core's
    census (polygon_census(), read in the worker just before the Polygon is
    built, after, and after it is dropped) must show one C++ polygon of exactly
    its vertex count made, and no polygon, vertex or heap byte of it left: a class that frees only at some sizes,
    or leaks one object in N, fails by name.  In all, the worker's private memory
    read from ``/proc`` may grow by at most half of what the objects held, so a
    census forged inside the worker still meets the process's real memory.

    Most objects get 10,000 to `most_vertices` vertices (a prefix of one random
    polygon), enough for memory to tell; a quarter get 3 to 10,000 (log-uniform).
    """
    import numpy as np

    from polymask.course.problems import random_polygon

    phase = "the memory check"
    base = random_polygon(most_vertices, 64, seed=int(rng.integers(2**31)))
    constructions = int(rng.integers(120, 241))
    held = 0
    made_wrong: list = []  # (vertices asked, polygons made, vertices made)
    # Vertex counts of the objects whose C++ polygon outlived them, and of those whose did not.
    leaked: list[int] = []
    freed: list[int] = []

    def batch(count):
        nonlocal held
        sizes = rng.integers(10_000, most_vertices + 1, size=count)
        small = rng.random(count) < 0.25
        sizes[small] = np.exp(rng.uniform(np.log(3), np.log(10_000), size=int(small.sum()))).astype(int)
        made = [(base[:size] + rng.uniform(-24, 24, size=2), (8, 8)) for size in sizes]
        reply: dict = {}
        answers, _ = judge.ask(worker, "polygon_masks", made, limit, phase, reply_out=reply)
        for answer, (vertices, shape) in zip(answers, made):
            if isinstance(answer, dict):
                return "Polygon(vertices).mask(shape) failed in the memory check:\n" + quoted(answer["message"])
            if not judge.is_right(answer, vertices, shape):
                return "Polygon(vertices).mask(shape) gave a wrong mask in the memory check."
        for (vertices, _), entry in zip(made, _census_entries(reply, len(made), phase)):
            n = len(vertices)
            if entry is None:
                return "Polygon(vertices).mask(shape) failed in the memory check, with no error from the object."
            if entry[:2] != [1, n] or entry[2] <= 0:
                made_wrong.append((n, entry[0], entry[1]))
            # Bytes too: a polygon whose block was detached before delete counts as gone but still holds it.
            (leaked if entry[3:] != [0, 0, 0] else freed).append(n)
        held += sum(vertices.nbytes for vertices, _ in made)
        return None

    problem = batch(4)  # warm up: allocator pools, first-use buffers
    held = 0
    before = worker.anonymous_memory()
    done = 0
    while problem is None and done < constructions:
        step = min(20, constructions - done)
        problem = batch(step)
        done += step
    if problem:
        return problem
    if made_wrong:
        n, polygons, vertices = made_wrong[0]
        return (f"Polygon(vertices) of {n:,} vertices made {polygons} C++ polygon(s) holding {vertices:,} vertices "
                f"in all ({len(made_wrong)} of the {done + 4} objects built were so). __cinit__ must make exactly "
                "one C++ polygon of all the vertices and keep it (self.polygon = new CorePolygon(...)).")
    if leaked:
        return (f"Polygon leaks its C++ polygon: of the {done + 4} Polygon objects built, asked for a mask and "
                f"dropped, {len(leaked)} left their C++ polygon alive or its heap block unfreed "
                f"(objects of {_sizes(leaked)} vertices)"
                + (f", while {len(freed)} freed theirs (of {_sizes(freed)} vertices)" if freed else "")
                + ". __dealloc__ must delete what __cinit__ made (del self.polygon), whatever the size.")
    grew = worker.anonymous_memory() - before
    if grew > 0.5 * held:
        return (f"Polygon leaks its C++ polygon: building, asking for a mask and dropping {constructions} "
                f"Polygon objects of 3 to {most_vertices:,} vertices grew the process by "
                f"{grew / 2**20:.0f} MiB. __dealloc__ must delete what __cinit__ made (del self.polygon).")
    return None


def typed_speed_failure(worker: Worker, stage_worker_factory, rng, limit: float, side: int = 128) -> str | None:
    """03: the learner's mask must be TYPED_SPEEDUP_FLOOR times faster than cython_plain."""
    from polymask.course.problems import STANDARD_VERTICES

    polygons = [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(3)]
    answers, yours = cpu_seconds(worker, polygons, limit, "the speed check")
    if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
        return f"is wrong on a {side}x{side} problem (the speed check)."
    with stage_worker_factory("cython_plain") as stage:
        _, plain = cpu_seconds(stage, polygons, limit, "timing cython_plain")
    yours = max(yours, 1e-6)
    if plain < TYPED_SPEEDUP_FLOOR * yours:
        return (f"it used only {plain / yours:.1f}x less CPU time than cython_plain on {side}x{side} problems "
                f"(typed loops are at least {TYPED_SPEEDUP_FLOOR:g}x faster): the per-pixel work still "
                "goes through Python objects.")
    return None


def work_item_failure(worker: Worker, rng, limit: float, side: int = 64) -> str | None:
    """07: run only a random window of work-items (an NDRange with a global offset); exactly the window's
    pixels must be written, and right -- each work-item computes its own pixel, not the image."""
    import numpy as np

    from polymask.course.problems import STANDARD_VERTICES

    vertices = rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2))
    row, col = (int(v) for v in rng.integers(1, side // 2, size=2))
    rows, cols = (int(v) for v in rng.integers(4, side // 2, size=2))
    answers, _ = judge.ask(worker, "masks", [(vertices, (side, side))], limit, "the work-item check",
                           options={"window": [row, col, rows, cols]})
    answer = answers[0]
    if isinstance(answer, dict):
        return "the kernel failed when only some work-items ran:\n" + quoted(answer["message"])
    got = answer.reshape(side, side)
    inside = np.zeros((side, side), dtype=bool)
    inside[row:row + rows, col:col + cols] = True
    expected = judge.reference(vertices, (side, side)).reshape(side, side)
    stray = int(np.count_nonzero(got[~inside] != 2))
    unwritten = int(np.count_nonzero(got[inside] == 2))
    if stray or unwritten or not np.array_equal(got[inside], expected[inside]):
        return (f"it is not one work-item per pixel: with only the {rows}x{cols} work-items at row {row}, column "
                f"{col} running, {stray} pixels outside them were written and {unwritten} of theirs were not. Each "
                "work-item must compute and write its own pixel, found from get_global_id(0) and (1).")
    return None
