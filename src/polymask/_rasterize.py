"""Label images: ``polymask.rasterize`` burns many polygons into one image.

Validates in Python (polygons through polymask/_inputs.py, values, dtype,
out and window here), then makes one call into the C++ core
(csrc/include/polymask/rasterize.hpp) for all polygons, with the GIL
released and threads over bands of rows.  Each polygon claims exactly the
pixels of its own ``polymask.mask``; later polygons land over earlier ones.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal, NamedTuple, TypeVar, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from polymask import _inputs, _polygons
from polymask._arguments import as_all_touched, as_fill_rule, as_shape, window_origin
from polymask._describe import short_repr
from polymask._geometries import column_values
from polymask._label_dtypes import label_dtype, label_values, smallest_dtype
from polymask._lines import LineRaster
from polymask._outputs import result_array
from polymask._rasterize_lines import burn_lines, line_parts
from polymask._rasterize_mixed import Target, burn_in_order, mixed_parts
from polymask._rasterize_order import reordered
from polymask._rings import PolygonList
from polymask._shapes import shapes_and_values
from polymask._skipping import skipped_message, valid_polygons
from polymask._threads import as_threads
from polymask.typing import (
    AllTouched,
    DTypeLike,
    FillRule,
    LabelArray,
    PolygonsLike,
    ShapeLike,
    TransformLike,
    WindowLike,
)

_ScalarT = TypeVar("_ScalarT", bound=np.generic)

#: ``merge=``: what a pixel several polygons claim gets (rasterize's docstring).
#: (A Union of Literals, as polymask.typing spells FillRule, so it is one at run time too.)
MergeRule = Union[Literal["last"], Literal["first"], Literal["add"], Literal["min"], Literal["max"], Literal["count"]]


# The result's dtype is out's, else dtype's, else the smallest that holds the values.
@overload
def rasterize(
    polygons: PolygonsLike,
    shape: ShapeLike,
    values: ArrayLike | str | None = None,
    *,
    out: NDArray[_ScalarT],
    dtype: DTypeLike | None = None,
    fill_rule: FillRule = "evenodd",
    window: WindowLike | None = None,
    threads: int | None = None,
    transform: TransformLike | None = None,
    all_touched: AllTouched = False,
    invalid: Literal["raise", "skip"] = "raise",
    merge: MergeRule = "last",
) -> NDArray[_ScalarT]: ...
@overload
def rasterize(
    polygons: PolygonsLike,
    shape: ShapeLike,
    values: ArrayLike | str | None = None,
    *,
    out: None = None,
    dtype: type[_ScalarT] | np.dtype[_ScalarT],
    fill_rule: FillRule = "evenodd",
    window: WindowLike | None = None,
    threads: int | None = None,
    transform: TransformLike | None = None,
    all_touched: AllTouched = False,
    invalid: Literal["raise", "skip"] = "raise",
    merge: MergeRule = "last",
) -> NDArray[_ScalarT]: ...
@overload
def rasterize(
    polygons: PolygonsLike,
    shape: ShapeLike,
    values: ArrayLike | str | None = None,
    *,
    out: None = None,
    dtype: DTypeLike | None = None,
    fill_rule: FillRule = "evenodd",
    window: WindowLike | None = None,
    threads: int | None = None,
    transform: TransformLike | None = None,
    all_touched: AllTouched = False,
    invalid: Literal["raise", "skip"] = "raise",
    merge: MergeRule = "last",
) -> LabelArray: ...
def rasterize(
    polygons: PolygonsLike,
    shape: ShapeLike,
    values: ArrayLike | str | None = None,
    *,
    out: NDArray[Any] | None = None,
    dtype: DTypeLike | None = None,
    fill_rule: FillRule = "evenodd",
    window: WindowLike | None = None,
    threads: int | None = None,
    transform: TransformLike | None = None,
    all_touched: AllTouched = False,
    invalid: Literal["raise", "skip"] = "raise",
    merge: MergeRule = "last",
) -> NDArray[Any]:
    """Burn polygons into a label image, later polygons over earlier ones.

    Parameters
    ----------
    polygons : sequence of polygons
        Each is anything ``polymask.mask`` takes: an (N, 2) array-like of
        (x, y) vertices, a list of rings, a GeoJSON-like mapping or a shapely
        Polygon / MultiPolygon.  A (P, N, 2) NumPy array is P one-ring
        polygons and is read without a Python loop (the fast way to pass
        many); rows of two NaNs (or masked rows of a ``numpy.ma`` array)
        at the end of a polygon are padding.  Many geometries at once, also
        without a Python loop per polygon: a GeoDataFrame (its active
        geometry column), a GeoSeries, a NumPy array or list of shapely
        geometries (Polygon, MultiPolygon, Point, MultiPoint, LineString,
        LinearRing, MultiLineString, GeometryCollection of them; Z and M
        dropped; empty or None burns nothing), or GeoJSON mappings of these
        (points and lines read through shapely).  The parts of a
        MultiPolygon or GeometryCollection are burned one by one with its
        value: their union, as GDAL burns them.  A point burns the cell
        that holds it (a cell holds its lower sides), as GDAL does, under
        any `all_touched`.  A line burns the cells GDAL's line rasterizer
        burns: a Bresenham line between the cells of each segment's ends
        (`all_touched` False), or every cell the line passes through (True
        or "exact"); each line (a MultiLineString's lines together) burns
        a cell once, even for "add".
        rasterio's "shapes" are taken as they are: ``(geometry, value)``
        pairs (``zip(frame.geometry, frame["code"])``), whose values then
        take the place of `values`; an iterator is read once.
    shape : (rows, cols)
        The image shape.
    values : scalar, sequence of P numbers or column name, optional
        The label of each polygon; default 1, 2, ..., P.  A scalar labels
        every polygon alike; with a GeoDataFrame, a string names the
        column that holds the labels.
    out : numpy.ndarray, optional
        A C-contiguous, writable array of one of the label dtypes, with the
        result's shape, to burn into.  Its existing content is the
        background: pixels inside no polygon keep their value, so layers
        can be burned in several calls.  Without `out`, the background is 0.
        After an exception: if the input is refused (TypeError,
        ValueError) `out` is exactly as it was, since every argument is
        checked before the first byte is written; if the fill is
        interrupted (KeyboardInterrupt) or runs out of memory while it
        fills (MemoryError), `out` is partly written: some rows hold the
        result, the others what they held before.
    dtype : numpy dtype, optional
        One of uint8, uint16, int32, uint32, int64, float32, float64.
        Default: out's dtype, else the smallest of uint8, uint16, int32
        (int64 if needed) that holds 0 and every value exactly, or float64
        for values that are not integers.
    fill_rule : {"evenodd", "nonzero"}, optional
        The rule each polygon is filled with, as in ``polymask.mask``.
    window : (row0, col0, height, width), optional
        Burn only that window of the image; equals the same slice of the
        full label image.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
    transform : affine.Affine or six numbers (a, b, c, d, e, f), optional
        Georeferenced cells, as in ``polymask.mask``: pixel (row, col) is
        the cell between T·(col, row) and T·(col+1, row+1), sampled at its
        centre, as ``rasterio.features.rasterize`` has it.
    all_touched : bool or "exact", optional
        False (default): each polygon claims the pixels of its mask.  True
        or "exact": it claims the pixels ``polymask.mask(...,
        all_touched=...)`` gives it (True: the cells it reaches, a border
        within 1e-7 pixel of a cell side taken as on it; "exact": every
        cell it shares positive area with); later polygons still land over
        earlier ones (rasterio's ``all_touched``).
    invalid : {"raise", "skip"}, optional
        "raise" (default): a polygon polymask refuses is an error, and an
        empty one burns nothing.  "skip": polygons that are refused (a
        non-finite vertex, a form polymask does not read) or empty (None,
        an empty geometry) are left out, with their values, and one
        ``UserWarning`` says how many and which, as rasterio skips them.
    merge : {"last", "first", "add", "min", "max", "count"}, optional
        What a pixel that several polygons claim gets: "last" (default,
        rasterio's ``MergeAlg.replace``) the last polygon's value, "first"
        the first's, "min" / "max" the smallest / largest value (NaN values
        only where no number claims the pixel), "add" the background plus
        the sum of the values (rasterio's ``MergeAlg.add``, summed in
        polygon order in the label type), "count" the background plus how
        many polygons claim it (`values` must then be None).  A
        MultiPolygon's parts are burned one by one, as GDAL burns them, so
        with "add" and "count" a pixel in two of its parts counts twice.
        With "add" or "count" and no `dtype` or `out`, the label type is
        the smallest that holds every possible sum; an integer type that
        might not hold one is refused.

    Returns
    -------
    numpy.ndarray
        ``labels[r, c]`` is the value of the last polygon whose mask holds
        pixel (r, c), or the background.  The rule is half-open, so polygons
        that share an edge neither overlap nor leave a gap: a partition of
        the image labels every pixel exactly once.

    Raises
    ------
    TypeError
        If a polygon is of no form polymask reads, or an argument is of the
        wrong type (the message names it and what was expected).
    ValueError
        If a coordinate is not finite, `shape` is not positive, `all_touched` is not
        True, False or "exact", `values` has another length
        than `polygons` or does not fit the label dtype exactly, or `out`
        is not a writable array of the image's shape.
    MemoryError
        If the result cannot be allocated (the message says how much it needs).

    Examples
    --------
    >>> import polymask
    >>> left, right = [(0, 0), (2, 0), (2, 3), (0, 3)], [(2, 0), (4, 0), (4, 3), (2, 3)]
    >>> polymask.rasterize([left, right], (3, 5))
    array([[1, 1, 2, 2, 0],
           [1, 1, 2, 2, 0],
           [1, 1, 2, 2, 0]], dtype=uint8)
    """
    polygons, values = shapes_and_values(polygons, values)  # rasterio's (geometry, value) pairs
    rule_of_merge = as_merge(merge, values)
    requested = label_dtype(dtype, out)
    rows_cols = as_shape(shape)
    touched = as_all_touched(all_touched)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    row0, col0, out_shape = window_origin(window, rows_cols)
    lines = line_parts(polygons, transform, invalid)
    if lines is not None:  # lines alone: their cells burned straight into the image
        labels = label_values(column_values(polygons, values), lines.member_count, requested)[lines.owners]
        order, labels, add = merge_plan(labels, rule_of_merge, requested is None, out)
        result = _label_image(out, out_shape, labels.dtype)
        burn_lines(lines, order, labels, bool(touched), rows_cols, result, (row0, col0), add)
        return result
    mixed = mixed_parts(polygons, values, transform, invalid, requested)
    if mixed is not None:  # lines among polygons: the lines' cells burned straight, in runs of the burn order
        order, labels, add = merge_plan(mixed.labels, rule_of_merge, requested is None, out)
        result = _label_image(out, out_shape, labels.dtype)
        if burn_in_order(
            mixed, order, labels, add, Target(result, (row0, col0), rows_cols, rule, thread_count, touched)
        ):
            return result
    flat, labels = polygons_and_labels(
        polygons, values, transform, requested, invalid, LineRaster(rows_cols, bool(touched))
    )
    flat, labels, add = merged_burn(flat, labels, rule_of_merge, requested is None, out)
    vertices = flat.vertices
    result = _label_image(out, out_shape, labels.dtype)
    # The core writes `result` while it reads labels and vertices: views into `out` would
    # change under it (threads make it a race), so they are snapshotted (a cheap bounds check).
    if np.may_share_memory(labels, result):
        labels = labels.copy()
    if np.may_share_memory(vertices, result):
        vertices = vertices.copy()
    _polygons.rasterize(
        vertices, flat.ring_ends, flat.polygon_ends, labels, result, row0, col0, rule, thread_count, touched, add
    )
    return result


class _Kept(NamedTuple):
    """Which members of the input the polygons are, when invalid="skip" left some out."""

    indices: NDArray[np.intp]
    total: int


def polygons_and_labels(
    polygons: Any,
    values: Any,
    transform: Any,
    dtype: np.dtype[Any] | None,
    invalid: Any = "raise",
    lines: LineRaster | None = None,
) -> tuple[PolygonList, NDArray[Any]]:
    """The polygons of a label image through the funnel and one checked label each (rasterize's reading).

    `values` may name a GeoDataFrame column; `dtype` None chooses the
    smallest type that holds them.  With invalid="skip" the refused and empty
    polygons are left out with their labels, and one warning says which.
    With `lines`, lines become the cells GDAL burns for them in that image.
    """
    values = column_values(polygons, values)  # a GeoDataFrame column named by values=
    flat, kept = _polygons_read(polygons, transform, invalid, lines)
    labels = label_values(values, flat.member_count if kept is None else kept.total, dtype)
    if kept is not None:
        labels = labels[kept.indices]
    if flat.owners is not None:  # a MultiPolygon's parts, burned one by one with its label: their union
        labels = labels[flat.owners]
    return flat, np.ascontiguousarray(labels)


def _polygons_read(
    polygons: Any, transform: Any, invalid: Any, lines: LineRaster | None
) -> tuple[PolygonList, _Kept | None]:
    """The polygons through the funnel; with invalid="skip", the valid ones and which they are (warned once)."""
    if isinstance(invalid, str) and invalid == "raise":
        return _inputs.polygons(polygons, transform, split_parts=True, lines=lines), None
    if not (isinstance(invalid, str) and invalid == "skip"):
        raise ValueError(f'invalid must be "raise" or "skip", got {short_repr(invalid)}')
    flat, kept, skipped = valid_polygons(polygons, transform, split_parts=True, lines=lines)
    total = len(kept) + len(skipped)
    if skipped:
        warnings.warn(skipped_message("rasterize", skipped, total), UserWarning, stacklevel=4)
    return flat, _Kept(kept, total)


#: The merge rules, as merge= names them.
MERGE_RULES = ("last", "first", "add", "min", "max", "count")


def as_merge(merge: Any, values: Any) -> str:
    """`merge` checked: one of MERGE_RULES ("count" takes no values)."""
    if not (isinstance(merge, str) and merge in MERGE_RULES):
        raise ValueError(f"merge must be one of {', '.join(repr(m) for m in MERGE_RULES)}, got {short_repr(merge)}")
    if merge == "count" and values is not None:
        raise ValueError(
            f"merge='count' counts the polygons on each pixel and takes no values, got values="
            f"{short_repr(values)}; pass values=None"
        )
    return merge


def merge_plan(
    labels: NDArray[Any], merge: str, dtype_free: bool, out: NDArray[Any] | None = None
) -> tuple[NDArray[Any] | None, NDArray[Any], bool]:
    """(order, labels, add): polygons burned in `order` (None: as given), later over earlier, give the merge rule.

    "first", "min" and "max" are "last" in another order: reversed, or by
    value (NaN first, so any number lands over it); "add" and "count" add.
    `dtype_free`: the label type was chosen from the values, so "add" and
    "count" take the smallest that holds every sum.
    """
    if merge == "last" or len(labels) == 0 and merge not in ("add", "count"):
        return None, labels, False
    if merge == "first":
        return np.arange(len(labels))[::-1], labels[::-1].copy(), False
    if merge in ("min", "max"):
        ascending = np.argsort(labels, kind="stable")  # NaN last
        unknown = np.isnan(labels[ascending]) if labels.dtype.kind == "f" else np.zeros(len(labels), dtype=bool)
        numbers = ascending[~unknown]
        order = np.concatenate([ascending[unknown], numbers if merge == "max" else numbers[::-1]])
        return order, np.ascontiguousarray(labels[order]), False
    if merge == "count":
        labels = np.ones(len(labels), dtype=labels.dtype)
    return None, _sum_labels(labels, dtype_free, out), True


def _sum_labels(labels: NDArray[Any], dtype_free: bool, out: NDArray[Any] | None) -> NDArray[Any]:
    """Labels to add: in the smallest type that holds every sum (dtype_free), or checked to fit their type."""
    if labels.dtype.kind == "f":
        return labels
    numbers = labels.astype(np.float64)
    high, low = float(numbers[numbers > 0].sum()), float(numbers[numbers < 0].sum())
    if dtype_free:
        # The sums bounded with room for float64's rounding of them, as whole numbers.
        bounds = [np.floor(low * (1 + 1e-9)) - (low < 0), np.ceil(high * (1 + 1e-9)) + (high > 0)]
        chosen = smallest_dtype(np.array(bounds))
        return np.ascontiguousarray(labels, dtype=chosen)
    if out is not None and out.size:
        high, low = high + float(out.max()), low + float(out.min())
    info = np.iinfo(labels.dtype)
    if high > info.max or low < info.min:
        raise ValueError(
            f"merge='add' of these values may reach {low:.17g} to {high:.17g} on a pixel, beyond "
            f"{labels.dtype} ([{info.min}, {info.max}]); pass a wider dtype"
        )
    return labels


def merged_burn(
    flat: PolygonList, labels: NDArray[Any], merge: str, dtype_free: bool, out: NDArray[Any] | None = None
) -> tuple[PolygonList, NDArray[Any], bool]:
    """(polygons, labels, add) whose burn, later over earlier (or added), gives the merge rule (merge_plan)."""
    order, labels, add = merge_plan(labels, merge, dtype_free, out)
    return (flat if order is None else reordered(flat, order)), labels, add


def _label_image(out: Any, shape: tuple[int, int], dtype: np.dtype[Any]) -> NDArray[Any]:
    """A new zeroed label image, or `out` checked to take the burn in place."""
    return result_array(
        out, shape, dtype, zeroed=True, what="label image", hint="burn it in windows, or use polymask.dask.rasterize"
    )
