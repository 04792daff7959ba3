"""Exercise 08's technique check: the scanline fill's cost, in CPU time, against per-pixel code's.

Per-pixel code tests every edge at every pixel: pixels x edges.  The scanline
fill finds each row's crossings once: rows x edges + pixels.  Two readings,
both in CPU time of the worker's process tree (sleeping pads nothing):

* **Growth.**  The learner's mask of 2,400 vertices may cost at most
  MAX_SCALING times its mask of 24 (per-pixel code: about 100x).
* **Against per-pixel code, in this run.**  Work padded onto the small case
  (a CPU busy-loop) flattens the growth, but never brings the cost below
  per-pixel code's.  So on a wide image of many vertices (PEER_SHAPE,
  PEER_VERTICES), where the two costs are far apart, the learner must use
  MIN_PEER_RATIO times less CPU than polymask's per-pixel NumPy stage on the
  same polygons, measured now.
"""

from __future__ import annotations

from polymask.course.checker import judge
from polymask.course.checker.runner import Worker
from polymask.course.checker.technique import cpu_seconds

#: 08: the most the cost may grow from 24 to 2,400 vertices (per-pixel code: about 100x).
MAX_SCALING = 25.0
#: 08: the peer check's image (few rows, many columns: the scanline's cost is rows x edges + pixels, per-pixel
#: code's pixels x edges), its vertex count, and the least factor by which the learner must use less CPU than
#: polymask's per-pixel NumPy stage on it (a NumPy scanline: hundreds; per-pixel code, padded or compiled: < 10).
PEER_SHAPE = (8, 8192)
PEER_VERTICES = 1200
MIN_PEER_RATIO = 20.0
#: 08: the per-pixel stage the peer check measures in the same run.
PER_PIXEL_STAGE = "numpy"


def _star(rng, n_vertices: int, shape: tuple[int, int]):
    """A star-shaped polygon of `n_vertices` around the image's centre: few crossings per row at any n."""
    import numpy as np

    rows, cols = shape
    angles = np.sort(rng.uniform(0.0, 2 * np.pi, size=n_vertices))
    radii = rng.uniform(0.35, 0.45, size=n_vertices)
    return np.column_stack([cols / 2 + radii * cols * np.cos(angles), rows / 2 + radii * rows * np.sin(angles)])


def scaling_failure(worker: Worker, stage_worker_factory, rng, limit: float, side: int = 256) -> tuple[str | None, str]:
    """08: the learner's mask of 2,400 vertices may cost at most MAX_SCALING times its mask of 24, and on
    PEER_SHAPE it must use MIN_PEER_RATIO times less CPU than the per-pixel stage, measured now.
    Returns (why it fails or None, the note for the PASS line).

    Per-pixel code tests every edge at every pixel, so 100 times the vertices cost
    about 100 times the time; the scanline fill's per-pixel work does not grow with
    the vertex count.  Each size is timed twice on fresh polygons (the minimum counts).
    Padding the small case with CPU work can flatten the growth, but never brings the
    cost below per-pixel code's: the peer check compares the learner with polymask's
    per-pixel NumPy stage on the same polygons, in CPU time, in this run.
    """
    phase = "the scaling check"
    seconds: dict[int, float] = {}
    for count in (24, 2400, 24, 2400):
        polygons = [(_star(rng, count, (side, side)), (side, side)) for _ in range(2)]
        answers, elapsed = cpu_seconds(worker, polygons, limit, phase)
        if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
            return f"is wrong on a {side}x{side} problem of {count:,} vertices (the scaling check).", ""
        seconds[count] = min(seconds.get(count, float("inf")), elapsed / len(polygons))
    growth = seconds[2400] / max(seconds[24], 1e-9)
    if growth > MAX_SCALING:
        return (
            f"its cost grows like per-pixel code: a {side}x{side} mask of 2,400 vertices took {growth:.0f}x "
            f"the CPU time of one of 24 (the scanline fill: far less than the 100x of testing every edge at "
            "every pixel). Work a row at a time: find where the edges cross the row, sort, fill the spans."
        ), ""
    rows, cols = PEER_SHAPE
    polygons = [(_star(rng, PEER_VERTICES, PEER_SHAPE), PEER_SHAPE) for _ in range(2)]
    answers, yours = cpu_seconds(worker, polygons, limit, phase)
    if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
        return f"is wrong on a {rows}x{cols} problem of {PEER_VERTICES:,} vertices (the scaling check).", ""
    with stage_worker_factory(PER_PIXEL_STAGE) as stage:
        _, per_pixel = cpu_seconds(stage, polygons, limit, f"timing {PER_PIXEL_STAGE}")
    ratio = per_pixel / max(yours, 1e-9)
    if ratio < MIN_PEER_RATIO:
        return (
            f"it is not a scanline fill: on {rows}x{cols} masks of {PEER_VERTICES:,} vertices it used "
            f"{1 / ratio:.2f}x the CPU time of polymask's per-pixel NumPy stage (measured on the same polygons "
            f"in this run), where a scanline fill uses less than 1/{MIN_PEER_RATIO:g} of it: its cost comes "
            "from testing edges at every pixel, however it grows. Work a row at a time: find where the edges "
            "cross the row, sort, fill the spans."
        ), ""
    return None, (
        f", and its cost grows far less with the vertex count than per-pixel code ({growth:.1f}x from 24 "
        f"to 2,400 vertices; 1/{ratio:.0f} of the per-pixel NumPy stage's CPU time on {rows}x{cols} masks "
        f"of {PEER_VERTICES:,} vertices)"
    )
