"""COCO masks: polygons in, run-length encodings out, no dense mask in between.

Instance-segmentation datasets in COCO's format store each object as a
*segmentation*: a list of parts, each a flat list ``[x1, y1, x2, y2, ...]``
in pixel-cell coordinates (pixel (0, 0) spans [0, 1] x [0, 1]); the object
is the **union** of its parts.  Evaluation reads masks as COCO run-length
encodings (RLE): ``{"size": [h, w], "counts": b"..."}``, runs over the pixels
in column-major order, compressed into a string.  This module turns the one
into the other with polymask's exact rule, and reads RLEs back:

* ``encode(objects, height, width)``: one RLE per object, computed from the
  scanline spans in C++ (csrc/src/rle.cpp), threaded across objects;
* ``decode``, ``area``, ``merge``, ``iou``: the same operations
  pycocotools.mask offers, for round trips without it.

**The pixel rule.**  A pixel is in an object iff its centre (c + ½, r + ½)
is inside some part under polymask's contract (even-odd, half-open,
bit-exact in float64); i.e. the cell convention of :func:`polymask.mask`'s ``transform=``
with the identity transform.  pycocotools rasterises polygons differently
(it draws the outline on a 5x finer grid and rounds), so its masks differ
from these by a few pixels along the boundaries; the COCO guide measures how
many.  The RLEs written here are byte for byte what
``pycocotools.mask.encode`` writes for the same mask.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from polymask import _coco, _core, _layouts
from polymask._coco_batch import Batch
from polymask._coco_rles import as_rle_list, counts_of, image_size, size_of
from polymask._describe import describe as _describe
from polymask._outputs import result_array
from polymask._threads import as_threads
from polymask.typing import RLE, CompressedRLE, RLELike, UncompressedRLE

__all__ = ["area", "decode", "encode", "iou", "merge"]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    # A list is invariant: list[CompressedRLE] is no list[RLE].  A type variable
    # that defaults to the precise type lets `def f() -> list[RLE]: return
    # encode(...)` check, while a bare call still reveals list[CompressedRLE].
    _CompressedT = TypeVar("_CompressedT", CompressedRLE, RLE, default=CompressedRLE)
    _UncompressedT = TypeVar("_UncompressedT", UncompressedRLE, RLE, default=UncompressedRLE)


# compressed=True (the default) writes counts as bytes, False as a list of ints.
@overload
def encode(objects: Sequence[object], height: int, width: int, *, compressed: Literal[True] = True,
           threads: int | None = None) -> list[_CompressedT]: ...
@overload
def encode(objects: Sequence[object], height: int, width: int, *, compressed: Literal[False],
           threads: int | None = None) -> list[_UncompressedT]: ...
@overload
def encode(objects: Sequence[object], height: int, width: int, *, compressed: bool = True,
           threads: int | None = None) -> list[RLE]: ...
def encode(objects: Sequence[object], height: int, width: int, *, compressed: bool = True,
           threads: int | None = None) -> list[Any]:  # the overloads type it
    """COCO RLEs of many objects of one height x width image.

    Parameters
    ----------
    objects : sequence
        One entry per object, each one of:

        * a COCO polygon segmentation, a list of flat lists
          ``[[x1, y1, x2, y2, ...], ...]``, whose parts are united;
        * one flat list ``[x1, y1, ...]`` (one part; this is how
          ``pycocotools.mask.frPyObjects`` reads a list of flat lists too);
        * a COCO RLE dict (``iscrowd`` annotations), passed through;
        * any polygon ``polymask.mask`` takes (an (N, 2) array, rings, a
          GeoJSON-like mapping, shapely, OpenCV contours): one part whose
          rings follow the even-odd rule.

        Coordinates are COCO's pixel-cell coordinates.  For one object,
        pass ``[segmentation]``.
    height, width : int
        The image size; height * width must be below 2^32.
    compressed : bool, optional
        True (default): ``counts`` is COCO's compressed bytes; False: a list
        of ints (COCO's uncompressed RLE).
    threads : int, optional
        The most threads to use (None or 0: the default; see :func:`polymask.threads`).
        Threads go across objects.

    Returns
    -------
    list of dict
        ``{"size": [height, width], "counts": ...}`` per object, in order,
        readable by ``pycocotools.mask.decode``, :func:`area` and :func:`iou`.

    Raises
    ------
    TypeError
        If `objects` is not a sequence of objects (one flat list or a single
        dict must be wrapped in a list), or an object is of no form above.
    ValueError
        If the image size is not positive or has 2^32 pixels or more, a flat
        list holds an odd count of numbers, a coordinate is not finite, or an
        RLE passed through has another size.

    Examples
    --------
    Two rectangles in COCO's polygon form, in a 5 x 6 image:

    >>> import polymask.coco
    >>> rectangles = [[[0, 0, 4, 0, 4, 3, 0, 3]], [[2, 1, 6, 1, 6, 4, 2, 4]]]
    >>> rles = polymask.coco.encode(rectangles, 5, 6)
    >>> rles[0]
    {'size': [5, 6], 'counts': b'03200000:'}
    >>> polymask.coco.encode([[[0, 0, 4, 0, 4, 3, 0, 3]]], 5, 6, compressed=False)
    [{'size': [5, 6], 'counts': [0, 3, 2, 3, 2, 3, 2, 3, 12]}]
    """
    height, width = image_size(height, width)
    thread_count = as_threads(threads)
    if isinstance(objects, (str, bytes, Mapping)) or not hasattr(objects, "__len__"):
        raise TypeError(f"objects must be a sequence of objects (segmentations, RLEs or polygons), "
                        f"got {_describe(objects)}; for one object pass [segmentation]")
    if _layouts.is_flat(objects):
        raise TypeError("objects looks like one COCO flat list [x1, y1, ...]: pass [[flat_list]] "
                        "(a list of objects, each a list of parts)")
    if type(objects) is list:
        # The common case, every object a list of flat lists: parsed, encoded
        # and made into dicts in one pass in C.  None: some object is in
        # another form (or bad); the general path below takes them all.
        fast = _coco.encode_segmentations(objects, height, width, _core.EVEN_ODD, thread_count, compressed)
        if fast is not None:
            return fast
    batch = Batch()
    parts, parts_per_object, polygon_objects = batch.parts, batch.parts_per_object, batch.polygon_objects
    for index, item in enumerate(objects):
        # The common case inline: a list of flat lists whose first has more
        # than one vertex.  Each part's contents are checked in C later.
        if type(item) is list and item and type(item[0]) is list and len(item[0]) > 2:
            parts.extend(item)
            parts_per_object.append(len(item))
            polygon_objects.append(index)
        else:
            batch.add(index, item)
    vertices, ring_ends, part_ends, object_ends = batch.arrays()
    polygon_objects = batch.polygon_objects
    encoded: Sequence[Any] = _coco.encode(vertices, ring_ends, part_ends, object_ends, height, width,
                                          _core.EVEN_ODD, thread_count, compressed)
    if not compressed:
        encoded = [counts.tolist() for counts in encoded]
    if not batch.passthrough:  # every object was a polygon: results in order
        in_order: list[Any] = [{"size": [height, width], "counts": counts} for counts in encoded]
        return in_order
    results: list[Any] = [None] * len(objects)
    for index, counts in zip(polygon_objects, encoded):
        results[index] = {"size": [height, width], "counts": counts}
    for index, rle in batch.passthrough.items():
        counts = counts_of(rle, f"objects[{index}]", (height, width))
        results[index] = {"size": [height, width],
                          "counts": _coco.compress(counts) if compressed else counts.tolist()}
    return results


def decode(rles: RLELike | Sequence[RLELike]) -> NDArray[np.uint8]:
    """The mask of an RLE, (h, w); or of a list of RLEs, (h, w, n), as pycocotools returns them.

    uint8 holding 0 and 1, as pycocotools' ``decode`` (so ``mask * 255`` and
    OpenCV behave as with pycocotools; ``.view(bool)`` is a bool mask without a
    copy).  Both are Fortran-ordered, as pycocotools returns them: each instance's
    pixels are one contiguous column-major block (``result[:, :, k]`` is
    F-contiguous), so a loader can hand an instance on without a copy.

    Parameters
    ----------
    rles : dict or sequence of dict
        One COCO RLE ``{"size": [h, w], "counts": ...}`` (counts compressed
        as bytes or str, or a list of run lengths), or a list of them of one
        size.

    Returns
    -------
    numpy.ndarray
        The masks as uint8 (0 or 1): (h, w) for one RLE, (h, w, n) for a list of n.

    Raises
    ------
    TypeError
        If an RLE is not a dict with ``size`` and ``counts``, or its counts
        are neither bytes, str nor a list of ints.
    ValueError
        If `rles` is empty, the sizes differ, or an RLE's counts are corrupt
        or do not cover its size.

    Examples
    --------
    >>> import polymask.coco
    >>> rle = polymask.coco.encode([[[0, 0, 4, 0, 4, 3, 0, 3]]], 5, 6)[0]
    >>> polymask.coco.decode(rle)
    array([[1, 1, 1, 1, 0, 0],
           [1, 1, 1, 1, 0, 0],
           [1, 1, 1, 1, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0]], dtype=uint8)
    >>> polymask.coco.decode([rle, rle]).shape
    (5, 6, 2)
    """
    items, single = as_rle_list(rles, "rles")
    if not items:
        raise ValueError("rles is empty: decode needs at least one RLE to know the image size")
    size = size_of(items[0], "rles" if single else "rles[0]")
    runs = [counts_of(rle, "rles" if single else f"rles[{k}]", size) for k, rle in enumerate(items)]
    height, width = size
    pixels = height * width
    # (n, w, h) in C order is (h, w, n) in Fortran order: instance k is one column-major block.
    stack = result_array(None, (len(runs), width, height), np.uint8, what="decoded masks")
    flat = stack.reshape(-1)
    for k, counts in enumerate(runs):
        _coco.decode_into(counts, flat[k * pixels:(k + 1) * pixels])
    result = stack.transpose(2, 1, 0)
    return result[:, :, 0] if single else result


# One RLE gives an int, a sequence of them an array.
@overload
def area(rles: RLELike) -> int: ...
@overload
def area(rles: Sequence[RLELike]) -> NDArray[np.uint64]: ...
def area(rles: RLELike | Sequence[RLELike]) -> int | NDArray[np.uint64]:
    """Pixels inside an RLE (an int), or per RLE of a list (a uint64 array).

    Parameters
    ----------
    rles : dict or sequence of dict
        One COCO RLE, or a list of them (their sizes may differ).

    Returns
    -------
    int or numpy.ndarray
        The count of pixels inside: an int for one RLE, a uint64 array with
        one entry per RLE for a list.

    Raises
    ------
    TypeError
        If an RLE is not a dict with ``size`` and ``counts``.
    ValueError
        If an RLE's counts are corrupt or do not cover its size.

    Examples
    --------
    >>> import polymask.coco
    >>> rectangles = [[[0, 0, 4, 0, 4, 3, 0, 3]], [[2, 1, 6, 1, 6, 4, 2, 4]]]
    >>> rles = polymask.coco.encode(rectangles, 5, 6)
    >>> polymask.coco.area(rles[0])
    12
    >>> polymask.coco.area(rles).tolist()
    [12, 12]
    """
    items, single = as_rle_list(rles, "rles")
    areas = np.array([int(counts_of(rle, "rles" if single else f"rles[{k}]")[1::2].sum(dtype=np.uint64))
                      for k, rle in enumerate(items)], dtype=np.uint64)
    return int(areas[0]) if single else areas


@overload
def merge(rles: Sequence[RLELike], intersect: bool = False, *, compressed: Literal[True] = True) -> CompressedRLE: ...
@overload
def merge(rles: Sequence[RLELike], intersect: bool = False, *, compressed: Literal[False]) -> UncompressedRLE: ...
@overload
def merge(rles: Sequence[RLELike], intersect: bool = False, *, compressed: bool = True) -> RLE: ...
def merge(rles: Sequence[RLELike], intersect: bool = False, *, compressed: bool = True) -> RLE:
    """The union (or, with intersect=True, intersection) of RLEs of one image size.

    Parameters
    ----------
    rles : sequence of dict
        COCO RLEs, all of one size.
    intersect : bool, optional
        False (default): the union; True: the intersection.
    compressed : bool, optional
        True (default): the result's ``counts`` is COCO's compressed bytes;
        False: a list of ints.

    Returns
    -------
    dict
        One COCO RLE ``{"size": [h, w], "counts": ...}``.

    Raises
    ------
    TypeError
        If `rles` is not a list of RLE dicts.
    ValueError
        If `rles` is empty, the sizes differ, or an RLE's counts are corrupt.

    Examples
    --------
    >>> import polymask.coco
    >>> rectangles = [[[0, 0, 4, 0, 4, 3, 0, 3]], [[2, 1, 6, 1, 6, 4, 2, 4]]]
    >>> rles = polymask.coco.encode(rectangles, 5, 6)
    >>> union, both = polymask.coco.merge(rles), polymask.coco.merge(rles, intersect=True)
    >>> polymask.coco.area(union), polymask.coco.area(both)
    (20, 4)
    """
    if type(rles) is list:  # the common case, in one core call; None where something needs a closer look
        result = _coco.merge_dicts(rles, intersect, compressed)
        if result is not None:
            return result  # type: ignore[return-value]  # the dict the core built: size and counts
    items, _ = as_rle_list(rles, "rles")
    if not items:
        raise ValueError("rles is empty: merge needs at least one RLE")
    size = size_of(items[0], "rles[0]")
    merged = counts_of(items[0], "rles[0]")  # refused somewhere: read each by name, so the culprit is named
    for k, rle in enumerate(items[1:], start=1):
        merged = _coco.merge(merged, counts_of(rle, f"rles[{k}]", size), bool(intersect))
    return {"size": list(size), "counts": _coco.compress(merged) if compressed else merged.tolist()}


def iou(detections: RLELike | Sequence[RLELike], ground_truths: RLELike | Sequence[RLELike],
        iscrowd: Sequence[bool] | None = None) -> NDArray[np.float64]:
    """Intersection over union of every detection with every ground truth.

    As ``pycocotools.mask.iou``.  All RLEs must have one image size.

    Parameters
    ----------
    detections : dict or sequence of dict
        One COCO RLE or a list of them.
    ground_truths : dict or sequence of dict
        One COCO RLE or a list of them.
    iscrowd : sequence of bool, optional
        One flag per ground truth (default: all False).  For a crowd ground
        truth the denominator is the detection's area alone.

    Returns
    -------
    numpy.ndarray
        Float64, (len(detections), len(ground_truths)).

    Raises
    ------
    TypeError
        If an RLE is not a dict with ``size`` and ``counts``.
    ValueError
        If the sizes differ, an RLE's counts are corrupt, or `iscrowd` has
        another length than `ground_truths`.

    Examples
    --------
    >>> import polymask.coco
    >>> rectangles = [[[0, 0, 4, 0, 4, 3, 0, 3]], [[2, 1, 6, 1, 6, 4, 2, 4]]]
    >>> rles = polymask.coco.encode(rectangles, 5, 6)
    >>> polymask.coco.iou(rles, rles)
    array([[1. , 0.2],
           [0.2, 1. ]])
    >>> polymask.coco.iou(rles, rles, iscrowd=[False, True]).round(3)
    array([[1.   , 0.333],
           [0.2  , 1.   ]])
    """
    left, _ = as_rle_list(detections, "detections")
    right, _ = as_rle_list(ground_truths, "ground_truths")
    size = size_of(left[0], "detections[0]") if left else (size_of(right[0], "ground_truths[0]") if right else None)
    left_counts = [counts_of(rle, f"detections[{k}]", size) for k, rle in enumerate(left)]
    right_counts = [counts_of(rle, f"ground_truths[{k}]", size) for k, rle in enumerate(right)]
    crowd = np.zeros(len(right), dtype=bool) if iscrowd is None else np.asarray(iscrowd, dtype=bool).reshape(-1)
    if len(crowd) != len(right):
        raise ValueError(f"iscrowd must have one flag per ground truth ({len(right)}), got {len(crowd)}")
    inter = _coco.intersection_areas(left_counts, right_counts, size[0] if size else 1).astype(np.float64)
    area_left = np.array([c[1::2].sum(dtype=np.uint64) for c in left_counts], dtype=np.float64)
    area_right = np.array([c[1::2].sum(dtype=np.uint64) for c in right_counts], dtype=np.float64)
    union = area_left[:, None] + area_right[None, :] - inter
    union = np.where(crowd[None, :], area_left[:, None], union)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    return result
