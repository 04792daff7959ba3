"""polymask.xarray on grids that are not regular: against regionmask, point for point.

Uneven 1-D coordinates (Gaussian latitudes, as spectral models write them;
a stretched longitude axis) and 2-D lon/lat arrays (a rotated-pole grid and
a tripolar-like ocean grid built from formulas, and a regular grid handed
over as 2-D arrays whose points lie on the regions' borders, the dateline
and the South Pole) go through ``polymask.contains``; every region set
regionmask ships, both longitude conventions.  Plus the longitude noise of
real files (Natural Earth reaches 180.00000000000006).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import regionmask
import xarray as xr
from shapely.geometry import Polygon

import polymask.xarray as pxr
from tests.test_xarray import REGION_SETS


def gaussian_latitudes(count: int) -> np.ndarray:
    """The Gauss-Legendre latitudes of a spectral model's grid, south to north."""
    return np.degrees(np.arcsin(np.polynomial.legendre.leggauss(count)[0]))


def rotated_pole(rlon: np.ndarray, rlat: np.ndarray, pole_lon: float, pole_lat: float):
    """2-D geographic lon/lat of a rotated-pole grid (rotated coordinates rlon x rlat, degrees)."""
    rlon2, rlat2 = np.meshgrid(np.radians(rlon), np.radians(rlat))
    x, y, z = np.cos(rlat2) * np.cos(rlon2), np.cos(rlat2) * np.sin(rlon2), np.sin(rlat2)
    tilt = np.radians(90.0 - pole_lat)  # the rotated pole's colatitude, then its longitude
    x, z = x * np.cos(tilt) - z * np.sin(tilt), x * np.sin(tilt) + z * np.cos(tilt)
    turn = np.radians(pole_lon + 180.0)
    x, y = x * np.cos(turn) - y * np.sin(turn), x * np.sin(turn) + y * np.cos(turn)
    return np.degrees(np.arctan2(y, x)), np.degrees(np.arcsin(np.clip(z, -1, 1)))


def tripolar_like(convention: int):
    """A global ocean-like grid: regular in the south, its northern rows bent towards two poles over land."""
    lon1 = np.arange(0.5, 360, 2.0) - (180 if convention == 180 else 0)
    lat1 = np.arange(-79.5, 90, 2.0)
    lon, lat = np.meshgrid(lon1, lat1)
    north = np.clip((lat - 60) / 30, 0, 1)
    lat = lat - 8 * north**2 * np.cos(np.radians(2 * lon)) ** 2
    lon = lon + 10 * north * np.sin(np.radians(2 * lon))
    return lon, lat


def regular_2d(convention: int):
    """The 2-degree grid on the regions' borders, the dateline and the South Pole, as 2-D arrays."""
    start = -180 if convention == 180 else 0
    return np.meshgrid(np.arange(start, start + 360, 2.0), np.arange(-90, 91, 2.0))


def _expected(regions, lon, lat, three_d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return regions.mask_3D(lon, lat, drop=False) if three_d else regions.mask(lon, lat)


def _check(regions, lon, lat, name):
    if name != "prudence":  # overlapping regions: regionmask's mask refuses them
        got_2d = pxr.mask_2d(regions, lon, lat)
        expected_2d = _expected(regions, lon, lat, False)
        assert got_2d.dims == expected_2d.dims
        same = (got_2d.values == expected_2d.values) | (np.isnan(got_2d.values) & np.isnan(expected_2d.values))
        assert same.all(), f"{np.count_nonzero(~same)} points differ"
    got_3d = pxr.mask_3d(regions, lon, lat, drop=False)
    expected_3d = _expected(regions, lon, lat, True)
    assert got_3d.dims == expected_3d.dims
    differ = np.count_nonzero(got_3d.values != expected_3d.values)
    assert differ == 0, f"{differ} points differ"


GRIDS_1D = {
    "gaussian-1deg": lambda convention: (np.arange(0.0, 360.0, 1.0) - (180 if convention == 180 else 0),
                                         gaussian_latitudes(96)),
    "stretched": lambda convention: (np.sort(np.random.default_rng(5).uniform(0, 360, 150))
                                     - (180 if convention == 180 else 0), np.linspace(-90, 90, 61) ** 3 / 8100),
}
GRIDS_2D = {
    "rotated-pole": lambda convention: rotated_pole(np.arange(-40, 40, 0.5), np.arange(-30, 30, 0.5), -162, 39.25),
    "tripolar-like": tripolar_like,
    "regular-on-borders": regular_2d,
}


@pytest.mark.parametrize("convention", [180, 360])
@pytest.mark.parametrize("grid", sorted(GRIDS_1D) + sorted(GRIDS_2D))
@pytest.mark.parametrize("name", sorted(REGION_SETS))
def test_grids_equal_regionmask(name, grid, convention):
    lon, lat = (GRIDS_1D | GRIDS_2D)[grid](convention)
    if convention == 360:
        lon = np.mod(lon, 360)
    _check(REGION_SETS[name](), lon, lat, name)


def test_a_curvilinear_dataset_keeps_its_dims_and_coordinates():
    lon, lat = rotated_pole(np.arange(-20, 20, 1.0), np.arange(-10, 10, 1.0), -162, 39.25)
    field = xr.Dataset(coords={"rlon": np.arange(-20, 20, 1.0), "rlat": np.arange(-10, 10, 1.0),
                               "lon": (("rlat", "rlon"), lon), "lat": (("rlat", "rlon"), lat)})
    srex = regionmask.defined_regions.srex
    got = pxr.mask_3d(srex, like=field)
    assert got.dims == ("region", "rlat", "rlon")
    assert np.array_equal(got["lon"].values, lon) and np.array_equal(got["rlon"].values, field["rlon"].values)
    assert np.array_equal(got.values, _expected(srex, field["lon"], field["lat"], True).sel(region=got.region))


def test_lazy_curvilinear_masks_equal_eager_ones():
    lon, lat = tripolar_like(180)
    srex = regionmask.defined_regions.srex
    lazy = pxr.mask_2d(srex, lon, lat, chunks=(17, 40))
    assert lazy.chunks is not None
    np.testing.assert_array_equal(lazy.values, pxr.mask_2d(srex, lon, lat).values)
    lazy_3d = pxr.mask_3d(srex, lon, lat, chunks=(17, 40), drop=False)
    np.testing.assert_array_equal(lazy_3d.values, pxr.mask_3d(srex, lon, lat, drop=False).values)


def test_longitude_noise_of_a_few_ulps_is_tolerated_as_in_regionmask():
    # Natural Earth's countries reach 180.00000000000006 with others at -180.
    regions = [Polygon([(170, -20), (180.00000000000006, -20), (180.00000000000006, -10), (170, -10)]),
               Polygon([(-180, 0), (-170, 0), (-170, 10), (-180, 10)])]
    lon, lat = np.arange(-179.5, 180, 1.0), np.arange(-29.5, 30, 1.0)
    got = pxr.mask_2d(regions, lon, lat)
    expected = regionmask.Regions(regions).mask(lon, lat)
    np.testing.assert_array_equal(got.values, expected.values)
    assert int((got == 0).sum()) == 100 and int((got == 1).sum()) == 100


@pytest.mark.parametrize("step", [5e-324, 1e-310, 1e-300, 1e30, 1e300])
def test_steps_too_fine_or_too_coarse_for_grid_units_still_hold_every_point(step):
    # Equally spaced, but so finely that a region's vertices in grid units
    # (degrees / step) overflow float64, or so coarsely that the region
    # shrinks below one ulp there: the points are tested where they are
    # instead (all-NaN came back for these, silently).
    square = [(-10.0, -10.0), (40.0, -10.0), (40.0, 30.0), (-10.0, 30.0)]
    result = pxr.mask_2d([square], [0.0, 1.0], [0.0, step])
    at_step = 0.0 if step < 30 else np.nan  # the second row lies at latitude `step`
    np.testing.assert_array_equal(result.values, [[0.0, 0.0], [at_step, at_step]])
