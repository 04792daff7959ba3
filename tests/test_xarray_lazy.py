"""polymask.xarray keeps dask-backed coordinates lazy: the result is computed block by block, never whole."""
from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
import regionmask
import xarray as xr

import polymask.xarray as pxr
from tests.test_xarray_grids import tripolar_like


class LargeResults:
    """A dask scheduler callback that counts the tasks returning more than `limit` bytes."""

    def __init__(self, limit: int):
        self.limit, self.count = limit, 0

    def _posttask(self, key, result, dsk, state, worker_id):
        self.count += getattr(result, "nbytes", 0) > self.limit


def blocked(values: np.ndarray, rows: int, cols: int) -> xr.DataArray:
    """`values` as a Dask array made of separate blocks (no task holds the whole array)."""
    pieces = [[da.from_array(values[r:r + rows, c:c + cols]) for c in range(0, values.shape[1], cols)]
              for r in range(0, values.shape[0], rows)]
    return xr.DataArray(da.block(pieces), dims=("y", "x"))


@pytest.mark.parametrize("convention", [180, 360])
def test_dask_backed_curvilinear_coordinates_stay_lazy(convention):
    lon, lat = tripolar_like(convention)
    lazy_lon, lazy_lat = blocked(lon, 20, 45), blocked(lat, 20, 45)
    srex = regionmask.defined_regions.srex
    labels = pxr.mask_2d(srex, lazy_lon, lazy_lat)
    layers = pxr.mask_3d(srex, lazy_lon, lazy_lat, drop=False)
    assert isinstance(labels.data, da.Array) and isinstance(layers.data, da.Array)
    assert labels.data.chunks == lazy_lon.data.chunks
    large = LargeResults(20 * 45 * 8 * 2)
    with dask.callbacks.Callback(posttask=large._posttask):
        computed = labels.values
    assert large.count <= 1, "a task other than the final one returned more than two blocks"
    assert np.array_equal(computed, pxr.mask_2d(srex, lon, lat).values, equal_nan=True)
    assert np.array_equal(layers.values, pxr.mask_3d(srex, lon, lat, drop=False).values)
    one_lazy = pxr.mask_2d(srex, lazy_lon, lat)  # one lazy, one in memory: lazy in the lazy one's blocks
    assert isinstance(one_lazy.data, da.Array)
    assert np.array_equal(one_lazy.values, computed, equal_nan=True)


def test_lazy_coordinates_of_the_wrong_type_are_refused_before_computing():
    lon = xr.DataArray(da.zeros((4, 5), dtype=complex, chunks=2), dims=("y", "x"))
    with pytest.raises(TypeError, match="lon must be real numbers .* complex128"):
        pxr.mask_2d([[(0, 0), (1, 0), (0, 1)]], lon, lon.real)
