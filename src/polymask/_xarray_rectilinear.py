"""Rectilinear grids for polymask.xarray: 1-D coordinates that are not an exact lattice.

Gaussian latitudes, stretched axes, coordinates written with a few decimals
(1/3 degree as 0.333333), float32 coordinates and noisy files have no
affine frame in which the scanline core's sample points are the grid's own
points.  Here each region is asked the contract at the grid's exact
coordinates with the core's rectilinear fill (``_points.contains_grid``:
per row, its crossings compared with the sorted columns), only over the
rows and columns of its bounding box, so the cost stays near one fill of
the grid.  Points are moved as regionmask moves them (1e-8 degrees west,
1e-10 south) in the frame turned by 180 degrees, as
polymask/_xarray_points.py does, and the points at 180 W (0 E) and -90 N
get their second try there.

Any window of the grid is computed from the coordinates alone, so a lazy
result is a Dask array whose blocks each compute their own window: nothing
the size of the grid is built.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from numpy.typing import DTypeLike, NDArray

from polymask import _points
from polymask._bounds import polygon_bounds
from polymask._outputs import result_array
from polymask._rings import PolygonList, vertex_ranges
from polymask._xarray_coordinates import LazyOrEager, WrapLon
from polymask._xarray_grids import GRID_HINT, NUDGE_LAT, NUDGE_LON, Grid, reorder
from polymask._xarray_points import PointGrid, second_try, which_region
from polymask.typing import MaskArray

if TYPE_CHECKING:
    import dask.array as da

#: (row0, col0, height, width) -> that window of the fill.
Window = Callable[[int, int, int, int], NDArray[Any]]

#: A window's edge points as flat arrays: ((rows, cols), lon, lat, dateline, pole).
EdgePoints = tuple[tuple[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64], NDArray[np.float64], MaskArray,
                   MaskArray]


class RectilinearGrid(PointGrid):
    """1-D lon and lat crossed; filled in the order of the turned frame (lon and lat descending)."""

    def __init__(self, lon: NDArray[np.float64], lat: NDArray[np.float64], coords_grid: Grid, wrap_lon: WrapLon):
        self.grid = coords_grid  # the grid's own coordinates and orders, for reorder and to_dataarray
        self.lon_order = np.argsort(-lon, kind="stable")
        self.lat_order = np.argsort(-lat, kind="stable")
        lon_sorted, lat_sorted = lon[self.lon_order], lat[self.lat_order]
        self.x = np.ascontiguousarray(-(lon_sorted - NUDGE_LON))  # ascending
        self.y = np.ascontiguousarray(-(lat_sorted - NUDGE_LAT))  # ascending
        self.lon_sorted, self.lat_sorted = lon_sorted, lat_sorted
        self.fill_shape: tuple[int, int] = (len(lat), len(lon))
        self.dateline_col: int | None = None
        self.pole_row: int | None = None
        if wrap_lon is not False:
            at_edge = np.flatnonzero(np.isclose(lon_sorted, -180.0 if lon.min() < 0 else 0.0))
            at_pole = np.flatnonzero(np.isclose(lat_sorted, -90.0))
            self.dateline_col = int(at_edge[0]) if len(at_edge) else None
            self.pole_row = int(at_pole[0]) if len(at_pole) else None

    # ---- the fills --------------------------------------------------------------

    def labels(self, flat: PolygonList, numbers: NDArray[Any], chunks: object = None) -> LazyOrEager:
        """Each point's region number (the later region where several hold it), NaN where none does."""
        values = np.asarray(numbers, dtype=np.float64)
        regions = _Regions(flat)
        if chunks is None:
            return self.reorder(self.numbers(regions, values, 0, 0, *self.fill_shape))
        return self.reorder(self._lazy_windows(chunks, lambda row0, col0, height, width: self.numbers(
            regions, values, row0, col0, height, width), np.float64))

    def layers(self, flat: PolygonList, chunks: object = None) -> LazyOrEager:
        """A bool stack (region, lat, lon) in the fill's order: each region's points, second tries added."""
        regions = _Regions(flat)
        if chunks is None:
            return self.stack(regions, 0, 0, *self.fill_shape)
        return self._lazy_windows(chunks,
                                   lambda row0, col0, height, width: self.stack(regions, row0, col0, height, width),
                                   bool, len(flat))

    def numbers(self, regions: _Regions, values: NDArray[np.float64], row0: int, col0: int, height: int,
                width: int) -> NDArray[np.float64]:
        """The number (`values`) of the last region holding each point of the window, NaN for none."""
        labels = result_array(None, (height, width), np.float64, fill_value=np.nan,
                              what="grid of region numbers", hint=GRID_HINT)
        for index, inside, rows, cols in self._windows(regions, row0, col0, height, width):
            labels[rows, cols][inside] = values[index]
        for where, lon, lat, dateline, pole in self._edge_points(row0, col0, height, width):
            first = labels[where]
            second = which_region(regions.turned, *second_try(lon, lat, dateline, pole)[1:])
            table = np.concatenate([[np.nan], values])
            labels[where] = np.where(np.isnan(first), table[second], first)
        return labels

    def stack(self, regions: _Regions, row0: int, col0: int, height: int, width: int) -> MaskArray:
        layers = result_array(None, (len(regions.turned), height, width), bool, zeroed=True,
                              what="stack of region masks", hint=GRID_HINT)
        for index, inside, rows, cols in self._windows(regions, row0, col0, height, width):
            layers[index, rows, cols] |= inside
        for where, lon, lat, dateline, pole in self._edge_points(row0, col0, height, width):
            _, x, y = second_try(lon, lat, dateline, pole)
            for index in range(len(regions.turned)):
                one = PolygonList(*regions.single(index))
                layers[index][where] |= which_region(one, x, y) > 0
        return layers

    def _windows(self, regions: _Regions, row0: int, col0: int, height: int,
                 width: int) -> Iterator[tuple[int, MaskArray, slice, slice]]:
        """(region index, inside, row slice, col slice) for each region's bounding box within the window."""
        x, y = self.x[col0:col0 + width], self.y[row0:row0 + height]
        for index in range(len(regions.turned)):
            if not regions.has_vertices[index]:
                continue
            (x_low, y_low), (x_high, y_high) = regions.low[index], regions.high[index]
            c0, c1 = np.searchsorted(x, x_low, "left"), np.searchsorted(x, x_high, "right")
            r0, r1 = np.searchsorted(y, y_low, "left"), np.searchsorted(y, y_high, "right")
            if c0 >= c1 or r0 >= r1:
                continue
            vertices, ring_ends, _ = regions.single(index)
            inside = np.zeros((r1 - r0, c1 - c0), dtype=np.uint8)
            _points.contains_grid(vertices, x[c0:c1], y[r0:r1], inside, 0, 1, ring_ends)
            yield index, inside.view(bool), slice(r0, r1), slice(c0, c1)

    def _edge_points(self, row0: int, col0: int, height: int, width: int) -> Iterator[EdgePoints]:
        """((rows, cols), lon, lat, dateline, pole): the window's edge points as flat arrays, or nothing."""
        col = self.dateline_col if self.dateline_col is not None and col0 <= self.dateline_col < col0 + width \
            else None
        row = self.pole_row if self.pole_row is not None and row0 <= self.pole_row < row0 + height else None
        if col is None and row is None:
            return
        rows: list[NDArray[np.intp]] = []
        cols: list[NDArray[np.intp]] = []
        if col is not None:  # the dateline column, its pole cell included
            rows.append(np.arange(height))
            cols.append(np.full(height, col - col0))
        if row is not None:  # the pole row, less the corner the column holds
            keep = np.arange(width)
            keep = keep[keep != col - col0] if col is not None else keep
            rows.append(np.full(len(keep), row - row0))
            cols.append(keep)
        row_index, col_index = np.concatenate(rows), np.concatenate(cols)
        lon, lat = self.lon_sorted[col0 + col_index], self.lat_sorted[row0 + row_index]
        dateline = (col_index == col - col0) if col is not None else np.zeros(len(row_index), dtype=bool)
        pole = (row_index == row - row0) if row is not None else np.zeros(len(row_index), dtype=bool)
        yield (row_index, col_index), lon, lat, dateline, pole

    def _lazy_windows(self, chunks: object, window: Window, dtype: DTypeLike, layers: int | None = None) -> da.Array:
        import dask.array as da

        from polymask._dask_blocks import checked_chunks

        try:
            block_chunks = checked_chunks(chunks, self.fill_shape, np.dtype(dtype))
        except ZeroDivisionError:  # dask divides by a zero block size before it validates
            raise ValueError(f"chunks must be positive block sizes for a grid of shape {self.fill_shape}, "
                             f"got {chunks!r}") from None

        def block(block_info: Mapping[int | None, Mapping[str, Any]] | None = None) -> NDArray[Any]:
            assert block_info is not None  # dask passes it to every block of map_blocks
            location = block_info[None]["array-location"][-2:]
            (row_begin, row_end), (col_begin, col_end) = location
            return window(row_begin, col_begin, row_end - row_begin, col_end - col_begin)

        lazy: da.Array
        if layers is None:
            lazy = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
                block, chunks=block_chunks, dtype=dtype, meta=np.empty((0, 0), dtype=dtype))
        else:
            lazy = da.map_blocks(  # type: ignore[no-untyped-call]  # dask leaves map_blocks unannotated
                block, chunks=((layers,),) + block_chunks, dtype=dtype, meta=np.empty((0, 0, 0), dtype=dtype))
        return lazy

    # ---- the result -------------------------------------------------------------

    def reorder(self, filled: LazyOrEager) -> LazyOrEager:
        return reorder(filled, self.lat_order, self.lon_order)

    def to_dataarray(self, values: object, name: str, extra_dims: tuple[str, ...] = (),
                     extra_coords: dict[Hashable, object] | None = None) -> xr.DataArray:
        return self.grid.to_dataarray(values, name, extra_dims, extra_coords)


class _Regions:
    """The regions turned by 180 degrees, with each one's bounding box and its own flat arrays."""

    def __init__(self, flat: PolygonList):
        self.turned = PolygonList(np.ascontiguousarray(-flat.vertices), flat.ring_ends, flat.polygon_ends)
        self.begins, self.ends = vertex_ranges(flat)
        self.ring_begins = np.concatenate([[0], flat.polygon_ends[:-1]]).astype(np.int64)
        count = len(flat)
        self.has_vertices, low, high = polygon_bounds(self.turned.vertices, self.turned)
        self.low, self.high = np.zeros((count, 2)), np.zeros((count, 2))
        self.low[self.has_vertices], self.high[self.has_vertices] = low, high

    def single(self, index: int) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
        """(vertices, ring_ends, polygon_ends) of region `index` alone."""
        begin, end = int(self.begins[index]), int(self.ends[index])
        ring_ends = self.turned.ring_ends[self.ring_begins[index]:self.turned.polygon_ends[index]] - begin
        return (np.ascontiguousarray(self.turned.vertices[begin:end]), np.ascontiguousarray(ring_ends),
                np.array([len(ring_ends)], dtype=np.int64))
