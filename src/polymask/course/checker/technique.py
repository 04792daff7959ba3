"""Technique checks that only the technique can meet, measured from outside the worker.

* **06, prange.**  The learner's own ``mask`` at ``threads=2`` must be
  measurably faster than at ``threads=1`` on the same kind of problem
  (fresh polygons, every answer checked), and the worker's threads seen in
  ``/proc`` must share the CPU work: the busiest thread at ``threads=2``
  may use at most MAX_BUSIEST_SHARE of the CPU time ``threads=1`` needed
  (CPU time, unlike wall time, does not depend on how busy the machine
  is).  A second thread that only burns CPU leaves one thread doing all
  the rows while the other uses CPU too: FAIL.  When the second thread got
  little CPU (the machine's other work took its core, so the first took
  its rows), or the worker did not get two cores' worth of CPU, the
  verdict is *inconclusive*, never PASS.
* **05, cdef class.**  A random number (120 to 240) of ``Polygon`` objects,
  each of a random size (most 10,000 to 30,000 vertices, some 3 to 10,000),
  are built, asked for a mask (answers checked) and dropped.  The core counts
  its live C++ polygons (``polygon_census``): each object must make one of its
  vertex count and leave none behind; and the worker's private memory, read
  from ``/proc`` before and after, must not grow by what they held.
* **03, types.**  Cython's annotation must be white on every line of the
  per-pixel function and of every loop (see :mod:`source`), and the
  learner's ``mask`` must beat the plain compiled stage by a floor, timed
  here on the same polygons.
"""
from __future__ import annotations

import math
import statistics

from polymask.course.checker import judge
from polymask.course.checker.runner import Worker

#: 06: how much faster two threads must be than one (an honest prange on two cores: ~1.8x).
THREAD_SPEEDUP_FLOOR = 1.3
#: 06: the most of the serial stage's CPU time per mask the busiest thread may use at threads=2
#: (rows shared by two threads: about 0.5).
MAX_BUSIEST_SHARE = 0.8
#: 06: the CPU the other threads may use (as a share of the serial stage's) while the busiest
#: does more than MAX_BUSIEST_SHARE, before it counts as burnt rather than starved.
MIN_BURNT_SHARE = 0.4
#: 06: the most CPU all threads together may use at threads=2, as a share of the serial cost (shared rows: ~1).
MAX_TOTAL_SHARE = 1.6
#: 03: how much faster than cython_plain typed loops must be (typed loops: far more).
TYPED_SPEEDUP_FLOOR = 3.0


class Inconclusive(Exception):
    """The machine was too busy to tell; re-run."""


def thread_failure(worker: Worker, stage_worker_factory, baseline: str, rng, limit: float,
                   side: int = 512) -> tuple[str | None, str]:
    """(why 06 fails or None, the note for the PASS line).  Inconclusive when it cannot tell.

    Each round asks the learner for the same fresh polygons at threads=1 and
    threads=2, and polymask's serial `baseline` stage for them too.  The
    baseline cannot be padded: a learner whose threads=1 path does extra work
    (a thrown-away twin) looks fast at threads=2 against itself, not against it.
    """
    from polymask.course.problems import STANDARD_VERTICES

    phase = "the thread check"

    def run(target, batch, options):
        """(wall seconds per mask, {thread: CPU seconds per mask}), or None when an answer is wrong."""
        before = target.thread_cpu()
        answers, seconds = judge.ask(target, "masks", batch, limit, phase, options=options)
        after = target.thread_cpu()
        if not all(judge.is_right(answer, vertices, shape) for answer, (vertices, shape) in zip(answers, batch)):
            return None
        return seconds / len(batch), {tid: (after[tid] - before.get(tid, 0.0)) / len(batch) for tid in after}

    def polygons(count):
        return [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(count)]

    wrong = f"is wrong on a {side}x{side} problem at threads=1 or 2 (the thread check)."
    stalled = 0.0  # seconds some runnable task waited for a CPU on this machine, during the threads=2 runs
    first = run(worker, polygons(1), {"threads": 1})
    if first is None:
        return wrong, ""
    # Enough masks per request for /proc's CPU clock (10 ms ticks) to resolve each thread's share.
    count = max(1, min(32, math.ceil(0.25 / max(first[0], 1e-6))))
    walls: dict[str, list] = {"one": [], "two": [], "base": []}
    busiest, others, base_cpu, one_cpu, shared_rounds, two_wall = [], [], [], [], 0, 0.0
    with stage_worker_factory(baseline) as stage:
        for _ in range(4):
            batch = polygons(count)
            serial = run(worker, batch, {"threads": 1})
            pressure = cpu_pressure()
            parallel = run(worker, batch, {"threads": 2})
            stalled += cpu_pressure() - pressure
            base = run(stage, batch, {})
            if serial is None or parallel is None:
                return wrong, ""
            walls["one"].append(serial[0])
            walls["two"].append(parallel[0])
            walls["base"].append(base[0])
            shares = sorted(parallel[1].values(), reverse=True)
            busiest.append(shares[0])
            others.append(sum(shares[1:]))
            if len(shares) > 1 and shares[1] >= 0.15 * sum(shares):
                shared_rounds += 1  # a second thread did a real share of this round's work
            two_wall += parallel[0]
            base_cpu.append(sum(base[1].values()))
            one_cpu.append(sum(serial[1].values()))
    median = statistics.median
    # The serial cost: the learner's own threads=1 CPU, or the baseline's when that is less (a threads=1
    # path padded with extra work is not the cost of the mask); CPU time, so sleeping pads nothing.
    serial_cpu = max(min(median(one_cpu), median(base_cpu)), 1e-9)
    # Per mask, so the count of masks per request cancels; NaN pressure (no PSI) reads as busy.
    busy = not stalled < 0.25 * two_wall * count
    return thread_verdict(
        speedup=min(median(walls["one"]), median(one_cpu), median(walls["base"])) / median(walls["two"]),
        busiest_share=median(busiest) / serial_cpu, others_share=median(others) / serial_cpu,
        shared_rounds=shared_rounds, of_a_core=sum(busiest) / max(two_wall, 1e-9), baseline=baseline, busy=busy)


def cpu_pressure() -> float:
    """Seconds, since boot, that some runnable task on this machine waited for a CPU (Linux PSI), or NaN."""
    try:
        with open("/proc/pressure/cpu") as pressure:
            return int(pressure.readline().rsplit("total=", 1)[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return float("nan")


def thread_verdict(speedup: float, busiest_share: float, others_share: float, shared_rounds: int,
                   of_a_core: float, baseline: str, busy: bool = False) -> tuple[str | None, str]:
    """The 06 verdict from what the checker measured at threads=2 (shares of `baseline`'s CPU per mask).

    Rows shared by two threads: the busiest uses about half the serial CPU and the
    others about as much.  A busiest thread above MAX_BUSIEST_SHARE means the rows
    were not shared: FAIL if the other threads still used MIN_BURNT_SHARE or more
    (CPU burnt beside the work), inconclusive if they got little CPU (a busy machine
    starved the second thread, so the first took its rows).
    """
    if busiest_share + others_share > MAX_TOTAL_SHARE:
        return (f"with threads=2 its threads used {busiest_share + others_share:.0%} of the CPU time one thread "
                "needs for the mask: CPU burnt beside the work. Shared rows cost about the same CPU in all as one "
                "thread doing them all."), ""
    if shared_rounds < 3 and busy:
        raise Inconclusive("with threads=2 one thread did almost all the work while the machine had runnable tasks "
                           "waiting for a CPU (Linux's CPU pressure): the second thread may not have had a core")
    if shared_rounds < 3:
        return (f"it ran on 1 thread: with threads=2, one thread did the CPU work ({speedup:.2f}x the speed of "
                "threads=1). Split the rows over threads with cython.parallel.prange(..., nogil=True), and let "
                "num_threads follow the `threads` argument."), ""
    if busiest_share > MAX_BUSIEST_SHARE and others_share >= MIN_BURNT_SHARE:
        return (f"with threads=2 its busiest thread used {busiest_share:.0%} of the CPU time {baseline} needs for "
                f"the whole mask on one thread, and the other threads {others_share:.0%} more; with the rows "
                "shared by two threads each would use about half. A second thread that burns CPU without taking "
                "a share of the rows does not count."), ""
    if busiest_share > MAX_BUSIEST_SHARE:
        raise Inconclusive(f"with threads=2 the busiest thread did most of the rows ({busiest_share:.0%} of the CPU "
                           f"time {baseline} needs) while the others got {others_share:.0%}: the second thread had "
                           "too little of a core, the machine is too busy to tell")
    if speedup >= THREAD_SPEEDUP_FLOOR:
        return None, f", {speedup:.1f}x faster on 2 threads than on 1"
    raise Inconclusive(f"the rows were shared, but threads=2 was only {speedup:.2f}x the speed of threads=1 "
                       f"(and of {baseline}), with the busiest thread getting {of_a_core:.0%} of a core: "
                       "the machine is too busy to tell")


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
    """The reply's census, one [made polygons, made vertices, alive polygons, alive vertices] or None per item."""
    census = reply.get("census")
    if not isinstance(census, list) or len(census) != count or not all(
            entry is None or (isinstance(entry, list) and len(entry) == 4
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
    its vertex count made, and none left: a class that frees only at some sizes,
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
                return f"Polygon(vertices).mask(shape) failed in the memory check: {answer['message']}"
            if not judge.is_right(answer, vertices, shape):
                return "Polygon(vertices).mask(shape) gave a wrong mask in the memory check."
        for (vertices, _), entry in zip(made, _census_entries(reply, len(made), phase)):
            n = len(vertices)
            if entry[:2] != [1, n]:
                made_wrong.append((n, entry[0], entry[1]))
            (leaked if entry[2:] != [0, 0] else freed).append(n)
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
                f"dropped, {len(leaked)} left their C++ polygon alive (of {_sizes(leaked)} vertices)"
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


#: 08: the most the cost may grow from 24 to 2,400 vertices (per-pixel code: about 100x).
MAX_SCALING = 25.0


def _star(rng, n_vertices: int, side: int):
    """A star-shaped polygon of `n_vertices` around the image's centre: few crossings per row at any n."""
    import numpy as np

    angles = np.sort(rng.uniform(0.0, 2 * np.pi, size=n_vertices))
    radii = rng.uniform(0.35, 0.45, size=n_vertices) * side
    return np.column_stack([side / 2 + radii * np.cos(angles), side / 2 + radii * np.sin(angles)])


def scaling_failure(worker: Worker, rng, limit: float, side: int = 256) -> str | None:
    """08: the learner's mask of 2,400 vertices may cost at most MAX_SCALING times its mask of 24.

    Per-pixel code tests every edge at every pixel, so 100 times the vertices cost
    about 100 times the time; the scanline fill's per-pixel work does not grow with
    the vertex count.  Each size is timed twice on fresh polygons (the minimum counts).
    """
    phase = "the scaling check"
    seconds: dict[int, float] = {}
    for count in (24, 2400, 24, 2400):
        polygons = [(_star(rng, count, side), (side, side)) for _ in range(2)]
        answers, elapsed = judge.ask(worker, "masks", polygons, limit, phase)
        if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
            return f"is wrong on a {side}x{side} problem of {count:,} vertices (the scaling check)."
        seconds[count] = min(seconds.get(count, float("inf")), elapsed / len(polygons))
    growth = seconds[2400] / max(seconds[24], 1e-9)
    if growth <= MAX_SCALING:
        return None
    return (f"its cost grows like per-pixel code: a {side}x{side} mask of 2,400 vertices took {growth:.0f}x the "
            f"time of one of 24 (the scanline fill: far less than the 100x of testing every edge at every "
            "pixel). Work a row at a time: find where the edges cross the row, sort, fill the spans.")


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
        return f"the kernel failed when only some work-items ran: {answer['message']}"
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
