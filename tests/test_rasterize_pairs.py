"""rasterize takes rasterio's shapes as they are: geometries or (geometry, value) pairs, also from an iterator."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from affine import Affine
from rasterio import features

import polymask
import polymask.dask

T = Affine(0.5, 0.1, 3.0, -0.05, -0.5, 40.0)
SHAPE = (60, 70)


def _geometries(seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    centres = rng.uniform([6, 12], [36, 38], (8, 2))
    shapes: list[object] = [shapely.Point(x, y).buffer(r) for (x, y), r in zip(centres[:5], rng.uniform(1, 6, 5))]
    shapes.append(shapely.LineString(rng.uniform([4, 12], [38, 39], (4, 2))))
    shapes.append(shapely.Point(*centres[6]))
    shapes.append(shapely.geometry.mapping(shapely.box(*centres[7], *(centres[7] + 5))))  # GeoJSON
    return shapes


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("all_touched", [False, True])
def test_pairs_from_zip_burn_what_rasterio_burns(seed, all_touched):
    shapes = _geometries(seed)
    codes = np.random.default_rng(seed).integers(1, 200, len(shapes))
    theirs = features.rasterize(
        zip(shapes, codes.tolist()), out_shape=SHAPE, transform=T, all_touched=all_touched, dtype=np.int32
    )
    ours = polymask.rasterize(zip(shapes, codes.tolist()), SHAPE, transform=T, all_touched=all_touched, dtype=np.int32)
    np.testing.assert_array_equal(ours, theirs)
    lazy = polymask.dask.rasterize(
        zip(shapes, codes.tolist()), SHAPE, transform=T, all_touched=all_touched, dtype=np.int32, chunks=16
    )
    np.testing.assert_array_equal(lazy.compute(), theirs)


def test_pairs_equal_geometries_with_values_and_a_generator_is_read_once():
    shapes = _geometries(7)
    codes = [3.5, 1.0, 9.0, 2.25, 4.0, 8.0, 6.0, 5.0]
    expected = polymask.rasterize(shapes, SHAPE, codes, transform=T)
    np.testing.assert_array_equal(polymask.rasterize(list(zip(shapes, codes)), SHAPE, transform=T), expected)
    np.testing.assert_array_equal(
        polymask.rasterize((pair for pair in zip(shapes, codes)), SHAPE, transform=T), expected
    )
    np.testing.assert_array_equal(polymask.rasterize(iter(shapes), SHAPE, codes, transform=T), expected)


def test_a_two_vertex_ring_is_not_taken_for_a_pair():
    square = [(1.0, 1.0), (5.0, 1.0), (5.0, 4.0), (1.0, 4.0)]
    # A polygon whose rings are a list: never a (geometry, value) pair.
    np.testing.assert_array_equal(polymask.rasterize([[square]], (6, 7)), polymask.rasterize([square], (6, 7)))
    # Two vertices (x, y) are a polygon of no area, burning nothing, as an array of them is.
    assert not polymask.rasterize([[(0.0, 0.0), (3.0, 3.0)]], (4, 4)).any()
    assert not polymask.rasterize([np.array([[0.0, 0.0], [3.0, 3.0]])], (4, 4)).any()


def test_pairs_and_values_together_or_mixed_items_are_refused_by_name():
    box = shapely.box(0, 0, 2, 2)
    with pytest.raises(ValueError, match="pairs, or geometries and values="):
        polymask.rasterize([(box, 1)], (3, 3), values=[1])
    with pytest.raises(TypeError, match=r"polygons\[1\] is"):
        polymask.rasterize([(box, 1), box], (3, 3))
    with pytest.raises(TypeError, match=r"polygons\[1\] is"):
        polymask.dask.rasterize([(box, 1), box], (3, 3))


@pytest.mark.parametrize("all_touched", [False, True])
def test_shapely_lines_and_points_mixed_with_geojson_burn_as_rasterio_burns_them(all_touched):
    line, point = shapely.LineString([(4.2, 31.0), (30.5, 14.1)]), shapely.Point(20.2, 30.3)
    box = shapely.geometry.mapping(shapely.box(10.13, 20.37, 18.71, 26.29))  # no centre on a side
    for shapes in (
        [line, box, point],
        [box, line],
        [shapely.geometry.mapping(line), shapely.box(10.13, 20.37, 18.71, 26.29)],
    ):
        theirs = features.rasterize(
            zip(shapes, range(1, len(shapes) + 1)), out_shape=SHAPE, transform=T, all_touched=all_touched
        )
        ours = polymask.rasterize(shapes, SHAPE, transform=T, all_touched=all_touched)
        np.testing.assert_array_equal(ours, theirs)
