"""all_touched against the centre rule, the two calls alternated in one process.

Issue 14's target (all_touched at most 2x the centre rule) sits close to
its line, and on a shared machine two pytest-benchmark groups run minutes
apart see different loads: the same ratio moved between 1.5 and 2.2 from
run to run.  Here each pair of calls runs back to back, in the interleaved
rounds of ``polymask bench`` (polymask.bench.timing: centre rule then
all_touched, then the other way round), so both see the same load, and the
ratio is taken of the medians over many pairs (and, as a check, the median
of the pairs' own ratios).

    python -m benchmarks.alternating            # 40 pairs a case, full sizes
    python -m benchmarks.alternating --pairs 150 --cases star-1000
    python -m benchmarks.alternating --quick    # small sizes, a few pairs: a smoke run

Cases: ``label-image`` (10,000 small polygons from a GeoDataFrame,
``polymask.rasterize(frame, values="label", transform=T, threads=1)``, the
ingestion included, as benchmarks/test_geo.py times it) and the three
1,000-vertex polygons of benchmarks/test_coverage.py at 4096x4096
(``polymask.mask(..., threads=1)``).  Before timing, each case checks
once that all_touched takes every pixel the centre rule takes.
"""
from __future__ import annotations

import argparse

import numpy as np

import polymask
from polymask.bench.timing import Contender, interleaved

CASES = ("label-image", "outline-1000", "random-1000", "star-1000")


def _label_image(quick):
    from benchmarks.test_geo import TRANSFORM, label_frame

    table, _, shape = label_frame(500, (256, 256)) if quick else label_frame()

    def call(all_touched):
        return polymask.rasterize(table, shape, values="label", transform=TRANSFORM, threads=1,
                                  all_touched=all_touched)
    return call


def _polygon(name, quick):
    from benchmarks.test_coverage import POLYGONS, SIZE

    size = 256 if quick else SIZE
    vertices = POLYGONS[name] * (size / SIZE)

    def call(all_touched):
        return polymask.mask(vertices, (size, size), threads=1, all_touched=all_touched)
    return call


def measure(call, pairs):
    """Medians (ms) of the centre rule and of all_touched over `pairs` alternated pairs, and the pairs' ratios."""
    # One call a sample: each call of these cases lasts milliseconds at least.
    rounds = [Contender("centre", lambda: call(False), pairs, calibrated=True),
              Contender("all_touched", lambda: call(True), pairs, calibrated=True)]
    interleaved(rounds)
    centre, touched = np.array(rounds[0].wall) * 1e3, np.array(rounds[1].wall) * 1e3
    return float(np.median(centre)), float(np.median(touched)), float(np.median(touched / centre))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40, help="alternated pairs a case (default 40)")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--quick", action="store_true", help="small sizes and 3 pairs: a smoke run")
    args = parser.parse_args(argv)
    pairs = 3 if args.quick else args.pairs
    if pairs < 1:
        parser.error(f"--pairs must be at least 1, got {pairs}")
    print(f"| case | centre rule (ms) | all_touched (ms) | ratio of medians | median of pair ratios |  ({pairs} pairs)")
    print("|---|---:|---:|---:|---:|")
    for name in args.cases:
        call = _label_image(args.quick) if name == "label-image" else _polygon(name, args.quick)
        centre, touched = call(False), call(True)
        if not np.all(touched[centre != 0]):
            raise SystemExit(f"{name}: all_touched left out pixels the centre rule takes")
        centre_ms, touched_ms, pair_ratio = measure(call, pairs)
        print(f"| {name} | {centre_ms:.3f} | {touched_ms:.3f} | {touched_ms / centre_ms:.2f} | {pair_ratio:.2f} |")


if __name__ == "__main__":
    main()
