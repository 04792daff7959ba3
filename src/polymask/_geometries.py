"""Geometry collections flattened without a Python loop per polygon.

A plain sequence of polygons costs a Python step per ring
(polymask/_sequences.py).  That is fine for a few polygons and far too slow
for 10,000: this module converts the layouts that come in bulk (as
polymask/_layouts.py recognised them) and flattens them with NumPy and
shapely 2's vectorized functions instead, checking every coordinate itself
(one vectorized pass, errors naming the polygon and vertex):

* shapely geometries in bulk: a NumPy object array of them, a list of them,
  a GeoPandas GeoSeries, or a GeoDataFrame (its active geometry column).
  ``shapely.get_parts`` splits MultiPolygons and GeometryCollections,
  ``shapely.get_rings`` gives each polygon's exterior then its holes, and
  ``shapely.get_coordinates(..., return_index=True)`` gives every vertex
  with the ring it belongs to, in C;
* a padded (P, K, 2) array: polygon p is its first rows up to the first
  padding row, where padding is a row of two NaNs (or a masked row of a
  ``numpy.ma`` array, whatever its fill value);
* a plain (P, N, 2) array: P polygons of one N-vertex ring each;
* a list of (N, 2) float arrays: concatenated in one call;
* one shapely geometry (or a one-row GeoSeries, GeoDataFrame or array) as
  one polygon: its rings, as ``(ring, label)`` pairs like the other
  one-polygon converters give.

Conventions shared with GIS tools: Z and M coordinates are dropped (the mask
is the footprint in x, y); an empty geometry (or a missing one, None) burns
no pixel; a non-empty point or line has no area and is an error naming its
type and index, except where a label image burns them (``points``, ``lines``
below: the cells GDAL burns).  shapely and GeoPandas are never imported unless the caller
handed in one of their objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask import _core
from polymask._describe import short_repr
from polymask._gdal_rings import counter_clockwise_rings
from polymask._layouts import is_geometry_array

#: shapely's type ids (shapely.GeometryType) this module treats by name.
_POINT, _LINESTRING, _LINEARRING, _POLYGON, _MULTIPOINT, _MULTILINESTRING, _MULTIPOLYGON, _COLLECTION = range(8)
_TYPE_NAMES = {
    -1: "missing",
    0: "Point",
    1: "LineString",
    2: "LinearRing",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}


def _from_geopandas(value: Any) -> bool:  # _layouts.from_module's rule, without a step back into it
    return type(value).__module__.split(".")[0] == "geopandas"


def geometry_array(polygons: Any) -> NDArray[Any] | None:
    """`polygons` as a 1-D object array of shapely geometries, or None for other forms."""
    return geometry_values(polygons) if is_geometry_array(polygons) else None


def geometry_values(polygons: Any) -> np.ndarray:
    """Geometries in bulk (polymask/_layouts.py's SHAPELY_ARRAY) as a 1-D object array.

    A GeoDataFrame gives its active geometry column, a GeoSeries its values,
    a NumPy object array or a list of shapely geometries themselves.
    """
    if _from_geopandas(polygons):
        geometry = getattr(polygons, "geometry", polygons)  # GeoDataFrame -> its active GeoSeries
        return np.asarray(geometry.values, dtype=object)
    if isinstance(polygons, np.ndarray):
        return polygons
    # fromiter never looks inside the items (np.array would try to stack same-shape arrays)
    return np.fromiter(polygons, dtype=object, count=len(polygons))


def geometries_of(polygons: Any, name: str) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends) of shapely geometries in bulk."""
    return flatten_geometries(geometry_values(polygons), name)


def flatten_geometries(geometries: NDArray[Any], name: str) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends) of a 1-D object array of shapely geometries."""
    vertices, ring_ends, part_rings, owner, _ = _flatten(geometries, name)
    rings_per_geometry = np.bincount(owner, weights=part_rings, minlength=len(geometries)).astype(np.int64)
    return vertices, ring_ends, np.cumsum(rings_per_geometry, dtype=np.int64)


def flatten_geometry_parts(
    geometries: NDArray[Any], name: str, points: bool = False, lines: dict[int, NDArray[Any]] | None = None
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends, owners, point_rings): each polygon part its own polygon.

    A MultiPolygon or GeometryCollection is the union of its parts (GeoJSON's
    and GDAL's meaning), so its parts are burned one by one rather than filled
    together under one rule.  owners[k] is the geometry polygon k came from,
    non-decreasing; a geometry without parts (empty, None) owns one empty polygon.
    With `points`, each Point (of a MultiPoint, a collection) is a polygon too,
    a ring of five copies of the point, flagged in point_rings for
    point_cells to make it its cell once the vertices are in the sample frame.
    With `lines` (a dict, filled here), each line part (LineString,
    LinearRing, a line of a MultiLineString) is a polygon without rings, and
    lines[k] holds the world coordinates of polygon k's line, for
    polymask/_lines.py to burn.
    """
    line_parts: dict[int, NDArray[Any]] | None = None if lines is None else {}
    vertices, ring_ends, part_rings, owner, point_rings = _flatten(geometries, name, points, line_parts)
    partless = np.flatnonzero(np.bincount(owner, minlength=len(geometries)) == 0)
    owners = np.concatenate([owner, partless]).astype(np.int64)
    rings = np.concatenate([part_rings, np.zeros(len(partless), dtype=np.int64)])
    order = np.argsort(owners, kind="stable")  # the empty placeholders land in their geometry's place
    if lines is not None and line_parts:
        place = np.empty(len(order), dtype=np.int64)
        place[order] = np.arange(len(order))
        lines.update({int(place[k]): coordinates for k, coordinates in line_parts.items()})
    return vertices, ring_ends, np.cumsum(rings[order], dtype=np.int64), owners[order], point_rings


def point_cells(vertices: NDArray[Any], ring_ends: NDArray[Any], point_rings: NDArray[Any]) -> NDArray[Any]:
    """Each point ring (five copies of a point, in the sample frame) made the square of the cell holding it.

    GDAL burns a point into the cell that holds it, the cell's lower sides
    in; the cell's square holds that pixel's sample point alone, and shares
    area with that cell alone, so it burns that pixel under any all_touched.
    """
    if not point_rings.any():
        return vertices
    starts = ring_ends[point_rings] - 5
    col, row = np.floor(vertices[starts, 0] + 0.5), np.floor(vertices[starts, 1] + 0.5)
    vertices = vertices.copy()
    for k, (dx, dy) in enumerate([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5)]):
        vertices[starts + k, 0], vertices[starts + k, 1] = col + dx, row + dy
    return vertices


def _flatten(
    geometries: NDArray[Any], name: str, points: bool = False, lines: dict[int, NDArray[Any]] | None = None
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, rings per polygon part, the geometry of each part, which rings are points).

    Of shapely geometries, checked; points (with `points`) and lines (into
    `lines`, by part) as in flatten_geometry_parts.
    """
    import shapely

    count = len(geometries)
    if count == 0:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros((0, 2), dtype=np.float64), empty, empty, empty, np.zeros(0, dtype=bool)
    is_geometry = shapely.is_valid_input(geometries)  # a geometry or None
    if not is_geometry.all():
        index = int(np.argmin(is_geometry))
        raise TypeError(f"{name}[{index}] must be a shapely geometry (or None), got {_short(geometries[index])}")
    # Split multi-part geometries until only single parts are left.  A part
    # keeps the index of the geometry it came from; nesting is rare and shallow.
    # `source` tells the lines of one MultiLineString apart from other lines of their geometry.
    parts, owner, source = geometries, np.arange(count, dtype=np.int64), np.arange(count, dtype=np.int64)
    for _ in range(64):
        kinds = shapely.get_type_id(parts)
        multi = (
            (kinds == _MULTIPOLYGON)
            | (kinds == _COLLECTION)
            | (points & (kinds == _MULTIPOINT))
            | ((lines is not None) & (kinds == _MULTILINESTRING))
        )
        if not multi.any():
            break
        split, split_index = shapely.get_parts(parts[multi], return_index=True)
        fresh = source.max() + 1 + np.arange(len(split))
        split_source = np.where(kinds[multi][split_index] == _MULTILINESTRING, source[multi][split_index], fresh)
        parts = np.concatenate([parts[~multi], split])
        owner = np.concatenate([owner[~multi], owner[multi][split_index]])
        source = np.concatenate([source[~multi], split_source])
        order = np.argsort(owner, kind="stable")  # parts of geometry p stay in their order
        parts, owner, source = parts[order], owner[order], source[order]
    else:
        raise ValueError(f"{name} holds GeometryCollections nested more than 64 levels deep")
    kinds = shapely.get_type_id(parts)
    is_point = points & (kinds == _POINT) & ~shapely.is_empty(parts)
    if is_point.any():  # a ring of five copies of the point, made its cell by point_cells
        xy = shapely.get_coordinates(parts[is_point])
        bad = ~np.isfinite(xy).all(axis=1)
        if bad.any():
            index = int(owner[np.flatnonzero(is_point)[int(np.argmax(bad))]])
            x, y = (float(v) for v in xy[int(np.argmax(bad))])
            raise ValueError(
                f"{name}[{index}] has a vertex ({x!r}, {y!r}) that is not finite; "
                "every coordinate must be a finite number"
            )
        parts = parts.copy()
        parts[is_point] = shapely.polygons(np.repeat(xy, 5, axis=0).reshape(-1, 5, 2))
        kinds = np.where(is_point, _POLYGON, kinds)
    found_lines: dict[int, NDArray[Any]] = {}  # by index among the parts
    if lines is not None:
        is_line = ((kinds == _LINESTRING) | (kinds == _LINEARRING)) & ~shapely.is_empty(parts)
        if is_line.any():
            parts = counter_clockwise_rings(parts).copy()  # a LinearRing walks as GDAL walks it
            found_lines = _one_per_multiline(_line_coordinates(parts, is_line, owner, name), source)
            parts[is_line] = shapely.Polygon()  # a polygon without rings holds the line's place
            kinds = np.where(is_line, _POLYGON, kinds)
    areal = kinds == _POLYGON
    if not areal.all():
        # Missing (None) and empty geometries of any type burn nothing; a
        # point or a line with coordinates has no inside.
        ignorable = (kinds == -1) | shapely.is_empty(parts)
        bad = ~areal & ~ignorable
        if bad.any():
            at = int(np.argmax(bad))
            index = int(owner[at])
            part = _TYPE_NAMES.get(int(kinds[at]), "geometry")
            whole = _TYPE_NAMES.get(int(shapely.get_type_id(geometries[index])), "geometry")
            what = f"is a {part}" if part == whole else f"is a {whole} holding a {part}"
            raise ValueError(
                f"{name}[{index}] {what}, which has no area; expected a Polygon, a MultiPolygon, "
                "a GeometryCollection of them, or an empty geometry"
            )
        parts, owner, is_point = parts[areal], owner[areal], is_point[areal]
    if found_lines:
        assert lines is not None  # found only when asked for
        kept_index = np.cumsum(areal) - 1  # the parts left out before a line move it up
        lines.update({int(kept_index[k]): xy for k, xy in found_lines.items()})
    rings, ring_part = shapely.get_rings(parts, return_index=True)
    coordinates, ring_of_vertex = shapely.get_coordinates(rings, return_index=True)  # Z and M dropped
    vertices = np.ascontiguousarray(coordinates, dtype=np.float64)
    bad_row = _core.first_non_finite(vertices)
    if bad_row >= 0:
        index = int(owner[ring_part[ring_of_vertex[bad_row]]])
        x, y = (float(v) for v in vertices[bad_row])
        raise ValueError(
            f"{name}[{index}] has a vertex ({x!r}, {y!r}) that is not finite; every coordinate must be a finite number"
        )
    ring_ends = np.cumsum(np.bincount(ring_of_vertex, minlength=len(rings)), dtype=np.int64)
    part_rings = np.bincount(ring_part, minlength=len(parts)).astype(np.int64)
    return vertices, ring_ends, part_rings, owner, is_point[ring_part]


def _one_per_multiline(found: dict[int, NDArray[np.float64]], source: NDArray[Any]) -> dict[int, NDArray[np.float64]]:
    """The lines of each MultiLineString (same `source`) held by its first: joined by NaN rows, the others empty.

    GDAL burns a MultiLineString's cells once for all its lines (a cell two
    of them reach counts once with "add"), so polymask/_lines.py walks them
    as one line part.
    """
    at = np.array(sorted(found), dtype=np.int64)
    if len(at) < 2 or len(np.unique(source[at])) == len(at):
        return found
    joined: dict[int, NDArray[np.float64]] = {}
    gap = np.full((1, 2), np.nan)
    for group in np.split(at, np.flatnonzero(source[at][1:] != source[at][:-1]) + 1):
        first = int(group[0])
        joined[first] = np.concatenate([piece for k in group for piece in (gap, found[int(k)])][1:])
        joined.update({int(k): np.zeros((0, 2)) for k in group[1:]})
    return joined


def _line_coordinates(
    parts: NDArray[Any], is_line: NDArray[Any], owner: NDArray[Any], name: str
) -> dict[int, NDArray[np.float64]]:
    """{part index: its (x, y) vertices} of the line parts, checked to be finite (one shapely call)."""
    import shapely

    at = np.flatnonzero(is_line)
    coordinates, line_of_vertex = shapely.get_coordinates(parts[at], return_index=True)
    xy = np.ascontiguousarray(coordinates, dtype=np.float64)
    bad_row = _core.first_non_finite(xy)
    if bad_row >= 0:
        x, y = (float(v) for v in xy[bad_row])
        raise ValueError(
            f"{name}[{int(owner[at[line_of_vertex[bad_row]]])}] has a vertex ({x!r}, {y!r}) that is "
            "not finite; every coordinate must be a finite number"
        )
    ends = np.cumsum(np.bincount(line_of_vertex, minlength=len(at)))
    return dict(zip(at.tolist(), np.split(xy, ends[:-1])))


def flatten_padded(polygons: NDArray[Any], name: str) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends) of a (P, K, 2) array, NaN rows (or masked rows) as padding."""
    count, width = polygons.shape[:2]
    if polygons.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {polygons.dtype}")
    if isinstance(polygons, np.ma.MaskedArray):
        row_masked: NDArray[np.bool_] | None = np.asarray(np.ma.getmaskarray(polygons).any(axis=2))
        padded = np.asarray(polygons.filled(0), dtype=np.float64)
    else:
        padded = np.asarray(polygons, dtype=np.float64)
        row_masked = None
    if row_masked is None:  # polymask/_layouts.py saw a NaN row
        row_masked = np.asarray(np.isnan(padded).all(axis=2))
    # Padding must be a tail: a real vertex after a padding row is a mistake.
    misplaced = row_masked[:, :-1] & ~row_masked[:, 1:]
    if misplaced.any():
        polygon, vertex = np.argwhere(misplaced)[0]
        raise ValueError(
            f"{name}[{polygon}] has a padding row at {vertex} followed by a vertex at {vertex + 1}; "
            "padding (NaN rows or masked rows) may only end a polygon"
        )
    keep = ~row_masked.ravel()
    vertices = np.ascontiguousarray(padded.reshape(count * width, 2)[keep])
    bad_row = _core.first_non_finite(vertices)
    if bad_row >= 0:
        polygon, vertex = divmod(int(np.flatnonzero(keep)[bad_row]), width)
        x, y = (float(v) for v in vertices[bad_row])
        raise ValueError(
            f"{name}[{polygon}][{vertex}] = ({x!r}, {y!r}) is not finite; every coordinate must "
            "be a finite number (padding is a row of two NaNs)"
        )
    ring_ends = np.cumsum((~row_masked).sum(axis=1), dtype=np.int64)
    return vertices, ring_ends, np.arange(1, count + 1, dtype=np.int64)


def flatten_array_list(polygons: Any, name: str) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends) of a list of (N, 2) numeric arrays."""
    lengths = np.fromiter((len(ring) for ring in polygons), dtype=np.int64, count=len(polygons))
    vertices = np.ascontiguousarray(np.concatenate(polygons), dtype=np.float64)
    bad_row = _core.first_non_finite(vertices)
    if bad_row >= 0:
        ends = np.cumsum(lengths)
        polygon = int(np.searchsorted(ends, bad_row, side="right"))
        vertex = bad_row - (int(ends[polygon - 1]) if polygon else 0)
        x, y = (float(v) for v in vertices[bad_row])
        raise ValueError(
            f"{name}[{polygon}][{vertex}] = ({x!r}, {y!r}) is not finite; every coordinate must be a finite number"
        )
    return vertices, np.cumsum(lengths), np.arange(1, len(polygons) + 1, dtype=np.int64)


def flatten_stacked(polygons: NDArray[Any], name: str) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(vertices, ring_ends, polygon_ends) of a (P, N, 2) array: P polygons of one N-vertex ring."""
    count, n_vertices = polygons.shape[:2]
    if polygons.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {polygons.dtype}")
    flat = np.ascontiguousarray(polygons.reshape(count * n_vertices, 2), dtype=np.float64)
    bad_row = _core.first_non_finite(flat)
    if bad_row >= 0:
        # Name the polygon and vertex, not the row of the flattened array.
        polygon, vertex = divmod(bad_row, n_vertices)
        x, y = (float(v) for v in flat[bad_row])
        raise ValueError(
            f"{name}[{polygon}][{vertex}] = ({x!r}, {y!r}) is not finite; every coordinate must be a finite number"
        )
    ring_ends = np.arange(1, count + 1, dtype=np.int64) * n_vertices
    return flat, ring_ends, np.arange(1, count + 1, dtype=np.int64)


def shapely_part_rings(geometry: Any) -> list[int]:
    """How many rings each polygon part of one shapely geometry holds, in shapely_rings' order."""
    _, _, polygon_ends, _, _ = flatten_geometry_parts(np.array([geometry], dtype=object), "geometry")
    return [int(count) for count in np.diff(np.concatenate(([0], polygon_ends)))]


def shapely_rings(polygon: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """One shapely geometry as one polygon's rings (checked here, in bulk)."""
    vertices, ring_ends, _ = flatten_geometries(np.array([polygon], dtype=object), name.removesuffix("[0]"))
    return _split(vertices, ring_ends, name)


def shapely_row_rings(polygons: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """A one-row GeoSeries, GeoDataFrame or array of geometries as one polygon's rings."""
    geometries = geometry_values(polygons)
    if len(geometries) != 1:
        raise ValueError(
            f"{name} must be one polygon; got {len(geometries)} geometries "
            f"({type(polygons).__name__}). Burn several with polymask.rasterize, "
            "or pass one of them (e.g. series.iloc[0])"
        )
    vertices, ring_ends, _ = flatten_geometries(geometries, name)
    return _split(vertices, ring_ends, name)


def _split(vertices: np.ndarray, ring_ends: np.ndarray, name: str) -> list[Any]:
    """Checked (vertices, ring_ends) as (ring, label) pairs."""
    return [(ring, name) for ring in np.split(vertices, ring_ends[:-1])] if len(ring_ends) else []


def column_values(polygons: Any, values: Any) -> Any:
    """The values of a GeoDataFrame column named by `values`, or `values` unchanged."""
    if isinstance(values, str) and _from_geopandas(polygons) and hasattr(polygons, "columns"):
        if values not in polygons.columns:
            raise ValueError(
                f"values={short_repr(values)} names no column of the GeoDataFrame; its columns are "
                f"{list(polygons.columns)}"
            )
        return polygons[values].to_numpy()
    return values


def _short(value: Any) -> str:
    text = repr(value)
    return (text[:57] + "...") if len(text) > 60 else text + f" (type {type(value).__name__})"
