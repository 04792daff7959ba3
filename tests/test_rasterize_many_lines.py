"""Many random lines, each burning the cells rasterio's ``rasterize`` (GDAL) burns, cell for cell.

2,000 polylines over four transforms, each line alone, for ``all_touched``
False and True: short and long segments, ends on half-pixels and whole
pixels, nearly vertical and nearly horizontal runs, lines reaching far out
of the image on every side.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import rasterio.features
from shapely.geometry import LineString

import polymask
from tests._line_cases import SHAPE, TRANSFORMS, pixel_lines


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_two_thousand_random_lines_burn_the_cells_gdal_burns(transform, all_touched):
    seed = 100 + TRANSFORMS.index(transform)
    lines = [LineString([transform @ tuple(p) for p in line]) for line in pixel_lines(seed, 500)]
    burned = 0
    for line in lines:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = rasterio.features.rasterize(
                [(line, 1)], out_shape=SHAPE, transform=transform, all_touched=all_touched, dtype="int32"
            )
        got = polymask.rasterize([line], SHAPE, transform=transform, dtype=np.int32, all_touched=all_touched)
        np.testing.assert_array_equal(got, expected, err_msg=line.wkt)
        burned += int(expected.sum())
    assert burned > 5000
