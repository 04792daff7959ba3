"""The input funnel: every public entry point reads its polygons here, once.

``polygon`` takes one polygon in any form a user hands in (an (N, 2)
array-like, rings with holes, GeoJSON, shapely, COCO lists and
segmentations, OpenCV contours) and ``polygons`` a collection of them
(lists, (P, N, 2) arrays, shapely arrays, GeoDataFrames, FeatureCollections,
``cv2.findContours``' pair).  Each goes through four steps, visiting each
module once and in this order:

1. recognise: polymask/_layouts.py names the layout, once per input (and
   once per member of a plain sequence of polygons);
2. convert: the one converter of that layout, from a table below
   (polymask/_annotations.py for COCO and OpenCV, _geojson.py,
   _geometries.py for shapely and arrays in bulk, _sequences.py for lists of
   rings), gives ``(ring, label)`` pairs -- or, for the bulk layouts,
   flat arrays it has checked itself in one vectorized pass;
3. check: polymask/_validation.py reads every ring as finite float64 under
   its label (``vertices[2]``, ``polygons[3][1]``) and joins them;
4. map: polymask/_transform.py takes world coordinates into the contract's
   sample-point frame when there is a ``transform=``;

and the result is built last (polymask/_rings.py): what the core takes, one
flat float64 vertex array, its ring ends (and polygon ends).  A refusal may
step back (a layout hint from polymask/_layouts.py; a sequence re-read
member by member, so the first bad member is the one named).

A guarantee added here holds for ``mask``, ``masks``, ``rasterize``,
``coverage(s)``, ``contains(_labels)``, ``polymask.dask``,
``polymask.xarray``, ``polymask.opencl`` and ``polymask.coco`` alike.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polymask import _annotations, _geojson, _geometries, _layouts, _lines, _sequences
from polymask._layouts import Layout, layout_hint
from polymask._rings import PolygonList, Rings
from polymask._transform import as_transform, to_sample_frame
from polymask._validation import (
    as_vertices,
    checked_polygons,
    checked_rings,
    warn_if_crs_without_transform,
    warn_if_not_holes,
)

ARRAY_RING, POINTS, RING_LIST = Layout.ARRAY_RING, Layout.POINTS, Layout.RING_LIST
SHAPELY_ARRAY = Layout.SHAPELY_ARRAY
COCO_SEGMENTATION, CONTOURS_WITH_HIERARCHY = Layout.COCO_SEGMENTATION, Layout.CONTOURS_WITH_HIERARCHY

#: One polygon's converter per layout: (value, name, unite_parts) -> [(ring, label), ...].
#: ARRAY_RING and POINTS need none: the value is the ring.
ONE = {
    Layout.COCO_RLE: _annotations.refuse_rle,
    Layout.COCO_FLAT: _annotations.flat_ring,
    Layout.COCO_SEGMENTATION: _annotations.segmentation_rings,
    Layout.CONTOUR: _annotations.contour_ring,
    Layout.CONTOUR_LIST: _annotations.contour_list_rings,
    Layout.CONTOURS_WITH_HIERARCHY: _annotations.hierarchy_rings,
    Layout.GEOJSON: _geojson.geojson_rings,
    Layout.GEO_INTERFACE: _geojson.interface_rings,
    Layout.SHAPELY: _geometries.shapely_rings,
    Layout.SHAPELY_ARRAY: _geometries.shapely_row_rings,
    Layout.RING_LIST: _sequences.ring_list_rings,
}

#: A collection's converter per layout: (value, name) -> (vertices, ring_ends, polygon_ends),
#: checked.  SEQUENCE and FEATURE_COLLECTION convert each member by ONE;
#: CONTOURS_WITH_HIERARCHY gives polygons of (ring, label) pairs.
MANY = {
    Layout.CONTOUR: _sequences.refuse_contour,
    Layout.STACKED_ARRAY: _geometries.flatten_stacked,
    Layout.PADDED: _geometries.flatten_padded,
    Layout.SHAPELY_ARRAY: _geometries.geometries_of,
    Layout.ARRAY_LIST: _geometries.flatten_array_list,
    Layout.NOT_A_COLLECTION: _sequences.refuse_collection,
}


def polygon(vertices: Any, transform: Any = None, name: str = "vertices", *, unite_parts: bool = False,
            on_pixels: bool = True, fill_rule: Any = "evenodd") -> Rings:
    """One polygon as the core's rings, in the sample-point frame.

    `on_pixels`: as in :func:`polygons` (a one-row GeoDataFrame is a polygon).
    `fill_rule`: the caller's; under "evenodd", a list of rings whose later
    ring is no hole of the first is warned about (under "nonzero" rings
    that run the same way unite, as separate polygons would).

    `unite_parts`: a COCO segmentation of several parts is their union
    (``Rings.united``), as COCO means it (polymask.mask); elsewhere it is
    refused with a message that says what to pass instead.
    """
    layout = _layouts.layout_of(vertices)
    if layout is ARRAY_RING:  # the common case, as cheap as it can be
        points, ring_ends = as_vertices(vertices, name), None
        if transform is None:
            return Rings(points, None)
    elif layout is POINTS:
        points, ring_ends = checked_rings(((vertices, name),), layout_hint)
    else:
        points, ring_ends = checked_rings(ONE[layout](vertices, name, unite_parts))
        if layout is RING_LIST and type(fill_rule) is str and fill_rule == "evenodd":  # or separate polygons?
            warn_if_not_holes(points, ring_ends, name)
        if on_pixels and transform is None:
            warn_if_crs_without_transform(vertices, name)
    cells = as_transform(transform)
    if cells is not None:  # world coordinates -> the contract's sample-point frame
        points = to_sample_frame(points, cells, name)
    return Rings(points, ring_ends, unite_parts and layout is COCO_SEGMENTATION and ring_ends is not None)


def polygons(collection: Any, transform: Any = None, name: str = "polygons", *,
             unite_parts: bool = False, split_parts: bool = False, on_pixels: bool = True,
             lines: _lines.LineRaster | None = None) -> PolygonList:
    """Many polygons as one flat vertex array with ring and polygon ends, in the sample-point frame.

    `on_pixels`: the polygons are placed on an image's pixels (masks, label
    images, coverage), so a GeoDataFrame with a CRS and no `transform` is
    warned about; False where they meet coordinates in their own CRS
    (points, xarray's grids).

    `unite_parts`: a member that is a COCO segmentation of several parts
    keeps its first part in place and its other parts go last, owned by it
    (``PolygonList.part_owners``), for the caller to unite.
    `split_parts`: each polygon part of a MultiPolygon or GeometryCollection
    (shapely, GeoJSON) is a polygon of its own, ``PolygonList.owners`` naming
    its member: their union is the member, as GeoJSON and GDAL mean it; and
    shapely geometries in bulk may hold points, each burning the cell that
    holds it (polymask/_geometries.py, point_cells).
    `lines` (with `split_parts`): the image lines are burned into; each
    LineString, LinearRing and MultiLineString line becomes the rectangles of
    the cells GDAL burns for it (polymask/_lines.py).  GeoJSON members that
    hold points or lines are then read through shapely, as shapely's are.
    """
    layout, members, layouts = _layouts.collection_layouts(collection, name)
    if lines is not None and members is not None and layouts is not None:
        collection, layout = _geojson_points_and_lines(collection, layout, members, layouts, name)
    owners: list[int] = []
    part_of: np.ndarray | None = None
    point_rings = None
    line_world: dict[int, np.ndarray] = {}  # polygon index -> a line's world coordinates
    if split_parts and layout is SHAPELY_ARRAY:
        vertices, ring_ends, polygon_ends, part_of, point_rings = _geometries.flatten_geometry_parts(
            _geometries.geometry_values(collection), name, points=True,
            lines=line_world if lines is not None else None)
    elif members is not None:
        assert layouts is not None  # given with members, one per member
        # Members are converted grouped by layout (Layout's order is the converting
        # modules'), so each converter module is entered once; the result keeps their order.
        raw: list[Any] = [None] * len(members)
        hinted: set[int] = set()
        try:
            for p in sorted(range(len(members)), key=layouts.__getitem__):
                if layouts[p] is ARRAY_RING or layouts[p] is POINTS:
                    raw[p] = ((members[p], f"{name}[{p}]"),)
                    hinted.add(p)
                elif unite_parts and layouts[p] is COCO_SEGMENTATION and len(members[p]) > 1:
                    parts = ONE[COCO_SEGMENTATION](members[p], f"{name}[{p}]", True)  # one ring per part
                    raw[p] = parts[:1]
                    raw.extend([part] for part in parts[1:])
                    owners.extend([p] * (len(parts) - 1))
                else:
                    raw[p] = ONE[layouts[p]](members[p], f"{name}[{p}]", False)
            vertices, ring_ends, polygon_ends = checked_polygons(raw, hinted, layout_hint)
        except Exception:
            _first_refusal(members, layouts, name)  # name the first bad member, as reading in order would
            raise
        if split_parts:
            polygon_ends, part_of = _split_members(polygon_ends, members, layouts)
    elif layout is CONTOURS_WITH_HIERARCHY:  # cv2.findContours' pair: one polygon per outer contour
        vertices, ring_ends, polygon_ends = checked_polygons(_annotations.hierarchy_polygons(collection, name))
    else:
        vertices, ring_ends, polygon_ends = MANY[layout](collection, name)
    if on_pixels and transform is None:
        warn_if_crs_without_transform(collection, name)
    cells = as_transform(transform)
    if cells is not None:
        vertex_ends = np.concatenate(([0], ring_ends)).astype(np.int64)[polygon_ends]
        vertices = to_sample_frame(vertices, cells, name, vertex_ends)
    if point_rings is not None:  # points burn the cell holding them, found in the sample frame
        vertices = _geometries.point_cells(vertices, ring_ends, point_rings)
    if line_world and lines is not None and part_of is not None:  # lines burn GDAL's cells for them
        world = list(line_world.values())
        mapped = _lines.pixel_frame(np.concatenate(world), cells)  # one pass over every line's vertices
        ends = np.cumsum([len(xy) for xy in world])
        pixels = dict(zip(line_world, np.split(mapped, ends[:-1])))
        vertices, ring_ends, polygon_ends, part_of = _lines.burned_lines(
            vertices, ring_ends, polygon_ends, part_of, pixels, lines.shape, lines.all_touched)
    return PolygonList(vertices, ring_ends, polygon_ends, np.asarray(owners, dtype=np.int64) if owners else None,
                       owners=part_of)


def _geojson_points_and_lines(collection: Any, layout: Layout, members: Any, layouts: Any,
                              name: str) -> tuple[Any, Layout]:
    """GeoJSON and ``__geo_interface__`` members as shapely geometries when one holds a point or a line.

    shapely reads points and lines in bulk (polymask/_geometries.py); the
    collection is left as it is when it holds none, or holds a member of
    another form (which the converters then name).
    """
    geometric = (Layout.GEOJSON, Layout.GEO_INTERFACE, Layout.SHAPELY)
    if not all(member_layout in geometric for member_layout in layouts):
        return collection, layout
    # A shapely member mixed with GeoJSON ones is asked too: read one by one, it could not be a line.
    if not any(_geojson.holds_points_or_lines(member) for member in members):
        return collection, layout
    shapes = [member if member_layout is Layout.SHAPELY else _geojson.as_shapely(member, f"{name}[{p}]")
              for p, (member, member_layout) in enumerate(zip(members, layouts))]
    return np.fromiter(shapes, dtype=object, count=len(shapes)), SHAPELY_ARRAY


#: Member layouts whose polygon parts polymask knows apart: a count of rings per part.
PART_RINGS = {
    Layout.GEOJSON: _geojson.geojson_part_rings,
    Layout.GEO_INTERFACE: lambda value: _geojson.geojson_part_rings(_geojson.geo_interface(value)),
    Layout.SHAPELY: _geometries.shapely_part_rings,
}


def _split_members(polygon_ends: Any, members: Any, layouts: Any) -> tuple[Any, Any]:
    """(polygon_ends, owners) with each read member's polygon parts made polygons of their own."""
    ring_counts = np.diff(np.concatenate(([0], polygon_ends))).tolist()
    per_polygon: list[int] = []
    owners: list[int] = []
    for p, (member, layout) in enumerate(zip(members, layouts)):
        counts = PART_RINGS[layout](member) if layout in PART_RINGS else None
        if not counts or len(counts) == 1 or sum(counts) != ring_counts[p]:
            counts = [ring_counts[p]]  # one part (or rings read otherwise): the member as it was
        per_polygon.extend(counts)
        owners.extend([p] * len(counts))
    if len(owners) == len(members):
        return polygon_ends, None
    return np.cumsum(np.asarray(per_polygon, dtype=np.int64)), np.asarray(owners, dtype=np.int64)


def _first_refusal(members: Any, layouts: Any, name: str) -> None:
    """Convert and check the members one by one, raising the first one's error."""
    for p, member in enumerate(members):
        label = f"{name}[{p}]"
        if layouts[p] is ARRAY_RING or layouts[p] is POINTS:
            checked_rings(((member, label),), layout_hint)
        else:
            checked_rings(ONE[layouts[p]](member, label, False))
