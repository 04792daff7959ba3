"""Calls start threads by their work, not by their count: coco.encode, masks, coverage, rasterize.

polymask.masks and polymask.coco.encode spread many instances over threads.
A batch of small instances is less work than waking a helper costs, so it
must run on the calling thread however many instances it has; a batch
worth two threads starts exactly one helper.  The same holds for one
coverage raster (a small one took 1.4x as long on two threads as on one)
and for a label image or a batch of coverage crops, whose work is their
polygons' crossings as much as their pixels (a narrow raster crossed by a
comb used to get one thread).  Threads
are counted in /proc/self/task, in a fresh interpreter (the pools are per
process).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")

SCENARIO = """
import os, numpy as np, polymask, polymask.coco as coco
from polymask.course.coco_samples import annotations
polymask._core._reset_pool_learning(False)  # the plan by work alone, whatever else the machine runs
def tasks():
    return len(os.listdir("/proc/self/task"))
before = tasks()
def comb(teeth, width, rows):  # every one of its teeth crosses every row
    xs = np.linspace(0, width, 2 * teeth + 1)
    ys = np.tile([0.5, rows - 0.5], teeth + 1)[: 2 * teeth + 1]
    return np.column_stack([np.concatenate([xs, [width, 0]]), np.concatenate([ys, [rows + 1, rows + 1]])])
call = {call!r}
if call == "coverage":
    rng = np.random.default_rng(5)
    small = rng.uniform(0, 130, (12, 2))
    for _ in range(20):
        polymask.coverage(small, (130, 130), threads=8)
    after_small = tasks()
    polymask.coverage(comb(400, 64, 200), (200, 64), threads=2)
elif call == "coverages":  # threads across crops, planned by each crop's sweep work
    small = [np.array([(1, 1), (6, 1), (3, 6)], dtype=float) + k % 40 for k in range(200)]
    for _ in range(20):
        polymask.coverages(small, (64, 64), threads=8)
    after_small = tasks()
    polymask.coverages([comb(400, 64, 200)] * 2, (200, 64), threads=2)  # small crops, thousands of crossings
elif call == "rasterize":
    small = [np.array([(1, 1), (6, 1), (3, 6)], dtype=float) + k for k in range(20)]
    for _ in range(20):
        polymask.rasterize(small, (64, 64), threads=8)
        polymask.rasterize(small, (64, 64), threads=8, all_touched=True)
    after_small = tasks()
    polymask.rasterize([comb(400, 64, 2000)], (2000, 64), threads=2)
elif call == "masks":
    small = [np.array([(1, 1), (6, 1), (3, 6)], dtype=float) + k % 3 for k in range(200)]
    for _ in range(20):
        polymask.masks(small, (8, 8), threads=8)
        polymask.masks(small, (8, 8), threads=8, crop=True)
    after_small = tasks()
    big = [np.array([(2, 2), (1000, 30), (990, 1010), (20, 1000)], dtype=float) + k for k in range(16)]
    polymask.masks(big, (1024, 1024), threads=2)
else:
    pixel = [[[5.0, 5.0, 6.0, 5.0, 6.0, 6.0]]] * 64  # 64 one-pixel objects
    for _ in range(20):
        coco.encode(pixel, 48, 64, threads=8)
    after_small = tasks()
    objects = [a["segmentation"] for a in annotations(1, 1200, 480, 640)["annotations"]]
    coco.encode(objects, 480, 640, threads=2)
print(before, after_small, tasks())
"""


@pytest.mark.parametrize("call", ["masks", "coco.encode", "coverage", "coverages", "rasterize"])
def test_small_batches_start_no_thread_and_big_ones_start_what_they_are_worth(call):
    env = {k: v for k, v in os.environ.items() if k not in ("POLYMASK_NUM_THREADS", "OMP_NUM_THREADS")}
    completed = subprocess.run([sys.executable, "-c", SCENARIO.format(call=call)],
                               capture_output=True, text=True, timeout=120, env=env)
    assert completed.returncode == 0, completed.stderr[-2000:]
    before, small, big = map(int, completed.stdout.split())
    assert small == before, f"{call}: calls too small for a helper started {small - before} threads"
    assert big == before + 1, f"{call}: a call worth 2 threads (threads=2) should start exactly one helper"
