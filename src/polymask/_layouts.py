"""The input funnel's first step: recognise the layout of a polygon input, once.

polymask/_inputs.py asks ``layout_of`` what a value is (one polygon), or
``collection_layouts`` what a collection is and, for a plain sequence of
polygons, what each member is; it then hands the value to the one converter
of that layout (polymask/_annotations.py, _geojson.py, _geometries.py,
_sequences.py), which converts without testing the layout again.  Nothing
here converts or checks coordinates, and shapely and GeoPandas are never
imported unless the value is one of their objects.

One polygon, tested in this order (the first that fits decides):

* an (N, 2) NumPy array (not of objects): ARRAY_RING, the common case;
* a COCO RLE dict: COCO_RLE, refused (decode it with polymask.coco.decode);
* a COCO flat list ``[x1, y1, x2, y2, ...]`` (a list or tuple whose first
  item is a number): COCO_FLAT.  A 1-D NumPy array is not one (a NumPy
  array is always one (N, 2) ring; its refusal says to reshape(-1, 2));
* an OpenCV contour, an (N, 1, 2) array: CONTOUR; cv2.findContours' pair
  ``(contours, hierarchy)``: CONTOURS_WITH_HIERARCHY; a list of contours
  (judged by its first): CONTOUR_LIST;
* a COCO segmentation ``[[x1, y1, ...], ...]`` (a list of flat lists whose
  first has other than two numbers): COCO_SEGMENTATION;
* any other NumPy array (not of objects): POINTS (as_vertices explains);
* a shapely geometry: SHAPELY; a one-row GeoSeries, GeoDataFrame or object
  array of geometries: SHAPELY_ARRAY;
* a mapping: GEOJSON; an object with ``__geo_interface__``: GEO_INTERFACE;
* a list or tuple whose first item is a ring (a sequence of points): RING_LIST;
* anything else: POINTS, an array-like of (x, y) points, read by as_vertices
  (whose refusals get ``layout_hint``'s sentence).

A collection: an (N, 1, 2) contour (CONTOUR, refused: pass [contour]), a
(P, K, 2) array (PADDED when it holds NaN rows or is a masked array, else
STACKED_ARRAY), shapely geometries in bulk (SHAPELY_ARRAY), a GeoJSON
FeatureCollection (FEATURE_COLLECTION: its features are members),
findContours' pair (CONTOURS_WITH_HIERARCHY: one polygon per outer contour),
a list of (N, 2) numeric arrays (ARRAY_LIST), what is no sequence
(NOT_A_COLLECTION, refused), else SEQUENCE, whose members are each
recognised as one polygon.

Coordinates are used as given: OpenCV's contour points are pixel centres,
i.e. polymask's sample points; COCO's are cell coordinates, which
``polymask.coco`` maps with the cell convention (polymask/_transform.py).
"""
from __future__ import annotations

import enum
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from polymask._describe import describe as _describe


class Layout(enum.IntEnum):
    """What a polygon input is.  Values are grouped by the module that converts them, in
    the funnel's order, so sorting a sequence's members by layout visits each module once."""

    ARRAY_RING = 1                # (N, 2) ndarray: straight to as_vertices
    POINTS = 2                    # any other array-like of (x, y) points: as_vertices
    COCO_RLE = 10                 # polymask/_annotations.py from here ...
    COCO_FLAT = 11
    COCO_SEGMENTATION = 12
    CONTOUR = 13
    CONTOUR_LIST = 14
    CONTOURS_WITH_HIERARCHY = 15  # ... to here
    GEOJSON = 20                  # polymask/_geojson.py
    GEO_INTERFACE = 21
    SHAPELY = 30                  # polymask/_geometries.py
    SHAPELY_ARRAY = 31
    STACKED_ARRAY = 32
    PADDED = 33
    ARRAY_LIST = 34
    RING_LIST = 40                # polymask/_sequences.py
    SEQUENCE = 41
    FEATURE_COLLECTION = 42
    NOT_A_COLLECTION = 43


ARRAY_RING = Layout.ARRAY_RING
POINTS = Layout.POINTS


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def is_flat(value: Any) -> bool:
    """Whether `value` is a COCO flat list: a list/tuple of numbers or a 1-D numeric array.

    A list of exactly two numbers is one (x, y) point, not a flat ring.
    """
    if isinstance(value, np.ndarray):
        return value.ndim == 1 and value.dtype.kind in "iuf"
    return isinstance(value, (list, tuple)) and len(value) > 0 and _is_number(value[0])


def is_segmentation(value: Any, thorough: bool = False) -> bool:
    """Whether `value` is a COCO segmentation: a list of flat lists.

    Told from a list of (x, y) points by its first entry: a point has two
    numbers, a flat ring any other count.  With `thorough`, a list whose
    first entry has two numbers is a segmentation too when all entries are
    flat and some entry has another count (a first part of one vertex).
    """
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        return False
    first = value[0]
    if not is_flat(first):
        return False
    if len(first) != 2:
        return True
    return thorough and all(is_flat(part) for part in value) and any(len(part) != 2 for part in value)


def is_contour(value: Any) -> bool:
    """Whether `value` is an OpenCV contour: an (N, 1, 2) numeric array."""
    return (isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[1:] == (1, 2)
            and value.dtype.kind in "iuf")


def is_contours_with_hierarchy(value: Any) -> bool:
    """Whether `value` is cv2.findContours' (contours, hierarchy) pair."""
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    contours, hierarchy = value
    if not isinstance(contours, (list, tuple)):
        return False
    if hierarchy is None:  # findContours finds nothing: ((), None)
        return len(contours) == 0
    return (isinstance(hierarchy, np.ndarray) and hierarchy.ndim == 3 and hierarchy.shape[-1] == 4
            and (len(contours) == 0 or is_contour(contours[0])))


def is_rle(value: Any) -> bool:
    return isinstance(value, Mapping) and "counts" in value and "size" in value


def from_module(value: Any, prefix: str) -> bool:
    """Whether `value`'s type comes from the package `prefix` (shapely, geopandas)."""
    return type(value).__module__.split(".")[0] == prefix


def is_shapely(value: Any) -> bool:
    """Whether `value` is one shapely geometry (without importing shapely)."""
    return from_module(value, "shapely") and hasattr(value, "geom_type")


def is_geometry_array(value: Any) -> bool:
    """Whether `value` is shapely geometries in bulk: a GeoSeries or GeoDataFrame, or a
    1-D object array or a list/tuple of shapely geometries (or None)."""
    if from_module(value, "geopandas"):
        return True
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 1:
        candidates = value
    elif isinstance(value, (list, tuple)) and len(value) and is_shapely(value[0]):
        # fromiter never looks inside the items (np.array would try to stack same-shape arrays)
        candidates = np.fromiter(value, dtype=object, count=len(value))
    else:
        return False
    if not len(candidates) or not (is_shapely(candidates[0]) or candidates[0] is None):
        return False
    import shapely

    # shapely mixed with other forms is a plain sequence: each member is read on its own
    return bool(shapely.is_valid_input(candidates).all())


def _is_ring(item: Any) -> bool:
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


def layout_of(value: Any, many: bool = False) -> Layout:
    """The layout of `value`: one polygon, or with `many` a collection of polygons."""
    if type(value) is np.ndarray and value.dtype != object and value.ndim == 2 and not many:
        return ARRAY_RING if value.shape[1] == 2 else POINTS  # the common case first
    if many:
        return _collection_layout(value)
    if is_rle(value):
        return Layout.COCO_RLE
    if is_flat(value) and not isinstance(value, np.ndarray):
        return Layout.COCO_FLAT
    if is_contour(value):
        return Layout.CONTOUR
    if is_contours_with_hierarchy(value):
        return Layout.CONTOURS_WITH_HIERARCHY
    if isinstance(value, (list, tuple)) and len(value) > 0 and is_contour(value[0]):
        return Layout.CONTOUR_LIST
    if is_segmentation(value):
        return Layout.COCO_SEGMENTATION
    if type(value) is np.ndarray and value.dtype != object:  # object arrays may hold shapely geometries
        return POINTS
    if is_shapely(value):
        return Layout.SHAPELY
    if is_geometry_array(value):
        return Layout.SHAPELY_ARRAY
    if isinstance(value, Mapping):
        return Layout.GEOJSON
    if getattr(type(value), "__geo_interface__", None) is not None:
        return Layout.GEO_INTERFACE
    if isinstance(value, (list, tuple)) and len(value) > 0 and _is_ring(value[0]):
        return Layout.RING_LIST
    return POINTS


def _collection_layout(value: Any) -> Layout:
    if is_contour(value) and len(value) > 0:
        return Layout.CONTOUR
    if isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[2] == 2:
        return Layout.PADDED if _is_padded(value) else Layout.STACKED_ARRAY
    if is_geometry_array(value):
        return Layout.SHAPELY_ARRAY
    if isinstance(value, Mapping) and value.get("type") == "FeatureCollection":
        return Layout.FEATURE_COLLECTION
    if is_contours_with_hierarchy(value):
        return Layout.CONTOURS_WITH_HIERARCHY
    if (isinstance(value, list) and value and type(value[0]) is np.ndarray
            and all(type(ring) is np.ndarray and ring.ndim == 2 and ring.shape[1] == 2 and ring.dtype.kind in "iuf"
                    for ring in value)):
        return Layout.ARRAY_LIST
    if value is None or isinstance(value, (str, bytes, Mapping, np.ndarray)) or not hasattr(value, "__len__"):
        return Layout.NOT_A_COLLECTION
    return Layout.SEQUENCE


def _is_padded(array: np.ndarray) -> bool:
    """Whether a (P, K, 2) array pads polygons: a masked array, or floats with a row of two NaNs."""
    if array.dtype.kind not in "iuf":
        return False  # refused by the stacked converter, in the same words
    if isinstance(array, np.ma.MaskedArray):
        return True
    if array.dtype.kind != "f" or array.shape[1] == 0:
        return False
    # Padding ends a polygon, so its last row shows it; a NaN row elsewhere is
    # misplaced padding, which the padded converter explains.
    return bool(np.isnan(array[:, -1]).all(axis=1).any() or np.isnan(array).all(axis=2).any())


def collection_layouts(value: Any, name: str = "polygons") -> tuple[Layout, list[Any] | None, list[Layout] | None]:
    """(layout, members, member layouts) of a collection: members and their layouts are
    None unless the collection is a plain sequence (or a FeatureCollection's features)."""
    layout = layout_of(value, True)
    if layout is Layout.SEQUENCE:
        members = value
    elif layout is Layout.FEATURE_COLLECTION:
        members = value.get("features")
        if not isinstance(members, (list, tuple)):
            raise TypeError(f"{name} is a GeoJSON FeatureCollection whose 'features' is not a list, "
                            f"got {_describe(members)}")
    else:
        return layout, None, None
    return layout, members, [layout_of(member) for member in members]


def layout_hint(value: Any) -> str | None:
    """A sentence saying what a refused value looks like and how to pass it, or None."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        if value.ndim == 1 and len(value) % 2 == 0:
            return (f"an array of shape {value.shape} looks like a COCO flat list [x1, y1, x2, y2, ...]: "
                    "pass array.reshape(-1, 2) (or the list itself)")
        if value.ndim == 3 and value.shape[0] == 1 and value.shape[2] == 2:
            return (f"an array of shape {value.shape} looks like a batch of one (N, 2) polygon: "
                    "pass array[0]")
        if value.ndim == 3 and value.shape[-1] == 2:
            return (f"an array of shape {value.shape} looks like {value.shape[0]} polygons stacked: "
                    "pass it to polymask.rasterize, or one polygon as array[k]")
        if value.ndim == 2 and value.shape[0] == 2 and value.shape[1] != 2:
            return (f"an array of shape {value.shape} looks like (x row, y row): pass array.T")
        if value.ndim == 2 and value.shape[0] == 1 and value.shape[1] % 2 == 0:
            return (f"an array of shape {value.shape} looks like one COCO flat list [[x1, y1, ...]]: "
                    "pass array.reshape(-1, 2)")
    if is_segmentation(value, thorough=True):
        return ("that looks like a COCO segmentation whose first part has a single vertex: "
                "pass the parts to polymask.coco.encode, or drop the one-vertex parts")
    if is_rle(value):
        return "that looks like a COCO RLE, not a polygon: decode it with polymask.coco.decode"
    return None

