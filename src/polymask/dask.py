"""Gigapixel masks and label images as lazy Dask arrays.

``polymask.dask.mask`` and ``polymask.dask.rasterize`` take the same
polygons as ``polymask.mask`` and ``polymask.rasterize`` but return a
``dask.array.Array``: nothing is computed until asked, and each block is
filled by the C++ core through a window of the full image, so a
100,000 x 100,000 mask never exists in one piece.  Every block equals the
same slice of the in-memory result, bit for bit (the core's windows are
exact), so the blocks run anywhere -- threads, processes, a
dask.distributed cluster -- and can be stored straight to Zarr::

    import polymask.dask
    big = polymask.dask.mask(vertices, (100_000, 100_000), chunks=8192)
    big.to_zarr("mask.zarr")          # block by block, in parallel

The polygon is validated once, here, and a copy of it enters the graph as
a single key that every block depends on, so it travels to each worker
once, not once per block, and changing the caller's array afterwards
changes nothing.  The graph costs O(1) memory per block: each block finds
its window from its block index and the chunk boundaries (one list per
axis), so building it takes no time per block; chunkings of more than
``MAX_BLOCKS`` blocks (a module constant) are refused with a clear error.

Dask is an optional extra (``pip install 'polymask[dask]'``); importing
``polymask`` never imports it, and importing this module without it raises
an ImportError that says how to install it.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Any, Literal, NoReturn

try:
    import dask
    import dask.array as da
    from dask.delayed import delayed  # dask's namespace re-exports it without declaring it
except ImportError as error:  # pragma: no cover - exercised by a test that hides dask
    raise ImportError(
        "polymask.dask needs Dask, which is not installed: pip install 'polymask[dask]' "
        f"(dask[array], distributed, zarr); the rest of polymask works without it ({error})"
    ) from error

import numpy as np
from numpy.typing import ArrayLike

from polymask import _core, _coverage_sweep, _inputs, _polygons
from polymask._bounds import polygon_bounds
from polymask._coverage import _coverage_dtype
from polymask._describe import short_repr
from polymask._rasterize import MergeRule, _label_dtype, as_merge, merged_burn, polygons_and_labels
from polymask._rings import PolygonList, Rings
from polymask._threads import as_threads
from polymask._validation import as_all_touched, as_fill_rule, as_shape
from polymask.typing import AllTouched, DTypeLike, FillRule, PolygonLike, PolygonsLike, ShapeLike, TransformLike

__all__ = ["coverage", "mask", "rasterize"]

#: Default block side: 4096 x 4096 is 16 MiB of mask, 64 MiB of int32
#: labels -- big enough that the per-block overhead vanishes, small enough
#: for many blocks in flight per worker.
DEFAULT_CHUNK = 4096

#: Most blocks a graph may have.  Each block is a Dask task when computed
#: (about a kilobyte of scheduler memory and a fraction of a millisecond
#: of overhead each); beyond a million, larger chunks are always better.
MAX_BLOCKS = 1_000_000


def mask(vertices: PolygonLike, shape: ShapeLike, *, chunks: Any = DEFAULT_CHUNK, fill_rule: FillRule = "evenodd",
         threads: int = 1, transform: TransformLike | None = None, all_touched: AllTouched = False) -> da.Array:
    """The mask of ``polymask.mask(vertices, shape)`` as a lazy bool Dask array.

    Parameters
    ----------
    vertices : polygon
        As in :func:`polymask.mask` (one ring, rings, GeoJSON-like, shapely).
    shape : (rows, cols)
        The image shape; both at least 1.
    chunks : int, tuple or "auto", optional
        Block sizes, anything ``dask.array`` accepts; default 4096 x 4096.
    fill_rule : {"evenodd", "nonzero"}, optional
        As in :func:`polymask.mask`.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Per block; 1 unless given, because Dask already runs blocks in parallel.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Georeferenced cells, as in :func:`polymask.mask`.
    all_touched : bool or "exact", optional
        The pixels whose cells the region reaches, as in
        :func:`polymask.mask` (rasterio's ``all_touched``).

    Returns
    -------
    dask.array.Array
        Bool, of `shape`; block (i, j) is filled by the core's window fill
        and equals the same slice of ``polymask.mask(vertices, shape)``.

    Raises
    ------
    ImportError
        If Dask is not installed (the message says how to install it).
    TypeError
        If a polygon is of no form polymask reads, or an argument is of the
        wrong type.
    ValueError
        If a coordinate is not finite, `shape` is not positive, `all_touched`
        is not True, False or "exact", or `chunks` makes blocks of no pixel
        or more blocks than a graph may hold.

    Examples
    --------
    >>> import polymask.dask
    >>> lazy = polymask.dask.mask([(1, 1), (6, 1), (6, 5)], (8, 8), chunks=4)
    >>> lazy.numblocks, lazy.dtype
    ((2, 2), dtype('bool'))
    >>> bool((lazy.compute() == polymask.mask([(1, 1), (6, 1), (6, 5)], (8, 8))).all())
    True
    """
    rings = _snapshot_rings(_inputs.polygon(vertices, transform))  # mapped once: blocks get sample-frame vertices
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    block_chunks = _chunks(chunks, rows_cols, np.dtype(bool))
    touched = as_all_touched(all_touched)
    token = dask.base.tokenize(rings.vertices, rings.ring_ends, rows_cols, rule, block_chunks, touched)
    polygon = delayed(rings, name=f"polymask-polygon-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        _mask_block, polygon, rule, thread_count, _block_starts(block_chunks), all_touched=touched,
        chunks=block_chunks, dtype=bool, meta=np.empty((0, 0), dtype=bool), name=f"polymask-mask-{token}")
    return lazy


def rasterize(polygons: PolygonsLike, shape: ShapeLike, values: ArrayLike | str | None = None, *,
              dtype: DTypeLike | None = None, chunks: Any = DEFAULT_CHUNK, fill_rule: FillRule = "evenodd",
              threads: int = 1, transform: TransformLike | None = None, all_touched: AllTouched = False,
              invalid: Literal["raise", "skip"] = "raise", merge: MergeRule = "last") -> da.Array:
    """The label image of ``polymask.rasterize(polygons, shape, values)`` as a lazy Dask array.

    Each block burns every polygon that reaches it, in order, through the
    core's window, so it equals the same slice of the in-memory label image.

    Parameters
    ----------
    polygons : sequence of polygons, GeoDataFrame or GeoSeries
        As in :func:`polymask.rasterize`.
    shape : (rows, cols)
        The image shape; both at least 1.
    values : array_like or str, optional
        One label per polygon, or a GeoDataFrame's column name (default
        1, 2, ..., P); the background is 0.
    dtype : numpy.dtype, optional
        The label type, as in :func:`polymask.rasterize`.
    chunks : int, tuple or "auto", optional
        Block sizes, anything ``dask.array`` accepts; default 4096 x 4096.
    fill_rule : {"evenodd", "nonzero"}, optional
        As in :func:`polymask.mask`.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Per block; 1 unless given, because Dask already runs blocks in parallel.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Georeferenced cells, as in :func:`polymask.mask`.
    all_touched : bool or "exact", optional
        As in :func:`polymask.rasterize`.
    invalid : {"raise", "skip"}, optional
        As in :func:`polymask.rasterize`: "skip" leaves out refused and empty
        polygons with one warning, when the array is made.
    merge : {"last", "first", "add", "min", "max", "count"}, optional
        As in :func:`polymask.rasterize`; every block burns by the same rule.

    Returns
    -------
    dask.array.Array
        The labels, of `shape`; block (i, j) equals the same slice of
        ``polymask.rasterize(polygons, shape, values)``.

    Raises
    ------
    ImportError
        If Dask is not installed (the message says how to install it).
    TypeError
        If a polygon is of no form polymask reads, or an argument is of the
        wrong type.
    ValueError
        If a coordinate is not finite, `shape` is not positive, `all_touched`
        is not True, False or "exact", or `chunks` makes blocks of no pixel
        or more blocks than a graph may hold.

    Examples
    --------
    >>> import polymask.dask
    >>> left, right = [(0, 0), (4, 0), (4, 4), (0, 4)], [(4, 0), (8, 0), (8, 4)]
    >>> labels = polymask.dask.rasterize([left, right], (8, 8), chunks=4)
    >>> labels.compute()[1]
    array([1, 1, 1, 1, 0, 2, 2, 2], dtype=uint8)
    """
    rule_of_merge = as_merge(merge, values)
    requested = _label_dtype(dtype, None)
    flat, labels = polygons_and_labels(polygons, values, transform, requested, invalid)
    flat, labels, add = merged_burn(flat, labels, rule_of_merge, requested is None)
    flat = PolygonList(flat.vertices.copy(), flat.ring_ends.copy(), flat.polygon_ends.copy())  # a snapshot
    labels = labels.copy()  # may be a view of `values`
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    block_chunks = _chunks(chunks, rows_cols, labels.dtype)
    touched = as_all_touched(all_touched)
    token = dask.base.tokenize(flat.vertices, flat.ring_ends, flat.polygon_ends, labels, rows_cols, rule,
                               block_chunks, touched, add)
    burn = delayed(_Burn(flat, labels), name=f"polymask-polygons-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        _rasterize_block, burn, rule, thread_count, _block_starts(block_chunks), all_touched=touched, add=add,
        chunks=block_chunks, dtype=labels.dtype, meta=np.empty((0, 0), dtype=labels.dtype),
        name=f"polymask-rasterize-{token}")
    return lazy


class _Burn:
    """What every block of a label image needs: the flat polygons, their labels, and their boxes.

    A block burns only the polygons whose box comes within two pixels of it
    (in order, so later still lands over earlier): every block used to
    build every polygon in the core (200,000 polygons in 16 blocks: 2.9 s,
    against 0.5 s for the image in memory).  Two pixels dwarf the rounding of the core's crossings and
    cover all_touched's half pixel; a polygon with a coordinate beyond 2^40
    goes to every block, as its crossings may land anywhere (the core then
    decides, as for the in-memory image).
    """

    __slots__ = ("polygons", "labels", "boxes", "rings")

    def __init__(self, polygons: PolygonList, labels: np.ndarray):
        self.polygons = polygons
        self.labels = labels
        self.boxes = _polygon_boxes(polygons)
        self.rings = _RingIndex(polygons)

    def reaching(self, row0: int, col0: int, height: int, width: int) -> tuple[PolygonList, np.ndarray]:
        """The polygons (and labels) whose boxes come within two pixels of the window, in their order."""
        y_min, y_max, x_min, x_max = self.boxes.T
        near = (y_max >= row0 - 2) & (y_min <= row0 + height + 2) & (x_max >= col0 - 2) & (x_min <= col0 + width + 2)
        chosen = np.flatnonzero(near)
        if len(chosen) == len(self.labels):
            return self.polygons, self.labels
        return self.rings.subset(self.polygons, chosen), self.labels[chosen]


#: Beyond this coordinate the core's crossings may err by whole pixels (cell_geometry.hpp).
_FAR = 2.0 ** 40


def _polygon_boxes(flat: PolygonList) -> np.ndarray:
    """(P, 4) rows (y_min, y_max, x_min, x_max) of each polygon's vertices.

    A polygon with no vertex gets an empty box (never chosen); one with a
    coordinate beyond 2^40 an infinite one (always chosen).
    """
    boxes = np.tile([np.inf, -np.inf, np.inf, -np.inf], (len(flat), 1))
    has_vertices, low, high = polygon_bounds(flat.vertices, flat)
    if not has_vertices.any():
        return boxes
    boxes[has_vertices] = np.column_stack([low[:, 1], high[:, 1], low[:, 0], high[:, 0]])
    far = has_vertices & (np.abs(boxes).max(axis=1) > _FAR)
    boxes[far] = [-np.inf, np.inf, -np.inf, np.inf]
    return boxes


def _concatenated_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """starts[i], starts[i] + 1, ..., starts[i] + counts[i] - 1 for every i, concatenated."""
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + np.arange(ends[-1] if len(ends) else 0)


class _RingIndex:
    """Where each polygon's rings and each ring's vertices lie in a PolygonList, for taking subsets of it."""

    __slots__ = ("first_ring", "ring_counts", "ring_ends", "ring_lengths")

    def __init__(self, flat: PolygonList):
        self.first_ring = np.concatenate([[0], flat.polygon_ends[:-1]]).astype(np.int64)
        self.ring_counts = flat.polygon_ends.astype(np.int64) - self.first_ring
        self.ring_ends = flat.ring_ends.astype(np.int64)
        self.ring_lengths = np.diff(self.ring_ends, prepend=0)

    def subset(self, flat: PolygonList, chosen: np.ndarray) -> PolygonList:
        """The polygons `chosen` (ascending indices) of `flat`, as a PolygonList of their own."""
        rings = _concatenated_ranges(self.first_ring[chosen], self.ring_counts[chosen])
        lengths = self.ring_lengths[rings]
        vertices = _concatenated_ranges(self.ring_ends[rings] - lengths, lengths)
        return PolygonList(np.ascontiguousarray(flat.vertices[vertices]), np.cumsum(lengths),
                           np.cumsum(self.ring_counts[chosen]))


def _snapshot_rings(rings: Rings) -> Rings:
    """A copy of validated rings: the graph must not see later changes to the caller's arrays."""
    ring_ends = None if rings.ring_ends is None else rings.ring_ends.copy()
    return Rings(rings.vertices.copy(), ring_ends)


def _chunks(chunks: Any, shape: tuple[int, int], dtype: np.dtype) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Dask's block sizes for `chunks`, at most MAX_BLOCKS blocks of at least one pixel; ValueError otherwise."""
    expected = f"chunks must be block sizes for an array of shape {shape}, positive integers"
    count = _simple_block_count(chunks, shape)  # before normalizing: chunks=1 on a huge image is refused cheaply
    if count is not None and count > MAX_BLOCKS:
        _refuse_block_count(chunks, count)
    try:
        # (dask leaves normalize_chunks unannotated; it returns one tuple of sizes per axis)
        normalized: tuple[tuple[int, ...], tuple[int, ...]] = da.core.normalize_chunks(  # type: ignore[no-untyped-call]
            chunks, shape, dtype=dtype)
    except (ValueError, TypeError, ZeroDivisionError, RecursionError) as error:  # chunks=0 divides by zero inside Dask
        raise ValueError(f"{expected}, got {short_repr(chunks)}: {error or type(error).__name__}") from None
    if any(size < 1 for sizes in normalized for size in sizes):
        raise ValueError(f"{expected}, got {short_repr(chunks)}: a block of size 0")
    count = len(normalized[0]) * len(normalized[1])
    if count > MAX_BLOCKS:
        _refuse_block_count(chunks, count)
    return normalized


def _simple_block_count(chunks: Any, shape: tuple[int, int]) -> int | None:
    """The block count of an int or (int, int) chunking, without building it; None for other forms."""
    sizes = chunks if isinstance(chunks, tuple) and len(chunks) == 2 else (chunks, chunks)
    try:
        sides = [operator.index(size) for size in sizes]
    except TypeError:
        return None
    if any(side < 1 for side in sides):
        return None  # -1 (whole axis) is fine; 0 and the rest are for normalize_chunks to judge
    return math.ceil(shape[0] / sides[0]) * math.ceil(shape[1] / sides[1])


def _refuse_block_count(chunks: Any, count: int) -> NoReturn:
    raise ValueError(f"chunks={short_repr(chunks)} would make {count:,} blocks; at most {MAX_BLOCKS:,} are allowed "
                     f"(each block is a Dask task); use larger chunks, such as the default {DEFAULT_CHUNK}")


def _block_starts(block_chunks: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The first row of each block row and the first column of each block column, plus the ends."""
    row_sizes, col_sizes = block_chunks
    return tuple(itertools.accumulate(row_sizes, initial=0)), tuple(itertools.accumulate(col_sizes, initial=0))


def _window(block_id: Any, starts: Any) -> tuple[int, int, int, int]:
    """(row0, col0, height, width) of block `block_id`, from the chunk boundaries."""
    (row_block, col_block), (row_starts, col_starts) = block_id, starts
    row0, col0 = row_starts[row_block], col_starts[col_block]
    return row0, col0, row_starts[row_block + 1] - row0, col_starts[col_block + 1] - col0


def _mask_block(rings: Any, rule: int, threads: int, starts: Any, all_touched: int = 0,
                block_id: Any = None) -> np.ndarray:
    row0, col0, height, width = _window(block_id, starts)
    block = np.zeros((height, width), dtype=bool)  # calloc: only the spans are written
    if all_touched:
        _coverage_sweep.fill_touched(rings.vertices, block.view(np.uint8), row0, col0, rule, threads,
                                     rings.ring_ends, True, all_touched)
    else:
        _core.fill(rings.vertices, block.view(np.uint8), row0=row0, col0=col0, rule=rule, threads=threads,
                   ring_ends=rings.ring_ends, zeroed=True)
    return block


def _rasterize_block(burn: _Burn, rule: int, threads: int, starts: Any, all_touched: int = 0,
                     add: bool = False, block_id: Any = None) -> np.ndarray:
    row0, col0, height, width = _window(block_id, starts)
    block = np.zeros((height, width), dtype=burn.labels.dtype)
    flat, labels = burn.reaching(row0, col0, height, width)
    _polygons.rasterize(flat.vertices, flat.ring_ends, flat.polygon_ends, labels, block, row0, col0, rule,
                        threads, all_touched, add)
    return block


# ---- coverage fractions (polymask.coverage, block by block) ----------------

def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", dtype: DTypeLike | None = None, chunks: Any = DEFAULT_CHUNK,
             threads: int = 1) -> da.Array:
    """The fractions of ``polymask.coverage(polygon, shape)`` as a lazy Dask array.

    Each block is the coverage sweep over the block's window, so it equals
    the same slice of the in-memory result exactly.

    Parameters
    ----------
    polygon : polygon
        As in :func:`polymask.coverage`.
    shape : (rows, cols)
        The image shape; both at least 1.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Georeferenced cells, as in :func:`polymask.mask`.
    fill_rule : {"evenodd", "nonzero"}, optional
        As in :func:`polymask.coverage`.
    dtype : numpy.dtype, optional
        The fractions' type, as in :func:`polymask.coverage` (default float64).
    chunks : int, tuple or "auto", optional
        Block sizes, anything ``dask.array`` accepts; default 4096 x 4096.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Per block; 1 unless given, because Dask already runs blocks in parallel.

    Returns
    -------
    dask.array.Array
        The fractions, of `shape`; block (i, j) equals the same slice of
        ``polymask.coverage(polygon, shape)``.

    Raises
    ------
    ImportError
        If Dask is not installed (the message says how to install it).
    TypeError
        If a polygon is of no form polymask reads, or an argument is of the
        wrong type.
    ValueError
        If a coordinate is not finite, `shape` is not positive, or `chunks`
        makes blocks of no pixel or more blocks than a graph may hold.

    Examples
    --------
    >>> import polymask.dask
    >>> fractions = polymask.dask.coverage([(0, 0), (2, 0), (2, 2), (0, 2)], (4, 4), chunks=2)
    >>> fractions.dtype, float(fractions.sum().compute())
    (dtype('float64'), 4.0)
    """
    snapshot = _snapshot_rings(_inputs.polygon(polygon, transform, "polygon"))  # the graph never sees later changes
    coordinates, ring_ends = snapshot.vertices, snapshot.ring_ends
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    fraction_dtype = _coverage_dtype(dtype, None)
    block_chunks = _chunks(chunks, rows_cols, fraction_dtype)
    token = dask.base.tokenize(coordinates, ring_ends, rows_cols, rule, fraction_dtype.str, block_chunks)
    rings = delayed((coordinates, ring_ends), name=f"polymask-coverage-polygon-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        _coverage_block, rings, rule, thread_count, fraction_dtype, _block_starts(block_chunks), chunks=block_chunks,
        dtype=fraction_dtype, meta=np.empty((0, 0), dtype=fraction_dtype), name=f"polymask-coverage-{token}")
    return lazy


def _coverage_block(rings: Any, rule: int, threads: int, dtype: np.dtype, starts: Any,
                    block_id: Any = None) -> np.ndarray:
    coordinates, ring_ends = rings
    row0, col0, height, width = _window(block_id, starts)
    block = np.zeros((height, width), dtype=dtype)  # calloc: only the cells the region meets are written
    _coverage_sweep.coverage(coordinates, block, row0, col0, rule, threads, ring_ends, True)
    return block
