"""Batches start threads by their work, not by their count: coco.encode and masks.

polymask.masks and polymask.coco.encode spread many instances over threads.
A batch of small instances is less work than waking a helper costs, so it
must run on the calling thread however many instances it has; a batch
worth two threads starts exactly one helper.  Threads are counted in
/proc/self/task, in a fresh interpreter (the pools are per process).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")

SCENARIO = """
import os, numpy as np, polymask, polymask.coco as coco
from polymask.coco_samples import annotations
def tasks():
    return len(os.listdir("/proc/self/task"))
before = tasks()
if {masks!r}:
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


@pytest.mark.parametrize("call", ["masks", "coco.encode"])
def test_small_batches_start_no_thread_and_big_ones_start_what_they_are_worth(call):
    env = {k: v for k, v in os.environ.items() if k not in ("POLYMASK_NUM_THREADS", "OMP_NUM_THREADS")}
    completed = subprocess.run([sys.executable, "-c", SCENARIO.format(masks=call == "masks")],
                               capture_output=True, text=True, timeout=120, env=env)
    assert completed.returncode == 0, completed.stderr[-2000:]
    before, small, big = map(int, completed.stdout.split())
    assert small == before, f"{call}: batches of tiny instances started {small - before} threads"
    assert big == before + 1, f"{call}: a batch worth 2 threads (threads=2) should start exactly one helper"
