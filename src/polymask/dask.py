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

The polygon is validated once, here, and enters the graph as a single
key that every block depends on, so it travels to each worker once, not
once per block.

Dask is an optional extra (``pip install 'polymask[dask]'``); importing
``polymask`` never imports it, and importing this module without it raises
an ImportError that says how to install it.
"""
from __future__ import annotations

try:
    import dask
    import dask.array as da
except ImportError as error:  # pragma: no cover - exercised by a test that hides dask
    raise ImportError(
        "polymask.dask needs Dask, which is not installed: pip install 'polymask[dask]' "
        f"(dask[array], distributed, zarr); the rest of polymask works without it ({error})"
    ) from error

import numpy as np

from polymask import _core
from polymask._rasterize import _label_dtype, _label_values
from polymask._rings import as_polygon_list, as_rings
from polymask._validation import as_fill_rule, as_shape, as_threads

__all__ = ["coverage", "mask", "rasterize"]

#: Default block side: 4096 x 4096 is 16 MiB of mask, 64 MiB of int32
#: labels -- big enough that the per-block overhead vanishes, small enough
#: for many blocks in flight per worker.
DEFAULT_CHUNK = 4096


def mask(vertices, shape, *, chunks=DEFAULT_CHUNK, fill_rule="evenodd", threads=1) -> "da.Array":
    """The mask of ``polymask.mask(vertices, shape)`` as a lazy bool Dask array.

    Parameters
    ----------
    vertices, shape, fill_rule
        As in ``polymask.mask`` (one ring, rings, GeoJSON-like, shapely).
    chunks : int, tuple or "auto"
        Block sizes, anything ``dask.array`` accepts; default 4096 x 4096.
    threads : int
        Core threads per block; default 1, because Dask already runs blocks
        in parallel.  0 means all cores.

    Returns
    -------
    dask.array.Array
        bool, of `shape`; block (i, j) is filled by the core's window fill
        and equals the same slice of ``polymask.mask(vertices, shape)``.
    """
    rings = as_rings(vertices)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    block_chunks = _chunks(chunks, rows_cols, np.dtype(bool))
    token = dask.base.tokenize(rings.vertices, rings.ring_ends, rows_cols, rule, block_chunks)
    polygon = dask.delayed(rings, name=f"polymask-polygon-{token}", pure=True)
    return da.map_blocks(_mask_block, polygon, rule, thread_count, chunks=block_chunks, dtype=bool,
                         meta=np.empty((0, 0), dtype=bool), name=f"polymask-mask-{token}")


def rasterize(polygons, shape, values=None, *, dtype=None, chunks=DEFAULT_CHUNK, fill_rule="evenodd",
              threads=1) -> "da.Array":
    """The label image of ``polymask.rasterize(polygons, shape, values)`` as a lazy Dask array.

    Parameters are those of ``polymask.rasterize`` (background 0, no
    `out`), plus `chunks` and per-block `threads` as in :func:`mask`.
    Each block burns every polygon that reaches it, in order, through the
    core's window, so it equals the same slice of the in-memory label image.
    """
    flat = as_polygon_list(polygons)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    labels = _label_values(values, len(flat), _label_dtype(dtype, None))
    block_chunks = _chunks(chunks, rows_cols, labels.dtype)
    token = dask.base.tokenize(flat.vertices, flat.ring_ends, flat.polygon_ends, labels, rows_cols, rule,
                               block_chunks)
    burn = dask.delayed(_Burn(flat, labels), name=f"polymask-polygons-{token}", pure=True)
    return da.map_blocks(_rasterize_block, burn, rule, thread_count, chunks=block_chunks, dtype=labels.dtype,
                         meta=np.empty((0, 0), dtype=labels.dtype), name=f"polymask-rasterize-{token}")


class _Burn:
    """What every block of a label image needs: the flat polygons and their labels."""

    __slots__ = ("polygons", "labels")

    def __init__(self, polygons, labels):
        self.polygons = polygons
        self.labels = labels


def _chunks(chunks, shape: tuple[int, int], dtype: np.dtype) -> tuple[tuple[int, ...], tuple[int, ...]]:
    try:
        return da.core.normalize_chunks(chunks, shape, dtype=dtype)
    except (ValueError, TypeError) as error:
        raise ValueError(f"chunks must be block sizes for an array of shape {shape}, got {chunks!r}: {error}") from None


def _window(block_info) -> tuple[int, int, int, int]:
    """(row0, col0, height, width) of the block being computed."""
    (row_begin, row_end), (col_begin, col_end) = block_info[None]["array-location"]
    return row_begin, col_begin, row_end - row_begin, col_end - col_begin


def _mask_block(rings, rule: int, threads: int, block_info=None) -> np.ndarray:
    row0, col0, height, width = _window(block_info)
    block = np.empty((height, width), dtype=bool)
    _core.fill(rings.vertices, block.view(np.uint8), row0, col0, rule, threads, False, rings.ring_ends)
    return block


def _rasterize_block(burn: _Burn, rule: int, threads: int, block_info=None) -> np.ndarray:
    row0, col0, height, width = _window(block_info)
    block = np.zeros((height, width), dtype=burn.labels.dtype)
    flat = burn.polygons
    _core.rasterize(flat.vertices, flat.ring_ends, flat.polygon_ends, burn.labels, block, row0, col0, rule,
                    threads)
    return block


# ---- coverage fractions (polymask.coverage, block by block) ----------------

def coverage(polygon, shape, *, transform=None, fill_rule="evenodd", dtype=None, chunks=DEFAULT_CHUNK,
             threads=1) -> "da.Array":
    """The fractions of ``polymask.coverage(polygon, shape)`` as a lazy Dask array.

    Parameters are those of ``polymask.coverage`` (no `out` or `window`),
    plus `chunks` and per-block `threads` as in :func:`mask`.  Each block is
    the coverage sweep over the block's window, so it equals the same slice
    of the in-memory result exactly.
    """
    from polymask import _coverage

    coordinates, ring_ends = _coverage._polygon_in_sample_frame(polygon, transform)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    fraction_dtype = _coverage._coverage_dtype(dtype, None)
    block_chunks = _chunks(chunks, rows_cols, fraction_dtype)
    token = dask.base.tokenize(coordinates, ring_ends, rows_cols, rule, fraction_dtype.str, block_chunks)
    rings = dask.delayed((coordinates, ring_ends), name=f"polymask-coverage-polygon-{token}", pure=True)
    return da.map_blocks(_coverage_block, rings, rule, thread_count, fraction_dtype, chunks=block_chunks,
                         dtype=fraction_dtype, meta=np.empty((0, 0), dtype=fraction_dtype),
                         name=f"polymask-coverage-{token}")


def _coverage_block(rings, rule: int, threads: int, dtype: np.dtype, block_info=None) -> np.ndarray:
    from polymask import _coverage_sweep

    coordinates, ring_ends = rings
    row0, col0, height, width = _window(block_info)
    block = np.empty((height, width), dtype=dtype)
    _coverage_sweep.coverage(coordinates, block, row0, col0, rule, threads, ring_ends)
    return block
