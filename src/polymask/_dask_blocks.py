"""What one block of polymask.dask's lazy arrays needs, and how big the blocks are.

polymask.dask builds the graphs; each block runs a function of this module
on a worker: it finds its window from its block index and the chunk
boundaries, and fills it through the core.  polymask.xarray's lazy grids
use the same blocks.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Any, NoReturn

import dask.array as da
import numpy as np

from polymask import _core, _coverage_sweep, _polygons
from polymask._bounds import polygon_bounds
from polymask._describe import short_repr
from polymask._outputs import result_array
from polymask._rings import PolygonList

#: Default block side: 4096 x 4096 is 16 MiB of mask, 64 MiB of int32
#: labels -- big enough that the per-block overhead vanishes, small enough
#: for many blocks in flight per worker.
DEFAULT_CHUNK = 4096

#: Most blocks a graph may have.  Each block is a Dask task when computed
#: (about a kilobyte of scheduler memory and a fraction of a millisecond
#: of overhead each); beyond a million, larger chunks are always better.
MAX_BLOCKS = 1_000_000


class Burn:
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


def checked_chunks(chunks: Any, shape: tuple[int, int], dtype: np.dtype) -> tuple[tuple[int, ...], tuple[int, ...]]:
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


def block_starts(block_chunks: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The first row of each block row and the first column of each block column, plus the ends."""
    row_sizes, col_sizes = block_chunks
    return tuple(itertools.accumulate(row_sizes, initial=0)), tuple(itertools.accumulate(col_sizes, initial=0))


def _window(block_id: Any, starts: Any) -> tuple[int, int, int, int]:
    """(row0, col0, height, width) of block `block_id`, from the chunk boundaries."""
    (row_block, col_block), (row_starts, col_starts) = block_id, starts
    row0, col0 = row_starts[row_block], col_starts[col_block]
    return row0, col0, row_starts[row_block + 1] - row0, col_starts[col_block + 1] - col0


#: The way out named when a block does not fit in memory.
BLOCK_HINT = "pass smaller chunks="


def mask_block(rings: Any, rule: int, threads: int, starts: Any, all_touched: int = 0,
                block_id: Any = None) -> np.ndarray:
    row0, col0, height, width = _window(block_id, starts)
    # calloc: only the spans are written
    block = result_array(None, (height, width), bool, zeroed=True, what="mask block", hint=BLOCK_HINT)
    if all_touched:
        _coverage_sweep.fill_touched(rings.vertices, block.view(np.uint8), row0, col0, rule, threads,
                                     rings.ring_ends, True, all_touched)
    else:
        _core.fill(rings.vertices, block.view(np.uint8), row0=row0, col0=col0, rule=rule, threads=threads,
                   ring_ends=rings.ring_ends, zeroed=True)
    return block


def rasterize_block(burn: Burn, rule: int, threads: int, starts: Any, all_touched: int = 0,
                    add: bool = False, block_id: Any = None) -> np.ndarray:
    row0, col0, height, width = _window(block_id, starts)
    block = result_array(None, (height, width), burn.labels.dtype, zeroed=True, what="label block", hint=BLOCK_HINT)
    flat, labels = burn.reaching(row0, col0, height, width)
    _polygons.rasterize(flat.vertices, flat.ring_ends, flat.polygon_ends, labels, block, row0, col0, rule,
                        threads, all_touched, add)
    return block


def coverage_block(rings: Any, rule: int, threads: int, dtype: np.dtype, starts: Any,
                    block_id: Any = None) -> np.ndarray:
    coordinates, ring_ends = rings
    row0, col0, height, width = _window(block_id, starts)
    # Allocated as a new mask is (np.zeros, or np.empty with every element written).
    return _coverage_sweep.new_coverage(coordinates, ring_ends, row0, col0, height, width, dtype, rule, threads,
                                        "coverage block", BLOCK_HINT)
