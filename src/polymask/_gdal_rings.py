"""A LinearRing burned as a line walks counter-clockwise, as GDAL walks it.

GDAL burns a line segment by segment, each from its second end to its first
(polymask/_lines.py), so the cells a Bresenham line takes where it passes
between two cells depend on the direction.  A LinearRing given on its own
(not as a polygon's boundary) is a line for ``rasterio.features.rasterize``,
but GDAL first orients it counter-clockwise in the geometry's own
coordinates: a ring and its reverse burn the same cells, and those are the
cells of the LineString with the ring's counter-clockwise order.

"Counter-clockwise" is GDAL's test (``OGRSimpleCurve::isClockwise``): the
turn at the lowest vertex (the rightmost of the lowest); where that vertex is
not unique, where a neighbour lies within 1e-5 of it in both coordinates, or
where the turn is straight, the sign of the ring's area decides instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

#: shapely's type id of a LinearRing.
_LINEARRING = 2
#: Neighbours closer than this to the lowest vertex in both x and y leave the turn to the area (GDAL's).
_NEAR = 1.0e-5


def counter_clockwise_rings(parts: NDArray[Any]) -> NDArray[Any]:
    """`parts` (shapely geometries) with each LinearRing that GDAL calls clockwise reversed."""
    import shapely

    is_ring = (shapely.get_type_id(parts) == _LINEARRING) & ~shapely.is_empty(parts)
    if not is_ring.any():
        return parts
    at = np.flatnonzero(is_ring)
    coordinates, ring_of = shapely.get_coordinates(parts[at], return_index=True)
    clockwise = _clockwise(np.asarray(coordinates, dtype=np.float64), ring_of, len(at))
    if not clockwise.any():
        return parts
    turned = parts.copy()
    turned[at[clockwise]] = shapely.reverse(parts[at[clockwise]])
    return turned


def _clockwise(xy: NDArray[np.float64], ring_of: NDArray[Any], count: int) -> NDArray[np.bool_]:
    """Per ring, GDAL's clockwise test; each ring's vertices are closed (its last repeats its first)."""
    sizes = np.bincount(ring_of, minlength=count)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    open_sizes = sizes - 1  # the closing vertex left out
    position = np.arange(len(xy)) - starts[ring_of]
    kept = position < open_sizes[ring_of]
    x, y = xy[:, 0], xy[:, 1]
    # The lowest vertex, the rightmost of the lowest, the first of equals: one lexsort for every ring.
    order = np.lexsort((position, -x, y, ring_of))
    order = order[kept[order]]
    first_of_ring = np.concatenate(([True], ring_of[order][1:] != ring_of[order][:-1]))
    head = np.flatnonzero(first_of_ring)
    lowest = order[head]
    low_ring = ring_of[lowest]
    # Another vertex at exactly the lowest one's place (the next in that order): its turn means nothing.
    following = order[np.minimum(head + 1, len(order) - 1)]
    repeated = (following != lowest) & (ring_of[following] == low_ring)
    repeated &= (x[following] == x[lowest]) & (y[following] == y[lowest])
    size = np.maximum(open_sizes[low_ring], 1)
    base = starts[low_ring]
    here = position[lowest]
    before = base + (here - 1) % size
    after = base + (here + 1) % size
    dx0, dy0 = x[before] - x[lowest], y[before] - y[lowest]
    dx1, dy1 = x[after] - x[lowest], y[after] - y[lowest]
    near = ((np.abs(dx0) < _NEAR) & (np.abs(dy0) < _NEAR)) | ((np.abs(dx1) < _NEAR) & (np.abs(dy1) < _NEAR))
    turn = dx1 * dy0 - dx0 * dy1
    clockwise = np.zeros(count, dtype=bool)
    clockwise[low_ring] = turn < 0
    undecided = np.zeros(count, dtype=bool)
    undecided[low_ring] = near | (turn == 0) | repeated
    undecided &= open_sizes >= 3
    for ring in np.flatnonzero(undecided):  # rare: the area's sign, ring by ring
        ring_xy = xy[starts[ring] : starts[ring] + open_sizes[ring]]
        twice_area = np.dot(ring_xy[:, 0], np.roll(ring_xy[:, 1], -1)) - np.dot(
            ring_xy[:, 1], np.roll(ring_xy[:, 0], -1)
        )
        clockwise[ring] = twice_area < 0
    clockwise[open_sizes < 3] = True  # GDAL: fewer than three points count as clockwise
    return clockwise
