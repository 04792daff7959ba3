"""Time the calls users make on two polymask installs, alternately: is a change speed-neutral?

    python benchmarks/compare_installs.py OLD_DIR [--rounds 6] [--workers 2]

OLD_DIR holds another polymask package (a copy of an installed
``site-packages/polymask``, say); the installed one is the new.  Each round
runs every call in a fresh interpreter, old and new alternating (ABBA...),
each call timed until a budget is spent; the table gives the medians over
rounds and new/old.  ``--workers N`` runs N interpreters of one install at
once, as a pool of worker processes that keeps every core busy does.  Run
it on a quiet machine, with the other core busy, and with workers: the
ratios are what to compare, not the times.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

#: The calls, timed in a fresh interpreter: default arguments unless the name says otherwise.
CALLS = r'''
import json, statistics, sys, time
import numpy as np
import polymask, polymask.coco

def random_polygon(n, size, seed):
    return np.random.default_rng(seed).uniform(0, size, (n, 2))

rng = np.random.default_rng(2014)
standard = random_polygon(24, 1024, 2014)
star = np.array([(2048 + r * np.cos(a), 2048 + r * np.sin(a)) for a, r in
                 zip(np.linspace(0, 2 * np.pi, 1000, endpoint=False), [2000, 900] * 500)])
small = [random_polygon(8, 40, k) + rng.uniform(0, 600, 2) for k in range(1000)]
rings = [standard.tolist(), (standard[:8] * 0.5 + 200).tolist()]
x, y = rng.uniform(0, 1024, 200_000), rng.uniform(0, 1024, 200_000)
calls = {
    "mask 1024 24v": lambda: polymask.mask(standard, (1024, 1024)),
    "mask 1024 24v threads=1": lambda: polymask.mask(standard, (1024, 1024), threads=1),
    "mask 64 24v (per-call cost)": lambda: polymask.mask(standard / 16, (64, 64)),
    "mask 64 list input": lambda: polymask.mask((standard / 16).tolist(), (64, 64)),
    "mask 1024 rings": lambda: polymask.mask(rings, (1024, 1024)),
    "mask 4096 star": lambda: polymask.mask(star, (4096, 4096)),
    "mask 1024 all_touched": lambda: polymask.mask(standard, (1024, 1024), all_touched=True),
    "masks 1000 small crop": lambda: polymask.masks(small, (640, 640), crop=True),
    "rasterize 1000 small": lambda: polymask.rasterize(small, (640, 640)),
    "coverage 1024 24v": lambda: polymask.coverage(standard, (1024, 1024)),
    "contains 200k points": lambda: polymask.contains(standard, x, y),
    "coco.encode 1000": lambda: polymask.coco.encode([[p.ravel().tolist()] for p in small], 640, 640),
}

def median_seconds(call, budget=0.6):
    call()
    times, deadline = [], time.perf_counter() + budget
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 200):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

print(json.dumps({name: median_seconds(call) for name, call in calls.items()}))
'''


def run_once(old_dir: str | None, workers: int = 1) -> list[dict[str, float]]:
    """Each of `workers` interpreters' medians, the interpreters running at once."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if old_dir is not None:
        env["PYTHONPATH"] = old_dir
    # cwd: not a checkout, whose src/ must not shadow either install.
    running = [subprocess.Popen([sys.executable, "-c", CALLS], stdout=subprocess.PIPE, text=True, env=env,
                                cwd=os.path.expanduser("~")) for _ in range(workers)]
    outputs = [process.communicate()[0] for process in running]
    if any(process.returncode for process in running):
        raise RuntimeError("a timing interpreter failed")
    return [json.loads(output.strip().splitlines()[-1]) for output in outputs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old_dir", help="folder holding the other polymask package")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--workers", type=int, default=1, help="interpreters of one install timed at once")
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for k in range(args.rounds):
        for label in (("old", "new") if k % 2 == 0 else ("new", "old")):
            results[label].extend(run_once(args.old_dir if label == "old" else None, args.workers))
    print(f"{'call':32s} {'old ms':>9s} {'new ms':>9s} {'new/old':>8s}")
    for name in results["old"][0]:
        old = statistics.median(r[name] for r in results["old"]) * 1e3
        new = statistics.median(r[name] for r in results["new"]) * 1e3
        print(f"{name:32s} {old:9.3f} {new:9.3f} {new / old:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
