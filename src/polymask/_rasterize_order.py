"""Polygons and lines put in another order for a burn, without a Python step per polygon.

The merge rules "first", "min" and "max" are "last" in another order
(polymask/_rasterize.py, merge_plan); these gather the flat arrays in that order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask._rings import PolygonList


def reordered(flat: PolygonList, order: NDArray[Any]) -> PolygonList:
    """The polygons of `flat` in `order`, without a Python step per polygon."""
    ring_ends = np.concatenate([[0], flat.ring_ends]).astype(np.int64)
    polygon_ends = np.concatenate([[0], flat.polygon_ends]).astype(np.int64)
    ring_counts = np.diff(polygon_ends)[order]
    rings = index_ranges(polygon_ends[:-1][order], ring_counts)
    vertex_counts = np.diff(ring_ends)[rings]
    vertices = flat.vertices[index_ranges(ring_ends[:-1][rings], vertex_counts)]
    return PolygonList(
        np.ascontiguousarray(vertices), np.cumsum(vertex_counts, dtype=np.int64), np.cumsum(ring_counts, dtype=np.int64)
    )


def index_ranges(starts: NDArray[Any], lengths: NDArray[Any]) -> NDArray[np.int64]:
    """The concatenation of range(starts[k], starts[k] + lengths[k]) over k."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shifts = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return (shifts + np.arange(total)).astype(np.int64)
