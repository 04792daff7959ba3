"""Polygons with holes and multi-polygons, turned into what the core takes.

The core sees one flat (M, 2) float64 vertex array plus cumulative
``ring_ends``: ring k is rows ``ring_ends[k-1]:ring_ends[k]`` (see
csrc/include/polymask/core.hpp).  This module accepts the shapes people
hand around and flattens them, with errors that name the bad ring and value:

* an (N, 2) array-like: one ring, exactly as before rings existed;
* a list (or tuple) of rings, each an (Ni, 2) array-like;
* a GeoJSON-like mapping: ``{"type": "Polygon", "coordinates": [ring, ...]}``,
  ``{"type": "MultiPolygon", "coordinates": [[ring, ...], ...]}``, or a
  ``Feature`` wrapping one of those;
* any object with ``__geo_interface__`` -- shapely's Polygon and
  MultiPolygon among them -- so shapely is never imported here.

Which pixels are inside is then decided over all rings together by the fill
rule (even-odd: a hole is simply another ring; nonzero: holes must wind the
other way, as GeoJSON's right-hand rule has them).  GeoJSON repeats the first
vertex at the end of a ring; that closing edge has zero length, never
crosses a row, and changes nothing.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from polymask import _core, _geometries, _layouts
from polymask._validation import _describe, as_vertices

_GEOJSON_TYPES = ("Polygon", "MultiPolygon", "GeometryCollection")

#: How deep Features and GeometryCollections may nest: real data nests one
#: or two levels; a self-containing mapping must end in an error, not a
#: RecursionError.
_MAX_GEOJSON_DEPTH = 32


class Rings:
    """A polygon flattened for the core: vertices (M, 2) float64 and ring ends.

    ``ring_ends`` is None for a single ring, so the single-ring call into the
    core stays exactly what it was.
    """

    __slots__ = ("vertices", "ring_ends", "united")

    def __init__(self, vertices: np.ndarray, ring_ends: np.ndarray | None, united: bool = False):
        self.vertices = vertices
        self.ring_ends = ring_ends
        #: True for a COCO segmentation's parts: the polygon is the union of the
        #: rings' fills, not the fill rule over all rings together.
        self.united = united

    @property
    def ring_count(self) -> int:
        return 1 if self.ring_ends is None else len(self.ring_ends)

    def ring_ends_or_single(self) -> np.ndarray:
        """ring_ends as an int64 array, also for a single ring."""
        if self.ring_ends is None:
            return np.array([len(self.vertices)], dtype=np.int64)
        return self.ring_ends


def as_rings(polygon, name: str = "vertices", unite_parts: bool = False) -> Rings:
    """Flatten any accepted polygon form into a Rings (validated, finite).

    `unite_parts`: a COCO segmentation of several parts is read as their
    union (Rings.united), as COCO means it; otherwise it is refused.
    """
    if type(polygon) is np.ndarray and polygon.dtype != object and polygon.ndim == 2:
        # A NumPy array is always one (N, 2) ring: an (R, N, 2) array would
        # be ambiguous, so several rings come as a list.
        return Rings(_with_layout_hint(as_vertices, polygon, name), None)
    # COCO flat lists and OpenCV contours: polymask/_layouts.py.
    layout_rings = _layouts.rings_of(polygon, name, unite_parts)
    if layout_rings is not None:
        if not layout_rings:
            return Rings(np.zeros((0, 2), dtype=np.float64), None)
        joined = _join(layout_rings)
        joined.united = unite_parts and len(layout_rings) > 1 and _layouts.is_segmentation(polygon)
        return joined
    if type(polygon) is np.ndarray and polygon.dtype != object:  # object arrays may hold shapely geometries
        return Rings(_with_layout_hint(as_vertices, polygon, name), None)
    shapely_rings = _geometries.single_geometry(polygon, name)  # shapely, GeoSeries: vectorized
    if shapely_rings is not None:
        vertices, ring_ends = shapely_rings
        return Rings(vertices, None if len(ring_ends) == 1 else ring_ends)
    geometry = _geo_interface(polygon)
    if geometry is not None:
        return _from_geojson(geometry, name)
    if isinstance(polygon, (list, tuple)) and len(polygon) > 0 and _is_ring(polygon[0]):
        return _join([as_vertices(ring, f"{name}[{k}]") for k, ring in enumerate(polygon)])
    # One ring, or bad input: as_vertices says which.
    return Rings(_with_layout_hint(as_vertices, polygon, name), None)


def _with_layout_hint(convert, polygon, name: str):
    """convert(polygon, name), with a hint at the layout a refused value looks like."""
    try:
        return convert(polygon, name)
    except (TypeError, ValueError) as error:
        hint = _layouts.layout_hint(polygon)
        if hint is None:
            raise
        raise type(error)(f"{error}; {hint}") from None


def _is_ring(item) -> bool:
    """Whether `item` (the first element of a list) is itself a ring of points.

    A point is (x, y): one level of nesting.  A ring is a sequence of points:
    two levels.  An empty item can only be a ring (a point has two numbers).
    Ragged or odd items are left for as_vertices to explain.
    """
    if isinstance(item, np.ndarray):
        return item.ndim == 2 or item.size == 0
    if isinstance(item, (list, tuple)):
        return len(item) == 0 or isinstance(item[0], (list, tuple, np.ndarray))
    return False


def _geo_interface(polygon):
    """The GeoJSON-like mapping of `polygon`, or None when it is not one."""
    if isinstance(polygon, Mapping):
        return polygon
    interface = getattr(type(polygon), "__geo_interface__", None)
    if interface is None:
        return None
    geometry = polygon.__geo_interface__
    if not isinstance(geometry, Mapping):
        raise TypeError(f"{type(polygon).__name__}.__geo_interface__ must be a GeoJSON-like mapping "
                        f"(a dict with 'type'), got {_describe(geometry)}")
    return geometry


def _from_geojson(geometry: Mapping, name: str) -> Rings:
    rings = _geojson_rings(geometry, name, 0)
    if not rings:  # an empty geometry: no ring, no pixel
        return Rings(np.zeros((0, 2), dtype=np.float64), np.zeros(0, dtype=np.int64))
    return _join(rings)


def _geojson_rings(geometry: Mapping, name: str, depth: int) -> list[np.ndarray]:
    """Every ring of a GeoJSON-like Polygon, MultiPolygon, GeometryCollection or Feature."""
    if depth > _MAX_GEOJSON_DEPTH:
        raise ValueError(f"{name} nests Features or GeometryCollections more than {_MAX_GEOJSON_DEPTH} levels "
                         "deep (a mapping that contains itself?)")
    kind = geometry.get("type")
    if kind == "Feature":
        inner = geometry.get("geometry")
        if not isinstance(inner, Mapping):
            raise TypeError(f"{name} is a GeoJSON Feature without a geometry mapping, got {_describe(inner)}")
        return _geojson_rings(inner, f"{name}['geometry']", depth + 1)
    if kind not in _GEOJSON_TYPES:
        raise ValueError(f"{name} must be a GeoJSON-like Polygon or MultiPolygon (or a GeometryCollection or "
                         f"Feature of them), got type {kind!r}")
    if kind == "GeometryCollection":
        members = _sequence(geometry.get("geometries"), f"{name}['geometries']", "geometries")
        rings = []
        for k, member in enumerate(members):
            if not isinstance(member, Mapping):
                raise TypeError(f"{name}['geometries'][{k}] must be a GeoJSON-like mapping, got {_describe(member)}")
            rings.extend(_geojson_rings(member, f"{name}['geometries'][{k}]", depth + 1))
        return rings
    if "coordinates" not in geometry:
        raise ValueError(f"{name} is a GeoJSON {kind} without 'coordinates'")
    coordinates = geometry["coordinates"]
    label = f"{name}['coordinates']"
    if kind == "Polygon":
        return [_ring_xy(ring, f"{label}[{k}]") for k, ring in enumerate(_sequence(coordinates, label))]
    return [
        _ring_xy(ring, f"{label}[{p}][{k}]")
        for p, part in enumerate(_sequence(coordinates, label))
        for k, ring in enumerate(_sequence(part, f"{label}[{p}]"))
    ]


def _ring_xy(ring, label: str) -> np.ndarray:
    """A GeoJSON ring as (N, 2): positions with Z (and M) keep x and y, as GIS tools do."""
    if isinstance(ring, (list, tuple, np.ndarray)) and len(ring) and not isinstance(ring[0], (str, bytes)):
        try:
            array = np.asarray(ring, dtype=np.float64)
        except (TypeError, ValueError):
            array = None  # as_vertices explains
        if array is not None and array.ndim == 2 and array.shape[1] in (3, 4):
            return as_vertices(np.ascontiguousarray(array[:, :2]), label)
    return as_vertices(ring, label)


def _sequence(value, label: str, what: str = "rings"):
    """`value` as a sequence of rings or parts; a clear error otherwise."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise TypeError(f"{label} must be a sequence of {what}, got {_describe(value)}")
    return value


def _join(rings: list[np.ndarray]) -> Rings:
    """Concatenate rings into one vertex array and their cumulative ends."""
    if len(rings) == 1:
        return Rings(rings[0], None)
    lengths = np.fromiter((len(ring) for ring in rings), dtype=np.int64, count=len(rings))
    vertices = np.concatenate(rings) if rings else np.zeros((0, 2), dtype=np.float64)
    return Rings(np.ascontiguousarray(vertices, dtype=np.float64), np.cumsum(lengths))


class PolygonList:
    """Many polygons flattened for one call into the core.

    Polygon p is rings ``polygon_ends[p-1]:polygon_ends[p]``; ring k is
    vertices ``ring_ends[k-1]:ring_ends[k]`` (the first of each taken from 0).
    """

    __slots__ = ("vertices", "ring_ends", "polygon_ends")

    def __init__(self, vertices: np.ndarray, ring_ends: np.ndarray, polygon_ends: np.ndarray):
        self.vertices = vertices
        self.ring_ends = ring_ends
        self.polygon_ends = polygon_ends

    def __len__(self) -> int:
        return len(self.polygon_ends)


def vertex_ranges(flat: PolygonList) -> tuple[np.ndarray, np.ndarray]:
    """(begin, end) int64 arrays: polygon p owns vertices[begin[p]:end[p]] (empty for a polygon without rings)."""
    ring_ends = np.concatenate([[0], flat.ring_ends]).astype(np.int64)
    end = ring_ends[np.asarray(flat.polygon_ends, dtype=np.int64)]
    return np.concatenate([[0], end[:-1]]).astype(np.int64), end


def as_polygon_list(polygons, name: str = "polygons") -> PolygonList:
    """Flatten a sequence of polygons (each anything as_rings takes).

    A (P, N, 2) NumPy array is P polygons of one N-vertex ring each, read
    without a Python loop; that is the cheap way to pass 10,000 polygons.
    """
    if _layouts.is_contour(polygons) and len(polygons) > 0:
        raise ValueError(f"{name} is an array of shape {polygons.shape}, which looks like one OpenCV contour "
                         "(N, 1, 2) rather than polygons; pass [contour] for one polygon")
    if isinstance(polygons, np.ndarray) and polygons.ndim == 3 and polygons.shape[2] == 2:
        padded = _geometries.flatten_padded(polygons, name)  # NaN or masked rows end a polygon early
        return PolygonList(*padded) if padded is not None else _from_stacked_rings(polygons, name)
    geometries = _geometries.geometry_array(polygons)  # shapely arrays, GeoSeries, GeoDataFrame
    if geometries is not None:
        return PolygonList(*_geometries.flatten_geometries(geometries, name))
    if isinstance(polygons, Mapping) and polygons.get("type") == "FeatureCollection":
        features = polygons.get("features")
        if not isinstance(features, (list, tuple)):
            raise TypeError(f"{name} is a GeoJSON FeatureCollection whose 'features' is not a list, "
                            f"got {_describe(features)}")
        polygons = features
    if _layouts.is_contours_with_hierarchy(polygons):
        # cv2.findContours' pair: one polygon per outer contour, with its holes.
        polygons = _layouts.hierarchy_polygons(*polygons, name)
    if isinstance(polygons, list) and polygons and type(polygons[0]) is np.ndarray:
        arrays = _geometries.flatten_array_list(polygons, name)  # a list of (N, 2) arrays: one concatenate
        if arrays is not None:
            return PolygonList(*arrays)
    if polygons is None or isinstance(polygons, (str, bytes, Mapping, np.ndarray)) or not hasattr(polygons, "__len__"):
        expected = "a sequence of polygons (or a (P, N, 2) array)"
        if isinstance(polygons, np.ndarray):
            raise ValueError(f"{name} must be {expected}, got an array of shape {polygons.shape}")
        if _geo_interface(polygons) is not None:
            raise TypeError(f"{name} must be {expected}; for one polygon, pass [polygon]")
        raise TypeError(f"{name} must be {expected}, got {_describe(polygons)}")
    parts = [as_rings(polygon, f"{name}[{p}]") for p, polygon in enumerate(polygons)]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return PolygonList(np.zeros((0, 2), dtype=np.float64), empty, empty)
    ring_counts = np.fromiter((part.ring_count for part in parts), dtype=np.int64, count=len(parts))
    vertices = np.concatenate([part.vertices for part in parts])
    # Each part's ring ends are local to it; shift them by the vertices before it.
    offsets = np.cumsum([0] + [len(part.vertices) for part in parts[:-1]], dtype=np.int64)
    ring_ends = np.concatenate([part.ring_ends_or_single() + offset for part, offset in zip(parts, offsets)])
    return PolygonList(np.ascontiguousarray(vertices, dtype=np.float64), ring_ends, np.cumsum(ring_counts))


def _from_stacked_rings(polygons: np.ndarray, name: str) -> PolygonList:
    count, n_vertices = polygons.shape[:2]
    if polygons.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {polygons.dtype}")
    flat = np.ascontiguousarray(polygons.reshape(count * n_vertices, 2), dtype=np.float64)
    bad_row = _core.first_non_finite(flat)
    if bad_row >= 0:
        # Name the polygon and vertex, not the row of the flattened array.
        polygon, vertex = divmod(bad_row, n_vertices)
        x, y = (float(v) for v in flat[bad_row])
        raise ValueError(f"{name}[{polygon}][{vertex}] = ({x!r}, {y!r}) is not finite; "
                         "every coordinate must be a finite number")
    ring_ends = np.arange(1, count + 1, dtype=np.int64) * n_vertices
    return PolygonList(flat, ring_ends, np.arange(1, count + 1, dtype=np.int64))
