"""Label images of lines alone: the cells GDAL burns, written straight into the image.

Lines among polygons burn as polygons made of their cells
(polymask/_lines.py), or, shapely's in bulk, beside the polygons' fill
(polymask/_rasterize_mixed.py).  When every geometry is a line (a shapely
LineString, LinearRing or MultiLineString, in bulk), nothing needs a fill:
the core walks each line (csrc/include/polymask/lines.hpp) and its cells
take its label, line after line in burn order.  The cells and the merge
rules are the same; input this path does not take (other geometries, a
coordinate that is not finite, lines reaching 2**30 pixels, empty lines
to skip) takes the general path, which reads, refuses or skips it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from polymask import _line_cells
from polymask._gdal_rings import counter_clockwise_rings
from polymask._geometries import geometry_array
from polymask._lines import CORE_REACH, pixel_frame
from polymask._rasterize_order import index_ranges
from polymask._transform import as_transform
from polymask._validation import warn_if_crs_without_transform

#: shapely's type ids of LineString, LinearRing and MultiLineString.
_LINE_TYPES = (1, 2, 5)


class LineParts(NamedTuple):
    """Geometries that are all lines, as their parts: vertices in GDAL's pixel frame and the member of each part."""

    frame: NDArray[np.float64]
    line_ends: NDArray[np.int64]
    owners: NDArray[np.int64]
    member_count: int


def line_parts(polygons: Any, transform: Any, invalid: Any) -> LineParts | None:
    """The line parts when every geometry of `polygons` is a line this path burns; else None."""
    geometries = geometry_array(polygons)
    if geometries is None or len(geometries) == 0 or geometries.ndim != 1:
        return None
    import shapely

    try:
        kinds = shapely.get_type_id(geometries)
    except TypeError:  # not all shapely geometries: the general path names the culprit
        return None
    if not np.isin(kinds, _LINE_TYPES).all():
        return None
    if not (isinstance(invalid, str) and invalid == "raise") and shapely.is_empty(geometries).any():
        return None  # skipped with a warning by the general path
    parts, owners = shapely.get_parts(geometries, return_index=True)
    parts = counter_clockwise_rings(parts)  # a LinearRing walks as GDAL walks it
    coordinates, part_of_vertex = shapely.get_coordinates(parts, return_index=True)  # Z and M dropped
    frame = pixel_frame(np.ascontiguousarray(coordinates, dtype=np.float64), as_transform(transform))
    if len(frame) and not np.abs(frame).max() < CORE_REACH:  # NaN fails this too
        return None
    if transform is None:
        warn_if_crs_without_transform(polygons, "polygons")
    line_ends = np.cumsum(np.bincount(part_of_vertex, minlength=len(parts)), dtype=np.int64)
    return LineParts(np.ascontiguousarray(frame), line_ends, owners.astype(np.int64), len(geometries))


def burn_lines(
    lines: LineParts,
    order: NDArray[Any] | None,
    labels: NDArray[Any],
    all_touched: bool,
    shape: tuple[int, int],
    result: NDArray[Any],
    origin: tuple[int, int],
    add: bool,
    under: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> None:
    """Burn the line parts in `order` (None: as given) with `labels` (one per part, in that order) into `result`.

    `result` is the window at `origin` of the `shape` image.  `under`:
    (each part's burn position, the window's positions already burned), so
    a part writes only over earlier ones (polymask/_rasterize_mixed.py).
    """
    frame, line_ends = lines.frame, lines.line_ends
    if order is not None:
        starts = np.concatenate([[0], line_ends[:-1]])[order]
        counts = np.diff(np.concatenate([[0], line_ends]))[order]
        frame = np.ascontiguousarray(frame[index_ranges(starts, counts)])
        line_ends = np.cumsum(counts, dtype=np.int64)
    cell_ends, pixels = _line_cells.cells(frame, line_ends, shape[0], shape[1], all_touched)
    if add:  # GDAL adds a MultiLineString's value once on a cell two of its lines reach
        owners = lines.owners if order is None else lines.owners[order]
        first = np.concatenate([[True], owners[1:] != owners[:-1]])  # the first part of each geometry
        if not first.all():
            cell_ends, pixels = _cells_once_per_geometry(cell_ends, pixels, first)
            labels = np.ascontiguousarray(labels[first])
    positions, below = under if under is not None else (None, None)
    _line_cells.burn(cell_ends, pixels, labels, result, origin[0], origin[1], shape[1], add, positions, below)


def _cells_once_per_geometry(
    cell_ends: NDArray[np.int64], pixels: NDArray[np.int64], first: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(cell_ends, pixels) of the parts' cells joined per geometry (its parts in a row, `first` at each), once each."""
    geometry = (np.cumsum(first) - 1)[np.repeat(np.arange(len(cell_ends)), np.diff(cell_ends, prepend=0))]
    order = np.lexsort((pixels, geometry))
    geometry, pixels = geometry[order], pixels[order]
    fresh = np.concatenate([[True], (geometry[1:] != geometry[:-1]) | (pixels[1:] != pixels[:-1])])
    counts = np.bincount(geometry[fresh], minlength=int(first.sum()))
    return np.cumsum(counts, dtype=np.int64), np.ascontiguousarray(pixels[fresh])
