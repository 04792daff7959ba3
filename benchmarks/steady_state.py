"""1,000 COCO-like instance masks, each contender alone in a fresh process.

benchmarks/test_speed_targets.py times ``polymask.masks`` against a loop of
``np.zeros`` + ``cv2.fillPoly`` inside one pytest process, where the loop's
1,000 arrays come back from the operating system fresh on every round (each
page they touch faults in and is zeroed by the kernel).  A long-running loop
in a process of its own usually gets them recycled from glibc's heap
instead: no page faults, only calloc's memset.  The dense (1000, 480, 640)
stack that ``masks`` returns is 300 MB, always fresh memory (too large for
the heap), so its first touch costs the same in both settings.  The ratio
therefore depends on the allocator's state, and this script measures the
second setting: every contender runs in its own process for a number of
rounds, and the table gives the median of the rounds after the first
(which also pays the imports' and the allocator's warm-up) with the page
faults per round, which show which setting a loop was in.

    python -m benchmarks.steady_state              # 11 rounds each
    python -m benchmarks.steady_state --rounds 21
    python -m benchmarks.steady_state --quick      # 100 instances, 3 rounds: a smoke run

The floor row is the dense stack's own first touch: ``np.zeros`` of it and
one byte written every 4 KiB through each instance's rows, so every page a
dense answer must write faults in (NumPy asks for transparent huge pages
for arrays this large, so the kernel zeroes them 2 MiB at a time).
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CONTENDERS = ("opencv-loop", "masks", "masks-crop", "floor")
#: The repository root, where ``benchmarks`` is a package.
ROOT = Path(__file__).resolve().parent.parent


def _contender(name: str, count: int):
    """The call to time, for `count` instances (benchmarks/test_speed_targets.py's)."""
    import polymask
    from polymask.course import peers
    from polymask.course.problems import instance_polygons

    polygons, shape = instance_polygons(count=count)
    if name == "opencv-loop":
        opencv = peers.get("opencv").function
        return lambda: [opencv(p, shape) for p in polygons]
    if name == "masks":
        return lambda: polymask.masks(polygons, shape, threads=1)
    if name == "masks-crop":
        return lambda: polymask.masks(polygons, shape, threads=1, crop=True)
    if name == "floor":
        rows = [(crop.slices[0].start, crop.slices[0].stop) for crop in polymask.masks(polygons, shape, crop=True)]

        def first_touch():
            stack = np.zeros((count,) + shape, dtype=bool)
            flat = stack.reshape(count, -1)
            for k, (row0, row1) in enumerate(rows):
                flat[k, row0 * shape[1]:row1 * shape[1]:4096] = True
            return stack
        return first_touch
    raise ValueError(f"unknown contender {name!r}; expected one of {', '.join(CONTENDERS)}")


def run_one(name: str, rounds: int, count: int) -> dict:
    """Time `rounds` calls of contender `name` in this process: seconds and minor page faults per round."""
    call = _contender(name, count)
    seconds, faults = [], []
    for _ in range(rounds):
        faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - start)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before)
        del result  # freed before the next round, as a loop over batches would
    return {"name": name, "seconds": seconds, "faults": faults}


def measure(rounds: int = 11, count: int = 1000) -> dict[str, dict]:
    """Each contender in a fresh interpreter, one after the other; their run_one results by name."""
    results = {}
    for name in CONTENDERS:
        completed = subprocess.run(
            [sys.executable, "-m", "benchmarks.steady_state", "--one", name, "--rounds", str(rounds),
             "--count", str(count)],
            capture_output=True, text=True, check=True, cwd=ROOT)
        results[name] = json.loads(completed.stdout.strip().splitlines()[-1])
    return results


def report(results: dict[str, dict]) -> str:
    """A Markdown table: median ms and median page faults of the rounds after the first, ratio to the OpenCV loop."""
    def settled(values):
        return statistics.median(values[1:] if len(values) > 1 else values)

    reference = settled(results["opencv-loop"]["seconds"])
    lines = ["| contender | median ms (rounds 2-N) | page faults a round | / OpenCV loop |", "|---|---:|---:|---:|"]
    for name, result in results.items():
        seconds = settled(result["seconds"])
        lines.append(f"| {name} | {seconds * 1e3:.1f} | {settled(result['faults']):.0f} | {seconds / reference:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--count", type=int, default=1000, help="instances (default 1000)")
    parser.add_argument("--quick", action="store_true", help="100 instances, 3 rounds")
    parser.add_argument("--one", choices=CONTENDERS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rounds, count = (3, 100) if args.quick else (args.rounds, args.count)
    if args.one:
        print(json.dumps(run_one(args.one, rounds, count)))
        return
    print(report(measure(rounds, count)))


if __name__ == "__main__":
    main()
