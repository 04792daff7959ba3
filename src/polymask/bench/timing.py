"""Timing that survives a noisy, shared machine: every sample kept, contenders interleaved.

A contender's samples are taken in rounds, one sample of each contender per
round, the order reversed every other round (A B C, C B A, ...), so every
contender sees the same load over the run and the ratios between them share
conditions; benchmarks/compare_installs.py alternates two installs the same
way.  Each sample records its wall time and the process's CPU time: CPU time
far below wall time means the process waited for a core.
"""
from __future__ import annotations

import resource
import statistics
import time
from typing import Callable, Sequence

#: A clock of the process's CPU seconds (process_cpu_seconds; a test passes a fake).
CpuClock = Callable[[], float]


def process_cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended.

    A stage that holds the GIL runs a long call in a forked child (so Ctrl-C
    can stop it); its CPU time is the child's, counted once the child is waited for.
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def calibrate(function: Callable[[], object], min_seconds: float) -> tuple[int, float]:
    """(calls, seconds): how many calls make one timing last at least min_seconds."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            function()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds or calls >= 1 << 20:
            return calls, elapsed / calls
        # Aim straight for the target instead of doubling from 1 every time.
        calls = max(calls * 2, int(calls * min_seconds / max(elapsed, 1e-9) * 1.2))


class Contender:
    """One row's timings: `wanted` samples of `run`, each averaging `calls` calls.

    `scale` multiplies every sample (a slow stage timed on a band of rows,
    scaled to the full image).  `wall` and `cpu` hold the samples taken, in
    seconds per call.
    """

    def __init__(self, name: str, run: Callable[[], object], wanted: int, *, scale: float = 1.0,
                 min_seconds: float = 0.02, calibrated: bool = False) -> None:
        self.name = name
        self.run = run
        self.wanted = wanted
        self.scale = scale
        self.min_seconds = min_seconds
        self.calls = 1 if calibrated else 0  # 0: calibrate before the first sample
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def add(self, wall: float, cpu: float) -> None:
        """Record one sample already taken (seconds per call, before scaling)."""
        self.wall.append(wall * self.scale)
        self.cpu.append(cpu * self.scale)

    def sample(self, cpu_clock: CpuClock = process_cpu_seconds) -> None:
        """Take one sample: `calls` calls, timed on the wall clock and `cpu_clock`."""
        if self.calls == 0:
            self.calls, _ = calibrate(self.run, self.min_seconds)
        cpu_start, start = cpu_clock(), time.perf_counter()
        for _ in range(self.calls):
            self.run()
        wall, cpu = time.perf_counter() - start, cpu_clock() - cpu_start
        self.add(wall / self.calls, cpu / self.calls)


def interleaved(contenders: Sequence[Contender], cpu_clock: CpuClock = process_cpu_seconds,
                on_round: Callable[[int, int], None] | None = None) -> None:
    """Sample every contender until each has its `wanted` samples, in interleaved rounds.

    on_round(round, rounds) is called before each round (a progress bar).
    """
    rounds = max((contender.wanted - len(contender.wall) for contender in contenders), default=0)
    for round_number in range(rounds):
        if on_round is not None:
            on_round(round_number, rounds)
        order = contenders if round_number % 2 == 0 else list(reversed(contenders))
        for contender in order:
            if len(contender.wall) < contender.wanted:
                contender.sample(cpu_clock)


def quartiles(samples: Sequence[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile) of `samples` (one sample: itself three times)."""
    if len(samples) == 1:
        return samples[0], samples[0], samples[0]
    first, median, third = statistics.quantiles(samples, n=4, method="inclusive")
    return first, median, third


def median_seconds(function: Callable[[], object], repeats: int, min_seconds: float = 0.02) -> float:
    """Median seconds per call over `repeats` timings, each averaging enough
    calls to last `min_seconds`.  The calibration's calls come first, so the
    first (cold) call is never one of the timings."""
    contender = Contender("", function, repeats, min_seconds=min_seconds)
    interleaved([contender])
    return statistics.median(contender.wall)
