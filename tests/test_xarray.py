"""polymask.xarray against regionmask, on the region sets regionmask ships.

SREX, Giorgi and PRUDENCE are defined inside regionmask's code; AR6 (all,
land, ocean) is the file regionmask fetches from GitHub, taken here from
regionmask's sdist on PyPI (tests/ar6_data.py).  Each is masked on 1-degree
and 0.5-degree grids, centred between the region borders (x.5 / x.25) and on
them (integers: every border runs through grid points, the tie rule
decides), in both longitude conventions; no point may differ (AR6's
Antarctic regions end at the South Pole, so its on-border grids check
regionmask's second try of the points at -90 too).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

# The xarray extra (pulled in by the test extra) installs these: a missing one is an error, never a skip.
import regionmask
import rioxarray  # noqa: F401  (the .rio accessor)
import xarray as xr
from affine import Affine
from shapely.geometry import Polygon, box

import polymask
import polymask.xarray as pxr
from tests.ar6_data import ar6_cache


def _ar6(which):
    regionmask.set_options(cache_dir=str(ar6_cache()))  # the file is there: pooch checks its hash, fetches nothing
    return getattr(regionmask.defined_regions.ar6, which)


REGION_SETS = {
    "srex": lambda: regionmask.defined_regions.srex,
    "giorgi": lambda: regionmask.defined_regions.giorgi,
    "prudence": lambda: regionmask.defined_regions.prudence,  # overlapping regions: 3-D only
    # Neighbours store their shared borders with ~1e-15 degrees of rounding noise, and some
    # overlap by slivers: regionmask's nudge and its one-region-per-point 3-D decide there.
    "ar6-all": lambda: _ar6("all"),
    "ar6-land": lambda: _ar6("land"),
    "ar6-ocean": lambda: _ar6("ocean"),
}

GRIDS = {  # step, first centre offset
    "1deg-centred": (1.0, 0.5),
    "0.5deg-centred": (0.5, 0.25),
    "1deg-on-borders": (1.0, 0.0),
    "0.5deg-on-borders": (0.5, 0.0),
}


def _grid(name, convention):
    step, offset = GRIDS[name]
    lat = np.arange(-90 + offset, 90 + step / 2, step)
    start = -180 if convention == 180 else 0
    lon = np.arange(start + offset, start + 360, step)
    return lon, lat


def _same(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("convention", [180, 360])
@pytest.mark.parametrize("grid", sorted(GRIDS))
@pytest.mark.parametrize("name", sorted(REGION_SETS))
def test_shipped_region_sets_equal_regionmask(name, grid, convention):
    regions = REGION_SETS[name]()
    lon, lat = _grid(grid, convention)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_3d = regions.mask_3D(lon, lat, drop=False)
    got_3d = pxr.mask_3d(regions, lon, lat, drop=False)
    assert got_3d.dims == ("region", "lat", "lon")
    assert np.array_equal(got_3d.values, expected_3d.values), np.sum(got_3d.values != expected_3d.values)
    assert np.array_equal(got_3d["region"].values, expected_3d["region"].values)
    assert list(got_3d["abbrevs"].values) == list(expected_3d["abbrevs"].values)
    assert np.array_equal(got_3d["lon"].values, lon) and np.array_equal(got_3d["lat"].values, lat)
    if not regions.overlap:
        expected_2d = regions.mask(lon, lat)
        got_2d = pxr.mask_2d(regions, lon, lat)
        assert got_2d.dtype == np.float64
        assert _same(got_2d.values, expected_2d.values).all()


def test_points_on_a_shared_border_with_rounding_noise_go_west_as_in_regionmask():
    """Two regions share the diagonal border x = y, stored 1e-14 apart (as AR6 stores some).

    Grid points on that border are inside neither polygon (or both), exactly; regionmask tests
    every point 1e-8 west and 1e-10 south of itself, so they belong to the west one.
    """
    west = Polygon([(0, 0), (10, 10 + 1e-14), (0, 10)])  # north-west of the diagonal, its border a hair north
    east = Polygon([(0, 0), (10, 0), (10, 10)])  # south-east of it
    regions = regionmask.Regions([west, east], numbers=[1, 2], overlap=False)
    lon = lat = np.arange(0.5, 10.0)  # (k + 0.5, k + 0.5) lies on the diagonal
    expected = regions.mask(lon, lat).values
    got = pxr.mask_2d(regions, lon, lat).values
    assert _same(got, expected).all()
    assert np.all(np.diag(got) == 1)


def test_non_overlapping_regions_give_each_point_one_layer_as_in_regionmask():
    """Regions declared overlap=False that do overlap by a sliver: each point gets mask_2d's one region."""
    a, b = box(0, 0, 10.6, 10), box(10.4, 0, 20, 10)  # both hold the column at lon 10.5
    lon, lat = np.arange(0.5, 20), np.arange(0.5, 10)
    eager = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for overlap in (False, True):
            regions = regionmask.Regions([a, b], overlap=overlap)
            eager[overlap] = pxr.mask_3d(regions, lon, lat, drop=False)
            assert np.array_equal(eager[overlap].values, regions.mask_3D(lon, lat, drop=False).values)
    assert eager[False].values.sum(axis=0).max() == 1 and eager[True].values.sum(axis=0).max() == 2
    lazy = pxr.mask_3d(regionmask.Regions([a, b], overlap=False), lon, lat, drop=False, chunks=4)
    assert lazy.chunks is not None
    assert np.array_equal(lazy.values, eager[False].values)


@pytest.mark.parametrize("convention", [180, 360])
@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("chunks", [None, (7, 11)])
def test_points_at_the_south_pole_and_the_dateline_get_a_second_try(convention, overlap, chunks):
    """Regions ending at -90 N and at the dateline hold the points there, the corner included.

    regionmask tries grid points at exactly -90 N that no region took again 1e-10 degrees north
    (south of them there is nothing), those at 180 W / 0 E again at 180 E / 360 E, and the corner
    at both; a 3-D stack ORs the second try into every layer.
    """
    east = 180.0 if convention == 180 else 360.0
    regions = regionmask.Regions([box(east - 30, -90, east, -60), box(east - 60, -90, east - 20, -70),
                                  box(east - 90, -80, east - 50, -50)], overlap=overlap)
    lon = np.arange(east - 360.0, east, 5.0)  # from 180 W (0 E): the dateline column, no 180 E column
    lat = np.arange(-90.0, -40.0, 5.0)  # from -90 N: the pole row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_3d = regions.mask_3D(lon, lat, drop=False).values
        got_3d = pxr.mask_3d(regions, lon, lat, drop=False, chunks=chunks)
        assert np.array_equal(got_3d.values, expected_3d)
        assert got_3d.values[:, 0, 0].any()  # the corner: at -90 N, on the dateline
        assert got_3d.values[:, 0, :].sum() > 4  # the pole row
        if not overlap:
            got_2d = pxr.mask_2d(regions, lon, lat, chunks=chunks)
            assert _same(got_2d.values, regions.mask(lon, lat).values).all()


def test_descending_latitudes_and_like_a_dataset():
    """ERA5-style grids run north to south; like= takes the coordinates of a Dataset."""
    regions = regionmask.defined_regions.giorgi
    lon, lat = np.arange(0.25, 360, 0.5), np.arange(89.75, -90, -0.5)
    dataset = xr.Dataset({"t2m": (("latitude", "longitude"), np.zeros((len(lat), len(lon))))},
                         coords={"latitude": lat, "longitude": lon})
    got = pxr.mask_2d(regions, like=dataset)
    assert got.dims == ("latitude", "longitude")
    assert _same(got.values, regions.mask(dataset.longitude, dataset.latitude).values).all()


def test_a_geodataframe_of_regions_and_one_polygon():
    lon, lat = np.arange(-179.5, 180), np.arange(-89.5, 90)
    frame = regionmask.defined_regions.srex.to_geodataframe()
    got = pxr.mask_2d(frame.geometry, lon, lat, numbers=frame.index.to_numpy())
    assert _same(got.values, regionmask.defined_regions.srex.mask(lon, lat).values).all()
    one = pxr.mask(box(10, 40, 20, 50), lon, lat)
    assert one.dtype == bool and one.sum() == 100
    assert np.array_equal(one.values, regionmask.Regions([box(10, 40, 20, 50)]).mask_3D(lon, lat).values[0])


def test_lazy_masks_equal_eager_ones():
    regions = regionmask.defined_regions.srex
    lon, lat = np.arange(0.25, 360, 0.5), np.arange(89.75, -90, -0.5)
    eager = pxr.mask_2d(regions, lon, lat)
    lazy = pxr.mask_2d(regions, lon, lat, chunks=(100, 170))
    assert lazy.chunks is not None  # a Dask array until computed
    assert _same(lazy.values, eager.values).all()
    one = pxr.mask(regions.polygons[3], lon, lat, chunks=64)
    assert np.array_equal(one.values, pxr.mask(regions.polygons[3], lon, lat).values)
    # On the borders, across the dateline column (SREX region 18 ends at 180 E).
    lon, lat = np.arange(-180.0, 180.0), np.arange(-90.0, 91.0)
    lazy = pxr.mask_2d(regions, lon, lat, chunks=(50, 77))
    assert _same(lazy.values, regions.mask(lon, lat).values).all()


def test_lazy_3d_stacks_equal_eager_ones_across_the_dateline():
    regions = regionmask.defined_regions.srex  # region 17 ends at 180 E: the dateline column
    lon, lat = np.arange(-180.0, 180.0), np.arange(-90.0, 91.0)
    eager = pxr.mask_3d(regions, lon, lat)
    lazy = pxr.mask_3d(regions, lon, lat, chunks=(50, 77))
    assert lazy.chunks is not None
    assert np.array_equal(lazy.values, eager.values)
    assert np.array_equal(lazy["region"].values, eager["region"].values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(eager.values, regions.mask_3D(lon, lat).values)


def test_regions_with_a_crs_are_reprojected_to_the_rasters():
    import geopandas

    transform = Affine(1000.0, 0.0, 300000.0, 0.0, -1000.0, 5300000.0)
    raster = xr.DataArray(np.zeros((60, 80)), dims=("y", "x"),
                          coords={"y": 5300000.0 - 1000.0 * (np.arange(60) + 0.5),
                                  "x": 300000.0 + 1000.0 * (np.arange(80) + 0.5)})
    raster = raster.rio.write_crs("EPSG:32633").rio.write_transform(transform)
    regions = geopandas.GeoSeries([box(12.5, 47.0, 13.5, 47.6), box(13.8, 47.2, 14.4, 47.5)], crs="EPSG:4326")
    projected = regions.to_crs("EPSG:32633")
    got = pxr.mask_3d(regions, like=raster, drop=False)
    for k in range(2):
        assert np.array_equal(got.values[k], polymask.mask(projected.iloc[k], (60, 80), transform=transform))
    assert got.values.sum() > 100


def test_like_a_georeferenced_raster_uses_its_transform_and_crs():
    transform = Affine(30.0, 0.0, 500000.0, 0.0, -30.0, 4200000.0)
    raster = xr.DataArray(np.zeros((40, 50)), dims=("y", "x"),
                          coords={"y": 4200000.0 - 30.0 * (np.arange(40) + 0.5),
                                  "x": 500000.0 + 30.0 * (np.arange(50) + 0.5)})
    raster = raster.rio.write_crs("EPSG:32633").rio.write_transform(transform)
    field = Polygon([(500100.0, 4199100.0), (501200.0, 4199500.0), (500900.0, 4198900.0)])
    got = pxr.mask(field, like=raster)
    assert got.dims == ("y", "x") and got.rio.crs.to_epsg() == 32633
    assert np.array_equal(got.values, polymask.mask(field, (40, 50), transform=transform))


@pytest.mark.parametrize("call, error, message", [
    (lambda: pxr.mask(box(0, 0, 1, 1), np.arange(3.0), None), TypeError, "lat is required"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.arange(3.0), np.zeros((2, 2))), ValueError,
     r"lon and lat must be 1-D coordinates or 2-D arrays of one shape, got shapes \(3,\) and \(2, 2\)"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.zeros((2, 3)), np.full((2, 3), np.inf)), ValueError,
     "lat coordinates must be finite numbers or NaN"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.zeros((2, 3, 1)), np.zeros((2, 3, 1))), ValueError,
     "lon must be 1-D coordinates or a 2-D array of grid points"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.arange(3.0), np.arange(3.0), like=xr.DataArray([1])), TypeError,
     "either lon and lat, or like="),
    (lambda: pxr.mask(box(0, 0, 1, 1), like=np.zeros((3, 3))), TypeError, "like must be an xarray"),
    (lambda: pxr.mask(box(0, 0, 1, 1), like=xr.DataArray(np.zeros((3, 3)), dims=("a", "b"))), ValueError,
     "no lon/lat coordinates and no rioxarray georeference"),
    (lambda: pxr.mask(Polygon([(-10, 0), (200, 0), (0, 5)]), np.arange(3.0), np.arange(3.0)), ValueError,
     "neither -180..180 nor 0..360"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.arange(3.0), np.arange(3.0), wrap_lon=90), ValueError,
     "wrap_lon must be None, True, False, 180 or 360"),
    (lambda: pxr.mask_2d([box(0, 0, 1, 1)], np.arange(3.0), np.arange(3.0), numbers=[1, 2]), ValueError,
     r"numbers must hold one number per region \(1\)"),
    (lambda: pxr.mask_2d(5, np.arange(3.0), np.arange(3.0)), TypeError, "regions must be a regionmask.Regions"),
    (lambda: pxr.mask(box(0, 0, 1, 1), np.arange(3.0), np.arange(3.0), chunks=0), ValueError, "chunks must"),
    (lambda: pxr.mask_3d([box(0, 0, 1, 1)], np.arange(3.0), np.arange(3.0), chunks="x"), ValueError, "chunks must"),
])
def test_bad_grids_and_regions_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
