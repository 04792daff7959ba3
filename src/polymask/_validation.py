"""The polygon's checks for the input funnel: validate in Python, compute in C++.

Every function here turns the rings a caller passed into exactly what the
compiled core expects, or raises TypeError / ValueError / MemoryError with a
message that names what was received and what was expected, and warns about
rings that are likely mistakes.  The other arguments are checked in
polymask/_arguments.py.  The core then assumes clean input.  What the contract calls a *degenerate polygon* (fewer than
three vertices, zero area, self-intersection, far outside the image) is not
an error and passes through untouched.
"""
from __future__ import annotations

import os
import sys
import warnings
from types import FrameType
from typing import Any

import numpy as np

from polymask import _core
from polymask._describe import describe, short_repr
from polymask._one_step import core_ring_status

_describe = describe


def as_vertices(vertices: Any, name: str = "vertices") -> np.ndarray:
    """Return `vertices` as a C-contiguous (N, 2) float64 array of finite numbers.

    Accepts any array-like of N (x, y) pairs: lists, tuples, integer or
    float arrays of any memory order.  An empty sequence means no vertices.
    """
    bad_row = core_ring_status(vertices)  # the common case in one step: already what the core takes
    coordinates: np.ndarray = vertices if bad_row >= -1 else _convert_vertices(vertices, name)
    if bad_row == -1:
        return coordinates
    if bad_row == -2:
        bad_row = _core.first_non_finite(coordinates)
    if bad_row >= 0:
        x, y = (float(v) for v in coordinates[bad_row])
        raise ValueError(
            f"{name}[{bad_row}] = ({x!r}, {y!r}) is not finite; every coordinate must be a finite number"
        )
    return coordinates


def _convert_vertices(vertices: Any, name: str) -> np.ndarray:
    """The slow path of as_vertices: any array-like to (N, 2) float64."""
    if vertices is None:
        raise TypeError(f"{name} must be an (N, 2) array-like of (x, y) numbers, got None")
    if isinstance(vertices, (str, bytes)):
        raise TypeError(f"{name} must be an (N, 2) array-like of (x, y) numbers, got {_describe(vertices)}")
    try:
        array = np.asarray(vertices)
    except (ValueError, TypeError) as error:  # ragged nesting and the like
        raise ValueError(
            f"{name} must be an (N, 2) array-like of (x, y) numbers; "
            f"could not read {_describe(vertices)} as an array: {error}"
        ) from None
    if array.ndim == 0:  # a scalar or a set: "shape ()" would not say what was passed
        raise TypeError(f"{name} must be an (N, 2) array-like of (x, y) numbers, got {_describe(vertices)}")
    if array.size == 0 and array.ndim <= 2 and (array.ndim < 2 or array.shape[1] in (0, 2)):
        return np.zeros((0, 2), dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (N, 2) of (x, y) pairs, got an array of shape {array.shape}")
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must hold real numbers, got booleans (dtype bool)")
    if array.dtype.kind not in "iuf" and array.dtype != object:
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.dtype == object:
        _check_object_elements(array, name)
    try:
        return np.ascontiguousarray(array, dtype=np.float64)
    except (ValueError, TypeError, OverflowError) as error:
        raise TypeError(f"{name} must hold real numbers; converting to float64 failed: {error}") from None


def _check_object_elements(array: np.ndarray, name: str) -> None:
    """TypeError for None or text in an object array: NumPy would read them as NaN or parse the text.

    A list of strings is refused by its dtype; the same strings in an object
    array must be refused too, and None must not pose as a non-finite number.
    """
    for index, value in enumerate(array.flat):
        if value is None or isinstance(value, (str, bytes)):
            row, column = divmod(index, 2)
            raise TypeError(f"{name}[{row}, {column}] is {_describe(value)}; {name} must hold real numbers")


def checked_rings(rings: Any, hint: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(vertices, ring_ends) of one polygon's ``(ring, label)`` pairs, each ring checked by as_vertices.

    ring_ends is None for a single ring (the core's single-ring call).  `hint`,
    for a polygon that is itself one ring of points, adds its sentence
    (polymask/_layouts.py's layout_hint) to a refusal.
    """
    if len(rings) == 1:
        ring, label = rings[0]
        return _hinted(ring, label, hint), None
    checked = [as_vertices(ring, label) for ring, label in rings]
    if not checked:  # no ring, no pixel
        return np.zeros((0, 2), dtype=np.float64), np.zeros(0, dtype=np.int64)
    lengths = np.fromiter((len(ring) for ring in checked), dtype=np.int64, count=len(checked))
    return np.ascontiguousarray(np.concatenate(checked), dtype=np.float64), np.cumsum(lengths)


def checked_polygons(polygons: Any, hinted: Any = (), hint: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, ring_ends, polygon_ends) of polygons given as lists of ``(ring, label)`` pairs.

    Polygon p in `hinted` is itself one ring of points; `hint` adds its sentence to a refusal.
    """
    checked = []
    ring_counts = np.zeros(len(polygons), dtype=np.int64)
    for p, rings in enumerate(polygons):
        ring_counts[p] = len(rings)
        if p in hinted:
            checked.append(_hinted(rings[0][0], rings[0][1], hint))
        else:
            checked.extend(as_vertices(ring, label) for ring, label in rings)
    if not checked:
        return np.zeros((0, 2), dtype=np.float64), np.zeros(0, dtype=np.int64), np.cumsum(ring_counts)
    lengths = np.fromiter((len(ring) for ring in checked), dtype=np.int64, count=len(checked))
    vertices = np.ascontiguousarray(np.concatenate(checked), dtype=np.float64)
    return vertices, np.cumsum(lengths), np.cumsum(ring_counts)


def _hinted(ring: Any, label: str, hint: Any) -> np.ndarray:
    """as_vertices(ring, label), with `hint`'s sentence (if any) added to a refusal."""
    try:
        return as_vertices(ring, label)
    except (TypeError, ValueError) as error:
        text = None if hint is None else hint(ring)
        if text is None:
            raise
        raise type(error)(f"{error}; {text}") from None


def warn_caller(message: str) -> None:
    """A UserWarning attributed to the first caller outside polymask, whichever entry point it called."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: FrameType | None = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def warn_if_not_holes(vertices: np.ndarray, ring_ends: np.ndarray | None, name: str) -> None:
    """Warn where a later ring of one polygon, read as a hole, is no hole of its first ring.

    A list of rings is one polygon: the first ring its exterior, the others
    holes, all under the fill rule.  A ring that reaches outside the first
    ring's bounds while overlapping them is not a hole; it is most likely one
    of several separate polygons, whose overlap the even-odd rule leaves out.
    Disjoint rings are not warned about: there the rule gives their union.
    """
    if ring_ends is None or len(ring_ends) < 2:
        return
    starts = np.concatenate(([0], ring_ends[:-1]))
    if ring_ends[0] == 0:  # an empty exterior: nothing to be a hole of
        return
    nonempty = np.flatnonzero(ring_ends > starts)
    low = np.minimum.reduceat(vertices, starts[nonempty], axis=0)
    high = np.maximum.reduceat(vertices, starts[nonempty], axis=0)
    reaches_out = ((low[1:] < low[0]) | (high[1:] > high[0])).any(axis=1)
    overlaps = ((low[1:] < high[0]) & (high[1:] > low[0])).all(axis=1)
    found = np.flatnonzero(reaches_out & overlaps)
    if found.size:
        ring = int(nonempty[found[0] + 1])
        warn_caller(
            f"{name}[{ring}] reaches outside the bounds of {name}[0] and overlaps it, so it is no hole: polymask "
            f"reads a list of rings as one polygon (the first ring its exterior, the others holes) and leaves "
            f"out the pixels where rings overlap (even-odd rule). For the union of separate polygons, pass "
            f"them to polymask.rasterize(polygons, shape) > 0 or as a MultiPolygon; for holes, keep each "
            f"inside the exterior")


def warn_if_crs_without_transform(collection: Any, name: str) -> None:
    """Warn when a GeoDataFrame or GeoSeries with a CRS is placed on pixels without ``transform=``."""
    if type(collection).__module__.split(".")[0] != "geopandas":
        return
    crs = getattr(collection, "crs", None)
    if crs is None:
        return
    try:
        crs_name = crs.to_string()
    except Exception:  # any CRS object: its text still names it
        crs_name = short_repr(crs)
    warn_caller(
        f"{name} is a {type(collection).__name__} in {crs_name} and no transform= was given, so its "
        f"coordinates are read as pixel coordinates (x = column, y = row). Pass the raster's transform "
        f"(rasterio's dataset.transform, an affine.Affine) as transform= to place them in its cells")
