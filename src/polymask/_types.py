"""Names for the types of the public signatures, for annotations only.

The public functions accept many forms of one thing (a polygon may be an
array, a list of rings, GeoJSON, a shapely geometry, a COCO list or an
OpenCV contour; polymask/_layouts.py recognises them), so some of
these names stand for ``Any``: they say what the argument *is* where the
type system cannot say what it may look like.  Nothing here runs at call
time (the annotating modules use ``from __future__ import annotations``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

#: One polygon, in any form ``polymask.mask`` reads.
PolygonLike = Any
#: Many polygons: a sequence of PolygonLike, a (P, N, 2) array, a shapely
#: array, a GeoSeries or GeoDataFrame.
PolygonsLike = Any
#: An image shape (rows, cols).
Shape = Sequence[int]
#: A window (row0, col0, height, width) of an image.
Window = Sequence[int]
#: An affine.Affine, or its six numbers (a, b, c, d, e, f).
TransformLike = Any
#: How crossings decide inside.
FillRule = Literal["evenodd", "nonzero"]
#: dtype arguments: anything numpy.dtype() takes.
DTypeLike = Any
