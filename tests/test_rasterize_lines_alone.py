"""Lines alone in a label image: their cells burned straight into it, equal to the general path and to GDAL.

When every geometry is a line, ``polymask.rasterize`` walks the lines in the
core and writes their labels on the cells, without the polygon fill.  The
references: rasterio's ``rasterize`` (GDAL) cell for cell, and the general
path (the same lines beside an empty polygon, walked in NumPy and burned as
polygons of their cells) under every merge rule, window, ``out=`` and
``all_touched``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import rasterio.features
from shapely.geometry import LinearRing, LineString, MultiLineString, Polygon

import polymask
import polymask._rasterize
from polymask import _line_cells
from polymask._lines import pixel_frame, walked_lines_cells
from tests._line_cases import SHAPE, TRANSFORMS, pixel_lines


def _geometries(seed, count, transform, rings=True):
    """Lines, LinearRings (with `rings`) and MultiLineStrings in world coordinates."""
    pixel = pixel_lines(seed, count)
    world = [np.array([transform @ tuple(p) for p in line]) for line in pixel]
    geometries = []
    for k, xy in enumerate(world):
        if rings and k % 9 == 4 and len(xy) >= 3:
            geometries.append(LinearRing(xy))
        elif k % 8 == 3:
            geometries.append(MultiLineString([xy, xy[::-1] + xy[0] * 1e-3]))
        else:
            geometries.append(LineString(xy))
    return geometries


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_the_core_walks_the_cells_of_the_numpy_walk(transform, all_touched):
    lines = [
        pixel_frame(np.array([transform @ tuple(p) for p in line]), tuple(transform)[:6])
        for line in pixel_lines(300 + TRANSFORMS.index(transform), 400)
    ]
    ends = np.cumsum([len(line) for line in lines], dtype=np.int64)
    cell_ends, pixels = _line_cells.cells(np.concatenate(lines), ends, SHAPE[0], SHAPE[1], all_touched)
    line, rows, cols = walked_lines_cells(lines, SHAPE, all_touched)
    np.testing.assert_array_equal(cell_ends, np.searchsorted(line, np.arange(1, len(lines) + 1)))
    np.testing.assert_array_equal(pixels, rows * SHAPE[1] + cols)
    assert len(pixels) > 3000


@pytest.mark.parametrize("all_touched", [False, True])
def test_many_overlapping_lines_land_in_order_as_gdal_burns_them(all_touched):
    transform = TRANSFORMS[2]
    lines = _geometries(41, 300, transform, rings=False)  # GDAL burns a few cells of a LinearRing otherwise
    values = np.arange(1, len(lines) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rasterio.features.rasterize(
            list(zip(lines, values.tolist())),
            out_shape=SHAPE,
            transform=transform,
            all_touched=all_touched,
            dtype="int32",
        )
    got = polymask.rasterize(
        np.array(lines, dtype=object), SHAPE, values, transform=transform, dtype=np.int32, all_touched=all_touched
    )
    np.testing.assert_array_equal(got, expected)


def test_lines_alone_never_take_the_polygon_path(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("lines alone were read as polygons")

    monkeypatch.setattr(polymask._rasterize, "polygons_and_labels", refuse)
    lines = _geometries(5, 30, TRANSFORMS[1])
    got = polymask.rasterize(lines, SHAPE, transform=TRANSFORMS[1], all_touched=True)
    assert got.any()
    with pytest.raises(AssertionError, match="read as polygons"):  # a polygon among them: the general path
        polymask.rasterize([*lines, Polygon()], SHAPE, transform=TRANSFORMS[1])


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("merge", ["last", "first", "add", "min", "max", "count"])
def test_every_merge_rule_window_and_out_as_the_general_path(merge, all_touched):
    transform = TRANSFORMS[3]
    lines = _geometries(17, 120, transform)
    rng = np.random.default_rng(3)
    values = None if merge == "count" else rng.integers(-50, 50, len(lines)).astype(np.float64)
    if merge in ("min", "max"):
        values[::7] = np.nan
    options = dict(transform=transform, all_touched=all_touched, merge=merge)
    background = rng.integers(0, 5, SHAPE).astype(np.float64)
    for window in (None, (3, 5, 17, 20)):
        region = (slice(None), slice(None)) if window is None else (slice(3, 20), slice(5, 25))
        alone, general = background[region].copy(), background[region].copy()
        polymask.rasterize(lines, SHAPE, values, out=alone, window=window, **options)
        beside = None if values is None else np.append(values, 99.0)
        polymask.rasterize([*lines, Polygon()], SHAPE, beside, out=general, window=window, **options)
        np.testing.assert_array_equal(alone, general)
        assert (alone != background[region]).sum() > 50
    chosen = polymask.rasterize(
        lines,
        SHAPE,
        None if values is None else np.nan_to_num(values).astype(int),
        transform=transform,
        all_touched=all_touched,
        merge=merge,
    )
    reference = polymask.rasterize(
        [*lines, Polygon()],
        SHAPE,
        None if values is None else np.append(np.nan_to_num(values).astype(int), 1),
        transform=transform,
        all_touched=all_touched,
        merge=merge,
    )
    assert chosen.dtype == reference.dtype  # the label type chosen from the values (and sums) alike
    np.testing.assert_array_equal(chosen, reference)


def test_refused_input_leaves_out_untouched_and_empty_lines_skip_with_a_warning():
    lines = _geometries(9, 10, TRANSFORMS[0])
    out = np.full(SHAPE, 7, dtype=np.int32)
    with pytest.raises(ValueError, match="one value per polygon"):
        polymask.rasterize(lines, SHAPE, [1, 2, 3], out=out)
    with pytest.raises(ValueError, match="does not fit uint8"):
        polymask.rasterize(lines, SHAPE, 300, dtype=np.uint8)
    assert (out == 7).all()
    with_empty = [*lines, LineString()]
    np.testing.assert_array_equal(polymask.rasterize(with_empty, SHAPE, 1), polymask.rasterize(lines, SHAPE, 1))
    with pytest.warns(UserWarning, match=r"skipped 1 of 11 geometries.*polygons\[10\] is empty"):
        skipped = polymask.rasterize(with_empty, SHAPE, 1, invalid="skip")
    np.testing.assert_array_equal(skipped, polymask.rasterize(lines, SHAPE, 1))


def test_a_geodataframe_of_lines_takes_its_value_column():
    import geopandas

    lines = _geometries(12, 40, TRANSFORMS[0])
    frame = geopandas.GeoDataFrame({"road": np.arange(10, 50)}, geometry=lines)
    got = polymask.rasterize(frame, SHAPE, "road")
    np.testing.assert_array_equal(got, polymask.rasterize([*lines, Polygon()], SHAPE, list(range(10, 51))))


def test_the_core_walk_refuses_what_it_cannot_walk():
    ends = np.array([2], dtype=np.int64)
    for xy in ([[0.0, 0.0], [np.nan, 1.0]], [[0.0, 0.0], [2.0**30, 1.0]], [[-np.inf, 0.0], [1.0, 1.0]]):
        with pytest.raises(ValueError, match=r"coordinates must be finite and below 2\^30"):
            _line_cells.cells(np.array(xy), ends, 5, 5, False)
    with pytest.raises(ValueError, match=r"line_ends must be non-decreasing and at most the vertex count"):
        _line_cells.cells(np.zeros((2, 2)), np.array([3], dtype=np.int64), 5, 5, True)
    cell_ends, pixels = _line_cells.cells(np.zeros((0, 2)), np.zeros(0, dtype=np.int64), 5, 5, True)
    assert len(cell_ends) == len(pixels) == 0
