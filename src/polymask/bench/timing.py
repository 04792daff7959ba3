"""Timing that survives a noisy, shared machine: medians of calibrated repeats."""
from __future__ import annotations

import statistics
import time
from typing import Callable


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


def median_seconds(function: Callable[[], object], repeats: int, min_seconds: float = 0.02) -> float:
    """Median seconds per call over `repeats` timings, each averaging enough
    calls to last `min_seconds` (a slow function is simply called once)."""
    calls, first = calibrate(function, min_seconds)
    if calls == 1 and first >= min_seconds and repeats == 1:
        return first  # a single slow call was already timed: don't pay it twice
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        timings.append((time.perf_counter() - start) / calls)
    return statistics.median(timings)
