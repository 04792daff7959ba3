"""Per-call time of polymask.mask in two builds, in alternating child processes.

    python csrc/bench/mask_call_cost.py BEFORE_SITE [ROUNDS]

BEFORE_SITE is a folder holding another build of polymask (for instance
``pip install --no-deps --target /tmp/before-site .`` from an older
checkout); the build this interpreter imports is "after".  Each round runs
one child per build, in alternating order; each child reports the best of
five timeit repeats per case, and the medians over the rounds are printed
with their ratio and the load average, so a busy machine shows.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, timeit, numpy as np, polymask
from polymask.course.problems import standard_problem
vertices, shape = standard_problem()
vertices = np.ascontiguousarray(vertices, dtype=np.float64)
small = vertices * (64 / shape[0])
out, small_out = np.zeros(shape, bool), np.zeros((64, 64), bool)
cases = {
    "standard, new mask": lambda: polymask.mask(vertices, shape),
    "standard, out=": lambda: polymask.mask(vertices, shape, out=out),
    "64x64, new mask": lambda: polymask.mask(small, (64, 64)),
    "64x64, out=": lambda: polymask.mask(small, (64, 64), out=small_out),
    "64x64, a list": lambda: polymask.mask(small.tolist(), (64, 64)),
}
best = {}
for name, call in cases.items():
    call()
    number = 2000 if name.startswith("64") else 200
    best[name] = min(timeit.repeat(call, number=number, repeat=5)) / number
print(json.dumps(best))
"""


def main() -> None:
    before_site, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
    after_env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    builds = {"before": dict(after_env, PYTHONPATH=before_site), "after": after_env}
    samples: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    load_before = os.getloadavg()
    for round_index in range(rounds):
        order = ["before", "after"] if round_index % 2 == 0 else ["after", "before"]
        for build in order:
            child = subprocess.run(
                [sys.executable, "-c", CHILD],
                env=builds[build],
                capture_output=True,
                text=True,
                check=True,
                cwd=os.path.dirname(before_site) or ".",
            )
            samples[build].append(json.loads(child.stdout))
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}; {rounds} rounds")
    for case in samples["before"][0]:
        before = statistics.median(sample[case] for sample in samples["before"])
        after = statistics.median(sample[case] for sample in samples["after"])
        print(
            f"{case:20s} before {before * 1e6:8.2f} us  after {after * 1e6:8.2f} us  after/before {after / before:5.2f}"
        )


if __name__ == "__main__":
    main()
