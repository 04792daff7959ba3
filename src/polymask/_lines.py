"""Lines burned as GDAL burns them: the cells of each line, as squares the fills burn.

A line has no area, so no fill rule says which cells it claims; polymask
follows GDAL's line rasterizer (what ``rasterio.features.rasterize`` burns),
in GDAL's pixel frame, where cell (row, col) is the square
[col, col+1) x [row, row+1):

* ``all_touched=False``: each segment is a Bresenham line between the cells
  holding its ends, walked from its second end to its first;
* ``all_touched=True``: each segment burns the cells it passes through,
  GDAL's clipped walk (polymask._touched holds its rules).

The core walks the lines (csrc/src/line_walk.cpp); lines reaching 2**30
pixels, past the core's integers, are walked here in NumPy and Python's
integers, the same steps.  Lines alone are burned straight from their
cells (polymask/_rasterize_lines.py), and so are shapely lines beside
polygons (polymask/_rasterize_mixed.py).  Otherwise, among polygons, the cells of one
line part (a LineString, LinearRing, or one line of a MultiLineString)
are joined into runs along rows, and each run becomes a
rectangle in the contract's sample frame: it holds exactly the sample
points of its cells and shares area with no other cell.  The line becomes
one polygon with a ring per rectangle; the rectangles never overlap, so
the fills burn exactly those cells under either fill rule, every
``all_touched`` and every merge rule.  A cell two segments of one part
reach is burned once.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from polymask import _line_cells
from polymask._rasterize_order import index_ranges
from polymask._touched import touched_cells
from polymask._transform import Transform

#: The core walks lines whose pixel coordinates stay below this (csrc/include/polymask/lines.hpp).
CORE_REACH = 2.0**30


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


def lines_cells(
    lines: list[NDArray[np.float64]], shape: tuple[int, int], all_touched: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(line, row, col) of every cell inside the image that each line (vertices in the pixel frame) burns.

    Unique per line and sorted by line, row, column.  The core walks the
    lines (csrc/include/polymask/lines.hpp) unless one reaches CORE_REACH
    pixels; then NumPy does (walked_lines_cells).
    """
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    pixels = np.ascontiguousarray(np.concatenate(lines), dtype=np.float64)
    if np.isnan(pixels[:, 0]).any():
        return _joined_lines_cells(lines, pixels, shape, all_touched)
    if not np.abs(pixels).max() < CORE_REACH:
        return walked_lines_cells(lines, shape, all_touched)
    ends = np.cumsum([len(line) for line in lines], dtype=np.int64)
    cell_ends, cells = _line_cells.cells(pixels, ends, shape[0], shape[1], all_touched)
    line = np.repeat(np.arange(len(lines), dtype=np.int64), np.diff(cell_ends, prepend=0))
    rows, cols = np.divmod(cells, shape[1])
    return line, rows, cols


def _joined_lines_cells(
    lines: list[NDArray[np.float64]], pixels: NDArray[np.float64], shape: tuple[int, int], all_touched: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """lines_cells of lines that join several (a MultiLineString's) with NaN rows: each cell once per line."""
    line_of_vertex = np.repeat(np.arange(len(lines)), [len(line) for line in lines])
    gap = np.isnan(pixels[:, 0])
    begins = np.concatenate([[True], (line_of_vertex[1:] != line_of_vertex[:-1]) | gap[:-1]])[~gap]
    vertices, owner = pixels[~gap], line_of_vertex[~gap]
    pieces = np.split(vertices, np.flatnonzero(begins)[1:]) if len(vertices) else []
    line, rows, cols = lines_cells(pieces, shape, all_touched)
    line = owner[np.flatnonzero(begins)][line]
    order = np.lexsort((cols, rows, line))
    line, rows, cols = line[order], rows[order], cols[order]
    fresh = np.concatenate([[True], (line[1:] != line[:-1]) | (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])])
    return line[fresh], rows[fresh], cols[fresh]


def walked_lines_cells(
    lines: list[NDArray[np.float64]], shape: tuple[int, int], all_touched: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """lines_cells walked in NumPy, lines of any reach: far segments take Python's integers."""
    height, width = shape
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    counts = np.fromiter((len(line) for line in lines), dtype=np.int64, count=len(lines))
    pixels = np.concatenate(lines)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    is_start = np.ones(len(pixels), dtype=bool)  # vertex k starts a segment unless it ends its line
    is_start[np.cumsum(counts) - 1] = False
    start = np.flatnonzero(is_start)
    segment_line = np.repeat(np.arange(len(lines)), counts - 1)
    if all_touched:
        segment, rows, cols = touched_cells(pixels[start], pixels[start + 1], width, height)
        line = segment_line[segment]
    else:  # walked from the second end; the first end's cell only on a line's first segment
        line, rows, cols = _bresenham(
            pixels[start + 1], pixels[start], start == first[segment_line], segment_line, width, height
        )
    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    line, rows, cols = line[inside], rows[inside], cols[inside]
    if len(line) == 0:
        return line, rows, cols
    order = np.lexsort((cols, rows, line))
    line, rows, cols = line[order], rows[order], cols[order]
    fresh = np.concatenate([[True], (line[1:] != line[:-1]) | (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])])
    return line[fresh], rows[fresh], cols[fresh]


def _bresenham(
    begin: NDArray[np.float64],
    end: NDArray[np.float64],
    with_end: NDArray[np.bool_],
    segment_line: NDArray[np.int64],
    width: int,
    height: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(line, row, col) of Bresenham's lines from cell floor(begin) to floor(end), each last cell with `with_end`.

    Vectorized over the segments; only the steps whose major coordinate lies
    in the image are made, so a segment reaching far outside costs no more
    than the image's side.  Segments whose integers outgrow int64 (ends past
    2**52 pixels, or an error term past 2**62) take the same steps in
    Python's integers.
    """
    reach = np.maximum(np.abs(begin).max(axis=1), np.abs(end).max(axis=1))
    big = ~(reach < 2.0**30)  # 2·minor·k < 2**62; NaN never reaches here
    if big.any():
        small = ~big
        line, rows, cols = _bresenham(begin[small], end[small], with_end[small], segment_line[small], width, height)
        found = [_bresenham_exact(b, e, bool(w), width, height) for b, e, w in zip(begin[big], end[big], with_end[big])]
        lines_big = np.repeat(segment_line[big], [len(cells[0]) for cells in found])
        rows_big = np.array([r for cells in found for r in cells[0]], dtype=np.int64)
        cols_big = np.array([c for cells in found for c in cells[1]], dtype=np.int64)
        return np.concatenate([line, lines_big]), np.concatenate([rows, rows_big]), np.concatenate([cols, cols_big])
    col0, row0 = np.floor(begin[:, 0]).astype(np.int64), np.floor(begin[:, 1]).astype(np.int64)
    col1, row1 = np.floor(end[:, 0]).astype(np.int64), np.floor(end[:, 1]).astype(np.int64)
    run_x, run_y = np.abs(col1 - col0), np.abs(row1 - row0)
    step_x, step_y = np.where(col0 > col1, -1, 1), np.where(row0 > row1, -1, 1)
    x_major = run_x >= run_y
    major, minor = np.maximum(run_x, run_y), np.minimum(run_x, run_y)
    steps = major + with_end
    # Steps whose major coordinate is inside the image: start + step * k in [0, side).
    origin, step, side = (
        np.where(x_major, col0, row0),
        np.where(x_major, step_x, step_y),
        np.where(x_major, width, height),
    )
    low = np.clip(np.where(step > 0, -origin, origin - (side - 1)), 0, steps)
    high = np.clip(np.where(step > 0, side - 1 - origin, origin) + 1, low, steps)
    taken = high - low
    segment = np.repeat(np.arange(len(begin)), taken)
    k = np.arange(int(taken.sum()), dtype=np.int64) - np.repeat(np.cumsum(taken) - taken, taken) + low[segment]
    # The integer error term's closed form: the minor axis has advanced
    # ceil((2·minor·k - major) / (2·major)) after k major steps.
    span = np.maximum(major[segment], 1)
    advanced = np.where(major[segment] > 0, -((span - 2 * minor[segment] * k) // (2 * span)), 0)
    along, across = k * step[segment], advanced
    is_x = x_major[segment]
    cols = col0[segment] + np.where(is_x, along, across * step_x[segment])
    rows = row0[segment] + np.where(is_x, across * step_y[segment], along)
    return segment_line[segment], rows, cols


def _bresenham_exact(
    begin: NDArray[np.float64], end: NDArray[np.float64], with_end: bool, width: int, height: int
) -> tuple[list[int], list[int]]:
    """(rows, cols) inside the image of one segment's Bresenham line, in Python's unbounded integers."""
    col0, row0, col1, row1 = (math.floor(float(value)) for value in (begin[0], begin[1], end[0], end[1]))
    run_x, run_y = abs(col1 - col0), abs(row1 - row0)
    step_x, step_y = (-1 if col0 > col1 else 1), (-1 if row0 > row1 else 1)
    x_major = run_x >= run_y
    major, minor = max(run_x, run_y), min(run_x, run_y)
    origin, step, side = (col0, step_x, width) if x_major else (row0, step_y, height)
    steps = major + with_end
    low = min(max(-origin if step > 0 else origin - (side - 1), 0), steps)
    high = min(max((side - 1 - origin if step > 0 else origin) + 1, low), steps)
    span = max(major, 1)
    rows: list[int] = []
    cols: list[int] = []
    for k in range(low, high):
        across = -((span - 2 * minor * k) // (2 * span)) if major > 0 else 0
        if x_major:
            cols.append(col0 + k * step)
            rows.append(row0 + across * step_y)
        else:
            rows.append(row0 + k * step)
            cols.append(col0 + across * step_x)
    keep = [0 <= r < height and 0 <= c < width for r, c in zip(rows, cols)]
    return [r for r, ok in zip(rows, keep) if ok], [c for c, ok in zip(cols, keep) if ok]


def cell_runs(
    line: NDArray[np.int64], rows: NDArray[np.int64], cols: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Cells sorted by line, row and column as rectangles of runs along rows: (K, 5, 2) rings, sample frame; lines."""
    if len(rows) == 0:
        return np.zeros((0, 5, 2), dtype=np.float64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(
        np.concatenate([[True], (line[1:] != line[:-1]) | (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1] + 1)])
    )
    ends = np.concatenate([starts[1:], [len(rows)]]) - 1
    row = rows[starts].astype(np.float64)
    left, right = cols[starts] - 0.5, cols[ends] + 0.5
    top, bottom = row - 0.5, row + 0.5
    xs = np.stack([left, right, right, left, left], axis=1)
    ys = np.stack([top, top, bottom, bottom, top], axis=1)
    return np.stack([xs, ys], axis=2), line[starts]


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

    `line_pixels` maps the index of each polygon that is a line (a polygon
    without rings holding its place) to the line's vertices in the pixel
    frame; one polygon whose rings are the rectangles of its cells takes its
    place.  The rectangles never overlap, so under either fill rule the
    polygon is their union.  The rings are gathered in polygon order in one
    pass, without a Python step per line.
    """
    line_polygons = np.array(sorted(line_pixels), dtype=np.int64)
    runs, run_line = cell_runs(*lines_cells([line_pixels[int(p)] for p in line_polygons], shape, all_touched))
    # A line without a cell keeps its place and member with a ring without area outside the image.
    cell_less = np.flatnonzero(np.bincount(run_line, minlength=len(line_polygons)) == 0)
    runs = np.concatenate([runs, np.full((len(cell_less), 5, 2), -1.0)])
    run_line = np.concatenate([run_line, cell_less])
    polygon_rings = np.diff(polygon_ends, prepend=0).astype(np.int64)
    polygon_rings[line_polygons] = np.bincount(run_line, minlength=len(line_polygons))
    # Every ring (the polygons' own, then the lines' runs) by its polygon, stable: each keeps its order.
    ring_counts = np.diff(ring_ends, prepend=0).astype(np.int64)
    ring_polygon = np.concatenate(
        [np.repeat(np.arange(len(polygon_ends)), np.diff(polygon_ends, prepend=0)), line_polygons[run_line]]
    )
    order = np.argsort(ring_polygon, kind="stable")
    counts = np.concatenate([ring_counts, np.full(len(run_line), 5, dtype=np.int64)])[order]
    starts = np.concatenate([np.cumsum(ring_counts) - ring_counts, len(vertices) + 5 * np.arange(len(run_line))])
    source = np.concatenate([vertices, runs.reshape(-1, 2)])
    joined = np.ascontiguousarray(source[index_ranges(starts[order], counts)], dtype=np.float64)
    return (
        joined,
        np.cumsum(counts, dtype=np.int64),
        np.cumsum(polygon_rings, dtype=np.int64),
        np.asarray(owners, dtype=np.int64),
    )
