"""rasterio's "shapes" read as polymask's polygons and values.

``rasterio.features.rasterize(shapes, ...)`` takes an iterable of geometries
or of ``(geometry, value)`` pairs, most often ``zip(frame.geometry,
frame["code"])``.  polymask's `rasterize` takes the polygons and their values
as two arguments, so swapping one call for the other would mean rewriting
each call site.  This module lets `rasterize` (eager and Dask) take rasterio's
form as it is: an iterator is read once into a list, and a list of pairs is
split into the geometries and their values before anything else reads them.

A pair is recognised only when its first item is a geometry object (shapely,
anything with ``__geo_interface__``, or a GeoJSON-like mapping with a
"type"), so a two-vertex ring ``[(x0, y0), (x1, y1)]`` is never taken for one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from numbers import Real
from typing import Any

import numpy as np

from polymask._describe import short_repr


def shapes_and_values(polygons: Any, values: Any) -> tuple[Any, Any]:
    """`polygons` and `values` with rasterio's (geometry, value) pairs split apart.

    An iterator (``zip``, a generator) becomes a list, read once.  Any other
    input is returned unchanged for the funnel to read.
    """
    if isinstance(polygons, Iterator):
        polygons = list(polygons)
    if not isinstance(polygons, (list, tuple)) or not polygons or not _is_pair(polygons[0]):
        return polygons, values
    if values is not None:
        raise ValueError(
            "polygons holds (geometry, value) pairs and values= is given too; pass the values one "
            f"way: pairs, or geometries and values= (got values={short_repr(values)})"
        )
    for index, item in enumerate(polygons):
        if not _is_pair(item):
            raise TypeError(
                f"polygons[0] is a (geometry, value) pair, so every item must be one; "
                f"polygons[{index}] is {short_repr(item)}"
            )
    geometries = [geometry for geometry, _ in polygons]
    return geometries, np.array([value for _, value in polygons])


def _is_pair(item: Any) -> bool:
    """Whether `item` is (geometry, number), as rasterio's shapes pairs are."""
    return (
        isinstance(item, (tuple, list))
        and len(item) == 2
        and _is_geometry(item[0])
        and isinstance(item[1], (Real, np.number))
    )


def _is_geometry(value: Any) -> bool:
    """A geometry object: shapely or any ``__geo_interface__`` holder, or a GeoJSON-like mapping."""
    if hasattr(value, "__geo_interface__"):
        return True
    return isinstance(value, Mapping) and isinstance(value.get("type"), str)
