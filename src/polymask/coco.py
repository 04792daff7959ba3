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
bit-exact in float64); i.e. the cell convention of polymask/_transform.py
with the identity transform.  pycocotools rasterises polygons differently
(it draws the outline on a 5x finer grid and rounds), so its masks differ
from these by a few pixels along the boundaries; docs/coco.md measures how
many.  The RLEs written here are byte for byte what
``pycocotools.mask.encode`` writes for the same mask.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from polymask import _coco, _core, _layouts
from polymask._rings import as_rings
from polymask._transform import IDENTITY, to_sample_frame
from polymask._validation import _as_integer, _describe, as_threads

__all__ = ["area", "decode", "encode", "iou", "merge"]

# COCO's counts are 32-bit: an image must have fewer than 2^32 pixels.
_MAX_PIXELS = 2**32 - 1


def encode(objects, height, width, *, compressed: bool = True, threads=None) -> list[dict]:
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
        Threads to spread the objects over; None or 0 means all cores.

    Returns
    -------
    list of dict
        ``{"size": [height, width], "counts": ...}`` per object, in order,
        readable by ``pycocotools.mask.decode``, ``area`` and ``iou``.
    """
    height, width = _image_size(height, width)
    thread_count = as_threads(threads)
    if isinstance(objects, (str, bytes, Mapping)) or not hasattr(objects, "__len__"):
        raise TypeError(f"objects must be a sequence of objects (segmentations, RLEs or polygons), "
                        f"got {_describe(objects)}; for one object pass [segmentation]")
    if _layouts.is_flat(objects):
        raise TypeError("objects looks like one COCO flat list [x1, y1, ...]: pass [[flat_list]] "
                        "(a list of objects, each a list of parts)")
    batch = _Batch(len(objects))
    for index, item in enumerate(objects):
        batch.add(index, item, height, width)
    vertices, ring_ends, part_ends, object_ends = batch.arrays()
    polygon_objects = batch.polygon_objects
    encoded = _coco.encode(vertices, ring_ends, part_ends, object_ends, height, width,
                           _core.EVEN_ODD, thread_count, compressed)
    results: list = [None] * len(objects)
    for index, counts in zip(polygon_objects, encoded):
        results[index] = {"size": [height, width], "counts": counts if compressed else counts.tolist()}
    for index, rle in batch.passthrough.items():
        counts = _counts_of(rle, f"objects[{index}]", (height, width))
        results[index] = {"size": [height, width],
                          "counts": _coco.compress(counts) if compressed else counts.tolist()}
    return results


class _Batch:
    """Objects flattened for one call into the core: rings, parts, objects.

    COCO flat lists are the common case and are gathered without a NumPy
    call per part: all their numbers go through one np.fromiter.
    """

    def __init__(self, count: int):
        self.flat_parts: list = []           # flat lists, in order of their parts
        self.part_sizes: list[int] = []      # ring count per part (1 for flat lists)
        self.ring_arrays: list = []          # (N, 2) arrays of the non-flat parts, or None for flat
        self.parts_per_object: list[int] = []
        self.polygon_objects: list[int] = []  # object index of each encoded object
        self.passthrough: dict[int, Mapping] = {}

    def add(self, index: int, item, height: int, width: int) -> None:
        name = f"objects[{index}]"
        if isinstance(item, Mapping) and "counts" in item:
            self.passthrough[index] = item
            return
        if _layouts.is_flat(item):
            parts = [item]
        elif _layouts.is_segmentation(item, thorough=True) or (isinstance(item, (list, tuple)) and len(item) == 0):
            parts = item
        else:
            self._add_polygon(index, item, name)
            return
        for k, part in enumerate(parts):
            if not _layouts.is_flat(part):
                raise ValueError(f"{name}[{k}] must be a COCO flat list [x1, y1, x2, y2, ...] like "
                                 f"{name}[0], got {_describe(part)}")
            if len(part) % 2:
                raise ValueError(f"{name}[{k}] holds an odd count of numbers ({len(part)}); a COCO flat list "
                                 "is [x1, y1, x2, y2, ...]")
            self.flat_parts.append(part)
            self.ring_arrays.append(None)
            self.part_sizes.append(1)
        self.parts_per_object.append(len(parts))
        self.polygon_objects.append(index)

    def _add_polygon(self, index: int, item, name: str) -> None:
        try:
            rings = as_rings(item, name)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error} (objects[i] may be a COCO segmentation [[x1, y1, ...], ...], "
                              "a COCO RLE dict, or any polygon polymask.mask takes)") from None
        ends = rings.ring_ends_or_single()
        starts = np.concatenate([[0], ends[:-1]])
        for begin, end in zip(starts, ends):
            self.ring_arrays.append(rings.vertices[begin:end])
            self.flat_parts.append(None)
        self.part_sizes.append(len(ends))
        self.parts_per_object.append(1)
        self.polygon_objects.append(index)

    def arrays(self):
        """(vertices in the sample frame, ring_ends, part_ends, object_ends)."""
        ring_lengths = []
        chunks = []
        flat = [part for part in self.flat_parts if part is not None]
        flat_numbers = _flat_numbers(flat)
        flat_ring_lengths = iter([len(part) // 2 for part in flat])
        offset = 0
        pending_flat = 0  # flat rings in a row, copied as one slice
        for part, ring in zip(self.flat_parts, self.ring_arrays):
            if part is not None:
                n = next(flat_ring_lengths)
                ring_lengths.append(n)
                pending_flat += n
                continue
            if pending_flat:
                chunks.append(flat_numbers[offset:offset + pending_flat])
                offset += pending_flat
                pending_flat = 0
            chunks.append(ring)
            ring_lengths.append(len(ring))
        if pending_flat:
            chunks.append(flat_numbers[offset:offset + pending_flat])
        vertices = np.concatenate(chunks) if chunks else np.zeros((0, 2), dtype=np.float64)
        vertices = to_sample_frame(np.ascontiguousarray(vertices, dtype=np.float64), IDENTITY)
        ring_ends = np.cumsum(np.asarray(ring_lengths, dtype=np.int64))
        part_ends = np.cumsum(np.asarray(self.part_sizes, dtype=np.int64))
        object_ends = np.cumsum(np.asarray(self.parts_per_object, dtype=np.int64))
        return vertices, ring_ends, part_ends, object_ends


def _flat_numbers(flat_parts: list) -> np.ndarray:
    """All numbers of the flat parts as one (M, 2) float64 array of finite numbers."""
    total = sum(len(part) for part in flat_parts)
    try:
        numbers = np.fromiter(itertools.chain.from_iterable(flat_parts), dtype=np.float64, count=total)
    except (TypeError, ValueError):
        # Find the culprit for the message; the fast path saw only "not a number".
        for part in flat_parts:
            for value in part:
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
                    raise TypeError(f"a COCO flat list must hold numbers, got {_describe(value)} "
                                    f"in {_describe(part)}") from None
        raise
    points = numbers.reshape(-1, 2)
    bad = _core.first_non_finite(points)
    if bad >= 0:
        raise ValueError(f"a COCO flat list holds the non-finite vertex ({points[bad, 0]!r}, {points[bad, 1]!r}); "
                         "every coordinate must be a finite number")
    return points


def _image_size(height, width) -> tuple[int, int]:
    height = _as_integer(height, "height")
    width = _as_integer(width, "width")
    if height < 1 or width < 1:
        raise ValueError(f"height and width must be at least 1, got {height} x {width}")
    if height * width > _MAX_PIXELS:
        raise ValueError(f"height * width must be below 2^32 (COCO's counts are 32-bit), got {height} x {width}")
    return height, width


def _size_of(rle, name: str) -> tuple[int, int]:
    if not isinstance(rle, Mapping) or "size" not in rle or "counts" not in rle:
        raise TypeError(f"{name} must be a COCO RLE dict {{'size': [h, w], 'counts': ...}}, got {_describe(rle)}")
    size = rle["size"]
    try:
        height, width = size
    except (TypeError, ValueError):
        raise ValueError(f"{name}['size'] must be [height, width], got {_describe(size)}") from None
    height = _as_integer(height, f"{name}['size'] height")
    width = _as_integer(width, f"{name}['size'] width")
    if height < 0 or width < 0 or height * width > _MAX_PIXELS:
        raise ValueError(f"{name}['size'] must be two sizes >= 0 with fewer than 2^32 pixels, got {size!r}")
    return height, width


def _counts_of(rle, name: str, expected_size=None) -> np.ndarray:
    """The uint32 run lengths of a compressed or uncompressed RLE, validated."""
    height, width = _size_of(rle, name)
    if expected_size is not None and (height, width) != tuple(expected_size):
        raise ValueError(f"{name} has size {[height, width]}, expected {list(expected_size)}")
    counts = rle["counts"]
    if isinstance(counts, str):
        counts = counts.encode("ascii", errors="replace")
    if isinstance(counts, bytes):
        try:
            runs = _coco.decompress(counts)
        except ValueError as error:
            raise ValueError(f"{name}['counts'] is not a COCO counts string: {error}") from None
    else:
        try:
            runs = np.asarray(counts)
        except (TypeError, ValueError):
            runs = np.asarray([], dtype=object)
        if runs.ndim != 1 or (runs.size and runs.dtype.kind not in "iu"):
            raise TypeError(f"{name}['counts'] must be bytes, str or a list of run lengths (ints), "
                            f"got {_describe(counts)}")
        if runs.size and (runs.min() < 0 or runs.max() > _MAX_PIXELS):
            raise ValueError(f"{name}['counts'] run lengths must be in [0, 2^32), got {_describe(counts)}")
        runs = runs.astype(np.uint32)
    total = int(runs.sum(dtype=np.uint64))
    if total != height * width:
        raise ValueError(f"{name}'s runs cover {total} pixels, but its size {[height, width]} has {height * width}")
    return runs


def _as_rle_list(rles, name: str) -> tuple[list, bool]:
    """(list of RLE dicts, whether one dict was passed)."""
    if isinstance(rles, Mapping):
        return [rles], True
    if isinstance(rles, (str, bytes)) or not hasattr(rles, "__len__"):
        raise TypeError(f"{name} must be a COCO RLE dict or a list of them, got {_describe(rles)}")
    return list(rles), False


def decode(rles) -> np.ndarray:
    """The bool mask of an RLE, (h, w); or of a list of RLEs, (h, w, n) as pycocotools returns."""
    items, single = _as_rle_list(rles, "rles")
    masks = []
    size = None
    for k, rle in enumerate(items):
        name = "rles" if single else f"rles[{k}]"
        counts = _counts_of(rle, name, size)
        size = _size_of(rle, name)
        height, width = size
        values = np.arange(len(counts)) % 2 == 1
        # Column-major runs: fill the transposed image row by row.
        masks.append(np.repeat(values, counts).reshape(width, height).T)
    if single:
        return masks[0]
    if not masks:
        raise ValueError("rles is empty: decode needs at least one RLE to know the image size")
    return np.stack(masks, axis=-1)


def area(rles):
    """Pixels inside an RLE (an int), or per RLE of a list (a uint64 array)."""
    items, single = _as_rle_list(rles, "rles")
    areas = np.array([int(_counts_of(rle, "rles" if single else f"rles[{k}]")[1::2].sum(dtype=np.uint64))
                      for k, rle in enumerate(items)], dtype=np.uint64)
    return int(areas[0]) if single else areas


def merge(rles, intersect: bool = False, *, compressed: bool = True) -> dict:
    """The union (or, with intersect=True, intersection) of RLEs of one image size."""
    items, _ = _as_rle_list(rles, "rles")
    if not items:
        raise ValueError("rles is empty: merge needs at least one RLE")
    size = _size_of(items[0], "rles[0]")
    merged = _counts_of(items[0], "rles[0]")
    for k, rle in enumerate(items[1:], start=1):
        merged = _coco.merge(merged, _counts_of(rle, f"rles[{k}]", size), bool(intersect))
    return {"size": list(size), "counts": _coco.compress(merged) if compressed else merged.tolist()}


def iou(detections, ground_truths, iscrowd=None) -> np.ndarray:
    """Intersection over union of every detection with every ground truth.

    As pycocotools.mask.iou: a (len(detections), len(ground_truths)) float64
    array; for a ground truth with iscrowd true the denominator is the
    detection's area alone.  All RLEs must have one image size.
    """
    left, _ = _as_rle_list(detections, "detections")
    right, _ = _as_rle_list(ground_truths, "ground_truths")
    size = _size_of(left[0], "detections[0]") if left else (_size_of(right[0], "ground_truths[0]") if right else None)
    left_counts = [_counts_of(rle, f"detections[{k}]", size) for k, rle in enumerate(left)]
    right_counts = [_counts_of(rle, f"ground_truths[{k}]", size) for k, rle in enumerate(right)]
    crowd = np.zeros(len(right), dtype=bool) if iscrowd is None else np.asarray(iscrowd, dtype=bool).reshape(-1)
    if len(crowd) != len(right):
        raise ValueError(f"iscrowd must have one flag per ground truth ({len(right)}), got {len(crowd)}")
    inter = _coco.intersection_areas(left_counts, right_counts).astype(np.float64)
    area_left = np.array([c[1::2].sum(dtype=np.uint64) for c in left_counts], dtype=np.float64)
    area_right = np.array([c[1::2].sum(dtype=np.uint64) for c in right_counts], dtype=np.float64)
    union = area_left[:, None] + area_right[None, :] - inter
    union = np.where(crowd[None, :], area_left[:, None], union)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    return result
