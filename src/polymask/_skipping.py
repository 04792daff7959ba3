"""The input funnel's lenient door: many polygons, the invalid and empty ones left out.

``polymask.rasterize(..., invalid="skip")`` burns what it can, as rasterio
does, and says once what it left out.  The collection is read whole through
polymask/_inputs.py first; only when that refuses it is each member read on
its own (a Python step per member, on the path that already failed), so a
valid collection costs what it costs without ``invalid="skip"``.  A member is
left out when the funnel refuses it (a non-finite vertex, a form polymask
does not read) or when it holds no vertex (an empty geometry, None).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask import _inputs, _layouts
from polymask._geometries import geometry_values
from polymask._lines import LineRaster
from polymask._rings import PolygonList, vertex_ranges

Layout = _layouts.Layout

#: How many left-out members the warning names one by one.
NAMED = 5


def valid_polygons(collection: Any, transform: Any = None, name: str = "polygons",
                   split_parts: bool = False, lines: LineRaster | None = None
                   ) -> tuple[PolygonList, NDArray[np.intp], list[str]]:
    """(the valid members as polygons, their indices in the collection, why each other one was left out).

    With `split_parts` (polymask/_inputs.py) the result's ``owners`` count the
    kept members only: owner k is the member at ``indices[k]``.
    """
    try:
        flat = _inputs.polygons(collection, transform, name, split_parts=split_parts, lines=lines)
    except (TypeError, ValueError) as refusal:
        singles = _single_members(collection)
        if singles is None:  # not a collection of members: nothing to leave out
            raise refusal from None
        return _member_by_member(singles, transform, name, split_parts, lines)
    begin, end = vertex_ranges(flat)
    owners = flat.owners if flat.owners is not None else np.arange(len(flat), dtype=np.int64)
    held = np.bincount(owners, weights=end - begin, minlength=flat.member_count)
    empty = held == 0
    if not empty.any():
        return flat, np.arange(flat.member_count, dtype=np.intp), []
    kept = np.flatnonzero(~empty).astype(np.intp)
    chosen = ~empty[owners]  # the polygons of kept members; the others hold no vertex
    rank = np.cumsum(~empty) - 1
    subset = PolygonList(flat.vertices, flat.ring_ends, flat.polygon_ends[chosen],
                         owners=rank[owners[chosen]].astype(np.int64) if flat.owners is not None else None)
    return subset, kept, [f"{name}[{p}] is empty" for p in np.flatnonzero(empty)]


def skipped_message(what: str, skipped: list[str], total: int) -> str:
    """One sentence naming how many members were left out, and which (the first NAMED by name)."""
    named = "; ".join(skipped[:NAMED])
    more = f"; and {len(skipped) - NAMED} more" if len(skipped) > NAMED else ""
    return f"{what} skipped {len(skipped)} of {total} geometries, invalid or empty: {named}{more}"


def _single_members(collection: Any) -> list[Any] | None:
    """Each member of the collection as a collection of one, in the collection's own layout; None if it has none."""
    layout, members, _ = _layouts.collection_layouts(collection)
    if layout is Layout.SEQUENCE:
        assert members is not None  # given for sequences
        return [[member] for member in members]
    if layout is Layout.FEATURE_COLLECTION:
        assert members is not None  # the features
        return [{"type": "FeatureCollection", "features": [feature]} for feature in members]
    if layout is Layout.SHAPELY_ARRAY:
        geometries = geometry_values(collection)
        return [geometries[p:p + 1] for p in range(len(geometries))]
    if layout in (Layout.STACKED_ARRAY, Layout.PADDED):
        return [collection[p:p + 1] for p in range(len(collection))]
    if layout is Layout.ARRAY_LIST:
        return [[member] for member in collection]
    return None


def _member_by_member(singles: list[Any], transform: Any, name: str, split_parts: bool,
                      lines: LineRaster | None) -> tuple[PolygonList, NDArray[np.intp], list[str]]:
    """Read each member alone: the ones the funnel takes and holds vertices of, and why the others are out."""
    kept: list[int] = []
    parts: list[PolygonList] = []
    skipped: list[str] = []
    for p, single in enumerate(singles):
        label = f"{name}[{p}]"
        try:
            flat = _inputs.polygons(single, transform, name, split_parts=split_parts, lines=lines)
        except (TypeError, ValueError) as refusal:
            # The member was read as the collection's first: name it by its own index.
            skipped.append(str(refusal).replace(f"{name}[0]", label, 1))
            continue
        begin, end = vertex_ranges(flat)
        if not (end > begin).any():
            skipped.append(f"{label} is empty")
            continue
        kept.append(p)
        parts.append(flat)
    return _joined(parts, split_parts), np.asarray(kept, dtype=np.intp), skipped


def _joined(parts: list[PolygonList], split_parts: bool) -> PolygonList:
    """One PolygonList of several, in order; with `split_parts`, list k's polygons owned by member k."""
    empty = np.zeros(0, dtype=np.int64)
    if not parts:
        return PolygonList(np.zeros((0, 2), dtype=np.float64), empty, empty, owners=empty if split_parts else None)
    vertex_counts = np.cumsum([0] + [len(flat.vertices) for flat in parts])
    ring_counts = np.cumsum([0] + [len(flat.ring_ends) for flat in parts])
    owners = np.concatenate([np.full(len(flat), k, dtype=np.int64) for k, flat in enumerate(parts)])
    return PolygonList(
        np.ascontiguousarray(np.concatenate([flat.vertices for flat in parts]), dtype=np.float64),
        np.concatenate([flat.ring_ends + vertex_counts[k] for k, flat in enumerate(parts)]).astype(np.int64),
        np.concatenate([flat.polygon_ends + ring_counts[k] for k, flat in enumerate(parts)]).astype(np.int64),
        owners=owners if split_parts else None)
