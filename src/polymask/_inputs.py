"""The input funnel: every public entry point reads its polygons here, once.

``polygon`` takes one polygon in any form a user hands in (an (N, 2)
array-like, rings with holes, GeoJSON, shapely, COCO lists and
segmentations, OpenCV contours) and ``polygons`` a collection of them
(lists, (P, N, 2) arrays, shapely arrays, GeoDataFrames, FeatureCollections,
``cv2.findContours``' pair).  Each recognises the layout once
(polymask/_rings.py, which asks polymask/_layouts.py and
polymask/_geometries.py), checks every coordinate (finite numbers), and maps
world coordinates into the contract's sample-point frame when there is a
``transform=`` (polymask/_transform.py).  What comes out is what the core
takes: one flat float64 vertex array, its ring ends (and polygon ends).

A guarantee added here holds for ``mask``, ``masks``, ``rasterize``,
``coverage(s)``, ``contains(_labels)``, ``polymask.dask``,
``polymask.xarray`` and ``polymask.opencl`` alike.
"""
from __future__ import annotations

import numpy as np

from polymask._rings import PolygonList, Rings, as_polygon_list, as_rings, vertex_ranges
from polymask._transform import as_transform, to_sample_frame
from polymask._validation import as_vertices


def polygon(vertices, transform=None, name: str = "vertices", *, unite_parts: bool = False) -> Rings:
    """One polygon as the core's rings, in the sample-point frame.

    `unite_parts`: a COCO segmentation of several parts is their union
    (``Rings.united``), as COCO means it (polymask.mask); elsewhere it is
    refused with a message that says what to pass instead.
    """
    if (type(vertices) is np.ndarray and vertices.dtype != object and vertices.ndim == 2
            and vertices.shape[1] == 2):  # the common case, as cheap as it can be
        rings = Rings(as_vertices(vertices, name), None)
    else:
        rings = as_rings(vertices, name, unite_parts)
    cells = as_transform(transform)
    if cells is not None:  # world coordinates -> the contract's sample-point frame
        rings = Rings(to_sample_frame(rings.vertices, cells, name), rings.ring_ends, rings.united)
    return rings


def polygons(collection, transform=None, name: str = "polygons") -> PolygonList:
    """Many polygons as one flat vertex array with ring and polygon ends, in the sample-point frame."""
    flat = as_polygon_list(collection, name)
    cells = as_transform(transform)
    if cells is not None:
        flat = PolygonList(to_sample_frame(flat.vertices, cells, name, vertex_ranges(flat)[1]),
                           flat.ring_ends, flat.polygon_ends)
    return flat
