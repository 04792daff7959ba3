"""``polymask bench``: time the mask on this machine and print the table.

    python -m polymask.bench [--size 1024] [--vertices 24] [--seed 2014] [--repeats 7]

Times every available backend on the standard problem (the 2014 course's
1024x1024 image with a random 24-vertex polygon), OpenCV's fillPoly when
installed, and the memory floor (filling a preallocated mask once), and
prints a markdown table of medians with ratios taken in this one run.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import polymask
from polymask.problems import STANDARD_SEED, STANDARD_SIZE, STANDARD_VERTICES, standard_problem


def median_seconds(function, repeats: int, min_seconds: float = 0.05) -> float:
    """Median over `repeats` timings, each averaging enough calls to last min_seconds."""
    calls = 1
    while True:  # calibrate: how many calls make one timing long enough to trust
        start = time.perf_counter()
        for _ in range(calls):
            function()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds or calls >= 1 << 20:
            break
        calls *= 2
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        timings.append((time.perf_counter() - start) / calls)
    return statistics.median(timings)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="polymask bench", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=STANDARD_SIZE, help="image side in pixels")
    parser.add_argument("--vertices", type=int, default=STANDARD_VERTICES, help="polygon vertex count")
    parser.add_argument("--seed", type=int, default=STANDARD_SEED, help="random polygon seed")
    parser.add_argument("--repeats", type=int, default=7, help="timings per row; the median is shown")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    vertices, shape = standard_problem(args.size, args.vertices, args.seed)
    expected = polymask.mask(vertices, shape)
    rows = []
    for stage_id, status in polymask.available_backends().items():
        if status.available:
            rows.append((stage_id, median_seconds(lambda: polymask.mask(vertices, shape, backend=stage_id),
                                                  args.repeats), 0))
    try:
        import cv2

        points = [np.round(vertices).astype(np.int32)]

        def opencv():
            result = np.zeros(shape, np.uint8)
            cv2.fillPoly(result, points, 1)
            return result

        differing = int(np.count_nonzero(opencv().astype(bool) != expected))
        rows.append(("opencv fillPoly", median_seconds(opencv, args.repeats), differing))
    except ImportError:
        pass
    out = np.empty(shape, bool)
    floor = median_seconds(lambda: out.fill(False), args.repeats)
    rows.append(("memory floor", floor, 0))

    print(f"{shape[0]}x{shape[1]} image, {args.vertices} random vertices (seed {args.seed}); "
          f"median of {args.repeats}\n")
    print("| backend | time (ms) | x floor | pixels differing |")
    print("|---|---:|---:|---:|")
    for name, seconds, differing in rows:
        print(f"| {name} | {seconds * 1e3:.3f} | {seconds / floor:.1f} | {differing} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
