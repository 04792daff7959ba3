"""The parts of a MultiPolygon or GeometryCollection are united in a label image, as GDAL burns them.

References: rasterio's ``rasterize`` (GDAL), which burns each polygon part of
a multi-part geometry on its own, so overlapping parts are their union (not
an even-odd hole); and polymask itself, the parts passed as polygons of
their own with the geometry's value.  Each part keeps its own rings under
the fill rule: a part's hole stays a hole unless another part covers it.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import polymask

rasterio_features = pytest.importorskip("rasterio.features")
shapely = pytest.importorskip("shapely")
from shapely.geometry import GeometryCollection, MultiPolygon, Polygon, box, mapping  # noqa: E402

IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
SHAPE = (40, 48)


def _rasterio(shapes, values, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rasterio_features.rasterize(list(zip(shapes, values)), out_shape=SHAPE, dtype="int32", **options)


def _random_multipolygons(seed, count=10):
    """Multi-part geometries of axis-aligned boxes on half-cell offsets (no cell centre on a border),
    overlapping each other and themselves, some with a hole, some in collections."""
    rng = np.random.default_rng(seed)

    def part():
        x0, y0 = rng.integers(-4, 44, 2) + 0.25
        x1, y1 = x0 + rng.integers(3, 18), y0 + rng.integers(3, 18)
        if rng.random() < 0.3:  # a hole of its own
            return Polygon(box(x0, y0, x1, y1).exterior.coords, [box(x0 + 1, y0 + 1, x1 - 1, y1 - 1).exterior.coords])
        return box(x0, y0, x1, y1)

    geometries = []
    for k in range(count):
        parts = [part() for _ in range(int(rng.integers(1, 5)))]
        if k % 3 == 0:
            geometries.append(GeometryCollection([MultiPolygon(parts[:2]), *parts[2:]]) if len(parts) > 2
                              else GeometryCollection(parts))
        else:
            geometries.append(MultiPolygon(parts))
    return geometries


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_overlapping_parts_are_united_as_rasterio_burns_them(seed, all_touched):
    geometries = _random_multipolygons(seed)
    values = np.arange(1, len(geometries) + 1) * 3
    expected = _rasterio(geometries, values, all_touched=all_touched)
    for form in (np.array(geometries, dtype=object), list(geometries), [mapping(g) for g in geometries]):
        got = polymask.rasterize(form, SHAPE, values, transform=IDENTITY, dtype=np.int32, all_touched=all_touched)
        np.testing.assert_array_equal(got, expected)


def test_a_part_inside_another_parts_hole_fills_it_and_overlaps_are_no_holes():
    ring = Polygon(box(0, 0, 10, 10).exterior.coords, [box(3, 3, 7, 7).exterior.coords])
    plug = box(4, 4, 6, 6)
    overlap = MultiPolygon([box(0, 0, 6, 6), box(3, 3, 9, 9)])
    got = polymask.rasterize([MultiPolygon([ring, plug]), overlap], (12, 12), [1, 2], dtype=np.int32)
    sample = polymask.rasterize([ring, plug, box(0, 0, 6, 6), box(3, 3, 9, 9)], (12, 12), [1, 1, 2, 2],
                                dtype=np.int32)
    np.testing.assert_array_equal(got, sample)
    plugged = polymask.rasterize([MultiPolygon([ring, plug])], (12, 12))
    assert plugged[5, 5] == 1 and plugged[3, 5] == 0 and plugged[1, 1] == 1  # the plug fills, the hole stays
    assert polymask.rasterize([overlap], (12, 12))[4, 4] == 1  # not an even-odd hole


def test_dask_rasterize_unites_parts_alike():
    pytest.importorskip("dask")
    import polymask.dask

    geometries = _random_multipolygons(7)
    values = np.arange(1, len(geometries) + 1)
    lazy = polymask.dask.rasterize(geometries, SHAPE, values, chunks=(13, 17), transform=IDENTITY, dtype=np.int32)
    np.testing.assert_array_equal(lazy.compute(), _rasterio(geometries, values))


def test_geodataframe_column_values_follow_their_geometry_parts():
    geopandas = pytest.importorskip("geopandas")
    geometries = _random_multipolygons(8, count=6)
    frame = geopandas.GeoDataFrame({"code": [5, 9, 2, 7, 1, 4]}, geometry=geometries)
    got = polymask.rasterize(frame, SHAPE, "code", transform=IDENTITY, dtype=np.int32)
    np.testing.assert_array_equal(got, _rasterio(geometries, [5, 9, 2, 7, 1, 4]))


def test_contains_labels_unites_parts_as_rasterize():
    geometries = _random_multipolygons(9)
    values = np.arange(1, len(geometries) + 1)
    x, y = np.arange(SHAPE[1]) + 0.5, (np.arange(SHAPE[0]) + 0.5)[:, None]  # the cell centres
    np.testing.assert_array_equal(polymask.contains_labels(geometries, x, y, values), _rasterio(geometries, values))
    np.testing.assert_array_equal(polymask.contains_labels(geometries, *np.broadcast_arrays(x, y), values),
                                  _rasterio(geometries, values))
