"""mask_2d's label image burned straight into float64, and mask_3d(drop=True) burning a lazy label image once.

The eager regular-grid path of ``mask_2d`` burns the region numbers once
into the float64 result, and the same burn finds a point two regions hold,
unless no two regions' boxes share a grid point.  The reference is the lazy
path (``chunks=``), which burns block by block and checks overlaps with a
second, reversed burn, and plain NumPy over each region's
``polymask.mask``.  Region counts cover boxes compared (up to 256) and not,
with and without an overlap; the box comparison and the burn's overlap
answer are checked against a burn of counts.
"""

from __future__ import annotations

import numpy as np
import pytest
import regionmask
from shapely.geometry import box

import polymask
import polymask._dask_blocks
import polymask.xarray as pxr
from polymask import _core, _inputs, _polygons
from polymask._xarray_labels import boxes_apart

LON = np.arange(-179.5, 180, 1.0)
LAT = np.arange(-89.5, 90, 1.0)


def _tiles(count, seed):
    """`count` disjoint boxes with edges on half-degrees (between grid points), some holding no point."""
    rng = np.random.default_rng(seed)
    columns = int(np.ceil(np.sqrt(count)))
    width, height = 360 / columns, 180 / columns
    tiles = []
    for k in range(count):
        west, south = -180 + (k % columns) * width, -90 + (k // columns) * height
        shrink = rng.uniform(0, 0.4, 2) * (width, height)
        tiles.append(box(west + shrink[0], south + shrink[1], west + width, south + height))
    return tiles


def _numpy_reference(tiles, numbers):
    """Each grid point's region number by NumPy over polymask.mask of each region (NaN: none)."""
    expected = np.full((len(LAT), len(LON)), np.nan)
    transform = (1.0, 0.0, -180.0, 0.0, 1.0, -90.0)  # the grid's points are the cells' centres
    for tile, number in zip(tiles, numbers):
        inside = polymask.mask(tile, expected.shape, transform=transform)
        assert np.isnan(expected[inside]).all()
        expected[inside] = number
    return expected


@pytest.mark.parametrize("count", [2, 100, 200, 300])
def test_the_one_burn_labels_equal_numpy_and_the_lazy_path(count):
    tiles = _tiles(count, count)
    numbers = np.arange(count) * 3 + 7
    eager = pxr.mask_2d(tiles, LON, LAT, numbers=numbers)
    assert isinstance(eager.data, np.ndarray)
    np.testing.assert_array_equal(eager.values, _numpy_reference(tiles, numbers))
    lazy = pxr.mask_2d(tiles, LON, LAT, numbers=numbers, chunks=(50, 70))
    np.testing.assert_array_equal(eager.values, lazy.values)


@pytest.mark.parametrize("count", [2, 100, 200, 300])
def test_an_overlap_among_many_regions_is_still_named(count):
    tiles = _tiles(count, count)
    east, north = tiles[0].bounds[2:]
    tiles[-1] = box(east - 2.2, north - 2.2, east - 0.1, north - 0.1)  # two by two grid points in tile 0's corner
    with pytest.raises(ValueError, match=rf"regions 0 and {count - 1} \(by position\) both hold the grid point"):
        pxr.mask_2d(tiles, LON, LAT)
    later = pxr.mask_2d(tiles, LON, LAT, later_wins=True).values
    row, col = int(north + 89), int(east + 179)  # the point (east - 0.5, north - 0.5)
    assert (later[row - 1 : row + 1, col - 1 : col + 1] == count - 1).all()


def _apart(polygons):
    flat = _inputs.polygons(polygons, on_pixels=False)
    return boxes_apart(flat.vertices, flat)


@pytest.mark.parametrize("seed", range(6))
def test_boxes_apart_only_when_no_grid_point_is_in_two_regions(seed):
    rng = np.random.default_rng(seed)
    half = (seed % 2) * 0.5  # region sides on grid points, or between them
    apart_seen = 0
    for _ in range(40):
        count = int(rng.integers(2, 6))
        corners = np.round(rng.uniform(0, 30, (count, 2))) + half
        sides = np.round(rng.uniform(1, 8, (count, 2)))
        quads = [
            [(x, y), (x + w, y), (x + w + rng.uniform(-1, 1), y + h), (x, y + h)]
            for (x, y), (w, h) in zip(corners, sides)
        ]
        if _apart(quads):
            apart_seen += 1
            assert polymask.rasterize(quads, (40, 40), merge="count").max() <= 1, quads
    assert apart_seen > 0
    assert not _apart([[(0, 0), (4, 0), (4, 4)], [(4, 0), (8, 0), (8, 4)]])  # a shared side on grid points
    assert _apart([[(0.5, 0.5), (4.5, 0.5), (4.5, 4.5)], [(4.5, 0.5), (8.5, 0.5), (8.5, 4.5)]])


def test_regions_sharing_sides_on_grid_points_give_each_point_one_number():
    west, east = box(-180, -90, 0, 90), box(0, -90, 180, 90)  # 0 E is a column of grid points
    lon = np.arange(-180.0, 180.0, 1.0)
    got = pxr.mask_2d([west, east], lon, LAT, numbers=[1, 2]).values
    np.testing.assert_array_equal(got, pxr.mask_2d([west, east], lon, LAT, numbers=[1, 2], chunks=(60, 90)).values)
    expected = regionmask.Regions([west, east], numbers=[1, 2], overlap=False).mask(lon, LAT)
    np.testing.assert_array_equal(got, expected.values)
    assert {1.0, 2.0} == set(np.unique(got))


def test_mask_3d_drop_burns_a_lazy_label_image_once(monkeypatch):
    tiles = _tiles(12, 5) + [box(10.1, 10.1, 10.4, 10.4)]  # the last holds no grid point: dropped
    regions = regionmask.Regions(tiles, overlap=False)
    calls = []
    burn_block = polymask._dask_blocks.rasterize_block

    def counted(burn, rule, threads, starts, all_touched=0, add=False, block_id=None):  # dask reads block_id
        calls.append(block_id)
        return burn_block(burn, rule, threads, starts, all_touched, add, block_id)

    monkeypatch.setattr(polymask._dask_blocks, "rasterize_block", counted)
    stack = pxr.mask_3d(regions, LON, LAT, chunks=(90, 120))
    blocks = 2 * 3
    assert len(calls) == blocks  # burned once, for the regions to drop
    values = stack.values
    assert len(calls) == blocks  # and read again from memory for the layers
    assert stack.region.values.tolist() == list(range(12))
    monkeypatch.undo()
    np.testing.assert_array_equal(values, pxr.mask_3d(regions, LON, LAT).values)


def _slanted_tiles(rng, columns, rows, nudge):
    """Quads in a grid of 10x10 cells whose right sides slant into the next quad, each corner moved by up to `nudge`."""
    quads = []
    for col in range(columns):
        for row in range(rows):
            x, y = 10.0 * col, 10.0 * row
            corners = np.array([(x, y), (x + 10, y), (x + 11.3, y + 10), (x + 1.3, y + 10)])
            quads.append(corners + rng.uniform(-nudge, nudge, corners.shape))
    return quads


def _overlap_found(quads, shape, row0, col0, threads):
    flat = _inputs.polygons(quads, on_pixels=False)
    out = np.full(shape, np.nan)
    values = np.arange(len(quads), dtype=np.float64)
    rings = (flat.ring_ends, flat.polygon_ends)
    return _polygons.rasterize(flat.vertices, *rings, values, out, row0, col0, _core.EVEN_ODD, threads, 0, False, True)


@pytest.mark.parametrize("seed", range(4))
def test_the_burn_finds_a_pixel_two_regions_hold_exactly_when_counts_do(seed):
    rng = np.random.default_rng(seed)
    found = {False: 0, True: 0}
    for trial in range(30):
        # Sides shared exactly (never two regions on one pixel), or moved by up to a third of a cell.
        quads = _slanted_tiles(rng, 4, 3, 0.0 if trial % 3 == 0 else 0.33)
        counts = polymask.rasterize(quads, (32, 46), merge="count", dtype=np.int32)
        for row0, col0, height, width in ((0, 0, 32, 46), (5, 7, 20, 30), (29, 40, 3, 6)):
            expected = bool(counts[row0 : row0 + height, col0 : col0 + width].max() >= 2)
            for threads in (1, 2):
                assert _overlap_found(quads, (height, width), row0, col0, threads) is expected, (trial, row0, threads)
            found[expected] += 1
    assert found[False] > 10 and found[True] > 10


def test_regions_sharing_slanted_sides_are_one_number_each_and_an_overlap_is_named():
    quads = [q * 2 - (180, 90) for q in _slanted_tiles(np.random.default_rng(0), 4, 3, 0.0)]
    lon, lat = np.arange(-179.75, 180, 0.5), np.arange(-89.75, 90, 0.5)
    eager = pxr.mask_2d(quads, lon, lat)
    np.testing.assert_array_equal(eager.values, pxr.mask_2d(quads, lon, lat, chunks=(50, 70)).values)
    quads[4] = quads[4] + (0.6, 0.0)  # over its slanted neighbour by more than a grid step
    with pytest.raises(ValueError, match=r"regions \d+ and \d+ \(by position\) both hold the grid point"):
        pxr.mask_2d(quads, lon, lat)
