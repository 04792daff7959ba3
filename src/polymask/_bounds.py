"""Each polygon's bounding box, from its vertices, in one NumPy reduction.

The fills' own boxes are the core's (csrc/src/bounds.hpp); this is the one
place the Python layer computes them: coverage's crops, masks' crop-size
check and the Dask graph's choice of polygons per block.
"""
from __future__ import annotations

import numpy as np

from polymask._rings import PolygonList, vertex_ranges


def polygon_bounds(vertices: np.ndarray, flat: PolygonList) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(has_vertices, low, high): which polygons own a vertex, and each such polygon's (x, y) minimum and maximum.

    `vertices` are `flat`'s vertices (mapped or not).  `low` and `high` have
    one row per polygon with vertices, in order; a non-finite coordinate
    makes its polygon's row non-finite.
    """
    begin, end = vertex_ranges(flat)
    has_vertices = end > begin
    if not has_vertices.any():
        empty = np.empty((0, 2), dtype=np.float64)
        return has_vertices, empty, empty.copy()
    # Polygons with vertices own consecutive stretches of `vertices`, so a
    # reduceat over their first vertices reduces each polygon's own.
    starts = begin[has_vertices]
    used = vertices[:end[has_vertices][-1]]
    return has_vertices, np.minimum.reduceat(used, starts, axis=0), np.maximum.reduceat(used, starts, axis=0)
