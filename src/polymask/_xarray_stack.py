"""The (region, row, col) stack of polymask.xarray.mask_3d, filled region by region in any window."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from polymask import _core
from polymask._outputs import result_array
from polymask._rings import PolygonList
from polymask._threads import as_threads
from polymask._xarray_grids import GRID_HINT
from polymask.typing import MaskArray

if TYPE_CHECKING:
    from polymask._xarray_grids import Grid


class Stack:
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
        layers = result_array(
            None, (len(self.flat), height, width), bool, zeroed=True, what="stack of region masks", hint=GRID_HINT
        )
        fill_layers(layers, self.vertices, self.flat, row0, col0)
        col = self.col if self.col is not None and col0 <= self.col < col0 + width else None  # in the window
        row = self.row if self.row is not None and row0 <= self.row < row0 + height else None
        if col is not None:
            assert self.dateline is not None  # made whenever there is a dateline column
            column = np.zeros((len(self.flat), height, 1), dtype=bool)
            fill_layers(column, self.dateline, self.flat, row0, col)
            if row is not None:
                column[:, row - row0] = False  # the corner: tried below
            layers[:, :, col - col0] |= column[:, :, 0]
        if row is not None:
            assert self.pole is not None  # made whenever there is a pole row
            line = np.zeros((len(self.flat), 1, width), dtype=bool)
            fill_layers(line, self.pole, self.flat, row, col0)
            if col is not None:
                line[:, :, col - col0] = False
            layers[:, row - row0, :] |= line[:, 0, :]
        if col is not None and row is not None:
            assert self.corner is not None  # made whenever there are both
            corner = np.zeros((len(self.flat), 1, 1), dtype=bool)
            fill_layers(corner, self.corner, self.flat, row, col)
            layers[:, row - row0, col - col0] |= corner[:, 0, 0]
        return layers

    def block(self, block_info: Mapping[int | None, Mapping[str, Any]] | None = None) -> MaskArray:
        assert block_info is not None  # dask passes it to every block of map_blocks
        _, (row_begin, row_end), (col_begin, col_end) = block_info[None]["array-location"]
        return self.window(row_begin, col_begin, row_end - row_begin, col_end - col_begin)


def fill_layers(layers: np.ndarray, vertices: np.ndarray, flat: PolygonList, row0: int, col0: int) -> None:
    """layers[p] = the window (row0, col0) of region p's mask, one core fill per region."""
    ring_begin = 0
    for index, ring_end in enumerate(flat.polygon_ends):
        ends = flat.ring_ends[ring_begin:ring_end]
        first = int(flat.ring_ends[ring_begin - 1]) if ring_begin > 0 else 0
        last = int(ends[-1]) if len(ends) else first
        if last > first:
            _core.fill(
                np.ascontiguousarray(vertices[first:last]),
                layers[index].view(np.uint8),
                row0=row0,
                col0=col0,
                rule=_core.EVEN_ODD,
                threads=as_threads(None),
                ring_ends=np.ascontiguousarray(ends - first),
            )
        ring_begin = ring_end
