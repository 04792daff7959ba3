"""Exact coverage fractions: ``polymask.coverage``, ``polymask.coverages`` and all_touched.

A mask says in or out; the coverage of a pixel says how much of its *cell*
lies inside the filled region: the unit square centred on the contract's
sample point (x=col, y=row), or with ``transform=`` the cell between
T·(col, row) and T·(col+1, row+1) (an affine map keeps area ratios, so the
vertices are mapped into the sample frame and the unit square is used).

The sweep lives in C++ (csrc/src/coverage.cpp, bound by
polymask/_coverage_sweep.pyx); this module validates, maps and allocates.  The
same sweep answers ``all_touched="exact"``: a pixel is in iff its cell shares
positive area with the region, i.e. ``coverage > 0``.
"""
from __future__ import annotations

from typing import Any, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from polymask import _coverage_sweep as _sweep
from polymask import _inputs
from polymask._arguments import as_fill_rule, as_shape, window_origin
from polymask._bounds import polygon_bounds
from polymask._masks import Crop
from polymask._outputs import output_dtype, result_array
from polymask._rings import PolygonList
from polymask._threads import as_threads
from polymask.typing import (
    CoverageArray,
    DTypeLike,
    FillRule,
    PolygonLike,
    PolygonsLike,
    ShapeLike,
    TransformLike,
    WindowLike,
)

_ScalarT = TypeVar("_ScalarT", bound=np.generic)

#: Output types of the coverage sweep: fractions in float64 or float32, or
#: an anti-aliased uint8 image (round(255 * fraction), halves up).
COVERAGE_DTYPES = tuple(np.dtype(t) for t in (np.float64, np.float32, np.uint8))


# float64 fractions, unless out or dtype picks float32 or uint8 (anti-aliased).
@overload
def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", window: WindowLike | None = None, out: NDArray[_ScalarT],
             dtype: DTypeLike | None = None, threads: int | None = None) -> NDArray[_ScalarT]: ...
@overload
def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", window: WindowLike | None = None, out: None = None,
             dtype: type[_ScalarT] | np.dtype[_ScalarT], threads: int | None = None) -> NDArray[_ScalarT]: ...
@overload
def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", window: WindowLike | None = None, out: None = None,
             dtype: None = None, threads: int | None = None) -> CoverageArray: ...
@overload
def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", window: WindowLike | None = None, out: None = None,
             dtype: DTypeLike | None = None,
             threads: int | None = None) -> NDArray[np.float64 | np.float32 | np.uint8]: ...
def coverage(polygon: PolygonLike, shape: ShapeLike, *, transform: TransformLike | None = None,
             fill_rule: FillRule = "evenodd", window: WindowLike | None = None, out: NDArray[Any] | None = None,
             dtype: DTypeLike | None = None, threads: int | None = None) -> NDArray[Any]:
    """Return the fraction of each pixel's cell that lies inside a polygon.

    Parameters
    ----------
    polygon : polygon
        Anything ``polymask.mask`` takes: an (N, 2) array of (x, y) vertices,
        a list of rings (holes, parts), a GeoJSON-like mapping or a shapely
        (Multi)Polygon.
    shape : (rows, cols)
        The image shape.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Without it, pixel (row, col) is the unit square centred on the point
        (x=col, y=row): [col - ½, col + ½] x [row - ½, row + ½].  With it,
        pixel (row, col) is the cell with corners T·(col, row) and
        T·(col+1, row+1), as in GDAL and rasterio (rotation and shear too).
    fill_rule : {"evenodd", "nonzero"}, optional
        Which part of a self-intersecting or multi-ring polygon is inside,
        as in ``polymask.mask``.
    window : (row0, col0, height, width), optional
        Compute only that window; equals the same slice of the full result.
    out : numpy.ndarray, optional
        A C-contiguous, writable float64, float32 or uint8 array of the
        result's shape to fill and return.
        After an exception: if the input is refused (TypeError,
        ValueError) `out` is exactly as it was, since every argument is
        checked before the first byte is written; if the fill is
        interrupted (KeyboardInterrupt) or runs out of memory while it
        fills (MemoryError), `out` is partly written: some rows hold the
        result, the others what they held before.
    dtype : {float64, float32, uint8}, optional
        float64 (default, or out's dtype) or float32: the fraction in
        [0, 1].  uint8: an anti-aliased mask, ``floor(255 * fraction + ½)``
        (round half up), so a fully covered pixel is 255 and a missed one 0;
        pixels covered by less than 1/510 become 0.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).

    Returns
    -------
    numpy.ndarray
        ``fractions[r, c]``: area of the cell inside the region divided by
        the cell's area.  Cells no edge passes through are exactly 0.0 or
        1.0; the others are within 1e-10 of the exact rational area for
        coordinates within ±2^20 pixels (float64 output).  ``fractions > 0``
        equals ``polymask.mask(..., all_touched="exact")``.

    Raises
    ------
    TypeError
        If a polygon is of no form polymask reads, an argument is of the
        wrong type (the message names it and what was expected), `dtype` is
        not float64, float32 or uint8, or `out`'s dtype is none of those.
    ValueError
        If a coordinate is not finite, `shape` is not positive, or `out` is
        not a writable C-contiguous array of the result's shape.
    MemoryError
        If the result cannot be allocated (the message says how much it needs).

    Examples
    --------
    >>> import polymask
    >>> polymask.coverage([(0, 0), (2, 0), (2, 2), (0, 2)], (3, 3))
    array([[0.25, 0.5 , 0.25],
           [0.5 , 1.  , 0.5 ],
           [0.25, 0.5 , 0.25]])
    """
    rings = _inputs.polygon(polygon, transform, "polygon", fill_rule=fill_rule)
    coordinates, ring_ends = rings.vertices, rings.ring_ends
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    row0, col0, out_shape = window_origin(window, rows_cols)
    chosen = coverage_dtype(dtype, out)
    if out is None:  # allocated as a new mask is: see _coverage_sweep.new_coverage
        return _sweep.new_coverage(coordinates, ring_ends, row0, col0, *out_shape, chosen, rule, thread_count,
                                   _RASTER, _RASTER_HINT)
    result = _fraction_buffer(out, out_shape, chosen)
    _sweep.coverage(coordinates, result, row0, col0, rule, thread_count, ring_ends, False)
    return result


def coverages(polygons: PolygonsLike, shape: ShapeLike, *, transform: TransformLike | None = None,
              fill_rule: FillRule = "evenodd", dtype: DTypeLike | None = None,
              threads: int | None = None) -> list[Crop]:
    """Coverage of many regions, each cropped to the cells it can reach.

    For zonal statistics over many regions without a (P, rows, cols) stack:
    returns one ``polymask.Crop(fractions, row0, col0)`` per polygon, the
    same crop type as ``polymask.masks(..., crop=True)``, where `fractions`
    (the crop's ``mask`` field) is ``polymask.coverage(polygon, shape,
    window=(row0, col0, h, w))`` over the polygon's bounding box clipped to
    the image (an empty (0, 0) array at (0, 0) when it misses the image);
    ``image[crop.slices]`` is the image under the crop.  All crops are filled in one core call,
    threads across polygons, and are views of one shared buffer (``.copy()``
    the few you keep if the rest should be freed).  The weighted zonal mean
    of an image is then::

        for crop in polymask.coverages(regions, image.shape):
            mean = (crop.mask * image[crop.slices]).sum() / crop.mask.sum()

    Parameters
    ----------
    polygons : sequence of polygons
        As in :func:`polymask.masks`.
    shape : (rows, cols)
        The image shape; both at least 1.
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        As in :func:`polymask.mask`.
    fill_rule : {"evenodd", "nonzero"}, optional
        As in :func:`polymask.coverage`.
    dtype : {numpy.float64, numpy.float32, numpy.uint8}, optional
        The fractions' type (default float64), or uint8 for anti-aliased
        crops, as in :func:`polymask.coverage`.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Threads go across polygons.

    Returns
    -------
    list of Crop
        One ``Crop(fractions, row0, col0)`` per polygon, in order.

    Raises
    ------
    TypeError
        If a polygon is of no form polymask reads, an argument is of the
        wrong type (the message names it and what was expected), or `dtype`
        is not float64, float32 or uint8.
    ValueError
        If a coordinate is not finite or `shape` is not positive.
    MemoryError
        If the result cannot be allocated (the message says how much it needs).

    Examples
    --------
    >>> import numpy as np, polymask
    >>> image = np.arange(16.0).reshape(4, 4)
    >>> crop = polymask.coverages([[(0, 0), (2, 0), (2, 2), (0, 2)]], image.shape)[0]
    >>> float(crop.mask.sum())
    4.0
    >>> float((crop.mask * image[crop.slices]).sum() / crop.mask.sum())
    5.0
    """
    flat = _inputs.polygons(polygons, transform)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    chosen = coverage_dtype(dtype, None)
    vertices = flat.vertices
    # Every crop in one buffer, filled by one core call (threads across
    # polygons): a loop over 10,000 regions in Python cost as much again as
    # their sweeps.  Each crop is a view of that buffer.
    boxes = _reaches(vertices, flat, rows_cols)
    areas = boxes[:, 2] * boxes[:, 3]
    # Summed in Python integers: crops of a huge image overflow int64.
    buffer = result_array(None, (sum(areas.tolist()),), chosen, zeroed=True, what="buffer of coverage crops",
                          hint="use fewer or smaller polygons per call, or polymask.coverage with window=")
    offsets = np.zeros(len(boxes), dtype=np.int64)
    np.cumsum(areas[:-1], out=offsets[1:])
    _sweep.coverage_crops(vertices, flat.ring_ends, flat.polygon_ends, boxes, offsets, buffer, rule, thread_count)
    return [Crop(buffer[offset:offset + height * width].reshape(height, width), row0, col0)
            for (row0, col0, height, width), offset in zip(boxes.tolist(), offsets.tolist())]


def _reaches(vertices: NDArray[Any], flat: PolygonList, end: tuple[int, int]) -> NDArray[Any]:
    """(P, 4) int64 rows of (row0, col0, height, width): the cells each polygon's bounding box meets.

    Clipped to the image of shape `end`; (0, 0, 0, 0) for a polygon without
    vertices or one that misses the image.
    """
    count = len(flat.polygon_ends)
    boxes = np.zeros((count, 4), dtype=np.int64)
    present, low, high = polygon_bounds(vertices, flat)
    if not present.any():
        return boxes
    finite = np.isfinite(low).all(axis=1) & np.isfinite(high).all(axis=1)
    if not finite.all():
        polygon = int(np.flatnonzero(present)[np.argmin(finite)])
        raise ValueError(f"polygons[{polygon}] has a vertex that is not finite once mapped by the transform; "
                         "every coordinate must map to a finite number")
    # Cell c meets (low, high) in positive area iff c - ½ < high and c + ½ >
    # low; one cell of margin each way costs nothing and guards the float
    # ends.  Clipped in float first, so far coordinates never overflow int64.
    rows, cols = end
    col_first = np.clip(np.floor(low[:, 0] - 0.5), 0, cols).astype(np.int64)
    col_end = np.clip(np.ceil(high[:, 0] + 0.5) + 1, 0, cols).astype(np.int64)
    row_first = np.clip(np.floor(low[:, 1] - 0.5), 0, rows).astype(np.int64)
    row_end = np.clip(np.ceil(high[:, 1] + 0.5) + 1, 0, rows).astype(np.int64)
    meets = (col_end > col_first) & (row_end > row_first)
    found = np.flatnonzero(present)[meets]
    boxes[found] = np.column_stack([row_first, col_first, row_end - row_first, col_end - col_first])[meets]
    return boxes


def coverage_dtype(dtype: Any, out: Any) -> np.dtype[Any]:
    chosen = output_dtype(dtype, out, COVERAGE_DTYPES, "float64, float32 or uint8", "dtype float64, float32 or uint8")
    return np.dtype(np.float64) if chosen is None else chosen


_RASTER, _RASTER_HINT = "coverage raster", "compute it in windows, or use polymask.dask.coverage"


def _fraction_buffer(out: Any, shape: tuple[int, int], dtype: np.dtype[Any]) -> NDArray[Any]:
    return result_array(out, shape, dtype, zeroed=True, what=_RASTER, hint=_RASTER_HINT,
                        out_kinds=" of float64, float32 or uint8")
