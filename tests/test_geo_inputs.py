"""GIS input forms: GeoDataFrame, GeoSeries, shapely arrays, GeometryCollections,
Z coordinates, empties and padded arrays must give the same masks as the
per-geometry path, and every bad form (bad geometries, values columns, geo
interfaces) a clear error.  transform= itself is test_georeferenced.py.
"""
from __future__ import annotations

# The geo extra (pulled in by the test extra) installs these: a missing one is an error, never a skip.
import geopandas
import numpy as np
import pytest
import shapely
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box

import polymask
import polymask.dask
from tests._geo_support import star

# ---- input forms -------------------------------------------------------------

SQUARE = box(1, 1, 9, 9)
HOLED = Polygon([(0, 0), (12, 0), (12, 11), (0, 11)], [[(3, 3), (7, 3), (7, 8), (3, 8)]])
PARTS = MultiPolygon([box(0, 0, 2, 3), box(5.5, 6.5, 11, 10)])
COLLECTION = GeometryCollection([box(0, 0, 3, 3), GeometryCollection([box(6, 6, 9, 10)]), Polygon()])
GEOMETRIES = [SQUARE, HOLED, PARTS, COLLECTION, Polygon(), None, shapely.force_3d(box(4, 2, 6, 12), 5.0)]
SMALL = (12, 13)


def _per_geometry(geometries, shape=SMALL):
    """The slow reference: one polymask.mask per geometry (GeoJSON path), burned in order."""
    labels = np.zeros(shape, dtype=np.uint8)
    for value, geometry in enumerate(geometries, start=1):
        if geometry is None or geometry.is_empty:
            continue
        rings = [np.asarray(ring)[:, :2] for part in getattr(geometry, "geoms", [geometry])
                 for sub in getattr(part, "geoms", [part]) if not sub.is_empty
                 for ring in [sub.exterior.coords, *(i.coords for i in sub.interiors)]]
        labels[polymask.mask(rings, shape)] = value
    return labels


def test_every_bulk_form_gives_the_per_geometry_labels():
    expected = _per_geometry(GEOMETRIES)
    series = geopandas.GeoSeries(GEOMETRIES)
    forms = {
        "list of shapely": GEOMETRIES,
        "tuple of shapely": tuple(GEOMETRIES),
        "shapely array": np.array(GEOMETRIES, dtype=object),
        "GeoSeries": series,
        "GeoDataFrame": geopandas.GeoDataFrame({"name": list("abcdefg")}, geometry=series),
        "GeoJSON FeatureCollection": {"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": shapely.geometry.mapping(g)} for g in GEOMETRIES if g is not None]},
    }
    for name, form in forms.items():
        got = polymask.rasterize(form, SMALL)
        if name == "GeoJSON FeatureCollection":  # None cannot be a Feature: its label is skipped
            got = np.where(got >= 6, got + 1, got)
        assert np.array_equal(got, expected), name


def test_vectorized_extraction_equals_the_geojson_path_on_random_collections():
    """Holes, multipolygons, nested collections, Z, empties and None, many at once."""
    rng = np.random.default_rng(11)
    geometries = []
    for k in range(60):
        centre, radius = rng.uniform(0, 40, 2), rng.uniform(2, 12)
        outer = star(rng, centre, radius, int(rng.integers(6, 14)))
        polygon = Polygon(outer, [star(rng, centre, radius * 0.3, 6)] if k % 2 else [])
        kind = k % 6
        if kind == 2:
            polygon = MultiPolygon([polygon, Polygon(star(rng, centre + [3 * radius, 0], radius, 7))])
        elif kind == 3:
            polygon = GeometryCollection([polygon, GeometryCollection([box(*(centre - 40), *(centre - 38))])])
        elif kind == 4:
            polygon = shapely.force_3d(polygon, float(k))
        elif kind == 5:
            polygon = [Polygon(), None, MultiPolygon(), polygon][k % 4]
        geometries.append(polygon)
    shape = (45, 50)
    as_dicts = [shapely.geometry.mapping(g) if g is not None else {"type": "Polygon", "coordinates": []}
                for g in geometries]
    expected = polymask.rasterize(as_dicts, shape, dtype=np.int32)  # one as_rings per geometry
    assert expected.max() > 50
    for form in (np.array(geometries, dtype=object), geopandas.GeoSeries(geometries)):
        assert np.array_equal(polymask.rasterize(form, shape, dtype=np.int32), expected)


def test_a_geodataframe_burns_its_active_geometry_and_named_column():
    frame = geopandas.GeoDataFrame({"code": [40, 30, 20]},
                                   geometry=geopandas.GeoSeries([SQUARE, HOLED, PARTS]))
    frame["elsewhere"] = geopandas.GeoSeries([box(0, 0, 1, 1)] * 3)
    expected = _per_geometry([SQUARE, HOLED, PARTS])
    got = polymask.rasterize(frame, SMALL, values="code")
    assert np.array_equal(got, np.choose(expected, [0, 40, 30, 20]))
    swapped = frame.set_geometry("elsewhere")
    assert polymask.rasterize(swapped, SMALL).sum() == 3  # polygon 3 over the first cell only


def test_mask_takes_one_geometry_in_any_wrapper():
    expected = polymask.mask([np.asarray(HOLED.exterior.coords), np.asarray(HOLED.interiors[0].coords)], SMALL)
    for form in (HOLED, geopandas.GeoSeries([HOLED]), geopandas.GeoDataFrame(geometry=[HOLED]),
                 np.array([HOLED], dtype=object), shapely.force_3d(HOLED), GeometryCollection([HOLED])):
        assert np.array_equal(polymask.mask(form, SMALL), expected), type(form)
    for empty in (Polygon(), MultiPolygon(), GeometryCollection(), geopandas.GeoSeries([None])):
        assert not polymask.mask(empty, SMALL).any()
    # One ring of shapely still runs on the teaching stages.
    assert np.array_equal(polymask.mask(SQUARE, SMALL, backend="python"), polymask.mask(SQUARE, SMALL))


def test_geojson_z_and_collections():
    with_z = {"type": "Polygon", "coordinates": [[(1, 1, 5), (9, 1, 5), (9, 9, 5), (1, 9, 5), (1, 1, 5)]]}
    assert np.array_equal(polymask.mask(with_z, SMALL), polymask.mask(SQUARE, SMALL))
    with_zm = {"type": "Polygon", "coordinates": [[(1, 1, 5, 0), (9, 1, 5, 0), (9, 9, 5, 0), (1, 9, 5, 0)]]}
    assert np.array_equal(polymask.mask(with_zm, SMALL), polymask.mask(SQUARE, SMALL))
    collection = shapely.geometry.mapping(COLLECTION)
    assert np.array_equal(polymask.mask(collection, SMALL), polymask.mask(COLLECTION, SMALL))
    assert polymask.mask(COLLECTION, SMALL).sum() == 9 + 12


def test_shapely_mixed_with_other_forms_is_read_per_polygon():
    mixed = [SQUARE, np.array([(0, 0), (4, 0), (0, 4)], float), {"type": "Polygon", "coordinates": [[(5, 5), (9, 5),
                                                                                                     (9, 9)]]}]
    expected = polymask.rasterize([np.asarray(SQUARE.exterior.coords), mixed[1], [(5, 5), (9, 5), (9, 9)]], SMALL)
    assert np.array_equal(polymask.rasterize(mixed, SMALL), expected)
    assert np.array_equal(polymask.rasterize(np.array([None, SQUARE], dtype=object), SMALL),
                          polymask.rasterize([np.zeros((0, 2)), np.asarray(SQUARE.exterior.coords)], SMALL))


def test_padded_arrays_end_polygons_at_their_padding():
    triangle, square = [(0, 0), (6, 0), (0, 6)], [(2, 2), (9, 2), (9, 9), (2, 9), (2, 5)]
    padded = np.full((3, 5, 2), np.nan)
    padded[0, :3], padded[1, :5] = triangle, square  # polygon 2 is all padding: empty
    expected = polymask.rasterize([np.array(triangle, float), np.array(square, float), np.zeros((0, 2))], SMALL)
    assert expected.max() == 2
    assert np.array_equal(polymask.rasterize(padded, SMALL), expected)
    masked = np.ma.masked_equal(np.nan_to_num(padded, nan=-1.0), -1.0)
    assert np.array_equal(polymask.rasterize(masked, SMALL), expected)
    as_list = [np.array(triangle, float), np.array(square, float), np.zeros((0, 2))]
    assert np.array_equal(polymask.rasterize(as_list, SMALL), expected)


def test_random_padded_arrays_equal_their_lists():
    rng = np.random.default_rng(5)
    count, width = 40, 9
    lengths = rng.integers(0, width + 1, count)  # empty, degenerate and full polygons
    padded = np.full((count, width, 2), np.nan)
    rings = []
    for p, n in enumerate(lengths):
        ring = rng.uniform(-3, 30, (n, 2))
        padded[p, :n] = ring
        rings.append(ring)
    expected = polymask.rasterize([ring if len(ring) else np.zeros((0, 2)) for ring in rings], (25, 28),
                                  dtype=np.int32)
    assert np.array_equal(polymask.rasterize(padded, (25, 28), dtype=np.int32), expected)
    as_masked = np.ma.masked_invalid(padded)
    assert np.array_equal(polymask.rasterize(as_masked, (25, 28), dtype=np.int32), expected)


def test_dask_rasterize_takes_a_geodataframe_column():
    frame = geopandas.GeoDataFrame({"code": [7, 3, 9]}, geometry=[SQUARE, HOLED, PARTS])
    expected = polymask.rasterize(frame, SMALL, values="code")
    assert np.array_equal(polymask.dask.rasterize(frame, SMALL, values="code", chunks=5).compute(), expected)
    assert set(np.unique(expected)) == {0, 3, 7, 9}


BAD_GEOMETRY_INPUTS = [
    ([SQUARE, Point(1, 1)], ValueError, r"polygons\[1\] is a Point, which has no area"),
    ([SQUARE, SQUARE, LineString([(0, 0), (3, 3)])], ValueError, r"polygons\[2\] is a LineString"),
    ([GeometryCollection([SQUARE, Point(3, 3)])], ValueError,
     r"polygons\[0\] is a GeometryCollection holding a Point"),
    ([SQUARE, "POLYGON"], TypeError, r"polygons\[1\] must be an \(N, 2\) array-like"),
    ([Polygon([(0, 0), (np.inf, 0), (0, 1)])], ValueError, r"polygons\[0\] has a vertex \(inf, 0.0\)"),
    (np.array([[[0, 0], [np.nan, np.nan], [1, 1]]]), ValueError,
     r"polygons\[0\] has a padding row at 1 followed by a vertex at 2"),
    (np.array([[[0, 0], [np.nan, 1.0], [1, 1]]]), ValueError, r"polygons\[0\]\[1\] = \(nan, 1.0\) is not finite"),
    ([np.zeros((3, 2)), np.array([[0, 0], [np.inf, 1]])], ValueError, r"polygons\[1\]\[1\] = \(inf, 1.0\)"),
    ({"type": "FeatureCollection", "features": "none"}, TypeError, "'features' is not a list"),
]


@pytest.mark.parametrize("polygons, error, message", BAD_GEOMETRY_INPUTS)
def test_bad_geometry_inputs_name_the_geometry(polygons, error, message):
    # rasterize burns points and lines (the cells GDAL burns); the instance masks refuse them.
    burn = polymask.masks if "Point" in message or "LineString" in message else polymask.rasterize
    with pytest.raises(error, match=message):
        burn(polygons, SMALL)


def test_bad_values_column_and_many_row_mask():
    frame = geopandas.GeoDataFrame({"code": [1, 2]}, geometry=[SQUARE, HOLED])
    with pytest.raises(ValueError, match=r"values='kode' names no column.*\['code', 'geometry'\]"):
        polymask.rasterize(frame, SMALL, values="kode")
    with pytest.raises(ValueError, match="must be one polygon; got 2 geometries"):
        polymask.mask(frame.geometry, SMALL)
    with pytest.raises(ValueError, match=r"vertices\[0\] is a LineString"):
        polymask.mask(LineString([(0, 0), (3, 3)]), SMALL)


class _GeoInterface:
    """An object whose __geo_interface__ is whatever the test sets."""

    def __init__(self, interface):
        self.interface = interface

    @property
    def __geo_interface__(self):
        return self.interface


def _deep_feature(depth):
    feature = {"type": "Polygon", "coordinates": [[(0, 0), (3, 0), (0, 3)]]}
    for _ in range(depth):
        feature = {"type": "Feature", "geometry": feature}
    return feature


def _self_containing(kind):
    if kind == "Feature":
        feature = {"type": "Feature"}
        feature["geometry"] = feature
        return feature
    collection = {"type": "GeometryCollection", "geometries": []}
    collection["geometries"].append(collection)
    return collection


@pytest.mark.parametrize("polygon, error, message", [
    (_GeoInterface("POLYGON ((0 0, 1 0, 0 1))"), TypeError, r"__geo_interface__ must be a GeoJSON-like mapping"),
    (_GeoInterface([[0, 0], [1, 0], [0, 1]]), TypeError, r"__geo_interface__ must be a GeoJSON-like mapping"),
    (_deep_feature(5000), ValueError, "nests Features or GeometryCollections more than 32 levels"),
    (_self_containing("Feature"), ValueError, "more than 32 levels"),
    (_self_containing("GeometryCollection"), ValueError, "more than 32 levels"),
    ({"type": "GeometryCollection", "geometries": [5]}, TypeError, r"\['geometries'\]\[0\] must be a GeoJSON"),
    ({"type": "GeometryCollection"}, TypeError, r"\['geometries'\] must be a sequence of geometries"),
])
def test_bad_geo_interfaces_are_clear_errors(polygon, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(polygon, SMALL)
    with pytest.raises(error, match=message):
        polymask.rasterize([polygon], SMALL)


def test_a_shallow_feature_still_works():
    assert polymask.mask(_deep_feature(30), (4, 4)).sum() == 6
