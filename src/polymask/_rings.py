"""What the input funnel hands the core: one polygon's rings, or many polygons.

The core sees one flat (M, 2) float64 vertex array plus cumulative
``ring_ends``: ring k is rows ``ring_ends[k-1]:ring_ends[k]`` (see
csrc/include/polymask/core.hpp), and for many polygons ``polygon_ends``
over the rings.  polymask/_inputs.py builds these last, after recognising
the layout (polymask/_layouts.py), converting it, checking the coordinates
(polymask/_validation.py) and mapping them (polymask/_transform.py); this
module only holds them.
"""
from __future__ import annotations

import numpy as np


class Rings:
    """A polygon flattened for the core: vertices (M, 2) float64 and ring ends.

    ``ring_ends`` is None for a single ring, so the single-ring call into the
    core stays exactly what it was.
    """

    __slots__ = ("vertices", "ring_ends", "united")

    def __init__(self, vertices: np.ndarray, ring_ends: np.ndarray | None, united: bool = False):
        self.vertices = vertices
        self.ring_ends = ring_ends
        #: True for a COCO segmentation's parts: the polygon is the union of the
        #: rings' fills, not the fill rule over all rings together.
        self.united = united

    @property
    def ring_count(self) -> int:
        return 1 if self.ring_ends is None else len(self.ring_ends)

    def ring_ends_or_single(self) -> np.ndarray:
        """ring_ends as an int64 array, also for a single ring."""
        if self.ring_ends is None:
            return np.array([len(self.vertices)], dtype=np.int64)
        return self.ring_ends


class PolygonList:
    """Many polygons flattened for one call into the core.

    Polygon p is rings ``polygon_ends[p-1]:polygon_ends[p]``; ring k is
    vertices ``ring_ends[k-1]:ring_ends[k]`` (the first of each taken from 0).
    `part_owners` (read with ``unite_parts``): the last ``len(part_owners)``
    polygons are further parts of COCO segmentations, each to be united with
    the object ``part_owners[k]`` (whose first part sits at that index).
    """

    __slots__ = ("vertices", "ring_ends", "polygon_ends", "part_owners", "owners")

    def __init__(self, vertices: np.ndarray, ring_ends: np.ndarray, polygon_ends: np.ndarray,
                 part_owners: np.ndarray | None = None, owners: np.ndarray | None = None):
        self.vertices = vertices
        self.ring_ends = ring_ends
        self.polygon_ends = polygon_ends
        self.part_owners = part_owners
        #: Read with ``split_parts``: the input member each polygon is a part of
        #: (non-decreasing, every member owning one polygon or more), or None
        #: when polygon p is member p.
        self.owners = owners

    @property
    def member_count(self) -> int:
        """How many input members the polygons come from."""
        if self.owners is None:
            return len(self.polygon_ends)
        return int(self.owners[-1]) + 1 if len(self.owners) else 0

    def __len__(self) -> int:
        return len(self.polygon_ends)


def vertex_ranges(flat: PolygonList) -> tuple[np.ndarray, np.ndarray]:
    """(begin, end) int64 arrays: polygon p owns vertices[begin[p]:end[p]] (empty for a polygon without rings)."""
    ring_ends = np.concatenate([[0], flat.ring_ends]).astype(np.int64)
    end = ring_ends[np.asarray(flat.polygon_ends, dtype=np.int64)]
    return np.concatenate([[0], end[:-1]]).astype(np.int64), end
