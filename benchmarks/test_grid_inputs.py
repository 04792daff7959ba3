"""polymask.xarray on the grids real files hold: float32 coordinates and lazy uneven grids.

    pytest benchmarks/test_grid_inputs.py --benchmark-only --benchmark-columns=median,iqr,rounds \\
        --benchmark-group-by=group

Groups (compare within a group):

* ``era5-land-ar6-land``: ``mask_2d`` of AR6 land regions on the 0.1-degree
  ERA5-Land grid (3600x1801) with float64 coordinates (an exact lattice:
  the scanline core) and the same coordinates as float32 (off the lattice:
  the rectilinear fill at their own values).  Target: float32 within 2x.
* ``lazy-uneven-20000x5000``: building the lazy ``mask_2d`` of SREX on an
  uneven 20000x5000 grid with chunks=(1000, 1000); its graph holds no
  grid-sized array.  Target: at most 2 s (and 200 MB).
"""
import numpy as np
import pytest
import regionmask

import polymask.xarray as pxr
from benchmarks._support import record
from tests.ar6_data import ar6_cache

LON = np.round(np.arange(-1800, 1800) / 10, 1)
LAT = np.round(np.arange(900, -901, -1) / 10, 1)


@pytest.fixture(scope="module")
def ar6_land():
    regionmask.set_options(cache_dir=str(ar6_cache()))
    return regionmask.defined_regions.ar6.land


@pytest.fixture(scope="module")
def expected(ar6_land):
    return pxr.mask_2d(ar6_land, LON, LAT).values


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_era5_land(benchmark, dtype, ar6_land, expected):
    lon, lat = LON.astype(dtype), LAT.astype(dtype)
    benchmark.group = f"era5-land-ar6-land-{LAT.size}x{LON.size}"
    result = benchmark(pxr.mask_2d, ar6_land, lon, lat)
    same = np.array_equal(result.values, expected, equal_nan=True)
    record(benchmark, backend=f"mask_2d {dtype}", result=same, expected=True)


def test_lazy_uneven_graph(benchmark):
    rng = np.random.default_rng(0)
    lon, lat = np.sort(rng.uniform(-180, 180, 20000)), np.sort(rng.uniform(-90, 90, 5000))
    srex = regionmask.defined_regions.srex
    benchmark.group = "lazy-uneven-20000x5000"
    lazy = benchmark(pxr.mask_2d, srex, lon, lat, chunks=(1000, 1000))
    record(benchmark, backend="mask_2d lazy", result=type(lazy.data).__name__, expected="Array")
