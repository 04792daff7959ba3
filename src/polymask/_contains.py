"""Points: ``polymask.contains`` and ``polymask.contains_labels``.

The mask contract is a predicate on points; a mask asks it at the grid's
points (x=c, y=r).  These functions ask it at any points -- stations,
catalogue sources, the cells of a curvilinear grid -- with the same
operands, so a point gets exactly the answer a mask pixel at the same
(x, y) gets.  Polygons come through polymask/_inputs.py; x and y are
validated here, then one call into the C++ core (csrc/include/polymask/
points.hpp) answers every point with the GIL released, on threads, each
query testing only the edges near its row.
"""
from __future__ import annotations

from typing import Any, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from polymask import _inputs, _points
from polymask._arguments import as_fill_rule
from polymask._describe import describe as _describe
from polymask._label_dtypes import label_dtype, label_values
from polymask._outputs import result_array
from polymask._rings import Rings
from polymask._threads import as_threads
from polymask.typing import DTypeLike, FillRule, LabelArray, MaskArray, PolygonLike, PolygonsLike

_ScalarT = TypeVar("_ScalarT", bound=np.generic)


def contains(polygon: PolygonLike, x: ArrayLike, y: ArrayLike, *, fill_rule: FillRule = "evenodd",
             threads: int | None = None) -> MaskArray:
    """Return which of the points (x, y) lie inside a polygon, by the mask contract.

    Parameters
    ----------
    polygon : polygon
        Anything ``polymask.mask`` takes: an (N, 2) array-like of (x, y)
        vertices, a list of rings (holes, parts), GeoJSON, a shapely
        geometry, COCO or OpenCV forms.
    x, y : array_like of real numbers
        The points' coordinates, in the polygon's units; any shapes that
        broadcast together (e.g. a column of y and a row of x).  Finite, or
        NaN for a missing coordinate: such a point is in no polygon (False),
        as shapely's ``contains_xy`` answers.
    fill_rule : {"evenodd", "nonzero"}, optional
        As for ``polymask.mask``.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).

    Returns
    -------
    numpy.ndarray of bool
        Of the broadcast shape of x and y: True where the point is inside
        under the contract's crossing rule, evaluated exactly as a mask
        pixel at (x, y) is.  The rule is half-open: a point on a left or
        lower edge (smaller x, smaller y) is in, on a right or upper edge
        out, so polygons that share an edge never both claim a point.

    Raises
    ------
    TypeError, ValueError
        For a polygon ``polymask.mask`` refuses, coordinates that are not
        real numbers, infinite or that do not broadcast together, or a bad
        `fill_rule` or `threads`.

    Notes
    -----
    A row of x (shape (W,) or (1, W)) with a column of y (shape (H, 1)) is
    a rectilinear grid of any spacing (Gaussian latitudes, stretched axes):
    it is filled row by row, each row's edge crossings computed once, with
    the same answer at every point.

    Examples
    --------
    >>> import polymask
    >>> square = [(0, 0), (2, 0), (2, 2), (0, 2)]
    >>> polymask.contains(square, [0, 1, 2, 1, 1], [1, 1, 1, 0, 2])
    array([ True,  True, False,  True, False])

    At the grid's points it is ``polymask.mask``:

    >>> import numpy as np
    >>> rows, cols = np.mgrid[0:3, 0:4]
    >>> bool((polymask.contains(square, cols, rows) == polymask.mask(square, (3, 4))).all())
    True
    """
    rings = _inputs.polygon(polygon, name="polygon", on_pixels=False, fill_rule=fill_rule)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    x_array, y_array = _coordinates(x, "x"), _coordinates(y, "y")
    if _is_grid(x_array, y_array):  # a row of x and a column of y: the rectilinear fill
        return _contains_grid(rings, x_array.reshape(-1), y_array.reshape(-1), rule, thread_count)
    x_flat, y_flat, shape = _points_of(x_array, y_array)
    inside = result_array(None, shape, bool, what="answer of contains", hint=_POINTS_HINT)
    known = _known_points(x_flat, y_flat)
    flat = inside.reshape(-1)
    if known is not None:  # points with a NaN coordinate are in no polygon: only the others are asked
        flat[:] = False
        x_flat, y_flat = np.ascontiguousarray(x_flat[known]), np.ascontiguousarray(y_flat[known])
        answer = np.empty(len(x_flat), dtype=bool)
    else:
        answer = flat
    _points.contains(rings.vertices, x_flat, y_flat, answer.view(np.uint8), rule, thread_count,
                     rings.ring_ends)
    if known is not None:
        flat[known] = answer
    return inside


# The labels' dtype is dtype's, else the smallest that holds the values.
@overload
def contains_labels(polygons: PolygonsLike, x: ArrayLike, y: ArrayLike, values: ArrayLike | None = None, *,
                    fill_rule: FillRule = "evenodd", dtype: type[_ScalarT] | np.dtype[_ScalarT],
                    threads: int | None = None) -> NDArray[_ScalarT]: ...
@overload
def contains_labels(polygons: PolygonsLike, x: ArrayLike, y: ArrayLike, values: ArrayLike | None = None, *,
                    fill_rule: FillRule = "evenodd", dtype: DTypeLike | None = None,
                    threads: int | None = None) -> LabelArray: ...
def contains_labels(polygons: PolygonsLike, x: ArrayLike, y: ArrayLike, values: ArrayLike | None = None, *,
                    fill_rule: FillRule = "evenodd", dtype: DTypeLike | None = None,
                    threads: int | None = None) -> NDArray[Any]:
    """Label each point (x, y) with the polygon holding it: ``rasterize`` for points.

    Parameters
    ----------
    polygons : sequence of polygons
        Anything ``polymask.rasterize`` takes.
    x, y : array_like of real numbers
        The points, any shapes that broadcast together; finite, or NaN for
        a missing coordinate (such a point is in no polygon: the background).
    values : scalar or sequence of P numbers, optional
        The label of each polygon; by default 1, 2, ..., P.  0 is the
        background.
    fill_rule : {"evenodd", "nonzero"}, optional
        As for ``polymask.mask``.
    dtype : numpy dtype, optional
        The labels' type; by default the smallest of uint8, uint16, int32,
        int64 that holds every value (float64 for non-integers).
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).

    Returns
    -------
    numpy.ndarray
        Of the broadcast shape of x and y: the value of the last polygon
        that contains the point (later polygons over earlier ones, as in
        ``rasterize``), or 0.  Each polygon claims exactly the points
        ``polymask.contains`` gives it.

    Raises
    ------
    TypeError, ValueError
        For a polygon :func:`polymask.masks` refuses, coordinates that are not
        real numbers, infinite or that do not broadcast together, `values`
        of another length than `polygons`, or a bad `fill_rule` or `threads`.

    Notes
    -----
    The polygons are indexed once by their bounding boxes, so each point
    tests only the polygons whose box holds it.  A row of x with a column of
    y is a rectilinear grid: each row paints the spans of the polygons it
    crosses, later ones over earlier ones, and besides the result only a
    small buffer is allocated.

    Examples
    --------
    >>> import polymask
    >>> left, right = [(0, 0), (2, 0), (2, 3), (0, 3)], [(2, 0), (4, 0), (4, 3), (2, 3)]
    >>> polymask.contains_labels([left, right], [0.5, 2, 3.5, 4], 1)
    array([1, 2, 2, 0], dtype=uint8)
    """
    flat = _inputs.polygons(polygons, split_parts=True, on_pixels=False)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    labels = label_values(values, flat.member_count, label_dtype(dtype, None))
    if flat.owners is not None:  # a MultiPolygon's parts, each labelled as it: their union
        labels = labels[flat.owners]
    table = np.concatenate([np.zeros(1, dtype=labels.dtype), labels])  # polygon number -> label
    x_array, y_array = _coordinates(x, "x"), _coordinates(y, "y")
    grid = _is_grid(x_array, y_array)
    if not grid:
        x_flat, y_flat, shape = _points_of(x_array, y_array)
    index = _points.PolygonLabels(flat.vertices, flat.ring_ends, flat.polygon_ends)
    if grid:  # a row of x and a column of y: each row's spans painted, polygon by polygon
        return _labels_grid(index, table, x_array.reshape(-1), y_array.reshape(-1), rule, thread_count)
    labelled = result_array(None, (x_flat.size,), table.dtype, what="labels", hint=_POINTS_HINT)
    known = _known_points(x_flat, y_flat)
    if known is not None:  # points with a NaN coordinate are in no polygon: the background
        labelled[:] = table[0]
        x_flat, y_flat = np.ascontiguousarray(x_flat[known]), np.ascontiguousarray(y_flat[known])
        answer = np.empty(len(x_flat), dtype=table.dtype)
    else:
        answer = labelled
    # By blocks: the polygon numbers take 8 bytes a point, the labels maybe 1.
    for begin in range(0, x_flat.size, _BLOCK):
        end = min(x_flat.size, begin + _BLOCK)
        which = np.empty(end - begin, dtype=np.int64)
        index.which(x_flat[begin:end], y_flat[begin:end], which, rule, thread_count)
        np.take(table, which, out=answer[begin:end])
    if known is not None:
        labelled[known] = answer
    return labelled.reshape(shape)


#: Points (or grid cells) labelled per call into the core: their polygon
#: numbers are a small buffer beside the result.
_BLOCK = 1 << 20

#: The way out named when the answer for all the points does not fit in memory.
_POINTS_HINT = "ask for the points in parts"


def _is_grid(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether x is a row (W,) or (1, W) and y a column (H, 1): the points of a rectilinear grid."""
    return x.ndim in (1, 2) and x.shape[:-1] in ((), (1,)) and y.ndim == 2 and y.shape[1] == 1


def _contains_grid(rings: Rings, x: np.ndarray, y: np.ndarray, rule: int, threads: int) -> np.ndarray:
    """contains on the grid of columns x and rows y, by rows: the same answer at every point."""
    inside = result_array(None, (len(y), len(x)), bool, what="answer of contains", hint=_POINTS_HINT)
    x_known, y_known = ~np.isnan(x), ~np.isnan(y)
    if not (x_known.all() and y_known.all()):  # a NaN column or row is in no polygon
        inside[:] = False
        inside[np.ix_(y_known, x_known)] = _contains_grid(rings, x[x_known], y[y_known], rule, threads)
        return inside
    order = np.argsort(x, kind="stable")
    ascending = bool(np.all(order == np.arange(len(x))))
    x_sorted = np.ascontiguousarray(x if ascending else x[order], dtype=np.float64)
    filled = inside if ascending else np.empty_like(inside)
    _points.contains_grid(rings.vertices, x_sorted, np.ascontiguousarray(y, dtype=np.float64),
                          filled.view(np.uint8), rule, threads, rings.ring_ends)
    if not ascending:
        inside[:, order] = filled
    return inside


def _labels_grid(index: Any, table: np.ndarray, x: np.ndarray, y: np.ndarray, rule: int, threads: int) -> np.ndarray:
    """contains_labels on the grid of columns x and rows y, by blocks of rows: memory near the result."""
    labelled = result_array(None, (len(y), len(x)), table.dtype, what="labels", hint=_POINTS_HINT)
    x_known, y_known = ~np.isnan(x), ~np.isnan(y)
    if not (x_known.all() and y_known.all()):  # a NaN column or row is in no polygon: the background
        labelled[:] = table[0]
        labelled[np.ix_(y_known, x_known)] = _labels_grid(index, table, x[x_known], y[y_known], rule, threads)
        return labelled
    order = np.argsort(x, kind="stable")
    ascending = bool(np.all(order == np.arange(len(x))))
    x_sorted = np.ascontiguousarray(x if ascending else x[order], dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    rows = max(1, _BLOCK // max(1, len(x)))
    for begin in range(0, len(y), rows):
        end = min(len(y), begin + rows)
        which = np.empty((end - begin, len(x)), dtype=np.int64)
        index.which_grid(x_sorted, y[begin:end], which, rule, threads)
        if ascending:
            np.take(table, which, out=labelled[begin:end])
        else:
            labelled[begin:end, order] = table[which]
    return labelled


def _points_of(x_array: np.ndarray, y_array: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Checked x and y broadcast together, as flat contiguous float64 arrays, and their shape."""
    try:
        shape = np.broadcast_shapes(x_array.shape, y_array.shape)
    except ValueError:
        raise ValueError(f"x and y must broadcast to one shape, got shapes {x_array.shape} and "
                         f"{y_array.shape}") from None
    if x_array.shape != shape:
        x_array = np.broadcast_to(x_array, shape)
    if y_array.shape != shape:
        y_array = np.broadcast_to(y_array, shape)
    return (np.ascontiguousarray(x_array, dtype=np.float64).reshape(-1),
            np.ascontiguousarray(y_array, dtype=np.float64).reshape(-1), shape)


def _coordinates(values: Any, name: str) -> np.ndarray:
    """`values` as a float64 array of real numbers, finite or NaN, or TypeError / ValueError naming `name`."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be real numbers, got {_describe(values)}")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be an array of real numbers: {error}") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64, copy=False)
    infinite = np.isinf(array)  # NaN is a point with a missing coordinate: allowed, and in no polygon
    if infinite.any():
        index = np.unravel_index(int(np.argmax(infinite)), array.shape)
        where = f"[{', '.join(map(str, index))}]" if array.ndim else ""
        raise ValueError(f"{name}{where} = {array[index].item()!r} is not finite; every coordinate must be "
                         "a finite number, or NaN for a missing one")
    return array


def _known_points(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Which points have both coordinates (not NaN), or None when all do."""
    known = ~(np.isnan(x) | np.isnan(y))
    return None if known.all() else known
