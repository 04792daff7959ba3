"""Lines among polygons and points: their cells burned straight by the line walk, in runs of the burn order.

``polymask.rasterize`` reads shapely polygons, points and lines in bulk
apart when each geometry is a line or holds none, fills the polygons and
burns the lines' cells straight, one run of a kind after the other in the
order the merge rule asks for.  The reference is rasterio (GDAL) for
"last" and "add", and for every merge rule the same composition in NumPy of
each geometry's own rasterio burn (a MultiPolygon's parts each); orders alternating too often, and
collections, take the general path and must agree too.
"""

from __future__ import annotations

import numpy as np
import pytest
import rasterio.enums
import rasterio.features
import shapely

import polymask
import polymask._rasterize
from polymask import _rasterize_mixed
from tests._line_cases import SHAPE, TRANSFORMS, pixel_lines

MERGES = ["last", "first", "add", "min", "max", "count"]


def _mixed_geometries(seed, count, transform):
    """Random lines, polygons, multipolygons, points and multilines, interleaved, in world coordinates."""
    rng = np.random.default_rng(seed)
    height, width = SHAPE
    lines = pixel_lines(seed, count)
    geometries = []
    for k in range(count):
        kind = rng.integers(0, 5)
        if kind == 0:
            geometry = shapely.LineString(lines[k])
        elif kind == 1:
            geometry = shapely.MultiLineString([lines[k], lines[(k + 1) % count]])
        elif kind == 2:
            centre, radius = rng.uniform(0, (width, height)), rng.uniform(1.5, 8)
            angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 9))))
            geometry = shapely.Polygon(centre + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1))
        elif kind == 3:
            boxes = [shapely.box(*c, *(c + rng.uniform(1, 6, 2))) for c in rng.uniform(0, (width, height), (2, 2))]
            geometry = shapely.MultiPolygon(boxes) if not boxes[0].intersects(boxes[1]) else boxes[0]
        else:
            geometry = shapely.Point(rng.uniform(-1, (width + 1, height + 1)))
        geometries.append(shapely.affinity.affine_transform(geometry, transform.to_shapely()))
    return geometries


def _rasterio_each(geometries, transform, all_touched):
    """How many of each geometry's parts hold each cell, as GDAL counts them: a MultiPolygon's parts each, else once."""
    return np.stack(
        [
            sum(
                rasterio.features.rasterize(
                    [(part, 1)], out_shape=SHAPE, transform=transform, all_touched=all_touched, dtype="int32"
                )
                for part in (shapely.get_parts(g) if g.geom_type == "MultiPolygon" else [g])
            )
            for g in geometries
        ]
    )


def _composed(cells, values, merge):
    """The merge rule applied in NumPy to each geometry's cells, in the given order."""
    image = np.zeros(SHAPE, dtype=np.float64)
    if merge in ("add", "count"):
        return (cells * (np.ones_like(values) if merge == "count" else values)[:, None, None]).sum(axis=0)
    cells = cells > 0
    claimed = np.zeros(SHAPE, dtype=bool)
    for k in range(len(values)) if merge != "first" else range(len(values) - 1, -1, -1):
        inside = cells[k]
        if merge == "min":
            inside = inside & (~claimed | (values[k] < image))
        elif merge == "max":
            inside = inside & (~claimed | (values[k] > image))
        image[inside] = values[k]
        claimed |= cells[k]
    return image


@pytest.mark.parametrize("merge", MERGES)
@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("transform", TRANSFORMS[1:3])
def test_mixed_lists_burn_each_geometry_as_gdal_under_every_merge_rule(transform, all_touched, merge):
    geometries = _mixed_geometries(TRANSFORMS.index(transform), 40, transform)
    values = np.random.default_rng(3).permutation(np.arange(1, len(geometries) + 1)) * 3
    expected = _composed(_rasterio_each(geometries, transform, all_touched), values, merge)
    got = polymask.rasterize(
        geometries,
        SHAPE,
        None if merge == "count" else values,
        transform=transform,
        all_touched=all_touched,
        merge=merge,
        dtype=np.int32,
    )
    np.testing.assert_array_equal(got, expected)
    if merge in ("last", "add"):  # rasterio's own burn
        gdal = rasterio.features.rasterize(
            zip(geometries, values.tolist()),
            out_shape=SHAPE,
            transform=transform,
            all_touched=all_touched,
            dtype="int32",
            merge_alg=rasterio.enums.MergeAlg.add if merge == "add" else rasterio.enums.MergeAlg.replace,
        )
        np.testing.assert_array_equal(got, gdal)


@pytest.mark.parametrize("merge", MERGES)
def test_float_sums_windows_and_out_match_the_general_path(monkeypatch, merge):
    transform = TRANSFORMS[2]
    geometries = _mixed_geometries(11, 50, transform)
    values = None if merge == "count" else np.random.default_rng(5).uniform(-1, 1, len(geometries))
    out = np.full((12, 15), 0.25)
    kwargs = dict(transform=transform, merge=merge, window=(7, 9, 12, 15))
    fast = polymask.rasterize(geometries, SHAPE, values, out=out.copy(), **kwargs)
    whole = polymask.rasterize(geometries, SHAPE, values, transform=transform, merge=merge, dtype=np.float64)
    monkeypatch.setattr(polymask._rasterize, "mixed_parts", lambda *args: None)  # the general path
    general = polymask.rasterize(geometries, SHAPE, values, out=out.copy(), **kwargs)
    np.testing.assert_array_equal(fast, general)  # float sums bit for bit: the same additions in the same order
    if merge not in ("add", "count"):  # out's 0.25 is the background only where nothing is added to it
        np.testing.assert_array_equal(np.where(fast == 0.25, 0, fast), whole[7:19, 9:24])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # shapely, of the NaN polygon
def test_the_lines_take_the_line_walk_and_their_faults_are_named_in_the_whole_input(monkeypatch):
    transform = TRANSFORMS[1]
    geometries = _mixed_geometries(4, 30, transform)
    fills = []
    real = _rasterize_mixed._polygons.rasterize
    monkeypatch.setattr(
        _rasterize_mixed._polygons, "rasterize", lambda *a, **k: fills.append(len(a[2])) or real(*a, **k)
    )
    polymask.rasterize(geometries, SHAPE, transform=transform, dtype=np.int32)
    lines = sum(len(shapely.get_parts(g)) for g in geometries if shapely.get_type_id(g) in (1, 5))
    polygon_parts = sum(len(shapely.get_parts(g)) for g in geometries if shapely.get_type_id(g) not in (1, 5))
    assert fills and lines > 0 and all(n == polygon_parts for n in fills)  # the fills saw only polygons and points
    bad = list(geometries)
    bad[17] = shapely.Polygon([(0, 0), (np.nan, 1), (1, 1)])
    with pytest.raises(ValueError, match=r"polygons\[17\]"):
        polymask.rasterize(bad, SHAPE, transform=transform)


@pytest.mark.parametrize("merge", ["add", "last"])
def test_float_sums_alternating_too_often_take_the_general_path(monkeypatch, merge):
    transform = TRANSFORMS[1]
    geometries = _mixed_geometries(8, 60, transform)
    values = np.random.default_rng(1).uniform(-1, 1, len(geometries))
    fast = polymask.rasterize(geometries, SHAPE, values, transform=transform, merge=merge)
    monkeypatch.setattr(_rasterize_mixed, "MAX_RUNS", 1)
    fewer_runs = polymask.rasterize(geometries, SHAPE, values, transform=transform, merge=merge)
    monkeypatch.setattr(polymask._rasterize, "mixed_parts", lambda *args: None)
    general = polymask.rasterize(geometries, SHAPE, values, transform=transform, merge=merge)
    np.testing.assert_array_equal(fast, general)
    np.testing.assert_array_equal(fewer_runs, general)


def test_without_memory_for_the_positions_the_general_path_burns(monkeypatch):
    transform = TRANSFORMS[1]
    geometries = _mixed_geometries(9, 40, transform)
    expected = polymask.rasterize(geometries, SHAPE, transform=transform, dtype=np.int32)

    def refused(shape):
        raise MemoryError(f"no room for {shape}")

    monkeypatch.setattr(_rasterize_mixed, "positions_image", refused)
    fills = []
    real = _rasterize_mixed._polygons.rasterize
    monkeypatch.setattr(_rasterize_mixed._polygons, "rasterize", lambda *a, **k: fills.append(1) or real(*a, **k))
    np.testing.assert_array_equal(polymask.rasterize(geometries, SHAPE, transform=transform, dtype=np.int32), expected)
    assert len(fills) == 1  # the general path's one fill: nothing was burned before the refusal
