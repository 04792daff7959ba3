"""Label images of lines among polygons: the polygons filled, the lines' cells burned straight, in burn order.

The general path (polymask/_rasterize.py) turns each line into a polygon
made of its cells' rectangles (polymask/_lines.py), so one fill burns
everything.  When the geometries are shapely's in bulk and each is either a
line (LineString, LinearRing, MultiLineString) or holds none (polygons and
points), the lines need no fill: the polygons go through the funnel, the
lines through the core's line walk (polymask/_rasterize_lines.py), and the
burn order the merge rule asks for is cut into runs of one kind, burned one
after the other; or, where lines and polygons alternate, the polygons
first and each line's cells then where no later polygon burned.  Every
pixel ends as in the general path, for every merge rule.  Integer sums
("add", "count") do not depend on the order; float sums take runs in order,
and orders alternating more than MAX_RUNS times take the general path, as
does input this path does not take (collections, empty geometries,
invalid="skip", what the funnel refuses), which it reads, refuses or skips.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from polymask import _inputs, _polygons
from polymask._geometries import column_values, geometry_array
from polymask._label_dtypes import label_values
from polymask._rasterize_lines import LineParts, burn_lines, line_parts
from polymask._rasterize_order import reordered
from polymask._rings import PolygonList
from polymask._validation import warn_if_crs_without_transform

#: shapely's type ids of LineString, LinearRing and MultiLineString; of GeometryCollection.
_LINE_TYPES = (1, 2, 5)
_COLLECTION = 7

#: Float sums alternating between polygons and lines more often than this take the general path.
MAX_RUNS = 64


class MixedBurn:
    """Shapely polygons (and points) and lines in bulk, read apart, with one label per part in member order."""

    def __init__(
        self,
        flat: PolygonList,
        lines: LineParts,
        kinds: NDArray[np.bool_],
        index: NDArray[np.int64],
        labels: NDArray[Any],
    ):
        self.flat, self.lines = flat, lines
        #: Per part, in member order: whether it is a line, and its index among the polygons' or the lines' parts.
        self.is_line, self.index = kinds, index
        self.labels = labels


def mixed_parts(
    polygons: Any, values: Any, transform: Any, invalid: Any, dtype: np.dtype[Any] | None
) -> MixedBurn | None:
    """Polygons and lines read apart when `polygons` holds both and this path takes them; else None."""
    geometries = geometry_array(polygons)
    if geometries is None or geometries.ndim != 1 or not (isinstance(invalid, str) and invalid == "raise"):
        return None
    import shapely

    try:
        kinds = shapely.get_type_id(geometries)
    except TypeError:  # not all shapely geometries
        return None
    is_line = np.isin(kinds, _LINE_TYPES)
    if is_line.all() or not is_line.any() or (kinds == _COLLECTION).any() or shapely.is_empty(geometries).any():
        return None
    members = np.arange(len(geometries))
    try:
        lines = line_parts(geometries[is_line], transform, invalid)
        if lines is None:
            return None
        flat = _inputs.polygons(geometries[~is_line], transform, split_parts=True)
        member_labels = label_values(column_values(polygons, values), len(geometries), dtype)
    except (TypeError, ValueError):  # the general path names the culprit by its place in the whole input
        return None
    if transform is None:
        warn_if_crs_without_transform(polygons, "polygons")
    polygon_owner = members[~is_line]
    polygon_owner = polygon_owner if flat.owners is None else polygon_owner[flat.owners]
    owner = np.concatenate([polygon_owner, members[is_line][lines.owners]])
    part_is_line = np.concatenate([np.zeros(len(polygon_owner), bool), np.ones(len(lines.owners), bool)])
    part_index = np.concatenate([np.arange(len(polygon_owner)), np.arange(len(lines.owners))]).astype(np.int64)
    by_member = np.argsort(owner, kind="stable")  # each member's parts are of one kind, in their order
    return MixedBurn(
        flat,
        lines,
        part_is_line[by_member],
        part_index[by_member],
        np.ascontiguousarray(member_labels[owner[by_member]]),
    )


class Target(NamedTuple):
    """Where a burn goes: the window `result` at `origin` of the `shape` image, and how polygons fill it."""

    result: NDArray[Any]
    origin: tuple[int, int]
    shape: tuple[int, int]
    rule: int
    threads: int
    touched: int


def burn_in_order(
    mixed: MixedBurn, order: NDArray[Any] | None, labels: NDArray[Any], add: bool, target: Target
) -> bool:
    """Burn the parts in `order` (None: member order) with `labels` as the general path would; False: not done.

    Nothing is written when False is returned.  Later over earlier: the
    polygons are filled, then each line writes where no later polygon did
    (the fill's burn positions, an int64 image, say which).  Sums: integers
    in any order, polygons then lines; floats in runs of one kind, in order
    (up to MAX_RUNS of them, else False).
    """
    sequence = np.arange(len(mixed.is_line)) if order is None else np.asarray(order)
    kinds = mixed.is_line[sequence]
    if add and labels.dtype.kind != "f":  # integer sums: the same in any order
        grouped = np.argsort(kinds, kind="stable")
        sequence, labels, kinds = sequence[grouped], labels[grouped], kinds[grouped]
    starts = np.flatnonzero(np.concatenate([[True], kinds[1:] != kinds[:-1]]))
    if len(starts) <= 2 or add:  # polygons then lines (or the reverse), or sums in order
        if len(starts) > MAX_RUNS:
            return False
        for begin, end in zip(starts.tolist(), np.append(starts[1:], len(sequence)).tolist()):
            burn = _burn_lines if kinds[begin] else _burn_polygons
            burn(mixed, sequence[begin:end], labels[begin:end], add, target)
        return True
    polygons, lines = np.flatnonzero(~kinds), np.flatnonzero(kinds)
    try:
        positions = positions_image(target.result.shape)
    except MemoryError:  # the general path needs no such image
        return False
    _burn_polygons(mixed, sequence[polygons], labels[polygons], False, target)
    _burn_polygons(mixed, sequence[polygons], polygons + 1, False, target._replace(result=positions))
    under = (np.ascontiguousarray(lines + 1, dtype=np.int64), positions)
    _burn_lines(mixed, sequence[lines], labels[lines], False, target, under)
    return True


def positions_image(shape: tuple[int, ...]) -> NDArray[np.int64]:
    """A zeroed image of burn positions (pages no polygon burns cost nothing)."""
    return np.zeros(shape, dtype=np.int64)


def _burn_polygons(mixed: MixedBurn, parts: NDArray[Any], labels: NDArray[Any], add: bool, target: Target) -> None:
    """Fill the polygon parts `parts` (places in member order) with `labels`, in that order."""
    flat = reordered(mixed.flat, mixed.index[parts])
    labels = np.ascontiguousarray(labels, target.result.dtype)
    rings = (flat.ring_ends, flat.polygon_ends)
    row0, col0 = target.origin
    _polygons.rasterize(
        flat.vertices, *rings, labels, target.result, row0, col0, target.rule, target.threads, target.touched, add
    )


def _burn_lines(
    mixed: MixedBurn,
    parts: NDArray[Any],
    labels: NDArray[Any],
    add: bool,
    target: Target,
    under: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> None:
    """Burn the line parts `parts` (places in member order) with `labels`, in that order."""
    labels = np.ascontiguousarray(labels)
    touched = bool(target.touched)
    burn_lines(mixed.lines, mixed.index[parts], labels, touched, target.shape, target.result, target.origin, add, under)
