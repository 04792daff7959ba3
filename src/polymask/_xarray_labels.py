"""Region numbers on a grid for polymask.xarray: the label image of mask_2d (and of mask_3d's one-per-point regions).

``burn`` gives the float64 numbers (NaN where no region holds a point) in
the grid's order, in memory or as a lazy Dask array.  ``region_numbers`` is
its fast path for a regular grid in memory: the numbers burned straight
into the float64 result, the same burn telling whether two regions hold a
point when overlaps are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from polymask import _core, _polygons
from polymask._describe import short_repr
from polymask._outputs import result_array
from polymask._rings import PolygonList, vertex_ranges
from polymask._threads import as_threads
from polymask._xarray_coordinates import LazyOrEager
from polymask._xarray_grids import GRID_HINT, EdgeRetries, Grid
from polymask._xarray_points import PointGrid

#: polymask._dask_blocks.checked_chunks: (chunks, shape, dtype) -> one tuple of block sizes per axis.
ChunkCheck = Callable[[Any, tuple[int, int], np.dtype[Any]], tuple[tuple[int, ...], tuple[int, ...]]]

#: Grids with more points than this are computed lazily (Dask) unless chunks= says otherwise.
LAZY_POINTS = 2**26


def region_numbers(
    grid: Grid | PointGrid, flat: PolygonList, numbers: NDArray[Any], one_each: bool, chunks: Any
) -> NDArray[np.float64] | None:
    """The numbers of the regions holding each point of a regular grid in memory, in the grid's order; else None.

    `one_each`: a point two regions hold is an error, so None then too, for
    the caller's slower path that names the two.  None also for grids this
    path does not serve (point by point, lazy, with dateline or pole points).
    """
    if isinstance(grid, PointGrid) or chunks is not None or grid.dateline_col is not None or grid.pole_row is not None:
        return None
    shape = grid.fill_shape
    if shape[0] * shape[1] > LAZY_POINTS:
        return None
    frame = grid.sample_frame(flat.vertices)
    threads = as_threads(None)
    values = np.ascontiguousarray(numbers, dtype=np.float64)
    # The numbers burned straight into the float64 result, NaN where no region holds a point; the same
    # burn tells whether two regions hold a point.
    find_overlap = one_each and not boxes_apart(frame, flat)
    out = result_array(None, shape, np.float64, fill_value=np.nan, what="grid of region numbers", hint=GRID_HINT)
    rings = (flat.ring_ends, flat.polygon_ends)
    if _polygons.rasterize(frame, *rings, values, out, 0, 0, _core.EVEN_ODD, threads, 0, False, find_overlap):
        return None
    numbers_by_point = grid.reorder(out)
    assert isinstance(numbers_by_point, np.ndarray)  # reordering an array in memory gives one
    return numbers_by_point


#: Up to this many regions, their boxes are compared pairwise before a burn that looks for overlaps.
BOXES_COMPARED = 256


def boxes_apart(frame: NDArray[np.float64], flat: PolygonList) -> bool:
    """Whether no two regions' boxes share a grid point (sample frame), so no point is in two regions.

    A point a region holds lies between its smallest and largest x and y: a
    crossing lies on each side of it, and a crossing rounds to within an ulp
    of its edge, so each box is widened by a billionth before its integers
    are taken.  False for more than BOXES_COMPARED regions (not compared).
    """
    if len(flat) > BOXES_COMPARED:
        return False
    begin, end = vertex_ranges(flat)
    starts = begin[end > begin]  # the regions holding vertices, each up to the next one's first
    if len(starts) < 2:
        return True
    low, high = np.minimum.reduceat(frame, starts, axis=0), np.maximum.reduceat(frame, starts, axis=0)
    margin = 1e-9 * np.maximum(1.0, np.maximum(np.abs(low), np.abs(high)))
    first, last = np.ceil(low - margin), np.floor(high + margin)  # the integer x and y each box may hold
    meet = np.all((first[:, None] <= last[None, :]) & (first[None, :] <= last[:, None]), axis=2)
    np.fill_diagonal(meet, False)
    return not meet.any()


def burn(grid: Grid | PointGrid, flat: PolygonList, numbers: NDArray[Any], chunks: Any) -> LazyOrEager:
    """The float64 label image (NaN background) of the regions on the grid, in the grid's order."""
    if isinstance(grid, PointGrid):
        return grid.labels(flat, numbers, point_chunks(chunks, int(np.prod(grid.fill_shape))))
    vertices = grid.sample_frame(flat.vertices)
    frame = PolygonList(vertices, flat.ring_ends, flat.polygon_ends)
    values = np.ascontiguousarray(numbers, dtype=np.float64)
    edges = grid.edge_points(flat, values)  # for the points on the dateline or the pole no region took
    points = grid.fill_shape[0] * grid.fill_shape[1]
    if chunks is None and points <= LAZY_POINTS:
        out = result_array(
            None, grid.fill_shape, np.float64, fill_value=np.nan, what="grid of region numbers", hint=GRID_HINT
        )
        _polygons.rasterize(
            frame.vertices, frame.ring_ends, frame.polygon_ends, values, out, 0, 0, _core.EVEN_ODD, as_threads(None)
        )
        if edges is not None:
            edges.patch(out, 0, 0)
        return grid.reorder(out)
    import dask.array as da
    from dask.delayed import delayed  # dask's namespace re-exports it without declaring it

    from polymask._dask_blocks import DEFAULT_CHUNK, Burn, block_starts, checked_chunks, rasterize_block

    # The lazy burn's background is 0, so burn index + 1 and look the numbers up per block.
    indices = np.arange(1, len(flat) + 1, dtype=np.int32)
    blocks = block_chunks(checked_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape, indices.dtype)
    polygons = delayed(Burn(frame, indices), pure=True)  # one key: every block shares the polygons
    # (dask leaves map_blocks unannotated)
    labels: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]
        rasterize_block,
        polygons,
        _core.EVEN_ODD,
        1,
        block_starts(blocks),
        chunks=blocks,
        dtype=indices.dtype,
        meta=np.empty((0, 0), dtype=indices.dtype),
    )
    table = np.concatenate([[np.nan], values])
    numbers_lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]
        lookup, labels, table, edges, dtype=np.float64, meta=np.empty((0, 0))
    )
    return grid.reorder(numbers_lazy)


def point_chunks(chunks: Any, points: int) -> Any:
    """Dask chunks for a grid tested point by point: `chunks`, or the default for a grid too large to hold."""
    if chunks is None and points > LAZY_POINTS:
        from polymask.dask import DEFAULT_CHUNK

        return DEFAULT_CHUNK
    return chunks


def block_chunks(
    normalize: ChunkCheck, chunks: Any, shape: tuple[int, int], dtype: DTypeLike
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """polymask.dask's chunk check, with zero-sized blocks refused here too."""
    try:
        return normalize(chunks, shape, np.dtype(dtype))
    except ZeroDivisionError:  # dask divides by a zero block size before it validates
        raise ValueError(
            f"chunks must be positive block sizes for a grid of shape {shape}, got {short_repr(chunks)}"
        ) from None


def lookup(
    block: NDArray[np.int32],
    table: NDArray[np.float64],
    edges: EdgeRetries | None,
    block_info: Mapping[int | None, Mapping[str, Any]] | None = None,
) -> NDArray[np.float64]:
    """Region numbers (NaN for 0) of a block of burned indices, the edge points patched."""
    numbers = table[block]
    if edges is not None:
        assert block_info is not None  # dask passes it to every block of map_blocks
        (row0, _), (col0, _) = block_info[0]["array-location"]
        edges.patch(numbers, row0, col0)
    return numbers


def numbers_of(last: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Region numbers of region indices (NaN: none; table[-1] is NaN)."""
    return table[np.where(np.isnan(last), -1, last).astype(np.intp)]


def one_region(
    last: np.ndarray, first: np.ndarray, block_info: Mapping[int | None, Mapping[str, Any]] | None = None
) -> np.ndarray:
    """`last`, or ValueError where a point's latest and earliest region differ: two regions hold it.

    Of a Dask block, `block_info` places it in the grid, so the message
    names the point's index in the whole grid, not in the block.
    """
    same = (last == first) | (np.isnan(last) & np.isnan(first))
    if not same.all():
        where = np.unravel_index(int(np.argmin(same)), same.shape)
        origin = [0] * last.ndim if block_info is None else [begin for begin, _ in block_info[0]["array-location"]]
        index = tuple(int(k) + begin for k, begin in zip(where, origin))
        raise ValueError(
            f"regions {int(first[where])} and {int(last[where])} (by position) both hold the grid "
            f"point at index {index}: a 2-D mask gives each point one number; "
            "use mask_3d, or pass later_wins=True for the later region's number"
        )
    return last


def reversed_regions(flat: PolygonList) -> PolygonList:
    """The same regions in reverse order."""
    begins, ends = vertex_ranges(flat)
    ring_begins = np.concatenate([[0], flat.polygon_ends[:-1]]).astype(np.int64)
    vertices, ring_ends, polygon_ends, at, rings = [], [], [], 0, 0
    for p in range(len(flat) - 1, -1, -1):
        vertices.append(flat.vertices[begins[p] : ends[p]])
        ring_ends.append(flat.ring_ends[ring_begins[p] : flat.polygon_ends[p]] - begins[p] + at)
        at += int(ends[p] - begins[p])
        rings += int(flat.polygon_ends[p] - ring_begins[p])
        polygon_ends.append(rings)
    return PolygonList(
        np.ascontiguousarray(np.concatenate(vertices)),
        np.concatenate(ring_ends).astype(np.int64),
        np.asarray(polygon_ends, dtype=np.int64),
    )
