"""Grids given point by point for polymask.xarray: uneven 1-D coordinates and 2-D lon/lat.

Gaussian latitudes, stretched ocean grids, rotated-pole and tripolar grids
have no affine frame for the scanline core, so every grid point is asked
the contract directly with ``polymask.contains`` (an edge index per region,
each query testing only the edges near its latitude).  What a grid point
means follows regionmask, as the regular grids of polymask/_xarray_grids.py
do: each point is tested 1e-8 degrees west and 1e-10 south of where it is,
in a frame turned by 180 degrees (x = -lon, y = -lat) so that the
contract's half-open rule settles what the nudge leaves exactly on an edge
the way the regular grids' east-to-west, north-to-south fill settles it;
and the points at 180 W (0 E) and at -90 N are tried a second time, at
180 E (360 E) and 1e-10 degrees north of the pole.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from polymask import _points
from polymask._contains import contains
from polymask._describe import describe as _describe
from polymask._outputs import result_array
from polymask._rings import PolygonList
from polymask._threads import as_threads
from polymask._xarray_coordinates import LazyOrEager, WrapLon, coordinate_array, one_dim
from polymask._xarray_grids import GRID_HINT, NUDGE_LAT, NUDGE_LON, Wrap
from polymask.typing import MaskArray

if TYPE_CHECKING:
    import dask.array as da


class PointGrid:
    """Grid points as arrays of one shape (lat, lon order for 1-D coordinates) and how to label the result."""

    transform = None
    crs = None

    def __init__(self, lon: LazyOrEager, lat: LazyOrEager, dims: tuple[Hashable, ...],
                 coords: Mapping[Hashable, object], wrap_lon: WrapLon):
        self.lon, self.lat = lon, lat  # wrapped to the regions' convention, one shape
        self.dims, self.coords = dims, coords
        self.fill_shape: tuple[int, ...] = lon.shape
        self.edge_points: tuple[LazyOrEager, LazyOrEager, LazyOrEager] | None = None
        self.dask = _is_dask(lon)  # dask-backed coordinates: the result stays lazy, block by block
        if wrap_lon is not False:
            # regionmask's second try: points at 180 W / 0 E (as 180 E / 360 E) and at -90 N (from the north).
            # (Dask coordinates: their minimum is the one value computed before the result is.)
            dateline = np.isclose(lon, -180.0 if float(np.nanmin(lon)) < 0 else 0.0)
            pole = np.isclose(lat, -90.0)
            if self.dask or dateline.any() or pole.any():
                self.edge_points = (dateline | pole, dateline, pole)

    # ---- the tests --------------------------------------------------------------

    def labels(self, flat: PolygonList, numbers: NDArray[Any], chunks: object = None) -> LazyOrEager:
        """Each point's region number (the later region where several hold it), NaN where none does.

        With `chunks` (anything dask.array takes), a lazy Dask array computed block by block.
        """
        table = np.concatenate([[np.nan], np.asarray(numbers, dtype=np.float64)])
        turned = PolygonList(np.ascontiguousarray(-flat.vertices), flat.ring_ends, flat.polygon_ends)
        if chunks is None and not self.dask:
            return _block_labels(*self._eager(), turned=turned, table=table)
        import dask.array as da

        lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            _block_labels, self._lazy(chunks), *self._lazy_edges(chunks), turned=turned, table=table,
            dtype=np.float64)
        return lazy

    def layers(self, flat: PolygonList, chunks: object = None) -> LazyOrEager:
        """A bool stack (region, ...): each region's points, the edge points' second try added."""
        turned = _turned(flat)
        if chunks is None and not self.dask:
            return _block_layers(*self._eager(), turned=turned)
        import dask.array as da

        lon = self._lazy(chunks)
        lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            _block_layers, lon, *self._lazy_edges(chunks), turned=turned, dtype=bool, new_axis=0,
            chunks=((len(turned),),) + lon.chunks)
        return lazy

    def _eager(self) -> tuple[NDArray[np.float64], NDArray[np.float64], MaskArray, MaskArray]:
        """(lon, lat, dateline, pole) of a grid in memory (not self.dask: point_grid made NumPy arrays)."""
        return cast("tuple[NDArray[np.float64], NDArray[np.float64], MaskArray, MaskArray]",
                    (self.lon, self.lat, *self._edges()))

    def _edges(self) -> tuple[LazyOrEager, LazyOrEager]:
        if self.edge_points is None:
            none = np.zeros(self.fill_shape, dtype=bool)
            return none, none
        return self.edge_points[1], self.edge_points[2]

    def _lazy(self, chunks: object) -> da.Array:
        import dask.array as da

        if self.dask:
            lon = cast("da.Array", self.lon)  # self.dask: point_grid made it with da.asarray
            if chunks is None:
                return lon
            rechunked: da.Array = lon.rechunk(chunks)  # type: ignore[no-untyped-call]  # dask leaves it unannotated
            return rechunked
        lazy: da.Array = da.from_array(self.lon, chunks=chunks)  # type: ignore[no-untyped-call]  # so is from_array
        return lazy

    def _lazy_edges(self, chunks: object) -> list[da.Array]:
        import dask.array as da

        lon = self._lazy(chunks)
        if self.dask:
            edges = self._edges() if self.edge_points is not None else (
                da.zeros(self.fill_shape, dtype=bool, chunks=lon.chunks),) * 2
            # (dask leaves asarray and from_array unannotated)
            return [da.asarray(values).rechunk(lon.chunks)  # type: ignore[no-untyped-call]
                    for values in (self.lat,) + tuple(edges)]
        return [da.from_array(values, chunks=lon.chunks)  # type: ignore[no-untyped-call]
                for values in (self.lat,) + self._edges()]

    # ---- the result -------------------------------------------------------------

    def reorder(self, filled: LazyOrEager) -> LazyOrEager:
        return filled

    def to_dataarray(self, values: object, name: str, extra_dims: tuple[str, ...] = (),
                     extra_coords: dict[Hashable, object] | None = None) -> xr.DataArray:
        coords = dict(self.coords)
        coords.update(extra_coords or {})
        return xr.DataArray(values, dims=tuple(extra_dims) + self.dims, coords=coords, name=name)


def _frame(lon: NDArray[np.float64], lat: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points moved as regionmask moves them, in the turned frame (x = -lon, y = -lat); NaN points at 0, 0."""
    x, y = -(lon - NUDGE_LON), -(lat - NUDGE_LAT)
    unknown = np.isnan(x) | np.isnan(y)
    if unknown.any():  # asked somewhere, then answered "no region" by _unknown
        x, y = np.where(unknown, 0.0, x), np.where(unknown, 0.0, y)
    return x, y


def _unknown(lon: NDArray[np.float64], lat: NDArray[np.float64]) -> MaskArray:
    """The points with a NaN coordinate: in no region, as regionmask has them."""
    return np.isnan(lon) | np.isnan(lat)


def second_try(lon: NDArray[np.float64], lat: NDArray[np.float64], dateline: MaskArray,
               pole: MaskArray) -> tuple[MaskArray, NDArray[np.float64], NDArray[np.float64]]:
    """(where, x, y): the edge points and where they are tried again, in the turned frame."""
    where = dateline | pole
    second_lon = lon[where] - NUDGE_LON + np.where(dateline[where], 360.0, 0.0)
    second_lat = np.where(pole[where], -90.0 + NUDGE_LAT, lat[where] - NUDGE_LAT)
    return where, -second_lon, -second_lat


def which_region(turned: PolygonList, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.int64]:
    """1 + the index of the last region holding each point, 0 for none (the regions flat already)."""
    x_flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    which = np.empty(x_flat.shape, dtype=np.int64)
    _points.which_polygon(turned.vertices, turned.ring_ends, turned.polygon_ends, x_flat,
                          np.ascontiguousarray(y, dtype=np.float64).reshape(-1), which, 0, as_threads(None))
    return which.reshape(np.shape(x))


def _block_labels(lon: NDArray[np.float64], lat: NDArray[np.float64], dateline: MaskArray, pole: MaskArray, *,
                  turned: PolygonList, table: NDArray[np.float64]) -> NDArray[np.float64]:
    """Region numbers of a block of points; the edge points no region took get their second try."""
    which = which_region(turned, *_frame(lon, lat))
    if dateline.any() or pole.any():
        where, x, y = second_try(lon, lat, dateline, pole)
        first = which[where]
        which[where] = np.where(first == 0, which_region(turned, x, y), first)
    which[_unknown(lon, lat)] = 0
    return table[which]


def _block_layers(lon: NDArray[np.float64], lat: NDArray[np.float64], dateline: MaskArray, pole: MaskArray, *,
                  turned: list[list[NDArray[np.float64]]]) -> MaskArray:
    """The (region, ...) stack of a block of points; every edge point gets its second try, as in regionmask."""
    x, y = _frame(lon, lat)
    if lon.ndim == 2 and (lon == lon[:1]).all() and (lat == lat[:, :1]).all():
        x, y = x[:1], y[:, :1]  # a rectilinear block: contains fills it row by row
    stack = result_array(None, (len(turned),) + lon.shape, bool, zeroed=True,
                         what="stack of region masks", hint=GRID_HINT)
    second = second_try(lon, lat, dateline, pole) if (dateline.any() or pole.any()) else None
    for index, region in enumerate(turned):
        stack[index] = contains(region, x, y)
        if second is not None:
            where, x2, y2 = second
            stack[index][where] |= contains(region, x2, y2)
    stack[:, _unknown(lon, lat)] = False
    return stack


def _turned(flat: PolygonList) -> list[list[NDArray[np.float64]]]:
    """Each region as its list of rings, turned by 180 degrees (exact: a negation)."""
    regions: list[list[NDArray[np.float64]]] = []
    ring_begin = 0
    vertices = -flat.vertices
    for ring_end in flat.polygon_ends:
        starts = np.concatenate([[0], flat.ring_ends])[ring_begin:ring_end]
        ends = flat.ring_ends[ring_begin:ring_end]
        regions.append([vertices[start:end] for start, end in zip(starts, ends)])
        ring_begin = ring_end
    return regions


def point_grid(lon: Any, lat: Any, lon_name: Hashable, lat_name: Hashable, wrap: Wrap, wrap_lon: WrapLon) -> PointGrid:
    """A PointGrid of uneven 1-D coordinates (crossed) or 2-D lon/lat arrays of one shape.

    `wrap(lon_values)` wraps longitudes to the regions' convention.
    """
    lon_values = _grid_points(lon, "lon")
    lat_values = _grid_points(lat, "lat")
    if _is_dask(lon_values) != _is_dask(lat_values):  # one lazy: both lazy, in the lazy one's blocks
        import dask.array as da

        lazy = cast("da.Array", lon_values if _is_dask(lon_values) else lat_values)  # the one _is_dask found
        lon_values, lat_values = (da.asarray(values).rechunk(lazy.chunks)  # type: ignore[no-untyped-call]  # dask
                                  if values.shape == lazy.shape else values  # leaves asarray unannotated
                                  for values in (lon_values, lat_values))
    if one_dim(lon, lat):  # an unstructured grid: one point per cell
        if lon_values.shape != lat_values.shape:
            raise ValueError(f"lon and lat on one dim must have one length, got {lon_values.shape} and "
                             f"{lat_values.shape}")
        coords = dict(lat.coords)
        coords.update(lon.coords)
        return PointGrid(wrap(lon_values), lat_values, lon.dims, coords, wrap_lon)
    if lon_values.ndim == 1 and lat_values.ndim == 1:
        lon_grid, lat_grid = np.meshgrid(wrap(lon_values), lat_values)
        lon_dim = lon.dims[0] if isinstance(lon, xr.DataArray) else lon_name
        lat_dim = lat.dims[0] if isinstance(lat, xr.DataArray) else lat_name
        coords = {lat_dim: lat if isinstance(lat, xr.DataArray) else lat_values,
                  lon_dim: lon if isinstance(lon, xr.DataArray) else lon_values}
        return PointGrid(lon_grid, lat_grid, (lat_dim, lon_dim), coords, wrap_lon)
    if lon_values.shape != lat_values.shape or lon_values.ndim != 2:
        raise ValueError(f"lon and lat must be 1-D coordinates or 2-D arrays of one shape, got shapes "
                         f"{lon_values.shape} and {lat_values.shape}")
    if isinstance(lon, xr.DataArray) and isinstance(lat, xr.DataArray):
        if lon.dims != lat.dims:
            raise ValueError(f"2-D lon and lat must share their dims, got {lon.dims} and {lat.dims}")
        coords = dict(lat.coords)
        coords.update(lon.coords)
        coords[lon_name], coords[lat_name] = lon, lat
        dims = lon.dims
    else:  # regionmask's names for the dims of plain 2-D arrays
        dims = (f"{lat_name}_idx", f"{lon_name}_idx")
        coords = {lon_name: (dims, lon_values), lat_name: (dims, lat_values)}
    return PointGrid(wrap(lon_values), lat_values, tuple(dims), coords, wrap_lon)


def _is_dask(values: object) -> bool:
    """Whether `values` (or a DataArray's data) is a Dask array."""
    return hasattr(getattr(values, "data", values), "dask") and hasattr(getattr(values, "data", values), "chunks")


def _grid_points(values: Any, name: str) -> LazyOrEager:
    if _is_dask(values) and np.ndim(values) == 2:  # kept lazy: checked by dtype here, computed block by block
        import dask.array as da

        # (dask leaves asarray and Array.astype unannotated)
        lazy: da.Array = da.asarray(getattr(values, "data", values))  # type: ignore[no-untyped-call]
        if lazy.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be real numbers (integers or floats), got an array of dtype {lazy.dtype}")
        as_float: da.Array = lazy.astype(np.float64)  # type: ignore[no-untyped-call]
        return as_float
    array = coordinate_array(values, name)
    if array.ndim not in (1, 2) or array.size == 0:
        raise ValueError(f"{name} must be 1-D coordinates or a 2-D array of grid points, got {_describe(values)}")
    if np.isinf(array).any():  # NaN is a point with no coordinates (land on an ocean grid): in no region
        raise ValueError(f"{name} coordinates must be finite numbers or NaN, got {_describe(values)}")
    return array
