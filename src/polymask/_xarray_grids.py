"""Grids for polymask.xarray: where to sample and how region coordinates map onto the grid.

A regular longitude/latitude grid (1-D coordinates on an exact lattice, after
wrapping: every coordinate within a small share of regionmask's nudge of it)
is filled by the scanline core in a sample-point frame (``Grid``);
the points regionmask tries a second time (the dateline column, the South
Pole row) are ``EdgeRetries``.  The coordinate checks and the longitude
wrapping are polymask/_xarray_coordinates.py's.  Other 1-D grids are filled at their own
coordinates (polymask/_xarray_rectilinear.py) and 2-D lon/lat go through
``polymask.contains`` (polymask/_xarray_points.py); polymask.xarray hands
both to ``Grid.from_arguments``.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from polymask import _core, _polygons
from polymask._describe import describe as _describe
from polymask._outputs import result_array
from polymask._rings import PolygonList
from polymask._xarray_coordinates import (
    LazyOrEager,
    WrapLon,
    coordinate_vector,
    ndim_of,
    one_dim,
    wrap_longitudes,
)

#: The way out named when a grid's result does not fit in memory.
GRID_HINT = "pass chunks= for a lazy Dask result filled block by block"

#: wrap(lon_values): longitudes wrapped to the regions' convention.
Wrap = Callable[[LazyOrEager], LazyOrEager]

# The grids the factories below build: polymask/_xarray_points.py's PointGrid, as a type
# variable so that this module, which those build on, need not import them.
_PointGridT = TypeVar("_PointGridT")

#: point_grid(lon, lat, lon_name, lat_name, wrap, wrap_lon) of polymask/_xarray_points.py.
PointGridFactory = Callable[[Any, Any, Hashable, Hashable, Wrap, WrapLon], _PointGridT]

#: rectilinear_grid(wrapped_lon, lat_values, grid, wrap_lon) of polymask/_xarray_rectilinear.py.
RectilinearGridFactory = Callable[[NDArray[np.float64], NDArray[np.float64], "Grid", WrapLon], _PointGridT]

# regionmask tests each grid point 1e-8 degrees west and 1e-10 south of where it is (both its
# rasterio and its shapely path), so a point on a border shared by two regions belongs to one of
# them even where the two store that border with rounding noise (AR6 does, at ~1e-15 degrees):
# without the nudge such a point can fall outside both, or inside both.
NUDGE_LON, NUDGE_LAT = 1e-8, 1e-10

#: Coordinate names read as longitude and latitude from a like= DataArray / Dataset.
_LON_NAMES = ("lon", "longitude")
_LAT_NAMES = ("lat", "latitude")


# ---- grids ---------------------------------------------------------------------


class Grid:
    """Where to sample: the grid's coordinates and how polygon coordinates map onto it.

    For point grids, the fill runs on the grid sorted east to west and north
    to south (``fill_shape``), in the sample-point frame
    ``col = (lon_max - x) / dlon``, ``row = (lat_max - y) / dlat``; `reorder`
    puts rows and columns back in the grid's order.  For cell grids, the
    transform does the mapping and the order is the grid's own.
    """

    def __init__(self, lon: NDArray[np.float64], lat: NDArray[np.float64], lon_name: Hashable, lat_name: Hashable,
                 *, lon_order: NDArray[np.intp] | None = None, lat_order: NDArray[np.intp] | None = None,
                 origin: tuple[float, float] | None = None, step: tuple[float, float] | None = None,
                 transform: tuple[float, ...] | None = None, crs: object = None):
        self.lon, self.lat = lon, lat
        self.lon_name, self.lat_name = lon_name, lat_name
        self.lon_order, self.lat_order = lon_order, lat_order
        self.origin, self.step = origin, step
        self.transform, self.crs = transform, crs
        self.fill_shape = (len(lat), len(lon))
        self.dateline_col: int | None = None  # fill column of 180 W / 0 E, refilled as 180 E / 360 E
        self.pole_row: int | None = None  # fill row of -90 N, refilled 1e-10 degrees north

    @classmethod
    def from_arguments(cls, lon: Any, lat: Any, like: object, vertices: NDArray[np.float64], wrap_lon: WrapLon,
                       point_grid: PointGridFactory[_PointGridT],
                       rectilinear_grid: RectilinearGridFactory[_PointGridT] | None = None) -> Grid | _PointGridT:
        """The grid of the public arguments; `point_grid` builds the grids that are not regular.

        point_grid(lon, lat, lon_name, lat_name, wrap, wrap_lon), with wrap(lon_values) wrapping
        longitudes to the regions' convention (polymask/_xarray_points.py);
        rectilinear_grid(wrapped_lon, lat_values, grid, wrap_lon) the 1-D grids off a lattice
        (polymask/_xarray_rectilinear.py; point_grid's where it is None).
        """
        lon_name: Hashable | None
        lat_name: Hashable | None
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
        if lon is not None and lat is not None and (ndim_of(lon, "lon") != 1 or ndim_of(lat, "lat") != 1
                                                    or one_dim(lon, lat)):  # curvilinear or unstructured
            return point_grid(lon, lat, lon_name, lat_name,
                              lambda values: wrap_longitudes(values, vertices, wrap_lon), wrap_lon)
        lon_values = coordinate_vector(lon, "lon")
        lat_values = coordinate_vector(lat, "lat")
        wrapped = wrap_longitudes(lon_values, vertices, wrap_lon)
        lon_order = np.argsort(-wrapped, kind="stable")  # east to west
        lat_order = np.argsort(-lat_values, kind="stable")  # north to south
        lon_step = _lattice_step(wrapped[lon_order], NUDGE_LON)
        lat_step = _lattice_step(lat_values[lat_order], NUDGE_LAT)
        if lon_step is None or lat_step is None:  # uneven (Gaussian latitudes, rounded, float32, noisy)
            return cls._rectilinear(lon, lat, lon_values, lat_values, lon_name, lat_name, wrapped, wrap_lon, vertices,
                                    point_grid, rectilinear_grid)
        origin = (float(wrapped[lon_order[0]]), float(lat_values[lat_order[0]]))
        grid = cls(lon_values, lat_values, lon_name, lat_name, lon_order=lon_order, lat_order=lat_order,
                   origin=origin, step=(lon_step, lat_step))
        if not grid._frame_resolves(vertices):
            return cls._rectilinear(lon, lat, lon_values, lat_values, lon_name, lat_name, wrapped, wrap_lon, vertices,
                                    point_grid, rectilinear_grid)
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
    def _rectilinear(cls, lon: Any, lat: Any, lon_values: NDArray[np.float64], lat_values: NDArray[np.float64],
                     lon_name: Hashable, lat_name: Hashable, wrapped: NDArray[np.float64], wrap_lon: WrapLon,
                     vertices: NDArray[np.float64], point_grid: PointGridFactory[_PointGridT],
                     rectilinear_grid: RectilinearGridFactory[_PointGridT] | None) -> _PointGridT:
        """1-D coordinates off any lattice: filled at their exact values (NaN ones: point by point)."""
        if rectilinear_grid is None or not (np.isfinite(wrapped).all() and np.isfinite(lat_values).all()):
            return point_grid(lon, lat, lon_name, lat_name,
                              lambda values: wrap_longitudes(values, vertices, wrap_lon), wrap_lon)
        return rectilinear_grid(wrapped, lat_values, cls(lon_values, lat_values, lon_name, lat_name), wrap_lon)

    @classmethod
    def _from_rio(cls, like: xr.DataArray | xr.Dataset) -> Grid:
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

    def _frame_resolves(self, vertices: np.ndarray) -> bool:
        """Whether grid units (degrees / step) still hold the regions and regionmask's nudges.

        The fill in grid units evaluates the rule at the grid's points only
        while the regions' vertices stay finite there (a step of 1e-320
        overflows them) and the nudges stay many ulps wide (a step of 1e300
        shrinks a region of 40 degrees and the nudge below one ulp).  Grids
        that fail are tested point by point.
        """
        if not len(vertices):
            return True
        with np.errstate(over="ignore", invalid="ignore"):
            frame = self.sample_frame(vertices)
        if not np.isfinite(frame).all():
            return False
        assert self.step is not None  # only cell grids (with a transform) have no step, and they are not checked
        (lon_step, lat_step), (rows, cols) = self.step, self.fill_shape
        ulp = np.spacing(max(float(np.abs(frame).max()), float(rows), float(cols)))
        return bool(NUDGE_LON / lon_step > 64 * ulp and NUDGE_LAT / lat_step > 64 * ulp)

    def sample_frame(self, vertices: np.ndarray, *, pole: bool = False) -> np.ndarray:
        """Polygon coordinates in the frame the core fills (fill_shape).

        `pole`: for the points at -90 N, tested NUDGE_LAT north of it instead of south.
        """
        if self.transform is not None:
            from polymask._transform import as_transform, to_sample_frame

            cells = as_transform(self.transform)
            assert cells is not None  # self.transform is not None
            return to_sample_frame(vertices, cells)
        assert self.origin is not None and self.step is not None  # a point grid: from_arguments sets both
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

    def edge_points(self, flat: PolygonList, values: np.ndarray) -> "EdgeRetries | None":
        """The second try of the points at 180 W / 0 E and at -90 N (regionmask's edge points), or None."""
        col, row = self.dateline_col, self.pole_row
        if col is None and row is None:
            return None
        rows, cols = self.fill_shape

        def burn(frame: NDArray[np.float64], height: int, width: int, row0: int, col0: int) -> NDArray[np.float64]:
            out = result_array(None, (height, width), np.float64, fill_value=np.nan, what="edge of a region grid",
                               hint=GRID_HINT)
            _polygons.rasterize(frame, flat.ring_ends, flat.polygon_ends, values, out, row0, col0, _core.EVEN_ODD, 1)
            return out

        column = burn(self.dateline_frame(flat.vertices), rows, 1, 0, col)[:, 0] if col is not None else None
        pole = burn(self.sample_frame(flat.vertices, pole=True), 1, cols, row, 0)[0] if row is not None else None
        if column is not None and pole is not None:  # the corner: tried once, at 180 E and north of -90
            assert row is not None and col is not None  # column and pole are burnt only where they are
            corner = burn(self.dateline_frame(flat.vertices, pole=True), 1, 1, row, col)[0, 0]
            column[row] = pole[col] = corner
        return EdgeRetries(col, column, row, pole)

    def reorder(self, filled: LazyOrEager) -> LazyOrEager:
        """Rows and columns of a fill (..., lat, lon) back in the grid's order."""
        if self.transform is not None:
            return filled
        assert self.lat_order is not None and self.lon_order is not None  # a point grid: from_arguments sets them
        return reorder(filled, self.lat_order, self.lon_order)

    def to_dataarray(self, values: object, name: str, extra_dims: tuple[str, ...] = (),
                     extra_coords: dict[Hashable, object] | None = None) -> xr.DataArray:
        coords: dict[Hashable, object] = {self.lat_name: self.lat, self.lon_name: self.lon}
        coords.update(extra_coords or {})
        result = xr.DataArray(values, dims=tuple(extra_dims) + (self.lat_name, self.lon_name), coords=coords,
                              name=name)
        if self.crs is not None:
            result = result.rio.write_crs(self.crs)
        return result


def reorder(filled: LazyOrEager, lat_order: NDArray[np.intp], lon_order: NDArray[np.intp]) -> LazyOrEager:
    """Rows and columns of a fill (..., lat, lon) sorted by `lat_order` and `lon_order` back in the grid's order."""
    rows = _as_slice(np.argsort(lat_order))  # fill row of each grid row
    cols = _as_slice(np.argsort(lon_order))
    # A grid in ascending order is the fill reversed: a view, no copy.
    filled = filled[..., rows, :]
    if not isinstance(cols, np.ndarray):
        return filled[..., cols]
    runs = _runs(cols)  # a wrapped grid: a few reversed runs, joined faster than a take
    if len(runs) <= 4 and isinstance(filled, np.ndarray):
        return np.concatenate([filled[..., run] for run in runs], axis=-1)
    return filled[..., cols]


class EdgeRetries:
    """The second try of a grid's edge points: region numbers (NaN: none) of the dateline column and the pole row."""

    def __init__(self, col: int | None, column: NDArray[np.float64] | None, row: int | None,
                 pole: NDArray[np.float64] | None):
        self.col, self.column, self.row, self.pole = col, column, row, pole

    def patch(self, block: np.ndarray, row0: int, col0: int) -> None:
        """Fill the NaN edge points of a block (fill window at row0, col0) from the second try."""
        height, width = block.shape
        if self.col is not None and col0 <= self.col < col0 + width:
            assert self.column is not None  # burnt whenever there is a dateline column
            at = block[:, self.col - col0]
            block[:, self.col - col0] = np.where(np.isnan(at), self.column[row0:row0 + height], at)
        if self.row is not None and row0 <= self.row < row0 + height:
            assert self.pole is not None  # burnt whenever there is a pole row
            at = block[self.row - row0]
            block[self.row - row0] = np.where(np.isnan(at), self.pole[col0:col0 + width], at)


#: How far a coordinate may stray from the fitted lattice, as a share of the nudge: the fill tests
#: the lattice's points, so only borders within this share of a nudged point could tell them apart.
LATTICE_TOLERANCE = 1 / 64


def _lattice_step(descending: np.ndarray, nudge: float) -> float | None:
    """The step of the lattice first - k * step that every coordinate lies on, or None for any other grid.

    Each coordinate must sit within LATTICE_TOLERANCE * nudge of its lattice
    point (a tolerance test like ``allclose`` on the steps lets the first
    step's rounding grow over k and swamp the nudge).  One coordinate is a
    lattice of any step.
    """
    if not np.isfinite(descending).all():
        return None
    if len(descending) == 1:
        return 1.0
    step = float(descending[0] - descending[-1]) / (len(descending) - 1)
    if not (np.isfinite(step) and step > 0) or not (np.diff(descending) < 0).all():
        return None
    offsets = (descending[0] - descending) - np.arange(len(descending)) * step
    return step if float(np.abs(offsets).max()) <= LATTICE_TOLERANCE * nudge else None


def _as_slice(order: NDArray[np.intp]) -> slice | NDArray[np.intp]:
    """`order` as a slice when it is the identity or a reversal (free to apply), else as it is."""
    if np.array_equal(order, np.arange(len(order))):
        return slice(None)
    if np.array_equal(order, np.arange(len(order) - 1, -1, -1)):
        return slice(None, None, -1)
    return order


def _runs(order: NDArray[np.intp]) -> list[slice]:
    """`order` as consecutive slices (steps of +1 or -1), e.g. a rotated, reversed range."""
    runs: list[slice] = []
    start = 0
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
