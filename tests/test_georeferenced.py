"""Georeferenced masks: transform=, GIS inputs, and rasterio as the reference.

rasterio (GDAL) samples each cell at its centre, exactly the rule polymask
applies with ``transform=``; on valid random float geometries no pixel may
differ.  The input forms (GeoDataFrame, GeoSeries, shapely arrays,
GeometryCollections, Z coordinates, empties, padded arrays) must give the
same masks as the per-geometry path, and every bad form a clear error.
"""
from __future__ import annotations

# The geo extra (pulled in by the test extra) installs these: a missing one is an error, never a skip.
import geopandas
import numpy as np
import pytest
import shapely
from affine import Affine
from rasterio import features
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box

import polymask
import polymask.dask
from polymask._transform import IDENTITY, as_transform, to_sample_frame

SHAPE = (47, 53)

#: North-up (GDAL's usual: e < 0), south-up (e > 0), rotated and sheared grids.
TRANSFORMS = {
    "north-up": Affine(0.37, 0.0, 100.3, 0.0, -0.29, 50.7),
    "south-up": Affine(0.37, 0.0, 100.3, 0.0, 0.29, 40.1),
    "rotated": Affine.translation(100.3, 45.2) @ Affine.rotation(23.3) @ Affine.scale(0.37, -0.29),
    "sheared": Affine.translation(100.3, 45.2) @ Affine.shear(12, -7) @ Affine.scale(0.37, 0.29),
}


def _star(rng, centre, radius, n):
    """A star-shaped (hence simple) ring around `centre`, radii in [radius/2, radius].

    Angles are jittered around even steps, so with n >= 6 the ring holds
    the disc of radius 0.35 * radius around its centre (room for a hole).
    """
    angles = (np.arange(n) + rng.uniform(-0.25, 0.25, n)) * (2 * np.pi / n)
    radii = rng.uniform(0.5, 1.0, n) * radius
    return np.c_[centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)]


def _to_world(transform, pixels):
    a, b, c, d, e, f = tuple(transform)[:6]
    return np.c_[a * pixels[:, 0] + b * pixels[:, 1] + c, d * pixels[:, 0] + e * pixels[:, 1] + f]


def _random_geometries(rng, transform, count=6):
    """Valid random polygons (some with a hole) and multipolygons (disjoint parts), in world coordinates.

    Built in pixel space (columns, rows) so they land on the grid whatever
    the transform, then mapped through it.  Some reach past the image.
    """
    geometries = []
    for k in range(count):
        centre = rng.uniform([-5, -5], [SHAPE[1] + 5, SHAPE[0] + 5])
        radius = rng.uniform(2, 25)
        outer = _star(rng, centre, radius, int(rng.integers(6, 25)))
        holes = [_star(rng, centre, radius * 0.3, 7)] if k % 2 else []
        polygon = Polygon(_to_world(transform, outer), [_to_world(transform, h) for h in holes])
        if k % 3 == 2:  # a second part far enough away to be disjoint
            other = _star(rng, centre + [2.5 * radius, 0], radius * 0.9, 9)
            polygon = MultiPolygon([polygon, Polygon(_to_world(transform, other))])
        assert polygon.is_valid, polygon
        geometries.append(polygon)
    return geometries


# ---- transform= against rasterio -------------------------------------------


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("seed", range(4))
def test_mask_equals_rasterio_geometry_mask(name, seed):
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(seed)
    for geometry in _random_geometries(rng, transform):
        expected = features.geometry_mask([geometry], out_shape=SHAPE, transform=transform, invert=True)
        got = polymask.mask(geometry, SHAPE, transform=transform)
        assert np.array_equal(got, expected), f"{np.sum(got != expected)} pixels differ ({name})"
        # Six plain numbers are the same transform.
        assert np.array_equal(polymask.mask(geometry, SHAPE, transform=tuple(transform)[:6]), expected)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("seed", range(3))
def test_rasterize_equals_rasterio_rasterize(name, seed):
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(100 + seed)
    geometries = _random_geometries(rng, transform, count=9)  # overlapping: later over earlier
    values = rng.integers(1, 200, len(geometries))
    expected = features.rasterize(list(zip(geometries, values.tolist())), out_shape=SHAPE, transform=transform,
                                  dtype=np.int32)
    frame = geopandas.GeoDataFrame({"label": values}, geometry=geometries)
    got = polymask.rasterize(frame, SHAPE, values="label", transform=transform, dtype=np.int32)
    assert np.array_equal(got, expected), f"{np.sum(got != expected)} pixels differ ({name})"


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_shapes_of_a_label_raster_burn_back_to_it(name):
    """rasterio.features.shapes traces cells' edges; burning them back is the identity."""
    transform = TRANSFORMS[name]
    rng = np.random.default_rng(7)
    # Blocky random labels (so regions have holes and several parts), 0 included.
    coarse = rng.integers(0, 5, (12, 14)).astype(np.int32)
    labels = np.kron(coarse, np.ones((4, 4), dtype=np.int32))[:SHAPE[0], :SHAPE[1]]
    labels = np.pad(labels, ((0, SHAPE[0] - labels.shape[0]), (0, SHAPE[1] - labels.shape[1])), mode="edge")
    labels[rng.random(SHAPE) < 0.05] = 9  # isolated single cells too
    traced = list(features.shapes(labels, transform=transform))
    burned = polymask.rasterize([geometry for geometry, _ in traced], SHAPE, [value for _, value in traced],
                                transform=transform, dtype=np.int32)
    assert np.array_equal(burned, labels)


def test_dask_mask_and_rasterize_take_the_transform():
    transform = TRANSFORMS["rotated"]
    geometries = _random_geometries(np.random.default_rng(3), transform)
    expected_mask = polymask.mask(geometries[1], SHAPE, transform=transform)
    assert np.array_equal(polymask.dask.mask(geometries[1], SHAPE, chunks=16, transform=transform).compute(),
                          expected_mask)
    series = geopandas.GeoSeries(geometries)
    expected = polymask.rasterize(series, SHAPE, transform=transform)
    assert np.array_equal(polymask.dask.rasterize(series, SHAPE, chunks=(10, 20), transform=transform).compute(),
                          expected)


def test_windows_of_a_transformed_mask_are_its_slices():
    transform = TRANSFORMS["sheared"]
    geometry = _random_geometries(np.random.default_rng(9), transform)[5]
    full = polymask.mask(geometry, SHAPE, transform=transform)
    assert full.any()
    window = polymask.mask(geometry, SHAPE, transform=transform, window=(7, 11, 30, 25))
    assert np.array_equal(window, full[7:37, 11:36])
    labels = polymask.rasterize([geometry], SHAPE, transform=transform, window=(7, 11, 30, 25))
    assert np.array_equal(labels.astype(bool), full[7:37, 11:36])


# ---- the pixel conventions, spelled out -------------------------------------


def test_identity_transform_is_cocos_grid():
    """With cells, pixel (0, 0) spans [0, 1] x [0, 1]: a unit square covers exactly it."""
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    cells = polymask.mask(square, (3, 3), transform=IDENTITY).astype(int)
    assert cells.tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    # Without a transform the same square holds the sample point (0, 0) only too,
    # but a 2 x 2 square differs: sample points 0 and 1 vs cells 0 and 1.
    two = [(0, 0), (2, 0), (2, 2), (0, 2)]
    assert polymask.mask(two, (3, 3), transform=IDENTITY).astype(int).tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]



def test_cell_centres_on_an_edge_follow_the_half_open_rule_and_gdal_differs_in_x():
    """The one documented difference from GDAL: a cell centre exactly on a non-horizontal edge.

    polymask's rule is half-open to the left and top (a centre on the left
    or top edge is in, on the right or bottom edge out).  GDAL's scanline
    keeps the top-in, bottom-out rule in y but takes the right edge in and
    the left edge out in x.  Random float data never meets the case; data
    whose edges run through cell centres (a grid shifted by half a cell) does.
    """
    through_centres = Polygon([(0.5, 0.5), (2.5, 0.5), (2.5, 2.5), (0.5, 2.5)])
    ours = polymask.mask(through_centres, (3, 3), transform=IDENTITY).astype(int)
    assert ours.tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    gdal = features.geometry_mask([through_centres], out_shape=(3, 3), transform=Affine.identity(), invert=True)
    assert gdal.astype(int).tolist() == [[0, 1, 1], [0, 1, 1], [0, 0, 0]]


def test_a_geographic_grid_known_answer():
    """A 1-degree north-up grid from (10 E, 50 N): the box 11..13 E, 48..49 N is cells (1..2, 1..2)."""
    transform = Affine(1.0, 0.0, 10.0, 0.0, -1.0, 50.0)
    got = polymask.mask(box(11, 48, 13, 49), (4, 4), transform=transform).astype(int)
    assert got.tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_grid_aligned_vertices_map_exactly():
    transform = Affine(0.25, 0.0, -3.0, 0.0, -0.5, 7.0)
    world = _to_world(transform, np.array([(0, 0), (3, 0), (3, 5), (1, 2)], dtype=float))
    assert to_sample_frame(world, as_transform(transform)).tolist() == [[-0.5, -0.5], [2.5, -0.5], [2.5, 4.5],
                                                                        [0.5, 1.5]]


@pytest.mark.parametrize("bad, error, message", [
    ("north", TypeError, "must be an affine.Affine or six numbers"),
    ((1, 0, 0, 0, 1), ValueError, "six coefficients"),
    ((1, 0, 0, 0, np.nan, 0), ValueError, "finite"),
    ((1, 2, 0, 2, 4, 0), ValueError, "not invertible"),
    (("a", 0, 0, 0, 1, 0), ValueError, "real numbers"),
    ((1, 0, 0, 0, 1, 0, 0.5, 0, 1), ValueError, "not affine"),
])
def test_bad_transforms_are_refused(bad, error, message):
    for call in (lambda: polymask.mask([(0, 0), (2, 0), (0, 2)], (3, 3), transform=bad),
                 lambda: polymask.rasterize([[(0, 0), (2, 0), (0, 2)]], (3, 3), transform=bad)):
        with pytest.raises(error, match=message):
            call()


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
        outer = _star(rng, centre, radius, int(rng.integers(6, 14)))
        polygon = Polygon(outer, [_star(rng, centre, radius * 0.3, 6)] if k % 2 else [])
        kind = k % 6
        if kind == 2:
            polygon = MultiPolygon([polygon, Polygon(_star(rng, centre + [3 * radius, 0], radius, 7))])
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
    with pytest.raises(error, match=message):
        polymask.rasterize(polygons, SMALL)


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


def test_a_tiny_scale_whose_determinant_underflows_is_still_invertible():
    # a·e = 1.6e-491 underflows to 0, but x and y are mapped on their own
    # ((x - c) / a), so the transform is usable, not "not invertible".
    scale = 4e-246
    triangle = [(0, 0), (9 * scale, 0), (0, 9 * scale)]
    mapped = [(x / scale - 0.5, y / scale - 0.5) for x, y in triangle]
    expected = polymask.mask(mapped, (9, 11))
    np.testing.assert_array_equal(polymask.mask(triangle, (9, 11), transform=(scale, 0, 0, 0, scale, 0)), expected)
    assert expected.any()
