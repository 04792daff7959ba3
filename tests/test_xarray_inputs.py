"""polymask.xarray on the grids real files hold, against regionmask's point-by-point (shapely) method.

Nearly even coordinates (1/3 degree written with 6 decimals, 1e-10 degree
noise) must not be taken for a lattice; one-point axes, float32
coordinates, NaN coordinates and unstructured grids are read as regionmask
reads them; overlapping regions in a 2-D mask are an error as in
regionmask; coordinates that are not real numbers are refused by name.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import regionmask
import shapely
import xarray as xr
from shapely.geometry import box

import polymask.xarray as pxr
from polymask._xarray_grids import Grid
from polymask._xarray_points import PointGrid, point_grid
from polymask._xarray_rectilinear import RectilinearGrid
from tests.ar6_data import ar6_cache


def ar6(which: str):
    regionmask.set_options(cache_dir=str(ar6_cache()))  # the file is there: nothing is fetched
    return getattr(regionmask.defined_regions.ar6, which)


def shapely_reference(regions, lon, lat, three_d=False):
    """regionmask's exact point-by-point path (shapely), whatever the spacing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if three_d:
            return regions.mask_3D(lon, lat, method="shapely", drop=False)
        return regions.mask(lon, lat, method="shapely")


def assert_same(got, expected):
    assert got.dims == expected.dims and got.shape == expected.shape
    same = (got.values == expected.values) | (np.isnan(got.values) & np.isnan(expected.values))
    assert same.all(), f"{np.count_nonzero(~same)} cells differ"


def test_one_third_degree_latitudes_with_six_decimals_are_not_a_lattice():
    lat = np.round(np.arange(-100, -40) / 3, 6)
    inside = pxr.mask(box(-10, -30, 10, -20), [0.0, 1.0, 2.0], lat).values[:, 1]
    assert (lat[inside].min(), lat[inside].max()) == (-29.666667, -20.0)


def test_srex_on_a_rounded_one_third_degree_grid_equals_the_exact_rule():
    lon = np.round(np.arange(-540, 540) / 3 + 1 / 6, 6)
    lat = np.round(np.arange(-270, 270) / 3 + 1 / 6, 6)
    srex = regionmask.defined_regions.srex
    assert_same(pxr.mask_2d(srex, lon, lat), shapely_reference(srex, lon, lat))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noisy_grids_equal_the_exact_rule(seed):
    rng = np.random.default_rng(seed)
    lon = np.arange(-180, 180, 2.5) + rng.uniform(-1e-10, 1e-10, 144)
    lat = np.arange(-90, 90.1, 2.5) + rng.uniform(-1e-10, 1e-10, 73)
    regions = ar6("all")
    assert_same(pxr.mask_2d(regions, lon, lat), shapely_reference(regions, lon, lat))


@pytest.mark.parametrize("lon, lat", [
    (np.arange(-179.75, 180, 0.5), np.arange(-89.75, 90, 0.5)),
    (np.linspace(0, 359, 360), np.linspace(90, -90, 181)),
    (np.arange(0, 360, 0.1), np.round(np.arange(-900, 901) / 10, 1)),
])
def test_exact_lattices_keep_the_scanline_path(lon, lat):
    assert not isinstance(grid_of(lon, lat), PointGrid)


@pytest.mark.parametrize("lon, lat", [
    (np.arange(0, 360, 0.1, dtype=np.float32), np.arange(-90, 90.01, 0.1, dtype=np.float32)),
    (np.arange(0, 360, 1.0), np.round(np.arange(-270, 270) / 3, 6)),
    (np.arange(0, 360, 2.5) + 1e-10 * np.sin(np.arange(144)), np.arange(-90, 90.1, 2.5)),
])
def test_one_dimensional_grids_off_a_lattice_are_filled_at_their_own_coordinates(lon, lat):
    assert isinstance(grid_of(lon, lat), RectilinearGrid)


def grid_of(lon, lat):
    triangle = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    return Grid.from_arguments(lon, lat, None, triangle, None, point_grid, RectilinearGrid)


@pytest.mark.parametrize("lon, lat", [
    ([12.5], np.arange(-60, 61, 5.0)), (np.arange(-180, 180, 5.0), [47.5]), ([12.5], [47.5]), ([-5.0], [45.0]),
])
def test_one_point_axes_are_read_as_regionmask_reads_them(lon, lat):
    prudence_free = regionmask.defined_regions.srex
    assert_same(pxr.mask_2d(prudence_free, lon, lat), shapely_reference(prudence_free, lon, lat))
    assert_same(pxr.mask_3d(prudence_free, lon, lat, drop=False),
                shapely_reference(prudence_free, lon, lat, three_d=True))


def test_float32_coordinates_give_the_rule_at_their_float32_values():
    lon = np.arange(-180, 180, 0.5, dtype=np.float32) + np.float32(0.1)
    lat = np.arange(-90, 90, 0.5, dtype=np.float32) + np.float32(0.1)
    regions = ar6("land")
    assert_same(pxr.mask_2d(regions, lon, lat), shapely_reference(regions, lon.astype(float), lat.astype(float)))


@pytest.mark.parametrize("value, message", [
    ({"a": 1}, r"lon must be an array of real numbers, got \{'a': 1\} \(type dict\)"),
    (np.array([1 + 1j, 2 + 0j]), "lon must be real numbers .* dtype complex128"),
    ([1 + 1j, 2 + 0j], "lon must be real numbers .* dtype complex128"),
    (np.array([1, 2], dtype="timedelta64[s]"), "lon must be real numbers .* dtype timedelta64"),
    (np.array(["2000-01-01"], dtype="datetime64[D]"), "lon must be real numbers .* dtype datetime64"),
    (np.zeros((2, 2), dtype=complex), "lon must be real numbers .* dtype complex128"),
])
def test_odd_coordinate_types_are_refused_by_name(value, message):
    with pytest.raises(TypeError, match=message):
        pxr.mask(box(0, 0, 1, 1), value, np.arange(3.0))


def test_nan_coordinates_are_in_no_region():
    lon, lat = np.meshgrid(np.arange(-20, 30, 2.5), np.arange(30, 70, 2.5))
    lon[3, 4] = lat[5, 6] = np.nan
    lon[7] = np.nan  # a row of land on an ocean grid
    srex = regionmask.defined_regions.srex
    got = pxr.mask_2d(srex, lon, lat)
    assert_same(got, shapely_reference(srex, lon, lat))
    assert np.isnan(got.values[3, 4]) and np.isnan(got.values[5, 6]) and np.isnan(got.values[7]).all()
    layers = pxr.mask_3d(srex, lon, lat, drop=False)
    assert not layers.values[:, 7].any()
    one_d = pxr.mask_2d(srex, np.where(np.arange(20) == 3, np.nan, np.arange(-20, 30, 2.5)), np.arange(30, 70, 2.5))
    assert np.isnan(one_d.values[:, 3]).all()


def test_an_unstructured_grid_gives_one_value_per_cell():
    cells = xr.Dataset(coords={"lon": ("cells", [0.5, 1.5, 0.5, 7.0]), "lat": ("cells", [0.5, 0.5, 1.5, 7.0])})
    regions = regionmask.Regions([box(0, 0, 1, 1), box(1, 0, 2, 1)], overlap=False)
    got = pxr.mask_2d(regions, cells.lon, cells.lat)
    expected = regions.mask(cells.lon, cells.lat)
    assert got.dims == expected.dims == ("cells",)
    assert_same(got, expected)
    assert np.array_equal(pxr.mask_3d(regions, like=cells, drop=False).values,
                          regions.mask_3D(cells, drop=False).values)


def test_wrap_lon_true_wraps_by_the_grid_as_in_regionmask():
    lon, lat = np.arange(-200.0, 160.0, 2.0), np.arange(-10.0, 11.0, 2.0)
    regions = regionmask.Regions([box(-100, -10, -80, 10)], overlap=False)
    expected = regions.mask(lon, lat, wrap_lon=True)
    got = pxr.mask_2d(regions, lon, lat, wrap_lon=True)
    assert_same(got, expected)
    assert np.isnan(got.values).all()  # the grid goes to 0..360, where the region is not


def test_overlapping_regions_in_2d_are_an_error_unless_later_wins():
    lon, lat = np.arange(0.5, 10), np.arange(0.5, 10)
    first, second = box(0, 0, 6, 6), box(4, 4, 10, 10)
    with pytest.raises(ValueError, match="overlapping"):
        regionmask.Regions([first, second]).mask(lon, lat)
    with pytest.raises(ValueError, match=r"both hold the grid point .* use mask_3d, or pass later_wins=True"):
        pxr.mask_2d([first, second], lon, lat)
    with pytest.raises(ValueError, match="both hold"):
        pxr.mask_2d([first, second], lon, lat, chunks=4).compute()
    # The index is the grid's, the same with chunks= as without (once the
    # index inside the block: (0, 0), outside both regions).
    eager = r"both hold the grid point at index \(4, 4\)"
    with pytest.raises(ValueError, match=eager):
        pxr.mask_2d([first, second], lon, lat)
    with pytest.raises(ValueError, match=eager):
        pxr.mask_2d([first, second], lon, lat, chunks=4).compute()
    with pytest.raises(ValueError, match="declared overlap=True"):
        pxr.mask_2d(regionmask.Regions([first, second], overlap=True), lon, lat)
    later = pxr.mask_2d([first, second], lon, lat, later_wins=True).values
    assert later[5, 5] == 1 and later[1, 1] == 0 and later[8, 8] == 1
    declared = regionmask.Regions([first, second], overlap=False)
    assert np.array_equal(pxr.mask_2d(declared, lon, lat).values, later, equal_nan=True)
    apart = pxr.mask_2d([box(0, 0, 4, 4), box(4, 4, 10, 10)], lon, lat)  # touching is not overlapping
    assert np.array_equal(apart.values, pxr.mask_2d([box(0, 0, 4, 4), box(4, 4, 10, 10)], lon, lat,
                                                     later_wins=True).values, equal_nan=True)
    with pytest.raises(TypeError, match="later_wins must be True or False"):
        pxr.mask_2d([first], lon, lat, later_wins="yes")


@pytest.mark.parametrize("convention", [180, 360])
@pytest.mark.parametrize("chunks", [None, (7, 11)])
def test_rectilinear_grids_give_dateline_and_pole_points_their_second_try(convention, chunks):
    lon = np.round(np.arange(-540, 540, 4) / 3, 6) + (180 if convention == 360 else 0)  # 4/3 degree, six decimals
    lat = np.round(np.arange(-270, 271, 4) / 3, 6)
    assert isinstance(grid_of(lon, lat), RectilinearGrid)
    regions = regionmask.Regions([box(-180, -90, -100, -50), box(100, -90, 180, -50), box(-50, -30, 50.5, 30)],
                                 overlap=False)
    assert_same(pxr.mask_2d(regions, lon, lat, chunks=chunks), shapely_reference(regions, lon, lat))
    got = pxr.mask_3d(regions, lon, lat, drop=False, chunks=chunks)
    assert np.array_equal(got.values, shapely_reference(regions, lon, lat, three_d=True).values)
    free = regionmask.Regions(list(regions.polygons))  # overlap undeclared: mask_3d gives every region's points
    got = pxr.mask_3d(free, lon, lat, drop=False, chunks=chunks)
    assert np.array_equal(got.values, shapely_reference(free, lon, lat, three_d=True).values)


def test_a_lazy_rectilinear_grid_builds_nothing_grid_sized():
    rng = np.random.default_rng(0)
    lon, lat = np.sort(rng.uniform(-180, 180, 20000)), np.sort(rng.uniform(-90, 90, 5000))
    lazy = pxr.mask_2d(regionmask.defined_regions.srex, lon, lat, chunks=(1000, 1000))
    graph = dict(lazy.data.__dask_graph__())
    assert all(np.asarray(value).nbytes < 10**6 for value in graph.values() if isinstance(value, np.ndarray))
    block = lazy[:1000, 9000:10000].values
    assert_same(lazy[:1000, 9000:10000], shapely_reference(regionmask.defined_regions.srex, lon[9000:10000],
                                                           lat[:1000]))
    assert block.shape == (1000, 1000)


@pytest.mark.parametrize("chunks", [0, (0, 5), "x"])
def test_bad_chunks_on_a_rectilinear_grid_are_clear_errors(chunks):
    with pytest.raises(ValueError, match="chunks must"):
        pxr.mask_2d([box(0, 0, 1, 1)], np.round(np.arange(9) / 3, 6), np.round(np.arange(7) / 3, 6), chunks=chunks)


def test_mask_3d_reads_nan_coordinates_as_mask_2d_does():
    # A NaN longitude on a grid that reaches the South Pole: its points get regionmask's second try there.
    lon, lat = np.arange(-176.25, 180, 7.5), np.arange(-90.0, 90, 7.5)
    lon[[5, 30]], lat[8] = np.nan, np.nan
    regions = [box(-180, -90, -30, 20), box(-30, -90, 60, 20), box(60, 20, 180, 90)]
    flat = pxr.mask_2d(regions, lon, lat)
    layers = pxr.mask_3d(regions, lon, lat, drop=False)
    assert np.isnan(flat.values[:, [5, 30]]).all() and np.isnan(flat.values[8]).all()
    for number in range(3):
        np.testing.assert_array_equal(layers.values[number], flat.values == number)
    # Off the pole row no point lies on a border: shapely's answer is the contract's.
    x, y = np.meshgrid(lon, lat[1:])
    expected = np.full(x.shape, np.nan)
    for number, region in enumerate(regions):
        expected[shapely.contains_xy(region, x, y)] = number
    np.testing.assert_array_equal(flat.values[1:], expected)
    np.testing.assert_array_equal(flat.values[0], np.where(lon < -30, 0, np.where(lon < 60, 1, np.nan)))
