"""Lines in a label image: each burns the cells GDAL's line rasterizer burns.

The reference is rasterio's ``rasterize`` (GDAL), cell for cell: random
polylines under north-up, south-up and sheared transforms, each alone and
all together, for ``all_touched`` False and True; hand cases (vertical,
horizontal, 45°, nearly vertical, ends on cell sides and corners, lines
partly or wholly outside the image); MultiLineStrings, LinearRings and
GeometryCollections beside polygons and points; GeoJSON mappings and
``__geo_interface__`` objects; the add and count merge rules; windows and
the Dask version.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import rasterio.features
import shapely
from affine import Affine
from rasterio.enums import MergeAlg
from shapely.geometry import GeometryCollection, LinearRing, LineString, MultiLineString, Point, box, mapping

import polymask

SHAPE = (23, 31)
TRANSFORMS = [
    Affine.identity(),
    Affine(0.1, 0.0, -1.0, 0.0, -0.1, 2.0),
    Affine(0.37, 0.05, 3.0, 0.02, -0.41, 7.0),
    Affine(2.0, 0.0, 10.0, 0.0, 0.5, -4.0),
]


def _rasterio(shapes, shape=SHAPE, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rasterio.features.rasterize(shapes, out_shape=shape, dtype="int32", **options)


def _random_lines(seed, count, shape=SHAPE):
    """Polylines in pixel units: random, on half-pixels, vertical, horizontal, reaching out of the image."""
    rng = np.random.default_rng(seed)
    lines = []
    for k in range(count):
        n = int(rng.integers(2, 6))
        cols, rows = rng.uniform(-6, shape[1] + 6, n), rng.uniform(-6, shape[0] + 6, n)
        if k % 5 == 0:  # ends on cell sides and corners
            cols, rows = np.round(cols * 2) / 2, np.round(rows * 2) / 2
        if k % 7 == 0:
            cols[:] = cols[0]
        if k % 11 == 0:
            rows[:] = rows[0]
        lines.append(np.stack([cols, rows], axis=1))
    return lines


def _in_world(pixel_lines, transform):
    return [LineString([transform @ tuple(p) for p in line]) for line in pixel_lines]


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_each_random_line_burns_the_cells_gdal_burns(transform, all_touched):
    seed = 10 * TRANSFORMS.index(transform) + all_touched
    lines = _in_world(_random_lines(seed, 100), transform)
    burned = 0
    for line in lines:
        expected = _rasterio([(line, 1)], transform=transform, all_touched=all_touched)
        got = polymask.rasterize([line], SHAPE, transform=transform, dtype=np.int32, all_touched=all_touched)
        np.testing.assert_array_equal(got, expected, err_msg=line.wkt)
        burned += int(expected.sum())
    assert burned > 500


@pytest.mark.parametrize("all_touched", [False, True])
def test_many_lines_at_once_land_in_order(all_touched):
    transform = TRANSFORMS[2]
    lines = _in_world(_random_lines(77, 60), transform)
    values = np.arange(1, len(lines) + 1)
    expected = _rasterio(list(zip(lines, values.tolist())), transform=transform, all_touched=all_touched)
    for form in (lines, np.array(lines, dtype=object)):
        got = polymask.rasterize(form, SHAPE, values, transform=transform, dtype=np.int32, all_touched=all_touched)
        np.testing.assert_array_equal(got, expected)
    nonzero = polymask.rasterize(
        lines, SHAPE, values, transform=transform, dtype=np.int32, all_touched=all_touched, fill_rule="nonzero"
    )
    np.testing.assert_array_equal(nonzero, expected)  # a line's cells under either fill rule


HAND_LINES = {
    "vertical": [(4.5, -2.0), (4.5, 30.0)],
    "vertical on a side": [(5.0, 1.5), (5.0, 9.5)],
    "horizontal": [(-3.0, 7.25), (12.7, 7.25)],
    "horizontal on a side": [(2.5, 8.0), (20.5, 8.0)],
    "45 degrees": [(0.5, 0.5), (15.5, 15.5)],
    "45 degrees through corners": [(0.0, 0.0), (12.0, 12.0)],
    "minus 45 degrees": [(20.0, 2.0), (2.0, 20.0)],
    "ends on corners": [(3.0, 4.0), (17.0, 9.0)],
    "ends on sides": [(3.0, 4.5), (17.5, 9.0)],
    "ends just past a side": [(2.3, 3.5), (9.00005, 3.5)],
    "ends just before a side": [(2.3, 3.5), (8.99995, 3.5)],
    "nearly vertical": [(6.995, 2.2), (7.004, 19.3)],
    "nearly horizontal": [(1.2, 10.996), (25.7, 11.003)],
    "a zigzag": [(1.2, 1.1), (6.7, 14.2), (9.1, 2.3), (14.9, 20.8), (29.5, 0.4)],
    "outside": [(-9.0, -3.0), (-1.0, 40.0)],
    "crossing the image": [(-20.0, -15.0), (60.0, 40.0)],
    "leaving at the bottom": [(10.2, 5.3), (14.8, 60.0)],
    "a point-long segment": [(4.4, 4.4), (4.4, 4.4)],
}


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("name", list(HAND_LINES))
def test_hand_cases_burn_as_gdal(name, all_touched):
    line = LineString(HAND_LINES[name])
    expected = _rasterio([(line, 1)], all_touched=all_touched)
    got = polymask.rasterize([line], SHAPE, transform=Affine.identity(), dtype=np.int32, all_touched=all_touched)
    np.testing.assert_array_equal(got, expected)


def test_a_horizontal_line_burns_its_row_written_out():
    got = polymask.rasterize([LineString([(0.5, 1.5), (3.5, 1.5)])], (3, 5), transform=Affine.identity())
    np.testing.assert_array_equal(got, [[0, 0, 0, 0, 0], [1, 1, 1, 1, 0], [0, 0, 0, 0, 0]])


def test_without_a_transform_lines_are_in_the_sample_frame():
    line = LineString([(0.0, 1.0), (3.0, 1.0)])  # through the centres of row 1, columns 0-3
    np.testing.assert_array_equal(polymask.rasterize([line], (3, 5))[1], [1, 1, 1, 1, 0])


def _mixed(seed):
    rng = np.random.default_rng(seed)
    ring = LinearRing([(3.2, 2.1), (14.7, 4.4), (9.3, 17.6)])
    multi = MultiLineString([rng.uniform(0, 30, (3, 2)), rng.uniform(0, 22, (2, 2))])
    collection = GeometryCollection(
        [box(20.2, 12.3, 27.7, 19.9), LineString([(0.5, 20.5), (29.5, 13.5)]), Point(1.5, 1.5)]
    )
    return [
        box(1.1, 1.4, 9.6, 8.2),
        ring,
        multi,
        collection,
        LineString([(2.0, 22.0), (30.0, 0.0)]),
        None,
        LineString(),
    ]


@pytest.mark.parametrize("all_touched", [False, True])
def test_rings_multilines_and_collections_beside_polygons_and_points(all_touched):
    geometries = _mixed(3)
    values = np.arange(1, len(geometries) + 1)
    kept = [(g, int(v)) for g, v in zip(geometries, values) if g is not None and not g.is_empty]
    expected = _rasterio(kept, transform=Affine.identity(), all_touched=all_touched)
    got = polymask.rasterize(
        geometries, SHAPE, values, transform=Affine.identity(), dtype=np.int32, all_touched=all_touched
    )
    np.testing.assert_array_equal(got, expected)
    assert set(np.unique(got)) >= {0, 1, 2, 3, 4, 5}


class _Shape:
    """Not shapely: an object that offers only ``__geo_interface__``."""

    def __init__(self, geometry):
        self.geometry = mapping(geometry)

    @property
    def __geo_interface__(self):
        return self.geometry


@pytest.mark.parametrize("all_touched", [False, True])
def test_geojson_points_and_lines_burn_as_their_shapely_twins(all_touched):
    geometries = [g for g in _mixed(4) if g is not None and not g.is_empty]
    geometries += [Point(7.5, 3.2), shapely.MultiPoint([(0.2, 0.2), (12.9, 8.1)])]
    values = np.arange(1, len(geometries) + 1)
    expected = polymask.rasterize(geometries, SHAPE, values, transform=Affine.identity(), all_touched=all_touched)
    assert np.array_equal(
        expected,
        _rasterio(list(zip(geometries, values.tolist())), transform=Affine.identity(), all_touched=all_touched).astype(
            expected.dtype
        ),
    )
    features = [{"type": "Feature", "properties": {}, "geometry": mapping(g)} for g in geometries]
    forms = {
        "mappings": [mapping(g) for g in geometries],
        "features": features,
        "a feature collection": {"type": "FeatureCollection", "features": features},
        "geo interfaces": [_Shape(g) for g in geometries],
    }
    for form_name, form in forms.items():
        got = polymask.rasterize(form, SHAPE, values, transform=Affine.identity(), all_touched=all_touched)
        np.testing.assert_array_equal(got, expected, err_msg=form_name)


def test_a_geojson_point_burns_the_cell_that_holds_it():
    point = {"type": "Point", "coordinates": [2.0, 1.0]}  # the lower sides of cell (1, 2)
    got = polymask.rasterize(
        [point, {"type": "MultiPoint", "coordinates": [[0.5, 0.5]]}], (3, 4), transform=Affine.identity()
    )
    np.testing.assert_array_equal(got, [[2, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])


@pytest.mark.parametrize("all_touched", [False, True])
def test_add_and_count_burn_each_line_once_per_cell(all_touched):
    rng = np.random.default_rng(8)
    lines = []
    for _ in range(25):  # polylines rising in x and y: no cell reached by two segments of one line
        steps = rng.uniform(0.3, 6.0, (int(rng.integers(2, 5)), 2))
        lines.append(LineString(np.cumsum(steps, axis=0) + rng.uniform(-3, 10, 2)))
    lines += [LineString([(2.5, 2.5), (20.5, 2.5)])] * 3
    expected = _rasterio(
        [(line, 1) for line in lines], transform=Affine.identity(), all_touched=all_touched, merge_alg=MergeAlg.add
    )
    options = dict(transform=Affine.identity(), dtype=np.int32, all_touched=all_touched)
    np.testing.assert_array_equal(polymask.rasterize(lines, SHAPE, 1, merge="add", **options), expected)
    np.testing.assert_array_equal(polymask.rasterize(lines, SHAPE, merge="count", **options), expected)
    assert expected.max() >= 3


def test_a_window_is_the_slice_and_dask_agrees():
    import polymask.dask

    geometries = _mixed(5) + _in_world(_random_lines(6, 20), TRANSFORMS[0])
    for all_touched in (False, True):
        full = polymask.rasterize(geometries, SHAPE, all_touched=all_touched, transform=TRANSFORMS[0])
        window = polymask.rasterize(
            geometries, SHAPE, all_touched=all_touched, transform=TRANSFORMS[0], window=(4, 7, 12, 15)
        )
        np.testing.assert_array_equal(window, full[4:16, 7:22])
        lazy = polymask.dask.rasterize(
            geometries, SHAPE, chunks=(7, 9), all_touched=all_touched, transform=TRANSFORMS[0]
        )
        np.testing.assert_array_equal(lazy.compute(), full)


def test_a_line_with_a_nan_vertex_is_refused_by_name_or_skipped():
    lines = [LineString([(1, 1), (5, 5)]), LineString([(1, 1), (np.nan, 2)])]
    with pytest.raises(ValueError, match=r"polygons\[1\] has a vertex \(nan, 2\.0\) that is not finite"):
        polymask.rasterize(lines, SHAPE)
    with pytest.warns(UserWarning, match=r"skipped 1 of 2 geometries.*polygons\[1\]"):
        got = polymask.rasterize(lines, SHAPE, invalid="skip")
    np.testing.assert_array_equal(got, polymask.rasterize(lines[:1], SHAPE))


def test_the_single_polygon_functions_still_refuse_a_line():
    with pytest.raises(ValueError, match="LineString, which has no area"):
        polymask.mask(LineString([(1, 1), (5, 5)]), SHAPE)
    with pytest.raises(ValueError, match="LineString"):
        polymask.mask({"type": "LineString", "coordinates": [[1, 1], [5, 5]]}, SHAPE)


def test_lines_burning_no_cell_keep_their_values_in_place():
    far = {"type": "LineString", "coordinates": np.array([[4.2e5, 4.9e6], [4.3e5, 4.8e6]])}  # NumPy coordinates
    near = LineString([(1.5, 1.5), (6.5, 1.5)])
    got = polymask.rasterize([far, far, near], (4, 8), [2, 3, 5], transform=Affine.identity())
    np.testing.assert_array_equal(got, _rasterio([(far, 2), (far, 3), (near, 5)], shape=(4, 8)))
    assert got[1].tolist() == [0, 5, 5, 5, 5, 5, 5, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a line outside the image is neither invalid nor empty
        skipping = polymask.rasterize([far, far, near], (4, 8), [2, 3, 5], transform=Affine.identity(), invalid="skip")
    np.testing.assert_array_equal(skipping, got)


@pytest.mark.parametrize("all_touched", [False, True])
def test_a_multilinestring_adds_once_on_a_cell_its_lines_share_as_gdal(all_touched):
    """GDAL burns a MultiLineString's lines as one: a cell two reach gets its value once (a collection's: twice)."""
    rng = np.random.default_rng(int(all_touched))
    pixel = _random_lines(40 + int(all_touched), 24)
    multi = [MultiLineString([pixel[k], pixel[k + 1], pixel[k + 2]]) for k in range(0, 24, 3)]
    collections = [GeometryCollection(list(m.geoms)) for m in multi[:3]]
    polygons = [box(*corner, *(corner + rng.uniform(2, 9, 2))) for corner in rng.uniform(0, 30, (4, 2))]
    for geometries in (multi, multi + polygons, polygons[:2] + multi + polygons[2:], collections + multi[3:]):
        values = np.arange(1, len(geometries) + 1)
        expected = _rasterio(
            list(zip(geometries, values.tolist())),
            transform=Affine.identity(),
            all_touched=all_touched,
            merge_alg=MergeAlg.add,
        )
        for form in (geometries, [mapping(g) for g in geometries]):  # shapely in bulk, and GeoJSON
            got = polymask.rasterize(
                form, SHAPE, values, transform=Affine.identity(), dtype=np.int32, all_touched=all_touched, merge="add"
            )
            np.testing.assert_array_equal(got, expected)
    shared = polymask.rasterize(multi, SHAPE, transform=Affine.identity(), merge="count", all_touched=all_touched)
    apart = polymask.rasterize(
        [line for m in multi for line in m.geoms],
        SHAPE,
        transform=Affine.identity(),
        merge="count",
        all_touched=all_touched,
    )
    assert (shared < apart).any()  # the lines of one MultiLineString do meet on cells
