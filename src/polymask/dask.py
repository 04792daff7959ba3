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

from typing import Any, Literal

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

from polymask import _inputs
from polymask._arguments import as_all_touched, as_fill_rule, as_shape
from polymask._coverage import coverage_dtype
from polymask._dask_blocks import DEFAULT_CHUNK as DEFAULT_CHUNK  # documented as this module's, like MAX_BLOCKS
from polymask._dask_blocks import MAX_BLOCKS as MAX_BLOCKS
from polymask._dask_blocks import (
    Burn,
    block_starts,
    checked_chunks,
    coverage_block,
    mask_block,
    rasterize_block,
)
from polymask._label_dtypes import label_dtype
from polymask._lines import LineRaster
from polymask._rasterize import MergeRule, as_merge, merged_burn, polygons_and_labels
from polymask._rings import PolygonList, Rings
from polymask._shapes import shapes_and_values
from polymask._threads import as_threads
from polymask.typing import AllTouched, DTypeLike, FillRule, PolygonLike, PolygonsLike, ShapeLike, TransformLike

__all__ = ["coverage", "mask", "rasterize"]

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
    rings = _snapshot_rings(_inputs.polygon(vertices, transform, fill_rule=fill_rule))  # mapped once, for every block
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    block_chunks = checked_chunks(chunks, rows_cols, np.dtype(bool))
    touched = as_all_touched(all_touched)
    token = dask.base.tokenize(rings.vertices, rings.ring_ends, rows_cols, rule, block_chunks, touched)
    polygon = delayed(rings, name=f"polymask-polygon-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        mask_block, polygon, rule, thread_count, block_starts(block_chunks), all_touched=touched,
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
    polygons, values = shapes_and_values(polygons, values)  # rasterio's (geometry, value) pairs
    rule_of_merge = as_merge(merge, values)
    requested = label_dtype(dtype, None)
    rows_cols = as_shape(shape)
    touched = as_all_touched(all_touched)
    flat, labels = polygons_and_labels(polygons, values, transform, requested, invalid,
                                       LineRaster(rows_cols, bool(touched)))
    flat, labels, add = merged_burn(flat, labels, rule_of_merge, requested is None)
    flat = PolygonList(flat.vertices.copy(), flat.ring_ends.copy(), flat.polygon_ends.copy())  # a snapshot
    labels = labels.copy()  # may be a view of `values`
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    block_chunks = checked_chunks(chunks, rows_cols, labels.dtype)
    token = dask.base.tokenize(flat.vertices, flat.ring_ends, flat.polygon_ends, labels, rows_cols, rule,
                               block_chunks, touched, add)
    burn = delayed(Burn(flat, labels), name=f"polymask-polygons-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        rasterize_block, burn, rule, thread_count, block_starts(block_chunks), all_touched=touched, add=add,
        chunks=block_chunks, dtype=labels.dtype, meta=np.empty((0, 0), dtype=labels.dtype),
        name=f"polymask-rasterize-{token}")
    return lazy


def _snapshot_rings(rings: Rings) -> Rings:
    """A copy of validated rings: the graph must not see later changes to the caller's arrays."""
    ring_ends = None if rings.ring_ends is None else rings.ring_ends.copy()
    return Rings(rings.vertices.copy(), ring_ends)


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
    >>> square = [(0, 0), (2, 0), (2, 2), (0, 2)]
    >>> fractions = polymask.dask.coverage(square, (4, 4), chunks=2)
    >>> fractions.dtype, float(fractions.sum().compute())
    (dtype('float64'), 4.0)
    """
    snapshot = _snapshot_rings(_inputs.polygon(polygon, transform, "polygon", fill_rule=fill_rule))  # a snapshot
    coordinates, ring_ends = snapshot.vertices, snapshot.ring_ends
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    fraction_dtype = coverage_dtype(dtype, None)
    block_chunks = checked_chunks(chunks, rows_cols, fraction_dtype)
    token = dask.base.tokenize(coordinates, ring_ends, rows_cols, rule, fraction_dtype.str, block_chunks)
    rings = delayed((coordinates, ring_ends), name=f"polymask-coverage-polygon-{token}", pure=True)
    lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
        coverage_block, rings, rule, thread_count, fraction_dtype, block_starts(block_chunks), chunks=block_chunks,
        dtype=fraction_dtype, meta=np.empty((0, 0), dtype=fraction_dtype), name=f"polymask-coverage-{token}")
    return lazy
