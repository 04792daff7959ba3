"""Type aliases for annotating code that calls polymask.

The public functions accept many forms of one thing: a polygon may be an
array, a list of rings, GeoJSON, a shapely geometry, a COCO list or an
OpenCV contour.  These names say which forms a parameter takes, and what
each function returns, in terms a type checker understands::

    import numpy as np
    import polymask
    from polymask.typing import MaskArray, PolygonLike

    def field_mask(boundary: PolygonLike) -> MaskArray:
        return polymask.mask(boundary, (512, 512))

They are ordinary ``typing`` objects built on :mod:`numpy.typing`, so they
can be used at run time too (in ``typing.get_type_hints``, for instance).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, SupportsIndex, TypedDict, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

__all__ = [
    "AllTouched", "ArrayLike", "CompressedRLE", "CoverageArray", "DTypeLike", "FillRule", "GeoInterface", "LabelArray",
    "MaskArray", "NDArray", "PolygonLike", "PolygonsLike", "RLE", "RLELike", "ShapeLike", "TransformLike",
    "UncompressedRLE", "WindowLike",
]


class GeoInterface(Protocol):
    """Any object with ``__geo_interface__``: shapely geometries, GeoSeries, GeoDataFrames."""

    @property
    def __geo_interface__(self) -> Mapping[str, object]: ...


#: One polygon: an (N, 2) array-like of (x, y) vertices, a sequence of such
#: rings, COCO's flat list or segmentation, an OpenCV contour (or
#: ``cv2.findContours``' pair), a GeoJSON-like mapping, or any object with
#: ``__geo_interface__`` (a shapely Polygon or MultiPolygon).
PolygonLike = Union[ArrayLike, Sequence[ArrayLike], Mapping[str, object], GeoInterface]

#: Many polygons: a sequence of :data:`PolygonLike`, a (P, N, 2) array, a
#: NumPy array of shapely geometries, a GeoSeries or a GeoDataFrame.
PolygonsLike = Union[ArrayLike, Sequence[PolygonLike], GeoInterface]

#: An image shape ``(rows, cols)``.
ShapeLike = Sequence[SupportsIndex]

#: A window ``(row0, col0, height, width)`` of an image.
WindowLike = Sequence[SupportsIndex]

#: An ``affine.Affine``, or its six numbers ``(a, b, c, d, e, f)``.
TransformLike = Iterable[float]

#: How crossings decide inside: the even-odd rule or the nonzero winding rule.
#: (Spelt as a Union of two Literals so that it is a Union at run time too, as
#: type checkers see it.)
FillRule = Union[Literal["evenodd"], Literal["nonzero"]]

#: ``all_touched``: False (the centre rule), True (cells the region reaches,
#: borders within 1e-7 of a cell side taken as on it) or "exact" (any area).
AllTouched = Union[bool, Literal["exact"]]

#: A boolean mask: ``True`` for the pixels (or points) inside.
MaskArray = NDArray[np.bool_]

#: A label image: the polygons' values burnt in (an integer or float dtype).
LabelArray = NDArray[Union[np.integer[Any], np.floating[Any]]]

#: Fractions of each cell inside a region, in [0, 1].
CoverageArray = NDArray[np.float64]


class CompressedRLE(TypedDict):
    """A COCO run-length encoding with compressed counts (what ``pycocotools.mask.encode`` writes)."""

    #: ``[height, width]`` of the image.
    size: list[int]
    #: The run lengths, in COCO's compressed string form.
    counts: bytes


class UncompressedRLE(TypedDict):
    """A COCO run-length encoding with its run lengths as a list of ints."""

    #: ``[height, width]`` of the image.
    size: list[int]
    #: The run lengths over the pixels in column-major order, starting with a run of 0s.
    counts: list[int]


#: A COCO RLE as polymask writes it.
RLE = Union[CompressedRLE, UncompressedRLE]

#: A COCO RLE as polymask reads it: a mapping with ``"size"`` and ``"counts"``
#: (bytes, str or a list of ints), such as a dict loaded from a COCO JSON file.
RLELike = Mapping[str, object]
