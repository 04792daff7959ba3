"""Points in a label image: each burns the cell that holds it, as GDAL burns them.

The reference is rasterio's ``rasterize`` (GDAL), cell for cell: random
points, points on cell corners and sides (the cell's lower sides hold them),
at the image's edges and outside it, MultiPoints and points inside
GeometryCollections beside polygons, under north-up, south-up and sheared
transforms, for ``all_touched`` False and True and each merge rule GDAL has.
Points come in shapely geometries in bulk (GeoDataFrame, GeoSeries, arrays
and lists of shapely geometries).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import polymask

rasterio_features = pytest.importorskip("rasterio.features")
shapely = pytest.importorskip("shapely")
from rasterio.enums import MergeAlg  # noqa: E402
from shapely.geometry import GeometryCollection, MultiPoint, Point, box  # noqa: E402

SHAPE = (20, 24)
TRANSFORMS = [(1.0, 0.0, 0.0, 0.0, 1.0, 0.0), (0.5, 0.0, -3.0, 0.0, -0.25, 4.0), (1.5, 0.3, 2.0, 0.2, -1.1, 30.0)]


def _points_and_more(seed):
    rng = np.random.default_rng(seed)
    points = [Point(*xy) for xy in rng.uniform(-3, 27, (80, 2))]
    points += [Point(3, 4), Point(0, 0), Point(24, 5), Point(23.999, 0), Point(5, 20), Point(-0.001, 3)]
    multi = [MultiPoint(rng.uniform(0, 24, (int(rng.integers(1, 7)), 2))) for _ in range(6)]
    mixed = [GeometryCollection([box(2.3, 2.3, 8.7, 9.4), Point(12.5, 1.5), MultiPoint([(1, 1), (17.2, 3.9)])])]
    return points + multi + mixed + [Point(), None]


def _rasterio(geometries, values, transform, **options):
    kept = [(g, int(v)) for g, v in zip(geometries, values) if g is not None and not g.is_empty]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rasterio_features.rasterize(kept, out_shape=SHAPE, transform=transform, dtype="int32", **options)


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_points_burn_the_cells_gdal_burns(transform, all_touched):
    from affine import Affine

    geometries = _points_and_more(len(TRANSFORMS) * all_touched + TRANSFORMS.index(transform))
    values = np.arange(1, len(geometries) + 1)
    expected = _rasterio(geometries, values, Affine(*transform), all_touched=all_touched)
    assert (expected > 0).sum() > 20
    for form in (np.array(geometries, dtype=object), geometries):
        got = polymask.rasterize(form, SHAPE, values, transform=transform, dtype=np.int32, all_touched=all_touched)
        np.testing.assert_array_equal(got, expected)


def test_points_add_as_gdal_adds_them():
    from affine import Affine

    geometries = _points_and_more(9) + [Point(3.5, 4.5)] * 3
    values = np.ones(len(geometries), dtype=int)
    expected = _rasterio(geometries, values, Affine.identity(), merge_alg=MergeAlg.add)
    got = polymask.rasterize(np.array(geometries, dtype=object), SHAPE, values, transform=TRANSFORMS[0],
                             dtype=np.int32, merge="add")
    np.testing.assert_array_equal(got, expected)
    assert got[4, 3] >= 3


def test_a_geodataframe_of_points_and_polygons():
    geopandas = pytest.importorskip("geopandas")
    from affine import Affine

    geometries = [box(1.2, 1.2, 9.6, 7.7), Point(4.5, 4.5), MultiPoint([(0.5, 0.5), (11.2, 9.9)]), Point(30, 30)]
    frame = geopandas.GeoDataFrame({"code": [3, 8, 5, 2]}, geometry=geometries)
    got = polymask.rasterize(frame, SHAPE, "code", transform=TRANSFORMS[0], dtype=np.int32)
    np.testing.assert_array_equal(got, _rasterio(geometries, [3, 8, 5, 2], Affine.identity()))
    assert got[4, 4] == 8 and got[0, 0] == 5 and got[9, 11] == 5


def test_a_point_with_a_nan_coordinate_is_refused_by_name():
    with pytest.raises(ValueError, match=r"polygons\[1\] has a vertex \(nan, 2\.0\) that is not finite"):
        polymask.rasterize(np.array([Point(1, 1), Point(np.nan, 2)], dtype=object), SHAPE)


def test_the_dask_rasterize_burns_points_alike():
    pytest.importorskip("dask")
    import polymask.dask

    geometries = np.array(_points_and_more(5), dtype=object)
    lazy = polymask.dask.rasterize(geometries, SHAPE, chunks=(7, 9), transform=TRANSFORMS[1])
    np.testing.assert_array_equal(lazy.compute(), polymask.rasterize(geometries, SHAPE, transform=TRANSFORMS[1]))
