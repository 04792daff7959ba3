"""Machine-learning polygon layouts: COCO flat lists and OpenCV contours.

polymask/_rings.py owns the polygon forms; this module teaches it the two
layouts that annotation and vision code hand around, and explains the ones
it refuses:

* **COCO flat list** ``[x1, y1, x2, y2, ...]`` (a list or tuple of an even
  count of numbers): one ring.  A 1-D NumPy array stays refused, since a
  NumPy array is always one (N, 2) ring; its error says to reshape(-1, 2).
  (``polymask.coco.encode`` takes 1-D arrays as parts of a segmentation.)
* **COCO segmentation** ``[[x1, y1, ...], [x1, y1, ...], ...]``: an object's
  parts, which COCO *unites*.  With one part it is that ring.  With several,
  ``polymask.mask`` returns the union of the parts' masks (each part under
  the fill rule), ``polymask.coco.encode`` the union's RLE; a function that
  takes one polygon per entry (``rasterize``) refuses it and says how to pass
  it, because rings of one polygon would XOR overlapping parts.  A list whose
  first entry has exactly two numbers is a list of (x, y) points, as before.
* **OpenCV contour**: an (N, 1, 2) array from ``cv2.findContours``: one ring.
  A list of contours: rings of one polygon (even-odd, so a hole is a contour
  inside another).  The pair ``(contours, hierarchy)`` that findContours
  returns: every outer contour with its direct holes is one polygon; as one
  polygon (``mask``) that is all rings together, which for findContours'
  nested, non-overlapping contours is exactly the union of those polygons;
  as a list of polygons (``rasterize``) it is one entry per outer contour.

Coordinates are used as given: OpenCV's contour points are pixel centres,
i.e. polymask's sample points; COCO's are cell coordinates, which
``polymask.coco`` maps with the cell convention (polymask/_transform.py).
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from polymask._validation import _describe, as_vertices


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def is_flat(value) -> bool:
    """Whether `value` is a COCO flat list: a list/tuple of numbers or a 1-D numeric array.

    A list of exactly two numbers is one (x, y) point, not a flat ring.
    """
    if isinstance(value, np.ndarray):
        return value.ndim == 1 and value.dtype.kind in "iuf"
    return isinstance(value, (list, tuple)) and len(value) > 0 and _is_number(value[0])


def is_segmentation(value, thorough: bool = False) -> bool:
    """Whether `value` is a COCO segmentation: a list of flat lists.

    Told from a list of (x, y) points by its first entry: a point has two
    numbers, a flat ring any other count.  With `thorough`, a list whose
    first entry has two numbers is a segmentation too when all entries are
    flat and some entry has another count (a first part of one vertex).
    """
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        return False
    first = value[0]
    if not is_flat(first):
        return False
    if len(first) != 2:
        return True
    return thorough and all(is_flat(part) for part in value) and any(len(part) != 2 for part in value)


def flat_ring(value, name: str) -> np.ndarray:
    """A COCO flat list as an (N, 2) float64 ring (validated)."""
    array = value if isinstance(value, np.ndarray) else _numbers_array(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a flat list [x1, y1, x2, y2, ...], got an array of shape {array.shape}")
    if len(array) % 2:
        raise ValueError(f"{name} must have shape (N, 2) of (x, y) pairs or be a COCO flat list "
                         f"[x1, y1, x2, y2, ...] with an even count of numbers, got an odd count "
                         f"({len(array)}, shape {array.shape}); every vertex needs an x and a y")
    return as_vertices(array.reshape(-1, 2), name)


def _numbers_array(value, name: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (ValueError, TypeError):
        raise ValueError(f"{name} looks like a COCO flat list [x1, y1, x2, y2, ...] but is not a list of "
                         f"numbers: {_describe(value)}") from None
    return array


def is_contour(value) -> bool:
    """Whether `value` is an OpenCV contour: an (N, 1, 2) numeric array."""
    return (isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[1:] == (1, 2)
            and value.dtype.kind in "iuf")


def is_contour_list(value) -> bool:
    """Whether `value` is a list or tuple of OpenCV contours (judged by its first)."""
    return isinstance(value, (list, tuple)) and len(value) > 0 and is_contour(value[0])


def is_contours_with_hierarchy(value) -> bool:
    """Whether `value` is cv2.findContours' (contours, hierarchy) pair."""
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    contours, hierarchy = value
    if not isinstance(contours, (list, tuple)):
        return False
    if hierarchy is None:  # findContours finds nothing: ((), None)
        return len(contours) == 0
    return (isinstance(hierarchy, np.ndarray) and hierarchy.ndim == 3 and hierarchy.shape[-1] == 4
            and (len(contours) == 0 or is_contour(contours[0])))


def contour_ring(contour, name: str) -> np.ndarray:
    """An OpenCV contour as an (N, 2) float64 ring."""
    if not is_contour(contour):
        shape = getattr(contour, "shape", None)
        got = f"an array of shape {shape}" if shape is not None else _describe(contour)
        raise ValueError(f"{name} must be an OpenCV contour, an (N, 1, 2) array, got {got}")
    return as_vertices(contour.reshape(-1, 2), name)


def hierarchy_polygons(contours, hierarchy, name: str) -> list[list[np.ndarray]]:
    """findContours' output as polygons: each outer contour with its direct holes.

    hierarchy[0][k] = (next, previous, first_child, parent); a contour at an
    even depth (0, 2, ...) is an outer boundary, its children are its holes,
    and their children are outer boundaries again (islands in holes).
    """
    if hierarchy is None:
        return []
    links = np.asarray(hierarchy).reshape(-1, 4)
    if len(links) != len(contours):
        raise ValueError(f"{name} has {len(contours)} contours but a hierarchy of {len(links)} entries; "
                         "pass the (contours, hierarchy) pair cv2.findContours returned")
    rings = [contour_ring(contour, f"{name}[0][{k}]") for k, contour in enumerate(contours)]
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


def rings_of(polygon, name: str, unite_parts: bool = False) -> list[np.ndarray] | None:
    """The rings of `polygon` when it is one of this module's layouts, else None.

    A COCO segmentation with several parts raises: rings would XOR what COCO
    unites, unless `unite_parts` (polymask.mask, which fills each part and unites the masks).
    """
    if isinstance(polygon, Mapping) and "counts" in polygon and "size" in polygon:
        raise ValueError(f"{name} looks like a COCO RLE, not a polygon: decode it with polymask.coco.decode")
    if is_flat(polygon) and not isinstance(polygon, np.ndarray):
        # A 1-D array stays refused (a NumPy array is one (N, 2) ring), with a hint.
        return [flat_ring(polygon, name)]
    if is_contour(polygon):
        return [contour_ring(polygon, name)]
    if is_contours_with_hierarchy(polygon):
        return [ring for rings in hierarchy_polygons(*polygon, name) for ring in rings]
    if is_contour_list(polygon):
        return [contour_ring(contour, f"{name}[{k}]") for k, contour in enumerate(polygon)]
    if is_segmentation(polygon):
        if len(polygon) == 1 or unite_parts:
            for k, part in enumerate(polygon):
                if not is_flat(part):
                    raise ValueError(f"{name}[{k}] must be a COCO flat list [x1, y1, x2, y2, ...] like "
                                     f"{name}[0], got {_describe(part)}")
            return [flat_ring(part, f"{name}[{k}]") for k, part in enumerate(polygon)]
        raise ValueError(
            f"{name} looks like a COCO segmentation of {len(polygon)} parts (a list of flat lists "
            "[x1, y1, ...]), which COCO unites; this function takes one polygon per entry.  Pass each part "
            "as its own entry (with the same value), use polymask.coco.encode for the union's RLE, or "
            "pass [np.reshape(part, (-1, 2)) for part in segmentation] for rings under the fill rule")
    return None


def layout_hint(value) -> str | None:
    """A sentence saying what a refused value looks like and how to pass it, or None."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        if value.ndim == 1 and len(value) % 2 == 0:
            return (f"an array of shape {value.shape} looks like a COCO flat list [x1, y1, x2, y2, ...]: "
                    "pass array.reshape(-1, 2) (or the list itself)")
        if value.ndim == 3 and value.shape[0] == 1 and value.shape[2] == 2:
            return (f"an array of shape {value.shape} looks like a batch of one (N, 2) polygon: "
                    "pass array[0]")
        if value.ndim == 3 and value.shape[-1] == 2:
            return (f"an array of shape {value.shape} looks like {value.shape[0]} polygons stacked: "
                    "pass it to polymask.rasterize, or one polygon as array[k]")
        if value.ndim == 2 and value.shape[0] == 2 and value.shape[1] != 2:
            return (f"an array of shape {value.shape} looks like (x row, y row): pass array.T")
        if value.ndim == 2 and value.shape[0] == 1 and value.shape[1] % 2 == 0:
            return (f"an array of shape {value.shape} looks like one COCO flat list [[x1, y1, ...]]: "
                    "pass array.reshape(-1, 2)")
    if is_segmentation(value, thorough=True):
        return ("that looks like a COCO segmentation whose first part has a single vertex: "
                "pass the parts to polymask.coco.encode, or drop the one-vertex parts")
    if isinstance(value, Mapping) and "counts" in value and "size" in value:
        return "that looks like a COCO RLE, not a polygon: decode it with polymask.coco.decode"
    return None
