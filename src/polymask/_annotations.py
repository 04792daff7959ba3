"""Converters for the layouts annotation and vision code hands around: COCO and OpenCV.

polymask/_layouts.py recognises these layouts; polymask/_inputs.py hands
each to its converter here, which returns the polygon's rings as
``(ring, label)`` pairs for polymask/_validation.py to check (every
coordinate a finite number) under the label that names it:

* **COCO flat list** ``[x1, y1, x2, y2, ...]``: one ring.
* **COCO segmentation** ``[[x1, y1, ...], [x1, y1, ...], ...]``: an object's
  parts, which COCO *unites*.  With one part it is that ring.  With several,
  ``polymask.mask`` returns the union of the parts' masks (each part under
  the fill rule; the funnel marks the Rings ``united``),
  ``polymask.coco.encode`` the union's RLE; a function that takes one
  polygon per entry (``rasterize``) refuses it and says how to pass it,
  because rings of one polygon would XOR overlapping parts.
* **OpenCV contour**: an (N, 1, 2) array from ``cv2.findContours``: one ring.
  A list of contours: rings of one polygon (even-odd, so a hole is a contour
  inside another).  The pair ``(contours, hierarchy)`` that findContours
  returns: every outer contour with its direct holes is one polygon; as one
  polygon (``mask``) that is all rings together, which for findContours'
  nested, non-overlapping contours is exactly the union of those polygons;
  as a list of polygons (``rasterize``) it is one entry per outer contour.
* **COCO RLE**: refused, with the way to decode it.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from polymask import _coco, _core
from polymask._describe import describe as _describe


# A layout is judged by its first member (polymask/_layouts.py); the others are
# checked here as they are read, with these two tests of _layouts' rules.
def _is_flat(part: Any) -> bool:
    """A COCO flat list: a list/tuple starting with a number, or a 1-D numeric array."""
    if isinstance(part, np.ndarray):
        return part.ndim == 1 and part.dtype.kind in "iuf"
    return (isinstance(part, (list, tuple)) and len(part) > 0 and isinstance(part[0], numbers.Real)
            and not isinstance(part[0], (bool, np.bool_)))


def _is_contour(value: Any) -> bool:
    """An OpenCV contour: an (N, 1, 2) numeric array."""
    return (isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[1:] == (1, 2)
            and value.dtype.kind in "iuf")


def refuse_rle(value: Any, name: str, unite_parts: bool = False) -> NoReturn:
    raise ValueError(f"{name} looks like a COCO RLE, not a polygon: decode it with polymask.coco.decode")


def flat_ring(value: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """A COCO flat list as one (N, 2) ring."""
    vertices, _ = flat_rings([value], lambda part: name)
    return [(vertices, name)]


def flat_rings(parts: list[Any], names: Callable[[int], str]) -> tuple[np.ndarray, np.ndarray]:
    """COCO flat lists as one (M, 2) float64 array of finite vertices and the rings' cumulative ends.

    The one reader of flat lists: one list for ``polymask.mask``, an image's
    thousands for ``polymask.coco.encode``, read in one pass in C (the
    conversion NumPy would make per part).  A refusal names part k as ``names(k)``.
    """
    if len(parts) == 1 and isinstance(parts[0], np.ndarray):  # a 1-D numeric array: NumPy converts it whole
        vertices, ring_ends, bad, problem = _flat_array(parts[0])
    else:
        vertices, ring_ends, bad, problem = _coco.flat_parts(parts)
    if vertices is None or ring_ends is None:  # part `bad` is no flat list of numbers
        part = parts[bad]
        if problem == "odd":
            raise ValueError(f"{names(bad)} must have shape (N, 2) of (x, y) pairs or be a COCO flat list "
                             f"[x1, y1, x2, y2, ...] with an even count of numbers, got an odd count "
                             f"({len(part)}, shape ({len(part)},)); every vertex needs an x and a y")
        culprit = next((v for v in part if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)),
                       part) if isinstance(part, (list, tuple)) else part
        raise TypeError(f"{names(bad)} must be a COCO flat list of numbers [x1, y1, x2, y2, ...], "
                        f"got {_describe(culprit)} in it")
    bad_row = _core.first_non_finite(vertices)
    if bad_row >= 0:
        part_index = int(np.searchsorted(ring_ends, bad_row, side="right"))
        raise ValueError(f"{names(part_index)} holds the non-finite vertex ({vertices[bad_row, 0]!r}, "
                         f"{vertices[bad_row, 1]!r}); every coordinate must be a finite number")
    return vertices, ring_ends


def _flat_array(array: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None, int, str | None]:
    """flat_parts' answer for one 1-D numeric array."""
    if array.ndim != 1 or array.dtype.kind not in "iuf":
        return None, None, 0, "number"
    if len(array) % 2:
        return None, None, 0, "odd"
    return (np.ascontiguousarray(array, dtype=np.float64).reshape(-1, 2),
            np.array([len(array) // 2], dtype=np.int64), -1, None)


def segmentation_rings(value: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """A COCO segmentation's parts as rings: one part, or several with `unite_parts`."""
    if len(value) == 1 or unite_parts:
        for k, part in enumerate(value):
            if not _is_flat(part):
                raise ValueError(f"{name}[{k}] must be a COCO flat list [x1, y1, x2, y2, ...] like "
                                 f"{name}[0], got {_describe(part)}")
        return [ring for k, part in enumerate(value) for ring in flat_ring(part, f"{name}[{k}]")]
    raise ValueError(
        f"{name} looks like a COCO segmentation of {len(value)} parts (a list of flat lists "
        "[x1, y1, ...]), which COCO unites; this function takes one polygon per entry.  Pass each part "
        "as its own entry (with the same value), use polymask.coco.encode for the union's RLE, or "
        "pass [np.reshape(part, (-1, 2)) for part in segmentation] for rings under the fill rule")


def contour_ring(contour: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """An OpenCV contour as one (N, 2) ring."""
    if not _is_contour(contour):  # a member of a contour list, judged by the first
        shape = getattr(contour, "shape", None)
        got = f"an array of shape {shape}" if shape is not None else _describe(contour)
        raise ValueError(f"{name} must be an OpenCV contour, an (N, 1, 2) array, got {got}")
    return [(contour.reshape(-1, 2), name)]


def contour_list_rings(contours: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """A list of OpenCV contours as rings of one polygon."""
    return [ring for k, contour in enumerate(contours) for ring in contour_ring(contour, f"{name}[{k}]")]


def hierarchy_rings(pair: Any, name: str, unite_parts: bool = False) -> list[Any]:
    """findContours' pair as one polygon: every contour a ring (nothing found: one empty ring)."""
    rings = [ring for polygon in hierarchy_polygons(pair, name) for ring in polygon]
    return rings or [(np.zeros((0, 2), dtype=np.float64), name)]


def hierarchy_polygons(pair: Any, name: str) -> list[list[Any]]:
    """findContours' output as polygons: each outer contour with its direct holes.

    hierarchy[0][k] = (next, previous, first_child, parent); a contour at an
    even depth (0, 2, ...) is an outer boundary, its children are its holes,
    and their children are outer boundaries again (islands in holes).
    """
    contours, hierarchy = pair
    if hierarchy is None:
        return []
    links = np.asarray(hierarchy).reshape(-1, 4)
    if len(links) != len(contours):
        raise ValueError(f"{name} has {len(contours)} contours but a hierarchy of {len(links)} entries; "
                         "pass the (contours, hierarchy) pair cv2.findContours returned")
    rings = [contour_ring(contour, f"{name}[0][{k}]")[0] for k, contour in enumerate(contours)]
    parents = links[:, 3]
    depth = np.zeros(len(links), dtype=np.int64)
    for k in range(len(links)):
        parent, steps = int(parents[k]), 0
        while parent >= 0:
            if steps > len(links) or parent >= len(links):
                raise ValueError(f"{name}'s hierarchy is not a tree (contour {k}'s parents loop or point outside)")
            parent, steps = int(parents[parent]), steps + 1
        depth[k] = steps
    polygons = []
    for k in range(len(links)):
        if depth[k] % 2 == 0:
            holes = [rings[h] for h in range(len(links)) if parents[h] == k]
            polygons.append([rings[k], *holes])
    return polygons
