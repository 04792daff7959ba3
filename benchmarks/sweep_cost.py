"""What the exact sweeps cost: ``coverage`` and ``all_touched`` on hard polygons, beside ``mask``.

``coverage`` (and ``mask(all_touched=True)`` once edges overlap) sweeps the
polygon's edges exactly, piece by piece between the ordinates where the
edges' order changes.  Its cost model is O((n + k) log n + c) for n edges,
k points where two edges cross, and c cells the boundary passes.  Two
families show both terms:

* ``crossings-<n>-<rows>``: n random vertices in a band of 1 or 100 rows,
  4096 columns wide.  About 0.12 n² of the edges' pairs cross, so k, and
  the time, grow as n²; ``mask`` only counts crossings of pixel centres.
* ``outline-<n>-<side>``: a smooth outline (a circle bent by low harmonics)
  of n vertices over a side x side image, radius 0.45 side: a detailed
  coastline over a coarse grid, thousands of vertices per cell when n is
  large.  No edges cross, so the sweep is near linear in n, like ``mask``.

Each case times ``coverage``, ``mask(all_touched=True)`` and ``mask``
alternately at default threads, and prints the medians and the ratio
coverage / mask.

    python -m benchmarks.sweep_cost                  # every case, 3 rounds
    python -m benchmarks.sweep_cost --cases outline-1000000-100 crossings-30000-1
    python -m benchmarks.sweep_cost --quick          # small cases, 1 round: a smoke run
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import polymask

CROSSING_EDGES = (1_000, 3_000, 10_000, 30_000)
OUTLINE_VERTICES = (10_000, 100_000, 1_000_000, 10_000_000)
CASES = tuple(f"crossings-{n}-{rows}" for n in CROSSING_EDGES for rows in (1, 100)) + tuple(
    f"outline-{n}-{side}" for n in OUTLINE_VERTICES for side in (100, 4096))
QUICK_CASES = ("crossings-1000-1", "crossings-1000-100", "outline-10000-100", "outline-10000-4096")
WIDTH = 4096


def crossing_polygon(edges: int, rows: int, seed: int = 7) -> np.ndarray:
    """`edges` random vertices inside `rows` rows of pixel centres: about 0.12 * edges**2 crossings."""
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(0, WIDTH, edges), rng.uniform(-0.45, rows - 0.55, edges)])


def smooth_outline(vertices: int, side: int, seed: int = 2014) -> np.ndarray:
    """A closed outline of `vertices` vertices, radius 0.45 side bent by harmonics 2..9."""
    rng = np.random.default_rng(seed)
    angles = np.linspace(0, 2 * np.pi, vertices, endpoint=False)
    harmonics = np.arange(2, 10)
    bends = (rng.uniform(0, 0.04, harmonics.size)[:, None]
             * np.cos(harmonics[:, None] * angles + rng.uniform(0, 2 * np.pi, harmonics.size)[:, None]))
    radius = 0.45 * side * (1 + bends.sum(axis=0))
    return np.column_stack([side / 2 + radius * np.cos(angles), side / 2 + radius * np.sin(angles)])


def case_problem(name: str) -> tuple[np.ndarray, tuple[int, int]]:
    """(vertices, shape) of the case `name`."""
    family, count, size = name.split("-")
    if family == "crossings":
        return crossing_polygon(int(count), int(size)), (int(size), WIDTH)
    if family == "outline":
        return smooth_outline(int(count), int(size)), (int(size), int(size))
    raise ValueError(f"unknown case {name!r}; expected one of {', '.join(CASES)}")


def calls(vertices: np.ndarray, shape: tuple[int, int]) -> dict[str, Callable[[], object]]:
    """The three calls timed per case, at default threads."""
    return {
        "coverage": lambda: polymask.coverage(vertices, shape),
        "all_touched": lambda: polymask.mask(vertices, shape, all_touched=True),
        "mask": lambda: polymask.mask(vertices, shape),
    }


def measure(name: str, rounds: int) -> dict[str, float]:
    """Median seconds of each call over `rounds` alternating rounds."""
    vertices, shape = case_problem(name)
    contenders = calls(vertices, shape)
    times: dict[str, list[float]] = {call: [] for call in contenders}
    for _ in range(rounds):
        for call, run in contenders.items():
            start = time.perf_counter()
            run()
            times[call].append(time.perf_counter() - start)
    return {call: statistics.median(seconds) for call, seconds in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sweep_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=CASES, help="the cases to run (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per case (default 3)")
    parser.add_argument("--quick", action="store_true", help="the small cases, one round: a smoke run")
    args = parser.parse_args(argv)
    cases = args.cases or (QUICK_CASES if args.quick else CASES)
    rounds = 1 if args.quick else args.rounds
    print(f"polymask {polymask.__version__}, medians of {rounds} round(s), default threads")
    print("| case | coverage s | all_touched s | mask s | coverage / mask |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in cases:
        median = measure(name, rounds)
        print(f"| {name} | {median['coverage']:.4f} | {median['all_touched']:.4f} | {median['mask']:.4f} "
              f"| {median['coverage'] / median['mask']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
