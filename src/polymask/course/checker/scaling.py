"""Exercise 08's technique check: the scanline fill's cost, in CPU time, against per-pixel code's.

Per-pixel code tests every edge at every pixel: pixels x edges.  The scanline
fill finds each row's crossings once: rows x edges + pixels.  On a wide image
of many vertices (PEER_SHAPE, PEER_VERTICES) the two are far apart, so the
learner's mask must use MIN_PEER_RATIO times less CPU time than polymask's
per-pixel NumPy stage on the same polygons, both measured here in this run.
CPU time of the worker's whole process tree: sleeping pads nothing, and work
padded on (a busy-loop) only adds to a cost that was never below per-pixel
code's.  How the cost grows from 24 to 2,400 vertices (per-pixel code: about
100x) is measured too and reported, but does not decide: a scanline written
in plain Python loops over the edges of each row grows by tens of times at
256x256 and is still a scanline.
"""

from __future__ import annotations

from polymask.course.checker import judge
from polymask.course.checker.runner import Worker
from polymask.course.checker.technique import cpu_seconds

#: The peer check's image (few rows, many columns: the scanline's cost is rows x edges + pixels, per-pixel
#: code's pixels x edges), its vertex count, and the least factor by which the learner must use less CPU than
#: polymask's per-pixel NumPy stage on it (measured: NumPy scanlines 70 to 160, plain-Python row loops about
#: 40; per-pixel NumPy code about 0.3, padded or not).
PEER_SHAPE = (8, 8192)
PEER_VERTICES = 1200
MIN_PEER_RATIO = 10.0
#: The per-pixel stage the peer check measures in the same run.
PER_PIXEL_STAGE = "numpy"


def _star(rng, n_vertices: int, shape: tuple[int, int]):
    """A star-shaped polygon of `n_vertices` around the image's centre: few crossings per row at any n."""
    import numpy as np

    rows, cols = shape
    angles = np.sort(rng.uniform(0.0, 2 * np.pi, size=n_vertices))
    radii = rng.uniform(0.35, 0.45, size=n_vertices)
    return np.column_stack([cols / 2 + radii * cols * np.cos(angles), rows / 2 + radii * rows * np.sin(angles)])


def scaling_failure(worker: Worker, stage_worker_factory, rng, limit: float, side: int = 256) -> tuple[str | None, str]:
    """(why 08 fails or None, the note for the PASS line): the peer ratio decides, the growth is reported.

    Each vertex count of the growth reading is timed twice on fresh star-shaped
    polygons of a `side` x `side` image (the minimum counts).
    """
    phase = "the scaling check"
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
            "from testing edges at every pixel. Work a row at a time: find where the edges cross the row, "
            "sort, fill the spans."
        ), ""
    seconds: dict[int, float] = {}
    for count in (24, 2400, 24, 2400):
        polygons = [(_star(rng, count, (side, side)), (side, side)) for _ in range(2)]
        answers, elapsed = cpu_seconds(worker, polygons, limit, phase)
        if not all(judge.is_right(a, v, s) for a, (v, s) in zip(answers, polygons)):
            return f"is wrong on a {side}x{side} problem of {count:,} vertices (the scaling check).", ""
        seconds[count] = min(seconds.get(count, float("inf")), elapsed / len(polygons))
    growth = seconds[2400] / max(seconds[24], 1e-9)
    return None, (
        f", and it is a scanline fill: 1/{ratio:.0f} of the CPU time of the per-pixel NumPy stage on {rows}x{cols} "
        f"masks of {PEER_VERTICES:,} vertices (its cost grew {growth:.1f}x from 24 to 2,400 vertices at "
        f"{side}x{side}; per-pixel code's about 100x)"
    )
