"""Many instance masks in one call: ``polymask.masks``.

Instance segmentation (COCO, detectors, microscopy) wants one mask per
object, and objects are small.  Calling ``polymask.mask`` per object pays the
Python checks and a fresh full-size array each time; ``masks`` validates the
whole list once (polymask/_inputs.py), then makes one call into the C++ core
(csrc/include/polymask/masks.hpp) that fills every instance with threads
across instances.  Each mask equals ``polymask.mask`` of that polygon, bit
for bit: same sweep, same rule.

Two outputs: a dense (N, H, W) stack, or with ``crop=True`` each instance's
bounding-box crop and where it sits, which is what instance-segmentation
code stores (a crop of a 40-pixel object in a 640x480 image is 40 bytes,
not 300 KB).
"""
from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from polymask import _inputs, _points, _polygons
from polymask._arguments import as_fill_rule, as_shape
from polymask._bounds import polygon_bounds
from polymask._describe import describe as _describe
from polymask._outputs import result_array
from polymask._rings import PolygonList, vertex_ranges
from polymask._threads import as_threads
from polymask.typing import FillRule, MaskArray, PolygonsLike, ShapeLike, TransformLike

_ScalarT = TypeVar("_ScalarT", bound=np.generic)


class Crop(NamedTuple):
    """One instance's mask cropped to the smallest box that holds its pixels.

    ``mask`` is a (height, width) bool array whose pixel (r, c) is the image
    pixel (row0 + r, col0 + c); ``image_mask[crop.slices] == crop.mask``.
    An instance with no pixel in the image has a (0, 0) mask at (0, 0).
    Unpacks as ``mask, row0, col0``.  :func:`polymask.coverages` returns the
    same type, with the fractions of the cells in the box as ``mask``.

    Parameters
    ----------
    mask : numpy.ndarray
        The instance's pixels in its box, (height, width).
    row0 : int
        The image row of the box's first row.
    col0 : int
        The image column of the box's first column.

    Examples
    --------
    >>> import polymask
    >>> crop = polymask.masks([[(1, 1), (3, 1), (3, 3), (1, 3)]], (4, 4), crop=True)[0]
    >>> crop.mask.shape, crop.row0, crop.col0
    ((2, 2), 1, 1)
    >>> image_mask = polymask.mask([(1, 1), (3, 1), (3, 3), (1, 3)], (4, 4))
    >>> bool((image_mask[crop.slices] == crop.mask).all())
    True
    """

    #: The instance's pixels in its box, a (height, width) bool array (coverages: its fractions).
    mask: NDArray[Any]
    #: The image row of the box's first row.
    row0: int
    #: The image column of the box's first column.
    col0: int

    @property
    def slices(self) -> tuple[slice, slice]:
        """Where the crop sits in the image: ``image[crop.slices]``.

        Returns
        -------
        tuple of slice
            The rows and the columns of the box.

        Examples
        --------
        >>> import polymask
        >>> polymask.masks([[(1, 1), (3, 1), (3, 3), (1, 3)]], (4, 4), crop=True)[0].slices
        (slice(1, 3, None), slice(1, 3, None))
        """
        height, width = self.mask.shape
        return slice(self.row0, self.row0 + height), slice(self.col0, self.col0 + width)


# crop=True gives crops; otherwise a new bool stack, or `out` itself (bool or uint8).
@overload
def masks(polygons: PolygonsLike, shape: ShapeLike, *, out: None = None, threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: Literal[False] = False,
          transform: TransformLike | None = None) -> MaskArray: ...
@overload
def masks(polygons: PolygonsLike, shape: ShapeLike, *, out: NDArray[_ScalarT], threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: Literal[False] = False,
          transform: TransformLike | None = None) -> NDArray[_ScalarT]: ...
@overload
def masks(polygons: PolygonsLike, shape: ShapeLike, *, out: None = None, threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: Literal[True],
          transform: TransformLike | None = None) -> list[Crop]: ...
@overload
def masks(polygons: PolygonsLike, shape: ShapeLike, *, out: NDArray[Any] | None = None, threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: bool = False,
          transform: TransformLike | None = None) -> NDArray[Any] | list[Crop]: ...
def masks(polygons: PolygonsLike, shape: ShapeLike, *, out: NDArray[Any] | None = None, threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: bool = False,
          transform: TransformLike | None = None) -> NDArray[Any] | list[Crop]:
    """Return one boolean mask per polygon, filled in one call.

    Parameters
    ----------
    polygons : sequence of polygons
        Each is anything ``polymask.mask`` takes: an (N, 2) array-like of
        (x, y) vertices, a list of rings, a GeoJSON-like mapping, a shapely
        Polygon / MultiPolygon, or a COCO segmentation (its parts united).  A (P, N, 2) NumPy array is P one-ring
        polygons, read without a Python loop.
    shape : (rows, cols)
        The image shape.
    out : numpy.ndarray, optional
        A C-contiguous, writable bool or uint8 array of shape (P, rows, cols)
        to fill in place (every byte is written); it is returned.  Not
        allowed with ``crop=True``.
        After an exception: if the input is refused (TypeError,
        ValueError) `out` is exactly as it was, since every argument is
        checked before the first byte is written; if the fill is
        interrupted (KeyboardInterrupt) or runs out of memory while it
        fills (MemoryError), `out` is partly written: some rows hold the
        result, the others what they held before.
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Threads go across instances; each instance is filled by one thread
        (fewer instances than threads: threads within each).
    fill_rule : {"evenodd", "nonzero"}, optional
        As in ``polymask.mask``.
    crop : bool, optional
        Return each instance's bounding-box crop instead of full masks.
    transform : affine.Affine or six numbers, optional
        Vertices are in world coordinates and pixel (r, c) is the cell of
        this transform, sampled at its centre (see ``polymask.mask``'s pixel
        conventions; the identity transform is COCO's pixel grid).

    Returns
    -------
    numpy.ndarray or list of Crop
        Without `crop`: a (P, rows, cols) bool array, ``result[p]`` equal to
        ``polymask.mask(polygons[p], shape, fill_rule=fill_rule)``.  With
        `crop`: a list of P ``Crop(mask, row0, col0)``, the smallest box of
        the image holding every pixel of instance p.

    Raises
    ------
    TypeError
        If a polygon is of no form polymask reads, or an argument is of the
        wrong type (the message names it and what was expected).
    ValueError
        If a coordinate is not finite, `shape` is not positive, or `out` is not a writable
        (P, rows, cols) bool or uint8 array.
    MemoryError
        If the result cannot be allocated (the message says how much it needs).

    Examples
    --------
    >>> import polymask
    >>> square, triangle = [(1, 1), (3, 1), (3, 3), (1, 3)], [(0, 0), (2, 0), (0, 2)]
    >>> polymask.masks([square, triangle], (4, 4)).astype(int)[0]
    array([[0, 0, 0, 0],
           [0, 1, 1, 0],
           [0, 1, 1, 0],
           [0, 0, 0, 0]])
    >>> crop = polymask.masks([square, triangle], (4, 4), crop=True)[1]
    >>> crop.mask.astype(int), crop.row0, crop.col0
    (array([[1, 1],
           [1, 0]]), 0, 0)
    """
    flat = _inputs.polygons(polygons, transform, unite_parts=True)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    if not isinstance(crop, (bool, np.bool_)):
        raise TypeError(f"crop must be True or False, got {_describe(crop)}")
    vertices = flat.vertices
    owners = flat.part_owners if flat.part_owners is not None else np.zeros(0, dtype=np.int64)
    objects = len(flat) - len(owners)
    if crop:
        if out is not None:
            raise ValueError("out= cannot be used with crop=True: crops have one shape per instance")
        _refuse_impossible_crops(vertices, flat, *rows_cols, rule)
        boxes, buffer, offsets = _polygons.mask_crops(vertices, flat.ring_ends, flat.polygon_ends, *rows_cols,
                                                  rule, thread_count)
        crops = []
        for (row0, col0, height, width), offset in zip(boxes.tolist(), offsets.tolist()):
            crops.append(Crop(buffer[offset:offset + height * width].reshape(height, width), row0, col0))
        for part, owner in enumerate(owners.tolist(), start=objects):  # COCO's parts: the union of their crops
            crops[owner] = _united_crop(crops[owner], crops[part])
        return crops[:objects]
    stack_shape = (objects, *rows_cols)
    zeroed = out is None  # calloc: pages no instance touches stay untouched
    result = result_array(out, stack_shape, bool, zeroed=True, what="stack of masks",
                          hint="use crop=True for small instances", axes=" (polygons, rows, cols)")
    layers = result.view(np.uint8)
    if not len(owners):
        _polygons.masks(vertices, flat.ring_ends, flat.polygon_ends, layers, rule, thread_count, zeroed)
        return result
    # Each object's first part fills its layer; its other parts add their spans to it (zeroed=True
    # writes only inside spans): the union COCO means.
    rings = int(flat.polygon_ends[objects - 1]) if objects else 0
    first_vertices = int(flat.ring_ends[rings - 1]) if rings else 0
    _polygons.masks(vertices[:first_vertices], flat.ring_ends[:rings], flat.polygon_ends[:objects], layers, rule,
                    thread_count, zeroed)
    ring_begins = np.concatenate([[0], flat.polygon_ends[:-1]])
    for part, owner in enumerate(owners.tolist(), start=objects):
        ring_begin, ring_end = int(ring_begins[part]), int(flat.polygon_ends[part])
        first = int(flat.ring_ends[ring_begin - 1]) if ring_begin else 0
        last = int(flat.ring_ends[ring_end - 1]) if ring_end > ring_begin else first
        _polygons.masks(vertices[first:last], flat.ring_ends[ring_begin:ring_end] - first,
                        np.array([ring_end - ring_begin], dtype=np.int64), layers[owner:owner + 1], rule,
                        thread_count, True)
    return result


def _united_crop(crop: Crop, other: Crop) -> Crop:
    """The crop of the union of two crops' pixels (an empty crop adds nothing)."""
    if not other.mask.size:
        return crop
    if not crop.mask.size:
        return other
    row0, col0 = min(crop.row0, other.row0), min(crop.col0, other.col0)
    row1 = max(crop.row0 + crop.mask.shape[0], other.row0 + other.mask.shape[0])
    col1 = max(crop.col0 + crop.mask.shape[1], other.col0 + other.mask.shape[1])
    united = result_array(None, (row1 - row0, col1 - col0), bool, zeroed=True, what="crop", hint=_CROPS_HINT)
    for piece in (crop, other):
        height, width = piece.mask.shape
        united[piece.row0 - row0:piece.row0 - row0 + height, piece.col0 - col0:piece.col0 - col0 + width] |= piece.mask
    return Crop(united, row0, col0)


#: The way out named when the crops of masks(crop=True) do not fit in memory.
_CROPS_HINT = "pass fewer or smaller polygons per call"

#: Crops whose polygon's bounding box (clipped to the image) holds more
#: pixels than this are sampled before the exact boxes are swept.
_SAMPLED_CROP_PIXELS = 1 << 26
#: Pixel centres sampled along each side of such a box.
_CROP_SAMPLES = 33


def _refuse_impossible_crops(vertices: NDArray[Any], flat: PolygonList, rows: int, cols: int, rule: int) -> None:
    """MemoryError at once when the crops cannot be allocated, before the sweep that finds their boxes.

    The exact boxes cost a sweep of every row a polygon spans (minutes for
    a polygon over a (2^31 - 1)^2 image) before the buffer is allocated.  A
    lower bound on each large crop comes first: the box of the sampled
    pixel centres that lie inside (polymask.contains on a 33x33 grid).  If
    the sum of the lower bounds cannot be allocated, neither can the crops.
    """
    begins, ends = vertex_ranges(flat)
    has_vertices, low, high = polygon_bounds(vertices, flat)
    nonempty = np.flatnonzero(has_vertices)
    if nonempty.size == 0:
        return
    # Each polygon's box of pixel centres, clipped to the image.
    keep = ends[nonempty] - begins[nonempty] >= 3  # fewer vertices hold no pixel
    filled, low, high = nonempty[keep], low[keep], high[keep]
    first = np.clip(np.ceil(low), 0, [cols - 1, rows - 1])
    last = np.clip(np.floor(high), 0, [cols - 1, rows - 1])
    pixels = (last[:, 0] - first[:, 0] + 1) * (last[:, 1] - first[:, 1] + 1)
    ring_ends = np.asarray(flat.ring_ends, dtype=np.int64)
    polygon_ends = np.asarray(flat.polygon_ends, dtype=np.int64)
    at_least = 0
    for k in np.nonzero(pixels > _SAMPLED_CROP_PIXELS)[0].tolist():
        p, begin, end = int(filled[k]), int(begins[filled[k]]), int(ends[filled[k]])
        x = np.unique(np.round(np.linspace(float(first[k, 0]), float(last[k, 0]), _CROP_SAMPLES)))
        y = np.unique(np.round(np.linspace(float(first[k, 1]), float(last[k, 1]), _CROP_SAMPLES)))
        inside = np.zeros((y.size, x.size), dtype=np.uint8)
        own_ring_ends = ring_ends[(polygon_ends[p - 1] if p else 0):polygon_ends[p]] - begin
        _points.contains_grid(vertices[begin:end], x, y, inside, rule, 1, own_ring_ends)
        hit_rows, hit_cols = np.nonzero(inside)
        if hit_rows.size:
            at_least += int(y[hit_rows.max()] - y[hit_rows.min()] + 1) * int(x[hit_cols.max()] - x[hit_cols.min()] + 1)
    if at_least <= _SAMPLED_CROP_PIXELS:
        return
    # The probe is never touched (no page is mapped) and is freed at once.
    result_array(None, (at_least,), bool, hint=_CROPS_HINT,
                 what=f"buffer for the crops of {len(flat)} masks in a {rows}x{cols} image (at least)")
