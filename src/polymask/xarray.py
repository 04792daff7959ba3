"""Masks on geographic grids as xarray DataArrays: polymask for climate data.

Three outputs, named after what regionmask users know them as:

* :func:`mask` -- one polygon, a bool DataArray (lat, lon);
* :func:`mask_2d` -- many regions, the number of the region that holds each
  grid point, NaN where none does (regionmask's ``mask``);
* :func:`mask_3d` -- many regions, a bool stack (region, lat, lon)
  (regionmask's ``mask_3D``).

The grid comes as ``lon`` and ``lat`` (1-D coordinates, or 2-D arrays of a
curvilinear grid) or as ``like=`` a DataArray / Dataset.  Two conventions, one per kind of grid:

* **Points** (lon/lat coordinates, as regionmask has them): each grid point
  is tested 1e-8 degrees west and 1e-10 south of where it is, as regionmask
  tests it, so a point on a region's border belongs to the region to its
  west (or south, on an east-west border), even where two neighbours store
  their shared border with rounding noise (AR6 does).  polymask fills on the
  grid ordered east to west and north to south, where the contract's
  half-open rule (left and top edges in) settles what the nudge leaves
  exactly on an edge, and puts the rows and columns back in the grid's
  order.  For a ``regionmask.Regions`` declared ``overlap=False``,
  :func:`mask_3d` gives each point the one region of :func:`mask_2d`, as
  regionmask does.  Points at 180 W (0 E) and at -90 N that no region took
  are tried again, as regionmask tries them: at 180 E (360 E), and 1e-10
  degrees north of the pole, so regions ending at the dateline or the South
  Pole hold them.
* **Cells** (``like=`` a rioxarray-georeferenced array with x/y dims and no
  lon/lat coordinates): its affine transform goes to ``transform=``, pixel
  (row, col) is the cell sampled at its centre, as rasterio does, the
  result carries the CRS, and GeoPandas regions with another CRS are
  reprojected to it.

Longitudes are wrapped to the regions' convention (-180..180 or 0..360)
before the fill and the result keeps the grid's own coordinates, so a
0..360 grid and -180..180 regions agree with regionmask (the regions'
convention is read rounded to 1e-6 degrees, as regionmask reads it, so a
few ulps of noise past 180 or 360 do not count).  Equally spaced grids
(after wrapping and sorting) are filled by the scanline core; uneven 1-D
coordinates (Gaussian latitudes) and 2-D lon/lat (rotated-pole, tripolar)
are tested point by point with ``polymask.contains``, with the same nudge
and second tries.  With ``chunks=`` (or a grid
of more than 2**26 points) the result is a lazy Dask array filled block by
block.

xarray is an optional extra: ``pip install 'polymask[xarray]'``.
"""
from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NewType, Union, cast, overload

try:
    import xarray as xr
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("polymask.xarray needs xarray, which is not installed: pip install 'polymask[xarray]' "
                      f"(xarray, rioxarray, dask); the rest of polymask works without it ({error})") from error

import numpy as np
from numpy.typing import ArrayLike, NDArray

from polymask import _inputs
from polymask._describe import describe as _describe
from polymask._rings import PolygonList
from polymask._xarray_coordinates import LazyOrEager
from polymask._xarray_grids import Grid
from polymask._xarray_labels import LAZY_POINTS as LAZY_POINTS  # documented as this module's
from polymask._xarray_labels import (
    block_chunks,
    burn,
    numbers_of,
    one_region,
    point_chunks,
    region_numbers,
    reversed_regions,
)
from polymask._xarray_points import PointGrid, point_grid
from polymask._xarray_rectilinear import RectilinearGrid
from polymask._xarray_regions import in_crs_of, regions_of
from polymask._xarray_stack import Stack
from polymask.typing import PolygonLike

__all__ = ["LazyDataArray", "MaybeLazyDataArray", "mask", "mask_2d", "mask_3d"]

#: A DataArray backed by a lazy Dask array, filled block by block when computed:
#: ``.compute()`` (or ``.load()``, in place) gives it in memory, ``.values`` the NumPy array.
LazyDataArray = NewType("LazyDataArray", xr.DataArray)
#: What mask, mask_2d and mask_3d return: a DataArray in memory, or a LazyDataArray with
#: ``chunks=`` or when the result holds more than LAZY_POINTS grid points (mask_3d: regions
#: times points).  ``isinstance(result.data, numpy.ndarray)`` tells which.
MaybeLazyDataArray = Union[xr.DataArray, LazyDataArray]
#: ``chunks=``: blocks for every axis, a tuple of them per axis, or a dict by dim (dask's forms).
Chunks = Union[int, tuple[Any, ...], dict[Any, Any], str]


def mask(polygon: PolygonLike, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
         wrap_lon: bool | float | None = None, chunks: Any = None) -> MaybeLazyDataArray:
    """The grid points (or cells) inside one polygon, as a bool DataArray (lat, lon).

    Parameters
    ----------
    polygon : polygon
        Anything :func:`polymask.mask` takes (shapely, GeoJSON-like, rings),
        in longitude/latitude.
    lon : array_like, optional
        The grid's longitudes: 1-D, or 2-D (lat, lon) for a curvilinear
        grid.  Needed unless `like` is given.
    lat : array_like, optional
        The grid's latitudes, shaped as `lon`.  Needed unless `like` is given.
    like : xarray.DataArray or xarray.Dataset, optional
        Take the grid from this object instead: its ``lon``/``longitude``
        and ``lat``/``latitude`` coordinates or, without those, its
        rioxarray transform and CRS (the cell convention).
    wrap_lon : bool or {180, 360}, optional
        None (default) detects the regions' convention from their
        longitudes; 180 or 360 forces one; True wraps the grid to the other
        convention than its own (regionmask's meaning); False never wraps.
    chunks : int, tuple or dict, optional
        Make the result a lazy Dask array with these blocks (also the
        default for grids of more than 2**26 points).

    Returns
    -------
    xarray.DataArray
        Bool, (lat, lon) with the grid's coordinates (or its y/x and CRS).
        Its data is a NumPy array, or a lazy Dask array (filled when
        computed) with `chunks` or for a grid of more than 2**26 points.

    Raises
    ------
    ImportError
        If the result must be lazy and Dask is not installed.
    TypeError
        If neither `lon` and `lat` nor `like` describe a grid, or a region is
        of no form polymask reads.
    ValueError
        If a coordinate is not finite, `lon` and `lat` do not match, `wrap_lon`
        is not one of the values above.

    Examples
    --------
    >>> import numpy as np, polymask.xarray
    >>> lon, lat = np.arange(0.5, 6), np.arange(0.5, 4)
    >>> inside = polymask.xarray.mask([(1, 1), (5, 1), (5, 3), (1, 3)], lon, lat)
    >>> inside.dims
    ('lat', 'lon')
    >>> inside.values.astype(int)
    array([[0, 0, 0, 0, 0, 0],
           [0, 1, 1, 1, 1, 0],
           [0, 1, 1, 1, 1, 0],
           [0, 0, 0, 0, 0, 0]])
    """
    rings = _inputs.polygon(in_crs_of(polygon, like), name="polygon", on_pixels=False)
    flat = PolygonList(rings.vertices, rings.ring_ends_or_single(), np.array([rings.ring_count], dtype=np.int64))
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    labels = burn(grid, flat, np.array([1.0]), chunks)
    return grid.to_dataarray(labels == 1, "mask")


@overload
def mask_2d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, chunks: None = None,
            later_wins: bool = False) -> MaybeLazyDataArray: ...
@overload
def mask_2d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, chunks: Chunks,
            later_wins: bool = False) -> LazyDataArray: ...
def mask_2d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None,
            chunks: Chunks | None = None, later_wins: bool = False) -> MaybeLazyDataArray:
    """Each grid point's region number, NaN outside every region (float64), as regionmask's ``mask``.

    A grid point held by two regions has no one number: as in regionmask,
    that is a ValueError (use :func:`mask_3d`), and so is a
    ``regionmask.Regions`` declared ``overlap=True``; a Regions declared
    ``overlap=False`` is not checked.

    Parameters
    ----------
    regions : regionmask.Regions, GeoDataFrame, GeoSeries or sequence of polygons
        A ``regionmask.Regions``, a GeoDataFrame or GeoSeries, a list or
        array of shapely geometries, or anything :func:`polymask.rasterize`
        takes.
    lon : array_like, optional
        The grid's longitudes: 1-D, or 2-D (lat, lon) for a curvilinear
        grid.  Needed unless `like` is given.
    lat : array_like, optional
        The grid's latitudes, shaped as `lon`.  Needed unless `like` is given.
    like : xarray.DataArray or xarray.Dataset, optional
        Take the grid from this object instead: its ``lon``/``longitude``
        and ``lat``/``latitude`` coordinates or, without those, its
        rioxarray transform and CRS (the cell convention).
    numbers : array_like, optional
        One number per region; default the Regions' numbers, else 0, 1, 2, ...
    wrap_lon : bool or {180, 360}, optional
        None (default) detects the regions' convention from their
        longitudes; 180 or 360 forces one; True wraps the grid to the other
        convention than its own (regionmask's meaning); False never wraps.
    chunks : int, tuple or dict, optional
        Make the result a lazy Dask array with these blocks (also the
        default for grids of more than 2**26 points).
    later_wins : bool, optional
        True skips the overlap check and gives a point held by two regions
        the later region's number (as :func:`polymask.rasterize`).

    Returns
    -------
    xarray.DataArray
        Float64, (lat, lon): each point's region number, NaN outside every
        region.  Its data is a NumPy array, or a lazy Dask array (filled
        when computed) with `chunks` or for a grid of more than 2**26 points.

    Raises
    ------
    ImportError
        If the result must be lazy and Dask is not installed.
    TypeError
        If neither `lon` and `lat` nor `like` describe a grid, or a region is
        of no form polymask reads.
    ValueError
        If a coordinate is not finite, `lon` and `lat` do not match, `wrap_lon`
        is not one of the values above,
        `numbers` has another length than `regions`, or two regions hold
        one grid point (without `later_wins`).

    Examples
    --------
    >>> import numpy as np, polymask.xarray
    >>> lon, lat = np.arange(0.5, 6), np.arange(0.5, 4)
    >>> west, east = [(0, 0), (3, 0), (3, 4), (0, 4)], [(3, 0), (6, 0), (6, 4), (3, 4)]
    >>> polymask.xarray.mask_2d([west, east], lon, lat, numbers=[1, 2]).values[0]
    array([1., 1., 1., 2., 2., 2.])
    """
    if not isinstance(later_wins, (bool, np.bool_)):
        raise TypeError(f"later_wins must be True or False, got {_describe(later_wins)}")
    declared = getattr(regions, "overlap", None) if hasattr(regions, "polygons") else None
    if declared is True and not later_wins:
        raise ValueError("these regions are declared overlap=True: a 2-D mask cannot give a point two numbers; "
                         "use mask_3d, or pass later_wins=True for the later region's number")
    flat, numbers, _, _ = regions_of(regions, numbers, like)
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    one_each = not later_wins and declared is None and len(flat) > 1
    fast = region_numbers(grid, flat, numbers, one_each, chunks)
    if fast is not None:
        return grid.to_dataarray(fast, "mask")
    index = np.arange(len(flat), dtype=np.float64)
    last = burn(grid, flat, index, chunks)
    if one_each:
        first = burn(grid, reversed_regions(flat), index[::-1].copy(), chunks)  # the earliest region holding each point
        if isinstance(last, np.ndarray):
            last = one_region(last, cast("NDArray[np.float64]", first))  # burnt as `last` was: in memory
        else:
            import dask.array as da

            last = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
                one_region, last, first, dtype=np.float64)
    table = np.concatenate([np.asarray(numbers, dtype=np.float64), [np.nan]])
    if isinstance(last, np.ndarray):
        labels = table[np.where(np.isnan(last), -1, last).astype(np.intp)]
    else:
        import dask.array as da

        labels = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            numbers_of, last, table, dtype=np.float64)
    return grid.to_dataarray(labels, "mask")


@overload
def mask_3d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, drop: bool = True,
            chunks: None = None) -> MaybeLazyDataArray: ...
@overload
def mask_3d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, drop: bool = True,
            chunks: Chunks) -> LazyDataArray: ...
def mask_3d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, drop: bool = True,
            chunks: Chunks | None = None) -> MaybeLazyDataArray:
    """A bool stack (region, lat, lon), one layer per region, as regionmask's ``mask_3D``.

    Overlapping regions both hold a point, except for a regionmask.Regions
    declared ``overlap=False`` (SREX, AR6, ...): there, as in regionmask, a
    point belongs to the one region :func:`mask_2d` gives it (AR6's regions
    overlap by slivers along some shared borders).  With `drop` (the default),
    regions that hold no grid point are left out (for a lazy result that
    needs one pass over the grid when called).  The region coordinate
    holds the numbers, with names and abbrevs when `regions` has them.

    Parameters
    ----------
    regions : regionmask.Regions, GeoDataFrame, GeoSeries or sequence of polygons
        As in :func:`mask_2d`.
    lon : array_like, optional
        The grid's longitudes: 1-D, or 2-D (lat, lon) for a curvilinear
        grid.  Needed unless `like` is given.
    lat : array_like, optional
        The grid's latitudes, shaped as `lon`.  Needed unless `like` is given.
    like : xarray.DataArray or xarray.Dataset, optional
        Take the grid from this object instead: its ``lon``/``longitude``
        and ``lat``/``latitude`` coordinates or, without those, its
        rioxarray transform and CRS (the cell convention).
    numbers : array_like, optional
        One number per region; default the Regions' numbers, else 0, 1, 2, ...
    wrap_lon : bool or {180, 360}, optional
        None (default) detects the regions' convention from their
        longitudes; 180 or 360 forces one; True wraps the grid to the other
        convention than its own (regionmask's meaning); False never wraps.
    drop : bool, optional
        True (default): leave out the regions that hold no grid point.
    chunks : int, tuple or dict, optional
        Make the result a lazy Dask array with these blocks (also the
        default for grids of more than 2**26 points).

    Returns
    -------
    xarray.DataArray
        Bool, (region, lat, lon).  Its data is a NumPy array, or a lazy
        Dask array (filled when computed) with `chunks` or when regions
        times points pass 2**26; with `drop` a lazy result's region
        numbers are burned once, kept in memory, and read for both the
        dropped regions and the layers.

    Raises
    ------
    ImportError
        If the result must be lazy and Dask is not installed.
    TypeError
        If neither `lon` and `lat` nor `like` describe a grid, or a region is
        of no form polymask reads.
    ValueError
        If a coordinate is not finite, `lon` and `lat` do not match, `wrap_lon`
        is not one of the values above,
        or `numbers` has another length than `regions`.

    Examples
    --------
    >>> import numpy as np, polymask.xarray
    >>> lon, lat = np.arange(0.5, 6), np.arange(0.5, 4)
    >>> west, east = [(0, 0), (3, 0), (3, 4), (0, 4)], [(3, 0), (6, 0), (6, 4), (3, 4)]
    >>> far = [(10, 10), (11, 10), (11, 11)]   # holds no grid point: dropped
    >>> stack = polymask.xarray.mask_3d([west, east, far], lon, lat)
    >>> stack.dims, stack.shape, stack.region.values.tolist()
    (('region', 'lat', 'lon'), (2, 4, 6), [0, 1])
    """
    one_per_point = getattr(regions, "overlap", None) is False and hasattr(regions, "polygons")
    flat, numbers, names, abbrevs = regions_of(regions, numbers, like)
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    points = int(np.prod(grid.fill_shape))
    if one_per_point:  # each point in at most one region: the label image, one layer per number
        index = np.arange(len(flat), dtype=np.float64)
        if chunks is None and len(flat) * points > LAZY_POINTS:  # a stack too large to hold: lazy
            from polymask.dask import DEFAULT_CHUNK

            chunks = DEFAULT_CHUNK
        labels: LazyOrEager | None = region_numbers(grid, flat, index, False, chunks)
        if labels is None:
            labels = burn(grid, flat, index, chunks)
        if drop and not isinstance(labels, np.ndarray):
            labels = labels.persist()  # type: ignore[no-untyped-call]  # burned once: drop and the result read it
        layers = labels[None] == index.reshape((-1,) + (1,) * labels.ndim)
    elif isinstance(grid, PointGrid):  # uneven or 2-D coordinates: polymask.contains, region by region
        layers = grid.layers(flat, point_chunks(chunks, len(flat) * points))
    elif chunks is None and len(flat) * points <= LAZY_POINTS:
        layers = Stack(grid, flat).window(0, 0, *grid.fill_shape)
    else:
        import dask.array as da

        from polymask._dask_blocks import DEFAULT_CHUNK, checked_chunks

        blocks = block_chunks(checked_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape, bool)
        layers = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            Stack(grid, flat).block, chunks=((len(flat),),) + blocks, dtype=bool,
            meta=np.empty((0, 0, 0), dtype=bool))
    if not one_per_point:  # _burn's labels are in the grid's order already
        layers = grid.reorder(layers)
    keep = np.asarray(layers.any(axis=tuple(range(1, layers.ndim)))) if drop else np.ones(len(flat), dtype=bool)
    coords: dict[Hashable, object] = {"region": np.asarray(numbers)[keep]}
    if names is not None:
        coords["names"] = ("region", np.asarray(names, dtype=object)[keep])
    if abbrevs is not None:
        coords["abbrevs"] = ("region", np.asarray(abbrevs, dtype=object)[keep])
    return grid.to_dataarray(layers[keep] if not keep.all() else layers, "mask_3D", extra_dims=("region",),
                             extra_coords=coords)




