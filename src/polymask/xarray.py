"""Masks on geographic grids as xarray DataArrays: polymask for climate data.

Three outputs, named after what regionmask users know them as:

* :func:`mask` -- one polygon, a bool DataArray (lat, lon);
* :func:`mask_2d` -- many regions, the number of the region that holds each
  grid point, NaN where none does (regionmask's ``mask``);
* :func:`mask_3d` -- many regions, a bool stack (region, lat, lon)
  (regionmask's ``mask_3D``).

The grid comes as 1-D ``lon`` and ``lat`` coordinates or as ``like=`` a
DataArray / Dataset.  Two conventions, one per kind of grid:

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
0..360 grid and -180..180 regions agree with regionmask.  Grids must be
equally spaced (after wrapping and sorting).  With ``chunks=`` (or a grid of
more than 2**26 points) the result is a lazy Dask array filled block by
block.

xarray is an optional extra: ``pip install 'polymask[xarray]'``.
"""
from __future__ import annotations

from typing import Any

try:
    import xarray as xr
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("polymask.xarray needs xarray, which is not installed: pip install 'polymask[xarray]' "
                      f"(xarray, rioxarray, dask); the rest of polymask works without it ({error})") from error

import numpy as np
from numpy.typing import ArrayLike

from polymask import _core
from polymask._geometries import geometry_array
from polymask._rings import PolygonList, as_polygon_list, as_rings
from polymask._types import PolygonLike
from polymask._validation import _describe

__all__ = ["mask", "mask_2d", "mask_3d"]

#: Grids with more points than this are computed lazily (Dask) unless chunks= says otherwise.
LAZY_POINTS = 2**26

# regionmask tests each grid point 1e-8 degrees west and 1e-10 south of where it is (both its
# rasterio and its shapely path), so a point on a border shared by two regions belongs to one of
# them even where the two store that border with rounding noise (AR6 does, at ~1e-15 degrees):
# without the nudge such a point can fall outside both, or inside both.
NUDGE_LON, NUDGE_LAT = 1e-8, 1e-10

#: Coordinate names read as longitude and latitude from a like= DataArray / Dataset.
_LON_NAMES = ("lon", "longitude")
_LAT_NAMES = ("lat", "latitude")


def mask(polygon: PolygonLike, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
         wrap_lon: bool | float | None = None, chunks: Any = None) -> xr.DataArray:
    """The grid points (or cells) inside one polygon, as a bool DataArray (lat, lon).

    `polygon` is anything ``polymask.mask`` takes (shapely, GeoJSON-like,
    rings) in longitude/latitude.  `wrap_lon`: None detects the regions'
    convention from their longitudes; 180 or 360 forces one; False never
    wraps.
    """
    rings = as_rings(_in_crs_of(polygon, like), "polygon")
    flat = PolygonList(rings.vertices, rings.ring_ends_or_single(), np.array([rings.ring_count], dtype=np.int64))
    grid = _Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon)
    labels = _burn(grid, flat, np.array([1.0]), chunks)
    return grid.to_dataarray(labels == 1, "mask")


def mask_2d(regions: Any, lon: ArrayLike | None = None, lat: ArrayLike | None = None, *, like: Any = None,
            numbers: ArrayLike | None = None, wrap_lon: bool | float | None = None,
            chunks: Any = None) -> xr.DataArray:
    """Each grid point's region number, NaN outside every region (float64), as regionmask's ``mask``.

    `regions`: a ``regionmask.Regions``, a GeoDataFrame or GeoSeries, a
    list or array of shapely geometries, or anything ``polymask.rasterize``
    takes.  `numbers`: one per region; default the Regions' numbers, else
    0, 1, 2, ...  Where regions overlap, the later one wins.
    """
    flat, numbers, _, _ = _regions(regions, numbers, like)
    grid = _Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon)
    return grid.to_dataarray(_burn(grid, flat, numbers, chunks), "mask")


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
    """
    one_per_point = getattr(regions, "overlap", None) is False and hasattr(regions, "polygons")
    flat, numbers, names, abbrevs = _regions(regions, numbers, like)
    grid = _Grid.from_arguments(lon, lat, like, flat.vertices, wrap_lon)
    rows, cols = grid.fill_shape
    if one_per_point:  # each point in at most one region: the label image, one layer per number
        index = np.arange(len(flat), dtype=np.float64)
        if chunks is None and len(flat) * rows * cols > LAZY_POINTS:  # a stack too large to hold: lazy
            from polymask.dask import DEFAULT_CHUNK

            chunks = DEFAULT_CHUNK
        labels = _burn(grid, flat, index, chunks)
        layers = labels[None, :, :] == index[:, None, None]
    elif chunks is None and len(flat) * rows * cols <= LAZY_POINTS:
        layers = _Stack(grid, flat).window(0, 0, rows, cols)
    else:
        import dask.array as da

        from polymask.dask import DEFAULT_CHUNK, _chunks

        block_chunks = _block_chunks(_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape, bool)
        layers = da.map_blocks(_Stack(grid, flat).block, chunks=((len(flat),),) + block_chunks, dtype=bool,
                               meta=np.empty((0, 0, 0), dtype=bool))
    if not one_per_point:  # _burn's labels are in the grid's order already
        layers = grid.reorder(layers)
    keep = np.asarray(layers.any(axis=(1, 2))) if drop else np.ones(len(flat), dtype=bool)
    coords = {"region": numbers[keep]}
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

    def __init__(self, grid: "_Grid", flat: PolygonList):
        self.flat = flat
        self.vertices = grid.sample_frame(flat.vertices)
        self.col, self.row = grid.dateline_col, grid.pole_row
        self.dateline = grid.dateline_frame(flat.vertices) if self.col is not None else None
        self.pole = grid.sample_frame(flat.vertices, pole=True) if self.row is not None else None
        both = self.col is not None and self.row is not None
        self.corner = grid.dateline_frame(flat.vertices, pole=True) if both else None

    def window(self, row0: int, col0: int, height: int, width: int) -> np.ndarray:
        layers = np.zeros((len(self.flat), height, width), dtype=bool)
        _fill_layers(layers, self.vertices, self.flat, row0, col0)
        in_cols = self.col is not None and col0 <= self.col < col0 + width
        in_rows = self.row is not None and row0 <= self.row < row0 + height
        if in_cols:
            column = np.zeros((len(self.flat), height, 1), dtype=bool)
            _fill_layers(column, self.dateline, self.flat, row0, self.col)
            if in_rows:
                column[:, self.row - row0] = False  # the corner: tried below
            layers[:, :, self.col - col0] |= column[:, :, 0]
        if in_rows:
            line = np.zeros((len(self.flat), 1, width), dtype=bool)
            _fill_layers(line, self.pole, self.flat, self.row, col0)
            if in_cols:
                line[:, :, self.col - col0] = False
            layers[:, self.row - row0, :] |= line[:, 0, :]
        if in_cols and in_rows:
            corner = np.zeros((len(self.flat), 1, 1), dtype=bool)
            _fill_layers(corner, self.corner, self.flat, self.row, self.col)
            layers[:, self.row - row0, self.col - col0] |= corner[:, 0, 0]
        return layers

    def block(self, block_info=None) -> np.ndarray:
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
                       rule=_core.EVEN_ODD, threads=_threads(layers[index].size),
                       ring_ends=np.ascontiguousarray(ends - first))
        ring_begin = ring_end


# ---- regions -------------------------------------------------------------------


def _regions(regions, numbers, like=None):
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
    flat = as_polygon_list(regions, "regions")
    if numbers is None:
        numbers = default_numbers if default_numbers is not None else np.arange(len(flat))
    numbers = np.asarray(numbers)
    if numbers.dtype.kind not in "iuf" or numbers.shape != (len(flat),):
        raise ValueError(f"numbers must hold one number per region ({len(flat)}), got {_describe(numbers)}")
    return flat, numbers, names, abbrevs


def _in_crs_of(regions, like):
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


# ---- grids ---------------------------------------------------------------------


class _Grid:
    """Where to sample: the grid's coordinates and how polygon coordinates map onto it.

    For point grids, the fill runs on the grid sorted east to west and north
    to south (``fill_shape``), in the sample-point frame
    ``col = (lon_max - x) / dlon``, ``row = (lat_max - y) / dlat``; `reorder`
    puts rows and columns back in the grid's order.  For cell grids, the
    transform does the mapping and the order is the grid's own.
    """

    def __init__(self, lon, lat, lon_name, lat_name, *, lon_order=None, lat_order=None, origin=None,
                 step=None, transform=None, crs=None):
        self.lon, self.lat = lon, lat
        self.lon_name, self.lat_name = lon_name, lat_name
        self.lon_order, self.lat_order = lon_order, lat_order
        self.origin, self.step = origin, step
        self.transform, self.crs = transform, crs
        self.fill_shape = (len(lat), len(lon))
        self.dateline_col = None  # fill column of 180 W / 0 E, refilled as 180 E / 360 E
        self.pole_row = None  # fill row of -90 N, refilled 1e-10 degrees north

    @classmethod
    def from_arguments(cls, lon, lat, like, vertices, wrap_lon):
        if like is not None:
            if lon is not None or lat is not None:
                raise TypeError("pass either lon and lat, or like=, not both")
            if not isinstance(like, (xr.DataArray, xr.Dataset)):
                raise TypeError(f"like must be an xarray DataArray or Dataset, got {_describe(like)}")
            lon_name = next((name for name in _LON_NAMES if name in like.coords), None)
            lat_name = next((name for name in _LAT_NAMES if name in like.coords), None)
            if lon_name is None or lat_name is None:
                return cls._from_rio(like)
            lon, lat = like[lon_name], like[lat_name]
        else:
            lon_name, lat_name = "lon", "lat"
            if isinstance(lon, xr.DataArray) and lon.ndim == 1:
                lon_name = lon.dims[0]
            if isinstance(lat, xr.DataArray) and lat.ndim == 1:
                lat_name = lat.dims[0]
        lon_values = _coordinate(lon, "lon")
        lat_values = _coordinate(lat, "lat")
        wrapped = _wrap(lon_values, vertices, wrap_lon)
        lon_order = np.argsort(-wrapped, kind="stable")  # east to west
        lat_order = np.argsort(-lat_values, kind="stable")  # north to south
        lon_step = _spacing(wrapped[lon_order], "lon")
        lat_step = _spacing(lat_values[lat_order], "lat")
        origin = (float(wrapped[lon_order[0]]), float(lat_values[lat_order[0]]))
        grid = cls(lon_values, lat_values, lon_name, lat_name, lon_order=lon_order, lat_order=lat_order,
                   origin=origin, step=(lon_step, lat_step))
        if wrap_lon is not False:
            # The column at 180 W (or 0 E) is also the column at 180 E (360 E): a region that
            # ends there (on its east edge, which the border rule keeps) holds it too.
            edge = -180.0 if wrapped.min() < 0 else 0.0
            at_edge = np.flatnonzero(np.isclose(wrapped[lon_order], edge))
            grid.dateline_col = int(at_edge[0]) if len(at_edge) else None
            # Points at -90 N that no region took are tried again NUDGE_LAT north of it (not south,
            # where no region is), as regionmask does: regions that end at the South Pole hold them.
            at_pole = np.flatnonzero(np.isclose(lat_values[lat_order], -90.0))
            grid.pole_row = int(at_pole[0]) if len(at_pole) else None
        return grid

    @classmethod
    def _from_rio(cls, like):
        try:
            import rioxarray  # noqa: F401  (registers the .rio accessor)

            transform = like.rio.transform()
            x_name, y_name = like.rio.x_dim, like.rio.y_dim
            crs = like.rio.crs
        except Exception as error:  # rioxarray raises several kinds for "not georeferenced"
            raise ValueError("like= has no lon/lat coordinates and no rioxarray georeference (x/y dims with a "
                             f"transform): {error}") from None
        return cls(np.asarray(like[x_name]), np.asarray(like[y_name]), x_name, y_name,
                   transform=tuple(transform)[:6], crs=crs)

    def sample_frame(self, vertices: np.ndarray, *, pole: bool = False) -> np.ndarray:
        """Polygon coordinates in the frame the core fills (fill_shape).

        `pole`: for the points at -90 N, tested NUDGE_LAT north of it instead of south.
        """
        if self.transform is not None:
            from polymask._transform import as_transform, to_sample_frame

            return to_sample_frame(vertices, as_transform(self.transform))
        (lon_max, lat_max), (dlon, dlat) = self.origin, self.step
        # Each grid point is tested NUDGE_LON west and NUDGE_LAT south of where it is, as
        # regionmask tests it: the regions move that far east and north instead.
        wrapped = vertices.copy()
        wrapped[:, 0] = ((lon_max - vertices[:, 0]) - NUDGE_LON) / dlon
        wrapped[:, 1] = ((lat_max - vertices[:, 1]) + (NUDGE_LAT if pole else -NUDGE_LAT)) / dlat
        return wrapped

    def dateline_frame(self, vertices: np.ndarray, *, pole: bool = False) -> np.ndarray:
        """The frame of sample_frame for the regions moved 360 degrees west (for dateline_col)."""
        shifted = vertices.copy()
        shifted[:, 0] -= 360.0
        return self.sample_frame(shifted, pole=pole)

    def edge_points(self, flat: PolygonList, values: np.ndarray) -> "_EdgePoints | None":
        """The second try of the points at 180 W / 0 E and at -90 N (regionmask's edge points), or None."""
        col, row = self.dateline_col, self.pole_row
        if col is None and row is None:
            return None
        rows, cols = self.fill_shape

        def burn(frame, height, width, row0, col0):
            out = np.full((height, width), np.nan)
            _core.rasterize(frame, flat.ring_ends, flat.polygon_ends, values, out, row0, col0, _core.EVEN_ODD, 1)
            return out

        column = burn(self.dateline_frame(flat.vertices), rows, 1, 0, col)[:, 0] if col is not None else None
        pole = burn(self.sample_frame(flat.vertices, pole=True), 1, cols, row, 0)[0] if row is not None else None
        if column is not None and pole is not None:  # the corner: tried once, at 180 E and north of -90
            corner = burn(self.dateline_frame(flat.vertices, pole=True), 1, 1, row, col)[0, 0]
            column[row] = pole[col] = corner
        return _EdgePoints(col, column, row, pole)

    def reorder(self, filled):
        """Rows and columns of a fill (..., lat, lon) back in the grid's order."""
        if self.transform is not None:
            return filled
        rows = _as_slice(np.argsort(self.lat_order))  # fill row of each grid row
        cols = _as_slice(np.argsort(self.lon_order))
        # A grid in ascending order is the fill reversed: a view, no copy.
        filled = filled[..., rows, :]
        if not isinstance(cols, np.ndarray):
            return filled[..., cols]
        runs = _runs(cols)  # a wrapped grid: a few reversed runs, joined faster than a take
        if len(runs) <= 4 and isinstance(filled, np.ndarray):
            return np.concatenate([filled[..., run] for run in runs], axis=-1)
        return filled[..., cols]

    def to_dataarray(self, values, name, extra_dims=(), extra_coords=None) -> "xr.DataArray":
        coords = {self.lat_name: self.lat, self.lon_name: self.lon}
        coords.update(extra_coords or {})
        result = xr.DataArray(values, dims=tuple(extra_dims) + (self.lat_name, self.lon_name), coords=coords,
                              name=name)
        if self.crs is not None:
            result = result.rio.write_crs(self.crs)
        return result


def _burn(grid: _Grid, flat: PolygonList, numbers: np.ndarray, chunks):
    """The float64 label image (NaN background) of the regions on the grid, in the grid's order."""
    vertices = grid.sample_frame(flat.vertices)
    frame = PolygonList(vertices, flat.ring_ends, flat.polygon_ends)
    values = np.ascontiguousarray(numbers, dtype=np.float64)
    edges = grid.edge_points(flat, values)  # for the points on the dateline or the pole no region took
    points = grid.fill_shape[0] * grid.fill_shape[1]
    if chunks is None and points <= LAZY_POINTS:
        out = np.full(grid.fill_shape, np.nan)
        _core.rasterize(frame.vertices, frame.ring_ends, frame.polygon_ends, values, out, 0, 0, _core.EVEN_ODD,
                        _threads(points))
        if edges is not None:
            edges.patch(out, 0, 0)
        return grid.reorder(out)
    import dask
    import dask.array as da

    from polymask.dask import DEFAULT_CHUNK, _block_starts, _Burn, _chunks, _rasterize_block

    # The lazy burn's background is 0, so burn index + 1 and look the numbers up per block.
    indices = np.arange(1, len(flat) + 1, dtype=np.int32)
    block_chunks = _block_chunks(_chunks, DEFAULT_CHUNK if chunks is None else chunks, grid.fill_shape, indices.dtype)
    burn = dask.delayed(_Burn(frame, indices), pure=True)  # one key: every block shares the polygons
    labels = da.map_blocks(_rasterize_block, burn, _core.EVEN_ODD, 1, _block_starts(block_chunks),
                           chunks=block_chunks, dtype=indices.dtype,
                           meta=np.empty((0, 0), dtype=indices.dtype))
    table = np.concatenate([[np.nan], values])
    numbers_lazy = labels.map_blocks(_lookup, table, edges, dtype=np.float64, meta=np.empty((0, 0)))
    return grid.reorder(numbers_lazy)


class _EdgePoints:
    """The second try of a grid's edge points: region numbers (NaN: none) of the dateline column and the pole row."""

    def __init__(self, col, column, row, pole):
        self.col, self.column, self.row, self.pole = col, column, row, pole

    def patch(self, block: np.ndarray, row0: int, col0: int) -> None:
        """Fill the NaN edge points of a block (fill window at row0, col0) from the second try."""
        height, width = block.shape
        if self.col is not None and col0 <= self.col < col0 + width:
            at = block[:, self.col - col0]
            block[:, self.col - col0] = np.where(np.isnan(at), self.column[row0:row0 + height], at)
        if self.row is not None and row0 <= self.row < row0 + height:
            at = block[self.row - row0]
            block[self.row - row0] = np.where(np.isnan(at), self.pole[col0:col0 + width], at)


def _block_chunks(normalize, chunks, shape, dtype):
    """polymask.dask's chunk check, with zero-sized blocks refused here too."""
    try:
        return normalize(chunks, shape, np.dtype(dtype))
    except ZeroDivisionError:  # dask divides by a zero block size before it validates
        raise ValueError(f"chunks must be positive block sizes for a grid of shape {shape}, got {chunks!r}") from None


def _lookup(block: np.ndarray, table: np.ndarray, edges, block_info=None) -> np.ndarray:
    """Region numbers (NaN for 0) of a block of burned indices, the edge points patched."""
    numbers = table[block]
    if edges is not None:
        (row0, _), (col0, _) = block_info[0]["array-location"]
        edges.patch(numbers, row0, col0)
    return numbers


def _coordinate(values, name: str) -> np.ndarray:
    if values is None:
        raise TypeError(f"{name} is required: pass 1-D lon and lat coordinates, or like= a DataArray / Dataset")
    array = np.asarray(values, dtype=np.float64) if not isinstance(values, str) else None
    if array is None or array.ndim != 1 or len(array) < 2:
        raise ValueError(f"{name} must be a 1-D array of at least two coordinates, got {_describe(values)}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} coordinates must be finite, got {_describe(values)}")
    return array


def _wrap(lon: np.ndarray, vertices: np.ndarray, wrap_lon) -> np.ndarray:
    """The grid's longitudes in the regions' convention (-180..180 or 0..360)."""
    if wrap_lon is False or len(vertices) == 0:
        return lon
    if wrap_lon is None or wrap_lon is True:
        low, high = float(vertices[:, 0].min()), float(vertices[:, 0].max())
        if low < 0 and high > 180:
            raise ValueError(f"the regions' longitudes span {low}..{high}: neither -180..180 nor 0..360; "
                             "pass wrap_lon=False to use them as they are")
        wrap_lon = 360 if high > 180 else 180
    if wrap_lon == 360:
        return np.mod(lon, 360.0)
    if wrap_lon == 180:
        return np.where((lon < -180) | (lon >= 180), np.mod(lon + 180.0, 360.0) - 180.0, lon)
    raise ValueError(f"wrap_lon must be None, False, 180 or 360, got {_describe(wrap_lon)}")


def _spacing(descending: np.ndarray, name: str) -> float:
    steps = -np.diff(descending)
    step = float(steps[0])
    if step <= 0 or not np.allclose(steps, step):
        raise ValueError(f"{name} must be equally spaced and unique (after wrapping to the regions' longitudes), "
                         f"got steps from {steps.min()!r} to {steps.max()!r}")
    return step


def _as_slice(order: np.ndarray):
    """`order` as a slice when it is the identity or a reversal (free to apply), else as it is."""
    if np.array_equal(order, np.arange(len(order))):
        return slice(None)
    if np.array_equal(order, np.arange(len(order) - 1, -1, -1)):
        return slice(None, None, -1)
    return order


def _runs(order: np.ndarray) -> list:
    """`order` as consecutive slices (steps of +1 or -1), e.g. a rotated, reversed range."""
    runs, start = [], 0
    for end in range(1, len(order) + 1):
        if end == len(order) or abs(int(order[end]) - int(order[end - 1])) != 1 or (
                end - start > 1 and order[end] - order[end - 1] != order[start + 1] - order[start]):
            first, last = int(order[start]), int(order[end - 1])
            step = 1 if last >= first else -1
            runs.append(slice(first, last + step if last + step >= 0 else None, step))
            start = end
            if len(runs) > 4:
                break
    return runs


def _threads(points: int) -> int:
    """Core threads for a fill of `points`: one for small grids, where starting threads costs more."""
    return 1 if points < 2**22 else 0
