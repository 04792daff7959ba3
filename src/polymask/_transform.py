"""Pixel conventions: the contract's sample points, or cells under an affine transform.

polymask's contract samples integer coordinates: pixel (row, col) is the
point (x=col, y=row).  GDAL, rasterio, COCO and most GIS and annotation tools
use *cells* instead: pixel (row, col) is the cell with corners T·(col, row)
and T·(col+1, row+1), sampled at its centre T·(col+½, row+½), where T is an
affine transform in the affine/rasterio order::

    x = a·col + b·row + c
    y = d·col + e·row + f

Both reduce to one rule: map the vertices into the contract's sample-point
frame, ``(col, row) = T⁻¹·(x, y) - (½, ½)``, then apply the contract.  The
contract's exactness promises hold for the mapped coordinates.  The identity
transform is COCO's pixel grid (pixel (0, 0) spans [0, 1] x [0, 1]).

This module owns that mapping, so every function that takes ``transform=``
(mask, masks, rasterize, coverage, polymask.dask, polymask.coco) agrees.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from polymask._describe import describe as _describe


class Transform(NamedTuple):
    """Six affine coefficients in the affine/rasterio order (a, b, c, d, e, f)."""

    a: float
    b: float
    c: float
    d: float
    e: float
    f: float

    @property
    def determinant(self) -> float:
        return self.a * self.e - self.b * self.d


#: Pixel cells with unit sides and the origin at the top-left corner: COCO's grid.
IDENTITY = Transform(1.0, 0.0, 0.0, 0.0, 1.0, 0.0)


def as_transform(transform: Any, name: str = "transform") -> Transform | None:
    """Return `transform` as a validated Transform, or None for None.

    Accepts an ``affine.Affine`` (or anything iterable whose first six
    numbers are a, b, c, d, e, f; an Affine iterates over nine with the
    last row 0, 0, 1) or any six real numbers.  The coefficients must be
    finite and the map invertible.
    """
    if transform is None:
        return None
    if isinstance(transform, Transform):
        coefficients = tuple(transform)
    elif isinstance(transform, (str, bytes, dict)):  # iterable, but never six numbers
        raise TypeError(
            f"{name} must be an affine.Affine or six numbers (a, b, c, d, e, f), got {_describe(transform)}"
        )
    else:
        try:
            coefficients = tuple(float(value) for value in transform)
        except TypeError:
            raise TypeError(
                f"{name} must be an affine.Affine or six numbers (a, b, c, d, e, f), got {_describe(transform)}"
            ) from None
        except ValueError:
            raise ValueError(
                f"{name} must hold real numbers (a, b, c, d, e, f), got {_describe(transform)}"
            ) from None
        if len(coefficients) == 9:  # affine.Affine: the last row must be 0, 0, 1
            if coefficients[6:] != (0.0, 0.0, 1.0):
                raise ValueError(f"{name} is not affine: its last row is {coefficients[6:]}, expected (0, 0, 1)")
            coefficients = coefficients[:6]
        if len(coefficients) != 6:
            raise ValueError(
                f"{name} must have six coefficients (a, b, c, d, e, f), got {len(coefficients)}: {_describe(transform)}"
            )
    if not all(math.isfinite(value) for value in coefficients):
        raise ValueError(f"{name} coefficients must be finite, got {coefficients}")
    result = Transform(*coefficients)
    a, b, _, d, e, _ = coefficients
    if b == 0.0 and d == 0.0:
        # Each axis is mapped on its own ((x - c) / a), so a scale of 1e-200 is
        # fine although a·e underflows to 0: invertible means a and e are not 0.
        invertible = a != 0.0 and e != 0.0
    else:
        invertible = result.determinant != 0.0 and math.isfinite(1.0 / result.determinant)
    if not invertible:
        raise ValueError(f"{name} {coefficients} is not invertible (a·e - b·d = {result.determinant!r})")
    return result


def to_sample_frame(vertices: np.ndarray, transform: Transform, name: str = "vertices",
                    polygon_ends: np.ndarray | None = None) -> np.ndarray:
    """Map (N, 2) world coordinates into the contract's sample-point frame.

    Returns a new C-contiguous float64 array ``T⁻¹·(x, y) - (½, ½)``.  For a
    transform without rotation or shear (b = d = 0) each axis is mapped on
    its own, ``(x - c) / a - ½``, so a grid-aligned vertex lands exactly on
    a half-integer, as GDAL's inverse geotransform does.

    Raises ValueError, naming the vertex and the transform, when a finite
    vertex maps to a non-finite coordinate (a tiny scale sends ±1e300 to
    ±inf): the fills must never see infinities, which would make an empty
    mask of a polygon that covers the image.  `name` is what the caller
    called the vertices; with `polygon_ends` (a polygon list's vertex ends)
    the message names the polygon instead.
    """
    x = vertices[:, 0]
    y = vertices[:, 1]
    a, b, c, d, e, f = transform
    mapped = np.empty(vertices.shape, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, in our words
        if b == 0.0 and d == 0.0:
            mapped[:, 0] = (x - c) / a - 0.5
            mapped[:, 1] = (y - f) / e - 0.5
        else:
            det = transform.determinant
            dx = x - c
            dy = y - f
            mapped[:, 0] = (e * dx - b * dy) / det - 0.5
            mapped[:, 1] = (a * dy - d * dx) / det - 0.5
    finite = np.isfinite(mapped).all(axis=1)
    if not finite.all():
        k = int(np.argmin(finite))
        where = f"{name}[{k}]"
        if polygon_ends is not None:
            where = f"{name}[{int(np.searchsorted(polygon_ends, k, side='right'))}]"
        raise ValueError(
            f"transform={tuple(transform)} maps the vertex ({float(vertices[k, 0])!r}, {float(vertices[k, 1])!r}) "
            f"of {where} to ({float(mapped[k, 0])!r}, {float(mapped[k, 1])!r}) in pixels, which is not finite: "
            "the transform's cells "
            "are too small (or too large) for these coordinates; every vertex must map to finite numbers"
        )
    return mapped
