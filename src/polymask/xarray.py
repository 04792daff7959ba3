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

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, cast

try:
    import xarray as xr
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("polymask.xarray needs xarray, which is not installed: pip install 'polymask[xarray]' "
                      f"(xarray, rioxarray, dask); the rest of polymask works without it ({error})") from error

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from polymask import _core, _inputs, _polygons
from polymask._describe import describe as _describe
from polymask._describe import short_repr
from polymask._geometries import geometry_array
from polymask._outputs import result_array
from polymask._rings import PolygonList, vertex_ranges
from polymask._threads import as_threads
from polymask._xarray_coordinates import LazyOrEager
from polymask._xarray_grids import GRID_HINT, EdgeRetries, Grid
from polymask._xarray_points import PointGrid, point_grid
from polymask._xarray_rectilinear import RectilinearGrid
from polymask.typing import MaskArray, PolygonLike

if TYPE_CHECKING:
    import dask.array as da

#: polymask._dask_blocks.checked_chunks: (chunks, shape, dtype) -> one tuple of block sizes per axis.
ChunkCheck = Callable[[Any, tuple[int, int], np.dtype[Any]], tuple[tuple[int, ...], tuple[int, ...]]]

__all__ = ["mask", "mask_2d", "mask_3d"]

#: Grids with more points than this are computed lazily (Dask) unless chunks= says otherwise.
LAZY_POINTS = 2**26



def mask(polygon: PolygonLike, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
         wrap_lon: bool | float | None = None, chunks: Any = None) -> xr.DataArray:
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
    rings = _inputs.polygon(_in_crs_of(polygon, like), name="polygon", on_pixels=False)
    flat = PolygonList(rings.vertices, rings.ring_ends_or_single(), np.array([rings.ring_count], dtype=np.int64))
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    labels = _burn(grid, flat, np.array([1.0]), chunks)
    return grid.to_dataarray(labels == 1, "mask")


def mask_2d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None,
            chunks: Any = None, later_wins: bool = False) -> xr.DataArray:
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
        region.

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
    flat, numbers, _, _ = _regions(regions, numbers, like)
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    index = np.arange(len(flat), dtype=np.float64)
    last = _burn(grid, flat, index, chunks)
    if not later_wins and declared is None and len(flat) > 1:
        first = _burn(grid, _reversed(flat), index[::-1].copy(), chunks)  # the earliest region holding each point
        if isinstance(last, np.ndarray):
            last = _one_region(last, cast("NDArray[np.float64]", first))  # burnt as `last` was: in memory
        else:
            import dask.array as da

            last = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
                _one_region, last, first, dtype=np.float64)
    table = np.concatenate([np.asarray(numbers, dtype=np.float64), [np.nan]])
    if isinstance(last, np.ndarray):
        labels = table[np.where(np.isnan(last), -1, last).astype(np.intp)]
    else:
        import dask.array as da

        labels = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            _numbers_of, last, table, dtype=np.float64)
    return grid.to_dataarray(labels, "mask")


def _numbers_of(last: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Region numbers of region indices (NaN: none; table[-1] is NaN)."""
    return table[np.where(np.isnan(last), -1, last).astype(np.intp)]


def _one_region(last: np.ndarray, first: np.ndarray,
                block_info: Mapping[int | None, Mapping[str, Any]] | None = None) -> np.ndarray:
    """`last`, or ValueError where a point's latest and earliest region differ: two regions hold it.

    Of a Dask block, `block_info` places it in the grid, so the message
    names the point's index in the whole grid, not in the block.
    """
    same = (last == first) | (np.isnan(last) & np.isnan(first))
    if not same.all():
        where = np.unravel_index(int(np.argmin(same)), same.shape)
        origin = [0] * last.ndim if block_info is None else [begin for begin, _ in block_info[0]["array-location"]]
        index = tuple(int(k) + begin for k, begin in zip(where, origin))
        raise ValueError(f"regions {int(first[where])} and {int(last[where])} (by position) both hold the grid "
                         f"point at index {index}: a 2-D mask gives each point one number; "
                         "use mask_3d, or pass later_wins=True for the later region's number")
    return last


def _reversed(flat: PolygonList) -> PolygonList:
    """The same regions in reverse order."""
    begins, ends = vertex_ranges(flat)
    ring_begins = np.concatenate([[0], flat.polygon_ends[:-1]]).astype(np.int64)
    vertices, ring_ends, polygon_ends, at, rings = [], [], [], 0, 0
    for p in range(len(flat) - 1, -1, -1):
        vertices.append(flat.vertices[begins[p]:ends[p]])
        ring_ends.append(flat.ring_ends[ring_begins[p]:flat.polygon_ends[p]] - begins[p] + at)
        at += int(ends[p] - begins[p])
        rings += int(flat.polygon_ends[p] - ring_begins[p])
        polygon_ends.append(rings)
    return PolygonList(np.ascontiguousarray(np.concatenate(vertices)), np.concatenate(ring_ends).astype(np.int64),
                       np.asarray(polygon_ends, dtype=np.int64))


def mask_3d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None, drop: bool = True,
            chunks: Any = None) -> xr.DataArray:
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
        Bool, (region, lat, lon).

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
    flat, numbers, names, abbrevs = _regions(regions, numbers, like)
    grid = Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon, point_grid, RectilinearGrid)
    points = int(np.prod(grid.fill_shape))
    if one_per_point:  # each point in at most one region: the label image, one layer per number
        index = np.arange(len(flat), dtype=np.float64)
        if chunks is None and len(flat) * points > LAZY_POINTS:  # a stack too large to hold: lazy
            from polymask.dask import DEFAULT_CHUNK

            chunks = DEFAULT_CHUNK
        labels = _burn(grid, flat, index, chunks)
        layers = labels[None] == index.reshape((-1,) + (1,) * labels.ndim)
    elif isinstance(grid, PointGrid):  # uneven or 2-D coordinates: polymask.contains, region by region
        layers = grid.layers(flat, _point_chunks(chunks, len(flat) * points))
    elif chunks is None and len(flat) * points <= LAZY_POINTS:
        layers = _Stack(grid, flat).window(0, 0, *grid.fill_shape)
    else:
        import dask.array as da

        from polymask._dask_blocks import DEFAULT_CHUNK, checked_chunks

        block_chunks = _block_chunks(checked_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape, bool)
        layers = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
            _Stack(grid, flat).block, chunks=((len(flat),),) + block_chunks, dtype=bool,
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


class _Stack:
    """Fills any window of the (region, row, col) stack in the fill frame: eagerly or per Dask block.

    As regionmask's mask_3D, the points on the dateline column and the pole row are tried a second
    time (at 180 E, and north of -90 N; the corner once, at both) and hold the regions of either try.
    """

    def __init__(self, grid: "Grid", flat: PolygonList):
        self.flat = flat
        self.vertices = grid.sample_frame(flat.vertices)
        self.col, self.row = grid.dateline_col, grid.pole_row
        self.dateline = grid.dateline_frame(flat.vertices) if self.col is not None else None
        self.pole = grid.sample_frame(flat.vertices, pole=True) if self.row is not None else None
        both = self.col is not None and self.row is not None
        self.corner = grid.dateline_frame(flat.vertices, pole=True) if both else None

    def window(self, row0: int, col0: int, height: int, width: int) -> MaskArray:
        layers = result_array(None, (len(self.flat), height, width), bool, zeroed=True,
                              what="stack of region masks", hint=GRID_HINT)
        _fill_layers(layers, self.vertices, self.flat, row0, col0)
        col = self.col if self.col is not None and col0 <= self.col < col0 + width else None  # in the window
        row = self.row if self.row is not None and row0 <= self.row < row0 + height else None
        if col is not None:
            assert self.dateline is not None  # made whenever there is a dateline column
            column = np.zeros((len(self.flat), height, 1), dtype=bool)
            _fill_layers(column, self.dateline, self.flat, row0, col)
            if row is not None:
                column[:, row - row0] = False  # the corner: tried below
            layers[:, :, col - col0] |= column[:, :, 0]
        if row is not None:
            assert self.pole is not None  # made whenever there is a pole row
            line = np.zeros((len(self.flat), 1, width), dtype=bool)
            _fill_layers(line, self.pole, self.flat, row, col0)
            if col is not None:
                line[:, :, col - col0] = False
            layers[:, row - row0, :] |= line[:, 0, :]
        if col is not None and row is not None:
            assert self.corner is not None  # made whenever there are both
            corner = np.zeros((len(self.flat), 1, 1), dtype=bool)
            _fill_layers(corner, self.corner, self.flat, row, col)
            layers[:, row - row0, col - col0] |= corner[:, 0, 0]
        return layers

    def block(self, block_info: Mapping[int | None, Mapping[str, Any]] | None = None) -> MaskArray:
        assert block_info is not None  # dask passes it to every block of map_blocks
        _, (row_begin, row_end), (col_begin, col_end) = block_info[None]["array-location"]
        return self.window(row_begin, col_begin, row_end - row_begin, col_end - col_begin)


def _fill_layers(layers: np.ndarray, vertices: np.ndarray, flat: PolygonList, row0: int, col0: int) -> None:
    """layers[p] = the window (row0, col0) of region p's mask, one core fill per region."""
    ring_begin = 0
    for index, ring_end in enumerate(flat.polygon_ends):
        ends = flat.ring_ends[ring_begin:ring_end]
        first = int(flat.ring_ends[ring_begin - 1]) if ring_begin > 0 else 0
        last = int(ends[-1]) if len(ends) else first
        if last > first:
            _core.fill(np.ascontiguousarray(vertices[first:last]), layers[index].view(np.uint8), row0=row0, col0=col0,
                       rule=_core.EVEN_ODD, threads=as_threads(None),
                       ring_ends=np.ascontiguousarray(ends - first))
        ring_begin = ring_end


# ---- regions -------------------------------------------------------------------


def _regions(regions: Any, numbers: ArrayLike | None,
             like: Any = None) -> tuple[PolygonList, NDArray[Any], list[str] | None, list[str] | None]:
    """(PolygonList, numbers, names, abbrevs) of any accepted regions form.

    A GeoDataFrame or GeoSeries with a CRS is reprojected to the CRS of a
    georeferenced `like` (rioxarray) first.
    """
    names = abbrevs = None
    regions = _in_crs_of(regions, like)
    default_numbers = None
    if hasattr(regions, "polygons") and hasattr(regions, "numbers"):  # regionmask.Regions, duck-typed
        default_numbers = np.asarray(regions.numbers)
        names, abbrevs = list(regions.names), list(regions.abbrevs)
        regions = np.array(list(regions.polygons), dtype=object)
    elif geometry_array(regions) is None and not isinstance(regions, (list, tuple, np.ndarray)):
        raise TypeError(f"regions must be a regionmask.Regions, a GeoDataFrame / GeoSeries, or a sequence of "
                        f"polygons, got {_describe(regions)}")
    flat = _inputs.polygons(regions, name="regions", on_pixels=False)
    if numbers is None:
        numbers = default_numbers if default_numbers is not None else np.arange(len(flat))
    numbers = np.asarray(numbers)
    if numbers.dtype.kind not in "iuf" or numbers.shape != (len(flat),):
        raise ValueError(f"numbers must hold one number per region ({len(flat)}), got {_describe(numbers)}")
    return flat, numbers, names, abbrevs


def _in_crs_of(regions: Any, like: Any) -> Any:
    """`regions` reprojected to like's rioxarray CRS when both have one (GeoPandas only)."""
    source = getattr(regions, "crs", None)
    if source is None or like is None or not type(regions).__module__.startswith("geopandas"):
        return regions
    try:
        import rioxarray  # noqa: F401  (registers the .rio accessor)

        target = like.rio.crs
    except Exception:  # no rioxarray georeference: nothing to reproject to
        return regions
    if target is None or source == target:
        return regions
    return regions.to_crs(target)


def _burn(grid: Grid | PointGrid, flat: PolygonList, numbers: NDArray[Any], chunks: Any) -> LazyOrEager:
    """The float64 label image (NaN background) of the regions on the grid, in the grid's order."""
    if isinstance(grid, PointGrid):
        return grid.labels(flat, numbers, _point_chunks(chunks, int(np.prod(grid.fill_shape))))
    vertices = grid.sample_frame(flat.vertices)
    frame = PolygonList(vertices, flat.ring_ends, flat.polygon_ends)
    values = np.ascontiguousarray(numbers, dtype=np.float64)
    edges = grid.edge_points(flat, values)  # for the points on the dateline or the pole no region took
    points = grid.fill_shape[0] * grid.fill_shape[1]
    if chunks is None and points <= LAZY_POINTS:
        out = result_array(None, grid.fill_shape, np.float64, fill_value=np.nan,
                           what="grid of region numbers", hint=GRID_HINT)
        _polygons.rasterize(frame.vertices, frame.ring_ends, frame.polygon_ends, values, out, 0, 0, _core.EVEN_ODD,
                            as_threads(None))
        if edges is not None:
            edges.patch(out, 0, 0)
        return grid.reorder(out)
    import dask.array as da
    from dask.delayed import delayed  # dask's namespace re-exports it without declaring it

    from polymask._dask_blocks import DEFAULT_CHUNK, Burn, block_starts, checked_chunks, rasterize_block

    # The lazy burn's background is 0, so burn index + 1 and look the numbers up per block.
    indices = np.arange(1, len(flat) + 1, dtype=np.int32)
    block_chunks = _block_chunks(checked_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape,
                                 indices.dtype)
    burn = delayed(Burn(frame, indices), pure=True)  # one key: every block shares the polygons
    # (dask leaves map_blocks unannotated)
    labels: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]
        rasterize_block, burn, _core.EVEN_ODD, 1, block_starts(block_chunks), chunks=block_chunks,
        dtype=indices.dtype, meta=np.empty((0, 0), dtype=indices.dtype))
    table = np.concatenate([[np.nan], values])
    numbers_lazy: da.Array = da.map_blocks(  # type: ignore[no-untyped-call]
        _lookup, labels, table, edges, dtype=np.float64, meta=np.empty((0, 0)))
    return grid.reorder(numbers_lazy)


def _point_chunks(chunks: Any, points: int) -> Any:
    """Dask chunks for a grid tested point by point: `chunks`, or the default for a grid too large to hold."""
    if chunks is None and points > LAZY_POINTS:
        from polymask.dask import DEFAULT_CHUNK

        return DEFAULT_CHUNK
    return chunks


def _block_chunks(normalize: ChunkCheck, chunks: Any, shape: tuple[int, int],
                  dtype: DTypeLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """polymask.dask's chunk check, with zero-sized blocks refused here too."""
    try:
        return normalize(chunks, shape, np.dtype(dtype))
    except ZeroDivisionError:  # dask divides by a zero block size before it validates
        raise ValueError(f"chunks must be positive block sizes for a grid of shape {shape}, "
                         f"got {short_repr(chunks)}") from None


def _lookup(block: NDArray[np.int32], table: NDArray[np.float64], edges: EdgeRetries | None,
            block_info: Mapping[int | None, Mapping[str, Any]] | None = None) -> NDArray[np.float64]:
    """Region numbers (NaN for 0) of a block of burned indices, the edge points patched."""
    numbers = table[block]
    if edges is not None:
        assert block_info is not None  # dask passes it to every block of map_blocks
        (row0, _), (col0, _) = block_info[0]["array-location"]
        edges.patch(numbers, row0, col0)
    return numbers
