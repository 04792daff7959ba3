"""The coordinates of polymask.xarray's grids: reading lon/lat, and wrapping longitudes.

Every grid of the xarray family starts here: coordinates are read as
float64 real numbers (or refused with what came), and longitudes are
wrapped to the regions' convention (-180..180 or 0..360), read rounded to
1e-6 degrees as regionmask reads them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union, overload

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from polymask._describe import describe as _describe

if TYPE_CHECKING:
    import dask.array as da

#: A fill held in memory, or a lazy one computed block by block.
LazyOrEager = Union[NDArray[Any], "da.Array"]

#: What wrap_lon= takes: None (from the regions), True, False, 180 or 360.
WrapLon = Union[bool, float, None]


def one_dim(lon: object, lat: object) -> bool:
    """Whether lon and lat are 1-D DataArrays on one shared dim: the cells of an unstructured grid."""
    return (isinstance(lon, xr.DataArray) and isinstance(lat, xr.DataArray) and lon.ndim == lat.ndim == 1
            and lon.dims == lat.dims)


def ndim_of(values: Any, name: str) -> int:
    """np.ndim(values), or TypeError naming `name` where NumPy cannot read them (ragged, nested past 64 levels)."""
    if isinstance(values, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be an array of real numbers, got {_describe(values)}")
    try:
        return np.ndim(values)
    except (TypeError, ValueError, RecursionError):
        raise TypeError(f"{name} must be an array of numbers, got {_describe(values)}") from None


def coordinate_vector(values: object, name: str) -> NDArray[np.float64]:
    if values is None:
        raise TypeError(f"{name} is required: pass 1-D lon and lat coordinates, or like= a DataArray / Dataset")
    array = coordinate_array(values, name)
    if array.ndim != 1 or len(array) < 1:
        raise ValueError(f"{name} must be a 1-D array of at least one coordinate, got {_describe(values)}")
    return array


def coordinate_array(values: object, name: str) -> NDArray[np.float64]:
    """`values` as float64, or TypeError naming what came: real numbers only (no complex, dates, dicts)."""
    if isinstance(values, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be an array of real numbers, got {_describe(values)}")
    try:
        array = np.asarray(values)
        if array.dtype == object:
            array = array.astype(np.float64)
    except (TypeError, ValueError, RecursionError):
        raise TypeError(f"{name} must be an array of real numbers, got {_describe(values)}") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be real numbers (integers or floats), got an array of dtype {array.dtype}")
    return array.astype(np.float64, copy=False)


@overload
def wrap_longitudes(lon: NDArray[np.float64], vertices: NDArray[np.float64],
                    wrap_lon: WrapLon) -> NDArray[np.float64]: ...
@overload
def wrap_longitudes(lon: LazyOrEager, vertices: NDArray[np.float64], wrap_lon: WrapLon) -> LazyOrEager: ...
def wrap_longitudes(lon: LazyOrEager, vertices: NDArray[np.float64], wrap_lon: WrapLon) -> LazyOrEager:
    """The grid's longitudes in the regions' convention (-180..180 or 0..360)."""
    if wrap_lon is False or (wrap_lon is None and len(vertices) == 0):
        return lon
    if wrap_lon is True:  # regionmask's meaning: to the other convention than the grid's own
        wrap_lon = 360 if in_180(lon, "the grid's longitudes") else 180
    elif wrap_lon is None:
        low, high = float(vertices[:, 0].min()), float(vertices[:, 0].max())
        # Rounded to 1e-6 degrees, as regionmask decides: real files carry a few ulps of noise
        # (Natural Earth reaches 180.00000000000006).
        if round(low, 6) < 0 and round(high, 6) > 180:
            raise ValueError(f"the regions' longitudes span {low}..{high}: neither -180..180 nor 0..360; "
                             "pass wrap_lon=False to use them as they are")
        wrap_lon = 360 if round(high, 6) > 180 else 180
    if wrap_lon == 360:
        return np.mod(lon, 360.0)
    if wrap_lon == 180:
        return np.where((lon < -180) | (lon >= 180), np.mod(lon + 180.0, 360.0) - 180.0, lon)
    raise ValueError(f"wrap_lon must be None, True, False, 180 or 360, got {_describe(wrap_lon)}")


def in_180(lon: LazyOrEager, what: str) -> bool:
    """Whether longitudes are in -180..180 (else 0..360), read rounded to 1e-6 degrees as regionmask reads them."""
    finite = lon[np.isfinite(lon)]
    if not finite.size:
        return True
    low, high = round(float(finite.min()), 6), round(float(finite.max()), 6)
    if low < 0 and high > 180:
        raise ValueError(f"{what} span {low}..{high}: neither -180..180 nor 0..360; pass wrap_lon=180 or 360")
    return high <= 180
