"""A LinearRing on its own burns as GDAL burns it: the line walked counter-clockwise.

GDAL orients a lone ring counter-clockwise (its lowest-vertex turn, the area's
sign where that turn says nothing) before it walks the segments, so a ring and
its reverse burn the same cells, which can differ from the LineString of the
same coordinates where a Bresenham line passes between two cells.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from affine import Affine
from rasterio import features

import polymask
from polymask._gdal_rings import counter_clockwise_rings

TRANSFORMS = [Affine.identity(), Affine(1.0, 0, 0, 0, -1.0, 32.0), Affine(0.9, 0.2, 1.0, 0.1, -1.1, 33.0)]


@pytest.mark.parametrize("transform", TRANSFORMS, ids=["identity", "north-up", "sheared"])
@pytest.mark.parametrize("all_touched", [False, True])
def test_random_rings_and_their_reverses_burn_what_rasterio_burns(transform, all_touched):
    rng = np.random.default_rng(11)
    rings = [shapely.LinearRing(rng.uniform(0, 30, (int(rng.integers(3, 9)), 2))) for _ in range(150)]
    rings += [shapely.LinearRing(list(ring.coords)[::-1]) for ring in rings[:50]]
    differing = []
    for index, ring in enumerate(rings):
        theirs = features.rasterize([(ring, 1)], out_shape=(32, 32), transform=transform, all_touched=all_touched)
        ours = polymask.rasterize([ring], (32, 32), transform=transform, all_touched=all_touched)
        mixed = polymask.rasterize(
            [ring, shapely.box(40, 40, 41, 41)], (32, 32), transform=transform, all_touched=all_touched
        )  # among polygons: the general path
        if not ((ours == theirs).all() and ((mixed > 0) == (theirs > 0)).all()):
            differing.append(index)
    assert differing == []


def test_rings_on_grid_points_with_ties_and_repeats_burn_what_rasterio_burns():
    # Lowest vertices tied in y, repeated vertices, straight turns: the cases GDAL settles by area.
    cases = [
        [(2, 2), (20, 2), (20, 15), (2, 15)],
        [(2, 2), (20, 2), (20, 15), (2, 2), (9, 25)],
        [(3, 1), (11, 1), (27, 1), (20, 20)],
        [(5, 5), (25, 5), (25, 5), (15, 27)],
        [(5, 5), (25, 9), (5, 5), (12, 27), (1, 20)],
        [(4, 3), (4.000001, 3.000001), (26, 8), (10, 29)],
    ]
    for coordinates in cases:
        for ring in (shapely.LinearRing(coordinates), shapely.LinearRing(coordinates[::-1])):
            for transform in TRANSFORMS:
                theirs = features.rasterize([(ring, 1)], out_shape=(32, 32), transform=transform)
                ours = polymask.rasterize([ring], (32, 32), transform=transform)
                np.testing.assert_array_equal(ours, theirs, err_msg=f"{list(ring.coords)} {transform}")


def test_only_lone_rings_turn():
    square = [(0, 0), (0, 4), (4, 4), (4, 0)]  # clockwise in (x, y)
    parts = np.array(
        [
            shapely.LinearRing(square),
            shapely.LineString(square),
            shapely.Polygon(square),
            shapely.LinearRing(square[::-1]),
            None,
            shapely.LinearRing(),
        ],
        dtype=object,
    )
    turned = counter_clockwise_rings(parts)
    assert list(turned[0].coords) == list(shapely.LinearRing(square).coords)[::-1]
    assert turned[1] is parts[1] and turned[2] is parts[2] and turned[3] is parts[3]
    assert turned[4] is None and turned[5].is_empty
