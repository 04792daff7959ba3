"""Lines burned as GDAL burns them: the cells of each line, as squares the fills burn.

A line has no area, so no fill rule says which cells it claims; polymask
follows GDAL's line rasterizer (what ``rasterio.features.rasterize`` burns),
in GDAL's pixel frame, where cell (row, col) is the square
[col, col+1) x [row, row+1):

* ``all_touched=False``: each segment is a Bresenham line between the cells
  holding its ends, walked from its second end to its first;
* ``all_touched=True``: each segment burns the cells it passes through,
  walked left to right after clipping to the image; a segment within 0.01
  pixel of vertical (or horizontal), or whose ends share a column (a row),
  is a run of one column (row), its far end's cell left out when that end
  lies less than 1e-4 pixel past a cell side.

The cells of one line part (a LineString, LinearRing, or one line of a
MultiLineString) are joined into runs along rows, and each run becomes a
rectangle polygon in the contract's sample frame: it holds exactly the
sample points of its cells and shares area with no other cell, so the
fills burn exactly those cells under every ``all_touched`` and merge rule.
A cell two segments of one part reach is burned once.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from polymask._transform import Transform

#: Segments closer than this (in pixels) to an axis are walked as one column or row.
_AXIS_TOLERANCE = 0.01
#: A column or row run leaves out its far end's cell when the end is this close past a cell side.
_END_TOLERANCE = 1e-4
#: The smallest step the all-touched walk takes across a row side.
_ROW_STEP = 1e-9


class LineRaster(NamedTuple):
    """The image lines are burned into: its full (rows, cols) and whether all touched cells burn."""

    shape: tuple[int, int]
    all_touched: bool


def pixel_frame(vertices: NDArray[np.float64], transform: Transform | None) -> NDArray[np.float64]:
    """World coordinates in GDAL's pixel frame (cell (row, col) is [col, col+1) x [row, row+1)).

    Through GDAL's inverse geotransform, rounded as GDAL rounds it, so a
    vertex on a cell side lands where GDAL puts it.  Without a transform the
    vertices are in the contract's sample frame, half a pixel off.
    """
    if transform is None:
        return vertices + 0.5
    a, b, c, d, e, f = transform
    if b == 0.0 and d == 0.0:
        x0, xx, xy, y0, yx, yy = -c / a, 1.0 / a, 0.0, -f / e, 0.0, 1.0 / e
    else:
        inverse = 1.0 / (a * e - b * d)
        x0, xx, xy = (b * f - c * e) * inverse, e * inverse, -b * inverse
        y0, yx, yy = (-a * f + c * d) * inverse, -d * inverse, a * inverse
    x, y = vertices[:, 0], vertices[:, 1]
    return np.stack([x0 + x * xx + y * xy, y0 + x * yx + y * yy], axis=1)


def line_cells(pixels: NDArray[np.float64], shape: tuple[int, int], all_touched: bool) -> NDArray[np.int64]:
    """The (row, col) cells inside the image that one line (its vertices in the pixel frame) burns, unique."""
    height, width = shape
    found: list[NDArray[np.int64]] = []
    for j in range(1, len(pixels)):
        (x0, y0), (x1, y1) = pixels[j - 1], pixels[j]
        if all_touched:
            found.append(_touched_segment(x0, y0, x1, y1, width, height))
        else:  # walked from its second end; the first end's cell only on the first segment
            found.append(_bresenham(x1, y1, x0, y0, j == 1, width, height))
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    cells = np.concatenate(found)
    return np.unique(cells, axis=0) if len(cells) else cells


def _bresenham(
    x0: float, y0: float, x1: float, y1: float, with_end: bool, width: int, height: int
) -> NDArray[np.int64]:
    """The cells of Bresenham's line from cell floor(x0, y0) to floor(x1, y1), the last with `with_end`."""
    col0, row0, col1, row1 = math.floor(x0), math.floor(y0), math.floor(x1), math.floor(y1)
    run_x, run_y = abs(col1 - col0), abs(row1 - row0)
    step_x, step_y = (-1 if col0 > col1 else 1), (-1 if row0 > row1 else 1)
    major, minor = max(run_x, run_y), min(run_x, run_y)
    steps = np.arange(major + 1 if with_end else major, dtype=np.int64)
    # The integer error term's closed form: the minor axis has advanced
    # ceil((2·minor·k - major) / (2·major)) after k major steps.
    advanced = -((major - 2 * minor * steps) // (2 * major)) if major else np.zeros_like(steps)
    if run_x >= run_y:
        cols, rows = col0 + step_x * steps, row0 + step_y * advanced
    else:
        cols, rows = col0 + step_x * advanced, row0 + step_y * steps
    inside = (cols >= 0) & (cols < width) & (rows >= 0) & (rows < height)
    return np.stack([rows[inside], cols[inside]], axis=1)


def _touched_segment(x: float, y: float, x_end: float, y_end: float, width: int, height: int) -> NDArray[np.int64]:
    """The cells the segment passes through, as GDAL's all-touched line walk finds them."""
    none = np.zeros((0, 2), dtype=np.int64)
    if (
        (y < 0 and y_end < 0)
        or (y > height and y_end > height)
        or (x < 0 and x_end < 0)
        or (x > width and x_end > width)
    ):
        return none
    if x > x_end:
        x, y, x_end, y_end = x_end, y_end, x, y
    if math.floor(x) == math.floor(x_end) or abs(x - x_end) < _AXIS_TOLERANCE:  # one column
        low, high = min(y, y_end), max(y, y_end)
        col = math.floor(x_end)
        if col < 0 or col >= width:
            return none
        rows = np.arange(max(math.floor(low), 0), min(math.floor(high - _END_TOLERANCE), height - 1) + 1)
        return np.stack([rows, np.full_like(rows, col)], axis=1)
    if math.floor(y) == math.floor(y_end) or abs(y - y_end) < _AXIS_TOLERANCE:  # one row
        row = math.floor(y)
        if row < 0 or row >= height:
            return none
        cols = np.arange(max(math.floor(x), 0), min(math.floor(x_end - _END_TOLERANCE), width - 1) + 1)
        return np.stack([np.full_like(cols, row), cols], axis=1)
    return _sloped_walk(x, y, x_end, y_end, width, height)


def _sloped_walk(x: float, y: float, x_end: float, y_end: float, width: int, height: int) -> NDArray[np.int64]:
    """The cells of a sloped segment (x < x_end), clipped to the image, stepping from side to side."""
    slope = (y_end - y) / (x_end - x)
    if x_end > width:
        y_end -= (x_end - width) * slope
        x_end = float(width)
    if x < 0.0:
        y += (0.0 - x) * slope
        x = 0.0
    if y_end > y:
        if y < 0.0:
            x += (0.0 - y) / slope
            y = 0.0
        if y_end >= height:
            x_end += (y_end - height) / slope  # GDAL's clip, kept as it is so the cells agree
    else:
        if y >= height:
            x += (height - y) / slope
            y = float(height)
        if y_end < 0.0:
            x_end -= y_end / slope
    cells: list[tuple[int, int]] = []
    while 0.0 <= x < x_end:
        col, row = math.floor(x), math.floor(y)
        if 0 <= row < height:
            cells.append((row, col))
        step_x = math.floor(x + 1.0) - x
        step_y = step_x * slope
        if math.floor(y + step_y) == row:  # the next column on the same row
            x += step_x
            y += step_y
            continue
        # the next row: step onto its side (at least a hair, so the walk advances)
        step_y = min(row - y, -_ROW_STEP) if slope < 0 else max(row + 1 - y, _ROW_STEP)
        x += step_y / slope
        y += step_y
    return np.asarray(cells, dtype=np.int64).reshape(-1, 2)


def cell_runs(cells: NDArray[np.int64]) -> NDArray[np.float64]:
    """Unique (row, col) cells, sorted, as rectangles of runs along rows: (K, 5, 2) closed rings, sample frame."""
    if len(cells) == 0:
        return np.zeros((0, 5, 2), dtype=np.float64)
    rows, cols = cells[:, 0], cells[:, 1]
    starts = np.flatnonzero(np.concatenate([[True], (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1] + 1)]))
    ends = np.concatenate([starts[1:], [len(cells)]]) - 1
    row = rows[starts].astype(np.float64)
    left, right = cols[starts] - 0.5, cols[ends] + 0.5
    top, bottom = row - 0.5, row + 0.5
    xs = np.stack([left, right, right, left, left], axis=1)
    ys = np.stack([top, top, bottom, bottom, top], axis=1)
    return np.stack([xs, ys], axis=2)


def burned_lines(
    vertices: NDArray[np.float64],
    ring_ends: NDArray[np.int64],
    polygon_ends: NDArray[np.int64],
    owners: NDArray[np.int64],
    line_pixels: dict[int, NDArray[np.float64]],
    shape: tuple[int, int],
    all_touched: bool,
) -> tuple[Any, Any, Any, Any]:
    """(vertices, ring_ends, polygon_ends, owners) with each line polygon replaced by its cells' rectangles.

    `line_pixels` maps the index of each polygon that is a line (one ring,
    its vertices) to those vertices in the pixel frame; the rectangles of its
    cells take its place, one polygon each, owned by the same member.  The
    polygons between lines are copied as slices: a Python step per line.
    """
    vertex_ends = np.concatenate([[0], ring_ends]).astype(np.int64)[np.concatenate([[0], polygon_ends])]
    ring_counts = np.diff(np.concatenate([[0], ring_ends])).astype(np.int64)
    polygon_rings = np.diff(np.concatenate([[0], polygon_ends])).astype(np.int64)
    pieces: list[tuple[Any, Any, Any, Any]] = []
    done = 0  # polygons before this one are in pieces
    for p in sorted(line_pixels):
        first_ring, last_ring = int(polygon_ends[done - 1]) if done else 0, int(polygon_ends[p - 1]) if p else 0
        pieces.append(
            (
                vertices[vertex_ends[done] : vertex_ends[p]],
                ring_counts[first_ring:last_ring],
                polygon_rings[done:p],
                owners[done:p],
            )
        )
        runs = cell_runs(line_cells(line_pixels[p], shape, all_touched))
        if len(runs) == 0:  # no cell: a ring without area outside the image keeps the line's place and member
            runs = np.full((1, 5, 2), -1.0)
        pieces.append(
            (
                runs.reshape(-1, 2),
                np.full(len(runs), 5, dtype=np.int64),
                np.ones(len(runs), dtype=np.int64),
                np.full(len(runs), owners[p], dtype=np.int64),
            )
        )
        done = p + 1
    first_ring = int(polygon_ends[done - 1]) if done else 0
    pieces.append((vertices[vertex_ends[done] :], ring_counts[first_ring:], polygon_rings[done:], owners[done:]))
    joined = np.ascontiguousarray(np.concatenate([piece[0] for piece in pieces]), dtype=np.float64)
    return (
        joined,
        np.cumsum(np.concatenate([piece[1] for piece in pieces]), dtype=np.int64),
        np.cumsum(np.concatenate([piece[2] for piece in pieces]), dtype=np.int64),
        np.concatenate([piece[3] for piece in pieces]).astype(np.int64),
    )
