"""The converter for GeoJSON-like polygons and anything with ``__geo_interface__``.

polymask/_layouts.py recognises the layout; this module turns it into the
polygon's rings, as ``(ring, label)`` pairs that polymask/_validation.py
then checks under labels naming where each ring sat (``['coordinates'][0][1]``):

* ``{"type": "Polygon", "coordinates": [ring, ...]}``,
  ``{"type": "MultiPolygon", "coordinates": [[ring, ...], ...]}``, a
  ``GeometryCollection`` of those, or a ``Feature`` wrapping one of them;
* any object with ``__geo_interface__`` -- shapely's Polygon and
  MultiPolygon among them -- so shapely is never imported here.

GeoJSON repeats the first vertex at the end of a ring; that closing edge has
zero length, never crosses a row, and changes nothing.  Positions with Z
(and M) keep x and y, as GIS tools do.  An empty geometry has no ring.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from polymask._describe import describe as _describe

_GEOJSON_TYPES = ("Polygon", "MultiPolygon", "GeometryCollection")

#: How deep Features and GeometryCollections may nest: real data nests one
#: or two levels; a self-containing mapping must end in an error, not a
#: RecursionError.
_MAX_GEOJSON_DEPTH = 32


def geo_interface(value: Any) -> Any:
    """``value.__geo_interface__``, checked to be a GeoJSON-like mapping."""
    geometry = value.__geo_interface__
    if not isinstance(geometry, Mapping):
        raise TypeError(f"{type(value).__name__}.__geo_interface__ must be a GeoJSON-like mapping "
                        f"(a dict with 'type'), got {_describe(geometry)}")
    return geometry


def interface_rings(value: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """The rings of an object with ``__geo_interface__``."""
    return geojson_rings(geo_interface(value), name)


def geojson_rings(geometry: Mapping[str, Any], name: str, unite_parts: bool = False, depth: int = 0) -> list[Any]:
    """Every ring of a GeoJSON-like Polygon, MultiPolygon, GeometryCollection or Feature."""
    if depth > _MAX_GEOJSON_DEPTH:
        raise ValueError(f"{name} nests Features or GeometryCollections more than {_MAX_GEOJSON_DEPTH} levels "
                         "deep (a mapping that contains itself?)")
    kind = geometry.get("type")
    if kind == "Feature":
        inner = geometry.get("geometry")
        if not isinstance(inner, Mapping):
            raise TypeError(f"{name} is a GeoJSON Feature without a geometry mapping, got {_describe(inner)}")
        return geojson_rings(inner, f"{name}['geometry']", depth=depth + 1)
    if kind not in _GEOJSON_TYPES:
        raise ValueError(f"{name} must be a GeoJSON-like Polygon or MultiPolygon (or a GeometryCollection or "
                         f"Feature of them), got type {kind!r}")
    if kind == "GeometryCollection":
        members = _sequence(geometry.get("geometries"), f"{name}['geometries']", "geometries")
        rings = []
        for k, member in enumerate(members):
            if not isinstance(member, Mapping):
                raise TypeError(f"{name}['geometries'][{k}] must be a GeoJSON-like mapping, got {_describe(member)}")
            rings.extend(geojson_rings(member, f"{name}['geometries'][{k}]", depth=depth + 1))
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


def geojson_part_rings(geometry: Mapping[str, Any]) -> list[int]:
    """How many rings each polygon part of a GeoJSON-like geometry holds, in geojson_rings' order.

    Called on a geometry geojson_rings has read, so its structure is checked.
    """
    kind = geometry.get("type")
    if kind == "Feature":
        return geojson_part_rings(geometry["geometry"])
    if kind == "GeometryCollection":
        return [count for member in geometry["geometries"] for count in geojson_part_rings(member)]
    if kind == "Polygon":
        return [len(geometry["coordinates"])]
    return [len(part) for part in geometry["coordinates"]]


#: GeoJSON types with no area: polymask.rasterize burns them as GDAL does (polymask/_lines.py).
_POINT_AND_LINE_TYPES = ("Point", "MultiPoint", "LineString", "MultiLineString")


def holds_points_or_lines(value: Any, depth: int = 0) -> bool:
    """Whether a GeoJSON-like mapping (or an object with ``__geo_interface__``) holds a point or a line."""
    geometry = geo_interface(value) if hasattr(value, "__geo_interface__") else value
    if not isinstance(geometry, Mapping) or depth > _MAX_GEOJSON_DEPTH:
        return False
    kind = geometry.get("type")
    if kind == "Feature":
        return holds_points_or_lines(geometry.get("geometry"), depth + 1)
    if kind == "GeometryCollection":
        members = geometry.get("geometries")
        return isinstance(members, (list, tuple)) and any(holds_points_or_lines(m, depth + 1) for m in members)
    return kind in _POINT_AND_LINE_TYPES


def as_shapely(value: Any, name: str) -> Any:
    """A GeoJSON-like mapping (a Feature's geometry) or ``__geo_interface__`` object as a shapely geometry."""
    import shapely.geometry

    geometry = geo_interface(value) if hasattr(value, "__geo_interface__") else value
    while isinstance(geometry, Mapping) and geometry.get("type") == "Feature":
        geometry = geometry.get("geometry")
    if geometry is None:
        return None
    try:
        return shapely.geometry.shape(geometry)
    except Exception as error:  # shapely's own errors and Python's, for any malformed mapping
        raise ValueError(f"{name} is not a GeoJSON geometry shapely reads: {error}") from None


def _ring_xy(ring: Any, label: str) -> tuple[Any, str]:
    """A GeoJSON ring with its label; positions with Z (and M) keep x and y."""
    if isinstance(ring, (list, tuple, np.ndarray)) and len(ring) and not isinstance(ring[0], (str, bytes)):
        try:
            array = np.asarray(ring, dtype=np.float64)
        except (TypeError, ValueError):
            array = None  # as_vertices explains
        if array is not None and array.ndim == 2 and array.shape[1] in (3, 4):
            return np.ascontiguousarray(array[:, :2]), label
    return ring, label


def _sequence(value: Any, label: str, what: str = "rings") -> Any:
    """`value` as a sequence of rings or parts; a clear error otherwise."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise TypeError(f"{label} must be a sequence of {what}, got {_describe(value)}")
    return value
