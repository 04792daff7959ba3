"""The threaded per-pixel rungs on a busy machine: 2 threads against 1, with one core taken.

On a shared machine another process often holds a core.  A thread that
shares its core runs at about half speed, so under a static schedule its
fixed band of rows finishes last and the whole mask waits for it; under a
dynamic schedule it takes fewer chunks and the team ends together.  This
benchmark starts one spinning process (the busy core), then times, call
by call in rotating order so every contender sees the same load:

* ``cython_prange`` (dynamic schedule, one thread per core) at 1 and 2 threads,
* the same at 2 threads with ``place=False`` (the operating system places the threads),
* its static-schedule twin (``cython_prange.mask_static``) at 2 threads,
* ``numba`` at 1 and 2 threads,
* the single-thread rungs before them, ``cython_typed`` and ``cython_class``,

and prints the medians and the ratios the lessons quote.  The target: with
one core busy, ``cython_prange`` at 2 threads takes at most 0.85x its
1-thread time.

    python -m benchmarks.prange_busy                 # 41 rounds, 1024x1024, one core busy
    python -m benchmarks.prange_busy --idle          # the same without the spinning process
    python -m benchmarks.prange_busy --quick         # 256x256, 3 rounds: a smoke run
    python -m benchmarks.prange_busy --json F.json   # also keep every sample, the machine and its load

docs/performance.md's table of these runs is written from such files by
``python -m benchmarks.publish``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import statistics
import sys
import time

import numpy as np

import polymask
from benchmarks.threads_default import busy_cpus
from polymask.bench.machine import machine_info, usable_cores
from polymask.bench.state import finish_state, start_state
from polymask.course import stages
from polymask.course.problems import standard_problem


def contenders() -> dict:
    """Name -> call(vertices, shape), for every contender that can run here."""
    prange = stages.get("cython_prange").load()
    static = __import__("polymask.course.stages.cython_prange", fromlist=["mask_static"]).mask_static
    found = {
        "cython_typed": stages.get("cython_typed").load(),
        "cython_class": stages.get("cython_class").load(),
        "cython_prange, 1 thread": lambda vertices, shape: prange(vertices, shape, threads=1),
        "cython_prange, 2 threads": lambda vertices, shape: prange(vertices, shape, threads=2),
        "cython_prange unplaced, 2 threads": lambda vertices, shape: prange(vertices, shape, threads=2, place=False),
        "cython_prange static, 2 threads": lambda vertices, shape: static(vertices, shape, threads=2),
    }
    if stages.availability("numba").available:
        numba_mask = stages.get("numba").load()
        found["numba, 1 thread"] = lambda vertices, shape: numba_mask(vertices, shape, threads=1)
        found["numba, 2 threads"] = lambda vertices, shape: numba_mask(vertices, shape, threads=2)
    return found


#: The ratios the lessons quote: (label, numerator, denominator).
RATIOS = (("cython_prange 2 threads / 1 thread", "cython_prange, 2 threads", "cython_prange, 1 thread"),
          ("cython_prange unplaced 2 threads / 1 thread", "cython_prange unplaced, 2 threads",
           "cython_prange, 1 thread"),
          ("cython_prange static 2 threads / dynamic 1 thread", "cython_prange static, 2 threads",
           "cython_prange, 1 thread"),
          ("numba 2 threads / 1 thread", "numba, 2 threads", "numba, 1 thread"),
          ("cython_prange 2 threads / cython_class", "cython_prange, 2 threads", "cython_class"))


def ratios(medians: dict[str, float]) -> dict[str, float]:
    """Each quoted ratio of medians whose two contenders ran."""
    return {label: medians[top] / medians[bottom] for label, top, bottom in RATIOS
            if top in medians and bottom in medians}


def measure(size: int, rounds: int) -> dict[str, list[float]]:
    """Every sample (seconds) of each contender over `rounds` rounds, the order rotating each round."""
    vertices, shape = standard_problem(size)
    expected = polymask.mask(vertices, shape)
    calls = contenders()
    for name, call in calls.items():  # warm (JIT, thread pools) and check: every result is the contract's
        assert np.array_equal(call(vertices, shape), expected), f"{name}: not the contract's mask"
    names = list(calls)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            calls[name](vertices, shape)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def report(medians: dict[str, float]) -> str:
    lines = ["| contender | median (ms) |", "|---|---:|"]
    lines += [f"| {name} | {value * 1e3:.2f} |" for name, value in medians.items()]
    lines.append("")
    lines += [f"{label}: {value:.2f}" for label, value in ratios(medians).items()]
    return "\n".join(lines)


def main(argv=None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41, help="rotating rounds (default 41)")
    parser.add_argument("--size", type=int, default=1024, help="image side (default 1024, the course's)")
    parser.add_argument("--idle", action="store_true", help="no spinning process: the machine as it is")
    parser.add_argument("--quick", action="store_true", help="256x256 and 3 rounds: a smoke run")
    parser.add_argument("--json", metavar="FILE", help="also write every sample, the machine and its load")
    args = parser.parse_args(argv)
    rounds, size = (3, 256) if args.quick else (args.rounds, args.size)
    if rounds < 1:
        parser.error(f"--rounds must be at least 1, got {rounds}")
    setting = "the machine as it is" if args.idle else "one spinning process"
    print(f"polymask {polymask.__version__}, {len(os.sched_getaffinity(0))} CPUs, {size}x{size}, "
          f"24 vertices, {rounds} rounds, {setting}")
    state = start_state(usable_cores())
    with contextlib.nullcontext() if args.idle else busy_cpus(1):
        samples = measure(size, rounds)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(report(medians))
    if args.json:
        # The load recorded includes this run's own spinning process (about 1).
        command = shlex.join(["python", "-m", "benchmarks.prange_busy", *(sys.argv[1:] if argv is None else argv)])
        record = {"command": command, "size": size, "vertices": 24, "rounds": rounds, "setting": setting,
                  "state": finish_state(state, cpu_share=None), "machine": machine_info(),
                  "samples": samples, "medians": medians, "ratios": ratios(medians)}
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=2)
    return medians


if __name__ == "__main__":
    main()
