"""Coverage against its floor: the mask of the same polygon and the bytes it writes.

For each polygon and image, one thread and the default threads, five calls
run in alternated rounds in one process (polymask.bench.timing.interleaved,
so all five see the same load); the medians of the rounds' ratios give:

* ``coverage(dtype=uint8)`` over ``mask`` (the default bool mask);
* ``coverage(dtype=float32)`` over its write floor, ``np.ones`` of the same
  float32 shape (writing every output byte once), and ``coverage(dtype=uint8)``
  over the uint8 floor;
* nanoseconds per boundary cell: coverage(uint8)'s time beyond the mask's,
  over the cells an edge leaves partly covered (0 < fraction < 1), on one
  thread.

Polygons: 24 random vertices (the course's standard polygon, scaled to the
image) and a smooth 1,000-vertex outline (benchmarks/test_coverage.py), at
1024x1024 and 4096x4096.  pytest-benchmark times ``coverage(dtype=uint8)``
itself; the ratios go to the row's extra_info and to the table that

    python -m benchmarks.test_coverage_floor            # 15 rounds a case
    python -m benchmarks.test_coverage_floor --clock cpu  # CPU time, on a busy machine
    python -m benchmarks.test_coverage_floor --json docs/bench-coverage-floor.json  # the published table
    pytest benchmarks/test_coverage_floor.py --benchmark-only

print (the second one at the end of the run, with ``-s``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Any

import numpy as np
import pytest

import polymask
import polymask.course.problems
from polymask.bench.machine import machine_info, usable_cores
from polymask.bench.state import finish_state, start_state
from polymask.bench.timing import Contender, interleaved

SIZES = (1024, 4096)
POLYGON_NAMES = ("random-24", "outline-1000")
CONTENDERS = ("mask", "coverage-uint8", "coverage-float32", "floor-uint8", "floor-float32")


def polygon(name: str, size: int) -> np.ndarray:
    """The named polygon's vertices for a size x size image."""
    if name == "random-24":
        return polymask.course.problems.random_polygon(24, size)
    from benchmarks.test_coverage import POLYGONS, SIZE

    return POLYGONS["outline-1000"] * (size / SIZE)


def calls(vertices: np.ndarray, size: int, threads: int | None) -> dict[str, Any]:
    """The five contenders of one case, by name."""
    shape = (size, size)
    return {
        "mask": lambda: polymask.mask(vertices, shape, threads=threads),
        "coverage-uint8": lambda: polymask.coverage(vertices, shape, dtype=np.uint8, threads=threads),
        "coverage-float32": lambda: polymask.coverage(vertices, shape, dtype=np.float32, threads=threads),
        "floor-uint8": lambda: np.ones(shape, dtype=np.uint8),
        "floor-float32": lambda: np.ones(shape, dtype=np.float32),
    }


def boundary_cells(vertices: np.ndarray, size: int) -> int:
    """Cells an edge leaves partly covered: 0 < fraction < 1."""
    fractions = polymask.coverage(vertices, (size, size))
    return int(np.count_nonzero((fractions > 0) & (fractions < 1)))


def measure(name: str, size: int, threads: int | None, rounds: int, clock: str = "wall") -> dict[str, float]:
    """Medians (seconds) of the five contenders over `rounds` alternated rounds, and the ratios.

    Each ratio is the median of the rounds' own ratios: the two calls of a
    round ran back to back, so a load that drifts between rounds cancels.
    clock="cpu" takes the process's CPU time instead of wall time: on a busy
    machine the one-thread figures then leave out the time spent waiting for
    a core (with several threads it sums their CPU time, not the wait for them).
    """
    vertices = polygon(name, size)
    contenders = {
        what: Contender(what, run, rounds, min_seconds=0.02) for what, run in calls(vertices, size, threads).items()
    }
    interleaved(list(contenders.values()))
    wall = {what: np.array(getattr(contender, clock)) for what, contender in contenders.items()}
    cells = boundary_cells(vertices, size)

    def ratio(numerator: str, denominator: str) -> float:
        return float(np.median(wall[numerator] / wall[denominator]))

    return {
        **{what: float(np.median(samples)) for what, samples in wall.items()},
        "boundary_cells": cells,
        "uint8_over_mask": ratio("coverage-uint8", "mask"),
        "uint8_over_floor": ratio("coverage-uint8", "floor-uint8"),
        "float32_over_floor": ratio("coverage-float32", "floor-float32"),
        "ns_per_boundary_cell": float(np.median(wall["coverage-uint8"] - wall["mask"])) / cells * 1e9,
    }


HEADER = (
    "| polygon, image | threads | uint8 / mask | uint8 / uint8 floor | float32 / float32 floor "
    "| ns per boundary cell | boundary cells |\n|---|---|---:|---:|---:|---:|---:|"
)


def table_row(name: str, size: int, threads: int | None, figures: dict[str, float]) -> str:
    return (
        f"| {name}, {size}x{size} | {threads or 'default'} | {figures['uint8_over_mask']:.2f}x "
        f"| {figures['uint8_over_floor']:.2f}x | {figures['float32_over_floor']:.2f}x "
        f"| {figures['ns_per_boundary_cell']:.1f} | {figures['boundary_cells']:,} |"
    )


_ROWS: list[str] = []


def _fast(request: pytest.FixtureRequest) -> bool:
    return getattr(request.config, "polymask_fast_mode", False)


@pytest.mark.parametrize("threads", [1, None], ids=["one-thread", "default-threads"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", POLYGON_NAMES)
def test_coverage_against_its_floor(benchmark, request, name, size, threads):
    fast = _fast(request)
    size = 256 if fast else size  # --benchmark-disable (CI): one small run of every path
    vertices = polygon(name, size)
    benchmark.group = f"coverage-floor-{size}x{size}-{name}"
    result = benchmark(calls(vertices, size, threads)["coverage-uint8"])
    # The timed call's answer is the exact one, rounded to uint8.
    expected = np.floor(polymask.coverage(vertices, (size, size), threads=1) * 255 + 0.5).astype(np.uint8)
    assert np.array_equal(result, expected)
    figures = measure(name, size, threads, rounds=2 if fast else 15)
    benchmark.extra_info.update(
        backend=f"coverage-uint8 threads={threads or 'default'}", polygon=name, shape=[size, size], **figures
    )
    _ROWS.append(table_row(name, size, threads, figures))


@pytest.fixture(scope="module", autouse=True)
def _print_table():
    yield
    if _ROWS:
        print("\n" + HEADER + "\n" + "\n".join(_ROWS))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternated rounds a case (default 15)")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time taken: wall (default) or the process's CPU time (a busy machine)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures, the machine and its load")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    state = start_state(usable_cores())
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.clock} time, {args.rounds} rounds a case")
    print(HEADER)
    rows = []
    for name in POLYGON_NAMES:
        for size in SIZES:
            for threads in (1, None):
                figures = measure(name, size, threads, args.rounds, args.clock)
                rows.append({"polygon": name, "size": size, "threads": threads, **figures})
                print(table_row(name, size, threads, figures), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        argv_used = sys.argv[1:] if argv is None else argv
        record = {
            "command": shlex.join(["python", "-m", "benchmarks.test_coverage_floor", *argv_used]),
            "clock": args.clock,
            "rounds": args.rounds,
            "state": finish_state(state, cpu_share=None),
            "machine": machine_info(),
            "rows": rows,
        }
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=2)


if __name__ == "__main__":
    main()
