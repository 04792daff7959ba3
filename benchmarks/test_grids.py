"""Grids that are not regular: ``polymask.xarray.mask_3d`` against regionmask's ``mask_3D``.

    pytest benchmarks/test_grids.py --benchmark-only --benchmark-columns=median,iqr,rounds \\
        --benchmark-group-by=group

Groups (compare within a group), SREX regions, ``drop=False``:

* ``gaussian-1deg-srex``: 1-degree longitudes and 96 Gaussian latitudes (a
  spectral model's grid): uneven, so both libraries test point by point.
  Target: polymask at least 5x faster.
* ``curvilinear-1000-srex``: a 1,000x1,000 rotated-pole grid (2-D lon/lat).
  Target: polymask at least 5x faster.

polymask is timed at default threads beside ``polymask.threads(1)``;
extra_info records whether each mask equals regionmask's.
"""
import warnings

import numpy as np
import pytest
import regionmask

import polymask
import polymask.xarray as pxr
from benchmarks._support import record
from tests.test_xarray_grids import gaussian_latitudes, rotated_pole


def gaussian(fast):
    return np.arange(-180, 180, 1.0 if not fast else 10.0), gaussian_latitudes(96 if not fast else 12)


def curvilinear(fast):
    side = 50 if fast else 1000
    return rotated_pole(np.linspace(-60, 60, side), np.linspace(-50, 50, side), -162, 39.25)


GRIDS = {"gaussian-1deg-srex": gaussian, "curvilinear-1000-srex": curvilinear}


def _regionmask(regions, lon, lat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return regions.mask_3D(lon, lat, drop=False)


@pytest.mark.parametrize("who", ["regionmask", "polymask", "polymask-threads1"])
@pytest.mark.parametrize("grid", sorted(GRIDS))
def test_grid_mask_3d(benchmark, request, grid, who):
    lon, lat = GRIDS[grid](request.config.polymask_fast_mode)
    srex = regionmask.defined_regions.srex
    expected = _regionmask(srex, lon, lat).values
    benchmark.group = grid
    if who == "regionmask":
        result = benchmark(lambda: _regionmask(srex, lon, lat).values)
    elif who == "polymask":
        result = benchmark(lambda: pxr.mask_3d(srex, lon, lat, drop=False).values)
    else:
        def one_thread():
            with polymask.threads(1):
                return pxr.mask_3d(srex, lon, lat, drop=False).values
        result = benchmark(one_thread)
    assert record(benchmark, backend=who, result=result, expected=expected, points=int(np.size(lat)
                  if np.ndim(lat) == 2 else np.size(lon) * np.size(lat)))
