"""A pytest plugin that makes polymask answer regionmask's mask routines.

Loaded with ``-p tests.regionmask_adapter`` before regionmask's own test
modules are imported, it replaces ``regionmask.core.mask._mask_rasterize``
and ``_mask_shapely`` -- the two routines that decide which region holds a
grid point -- with one that asks ``polymask.xarray``.  Everything around
them stays regionmask's: its API, its argument checks (``_parse_input``),
its longitude wrapping and its second try of the points at 180 W and 90 S
(so polymask runs with ``wrap_lon=False``: the grid arrives wrapped, and
the edge points are regionmask's to retry).  tests/test_regionmask_suite.py
runs regionmask's installed test_mask.py with it.
"""
from __future__ import annotations

import os

import numpy as np
import xarray as xr

import polymask.xarray as pxr

#: How many times polymask answered (written to $POLYMASK_ADAPTER_CALLS at the end, when set).
CALLS = [0]


def polymask_mask(lon, lat, polygons, numbers, fill=np.nan, as_3D=False, is_unstructured=False, **_):
    """regionmask's mask routine, answered by polymask.xarray: (shape) numbers, or (region, shape) bools."""
    from regionmask.core import mask as regionmask_mask

    CALLS[0] += 1
    lon, lat = regionmask_mask._parse_input(lon, lat, polygons, fill, numbers)
    if lon.ndim != lat.ndim or lon.ndim not in (1, 2) or (lon.ndim == 2 and lon.shape != lat.shape):
        regionmask_mask._get_LON_LAT_shape(lon, lat, numbers, is_unstructured=is_unstructured)  # its errors
    if is_unstructured:
        lon, lat = xr.DataArray(lon, dims="cells"), xr.DataArray(lat, dims="cells")
    regions = list(polygons)
    if as_3D:
        return pxr.mask_3d(regions, lon, lat, numbers=numbers, wrap_lon=False, drop=False).values
    labels = pxr.mask_2d(regions, lon, lat, numbers=numbers, wrap_lon=False, later_wins=True).values
    return np.where(np.isnan(labels), fill, labels)


def pytest_configure(config):
    from regionmask.core import mask as regionmask_mask

    for name in ("_mask_rasterize", "_mask_shapely"):
        setattr(regionmask_mask, name, _named(name))


def _named(name: str):
    """polymask_mask under the name of the routine it replaces (regionmask's test ids carry it)."""
    def routine(*args, **kwargs):
        return polymask_mask(*args, **kwargs)

    routine.__name__ = routine.__qualname__ = name
    return routine


def pytest_unconfigure(config):
    target = os.environ.get("POLYMASK_ADAPTER_CALLS")
    if target:
        with open(target, "w") as handle:
            handle.write(str(CALLS[0]))
