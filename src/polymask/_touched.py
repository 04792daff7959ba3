"""GDAL's all-touched line walk, vectorized over segments: the cells each segment passes through.

Each segment burns the cells it passes through, walked left to right
after clipping to the image, in GDAL's pixel frame.  A segment within
0.01 pixel of vertical (or horizontal), or whose ends share a column (a
row), is a run of one column (row), its far end's cell left out when
that end lies less than 1e-4 pixel past a cell side.

The sloped walk steps from cell side to cell side in floating point, so
a cell it finds depends on every rounding before it.  It is not
rewritten as a closed form: every segment takes GDAL's steps, one step
of all segments per array operation, so each coordinate is rounded
exactly as in a walk of its own.  The few segments still walking when
most have ended finish one by one, from the same state.
"""

from __future__ import annotations

import math
import operator
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Segments closer than this (in pixels) to an axis are walked as one column or row.
_AXIS_TOLERANCE = 0.01
#: A column or row run leaves out its far end's cell when the end is this close past a cell side.
_END_TOLERANCE = 1e-4
#: The smallest step the walk takes across a row side.
_ROW_STEP = 1e-9
#: Below this many segments still walking, a step per array operation costs more than a step each in Python.
_LOCKSTEP_MIN = 16

Cells = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def touched_cells(begin: NDArray[np.float64], end: NDArray[np.float64], width: int, height: int) -> Cells:
    """(segment, row, col) of the cells each segment (begin[k] to end[k], pixel frame) passes through.

    Cells may repeat and lie outside the image; the caller keeps those inside, once.
    """
    x, y, x_end, y_end = begin[:, 0], begin[:, 1], end[:, 0], end[:, 1]
    seen = ~(
        ((y < 0) & (y_end < 0))
        | ((y > height) & (y_end > height))
        | ((x < 0) & (x_end < 0))
        | ((x > width) & (x_end > width))
    )
    backwards = x > x_end  # walked left to right
    x, x_end = np.where(backwards, x_end, x), np.where(backwards, x, x_end)
    y, y_end = np.where(backwards, y_end, y), np.where(backwards, y, y_end)
    is_column = seen & ((np.floor(x) == np.floor(x_end)) | (np.abs(x - x_end) < _AXIS_TOLERANCE))
    is_row = seen & ~is_column & ((np.floor(y) == np.floor(y_end)) | (np.abs(y - y_end) < _AXIS_TOLERANCE))
    sloped = np.flatnonzero(seen & ~is_column & ~is_row)
    column = np.flatnonzero(is_column)
    row = np.flatnonzero(is_row)
    parts = [
        _runs(
            column, np.floor(x_end[column]), np.minimum(y, y_end)[column], np.maximum(y, y_end)[column], width, height
        ),
        _runs(row, np.floor(y[row]), x[row], x_end[row], height, width),
        _sloped(sloped, x[sloped], y[sloped], x_end[sloped], y_end[sloped], width, height),
    ]
    column_cells, row_cells = parts[0], parts[1]
    return (
        np.concatenate([column_cells[0], row_cells[0], parts[2][0]]),
        np.concatenate([column_cells[2], row_cells[1], parts[2][1]]),
        np.concatenate([column_cells[1], row_cells[2], parts[2][2]]),
    )


def _runs(
    segment: NDArray[np.int64],
    fixed: NDArray[np.float64],
    low: NDArray[np.float64],
    high: NDArray[np.float64],
    fixed_side: int,
    run_side: int,
) -> Cells:
    """(segment, fixed, along) of runs from floor(low) to floor(high - 1e-4), clipped to [0, run_side), at `fixed`."""
    keep = (fixed >= 0) & (fixed < fixed_side)
    first = np.maximum(np.floor(low), 0.0)
    last = np.minimum(np.floor(high - _END_TOLERANCE), run_side - 1)
    count = np.where(keep, np.maximum(last - first + 1, 0), 0).astype(np.int64)
    owner = np.repeat(np.arange(len(segment)), count)
    along = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    along += first.astype(np.int64)[owner]
    return segment[owner], fixed.astype(np.int64)[owner], along


def _sloped(
    segment: NDArray[np.int64],
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    x_end: NDArray[np.float64],
    y_end: NDArray[np.float64],
    width: int,
    height: int,
) -> Cells:
    """(segment, row, col) of sloped segments (x < x_end), clipped as GDAL clips them, then walked."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = (y_end - y) / (x_end - x)
        past = x_end > width
        y_end = np.where(past, y_end - (x_end - width) * slope, y_end)
        x_end = np.where(past, float(width), x_end)
        before = x < 0.0
        y = np.where(before, y + (0.0 - x) * slope, y)
        x = np.where(before, 0.0, x)
        rising = y_end > y
        clip = rising & (y < 0.0)
        x = np.where(clip, x + (0.0 - y) / slope, x)
        y = np.where(clip, 0.0, y)
        # GDAL's clip of the far end, kept as it is so the cells agree
        x_end = np.where(rising & (y_end >= height), x_end + (y_end - height) / slope, x_end)
        clip = ~rising & (y >= height)
        x = np.where(clip, x + (height - y) / slope, x)
        y = np.where(clip, float(height), y)
        x_end = np.where(~rising & (y_end < 0.0), x_end - y_end / slope, x_end)
    return _walk(segment, x, y, x_end, slope, height)


def _walk(
    segment: NDArray[np.int64],
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    x_end: NDArray[np.float64],
    slope: NDArray[np.float64],
    height: int,
) -> Cells:
    """(segment, row, col) of the walks from (x, y) rightwards to x_end: a step of every segment at a time."""
    found: list[Cells] = []
    walking = _walking(x, y, x_end, slope, height)
    segment, x, y, x_end, slope = segment[walking], x[walking], y[walking], x_end[walking], slope[walking]
    while len(segment) >= _LOCKSTEP_MIN:
        col, row = np.floor(x), np.floor(y)
        inside = (row >= 0) & (row < height)
        found.append((segment[inside], row[inside].astype(np.int64), col[inside].astype(np.int64)))
        x, y = _step(x, y, row, slope, np)
        walking = _walking(x, y, x_end, slope, height)
        segment, x, y, x_end, slope = segment[walking], x[walking], y[walking], x_end[walking], slope[walking]
    for k in range(len(segment)):
        rows, cols = _walk_one(float(x[k]), float(y[k]), float(x_end[k]), float(slope[k]), height)
        found.append((np.full(len(rows), segment[k], dtype=np.int64), rows, cols))
    if not found:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return (
        np.concatenate([cells[0] for cells in found]),
        np.concatenate([cells[1] for cells in found]),
        np.concatenate([cells[2] for cells in found]),
    )


def _walking(x: Any, y: Any, x_end: Any, slope: Any, height: int, xp: Any = np) -> Any:
    """Which walks go on: x still before x_end, and y not yet past the image in the walk's direction.

    Arrays with `xp` NumPy, or one walk's floats with `xp` _ONE_WALK.

    GDAL walks on to x_end, whose clip can leave it far beyond the image's
    last row (a line from -1e9 to 1e9 took 10^9 steps); y only moves one
    way along a walk, so once past the image no later cell burns, and
    stopping there burns the same cells.
    """
    return (
        (x >= 0.0) & (x < x_end) & xp.logical_not((slope > 0) & (y >= height)) & xp.logical_not((slope < 0) & (y < 0.0))
    )


def _step(x: Any, y: Any, row: Any, slope: Any, xp: Any) -> tuple[Any, Any]:
    """GDAL's step from (x, y) in cell row `row`: to the next column on the same row, else onto the next row's side.

    The one step rule of both walks: arrays of every walking segment with
    `xp` NumPy, one walk's floats with `xp` _ONE_WALK.
    """
    step_x = xp.floor(x + 1.0) - x
    step_y = step_x * slope
    same_row = xp.floor(y + step_y) == row
    # onto the next row's side (at least a hair, so the walk advances)
    across = xp.where(slope < 0, xp.minimum(row - y, -_ROW_STEP), xp.maximum(row + 1 - y, _ROW_STEP))
    return xp.where(same_row, x + step_x, x + xp.divide(across, slope)), xp.where(same_row, y + step_y, y + across)


def _pick(condition: bool, chosen: float, other: float) -> float:
    """np.where for one walk's floats."""
    return chosen if condition else other


def _quotient(numerator: float, denominator: float) -> float:
    """np.divide for one walk's floats: a slope of 0 (an overflowed one) keeps every step on its row, unused."""
    return numerator / denominator if denominator else math.inf


#: What _step and _walking call NumPy for, on one walk's Python floats (math and min are far quicker there than NumPy).
_ONE_WALK = SimpleNamespace(
    floor=math.floor, minimum=min, maximum=max, logical_not=operator.not_, where=_pick, divide=_quotient
)


def _walk_one(
    x: float, y: float, x_end: float, slope: float, height: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(rows, cols) of one walk from (x, y) rightwards to x_end, the same steps as the walk of many."""
    rows: list[int] = []
    cols: list[int] = []
    while _walking(x, y, x_end, slope, height, _ONE_WALK):
        col, row = math.floor(x), math.floor(y)
        if 0 <= row < height:
            rows.append(row)
            cols.append(col)
        x, y = _step(x, y, row, slope, _ONE_WALK)
    return np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
