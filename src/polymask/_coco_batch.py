"""The objects of polymask.coco.encode flattened for one call into the core: rings, parts, objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask import _annotations, _inputs, _layouts
from polymask._describe import describe as _describe
from polymask._rings import Rings
from polymask._transform import IDENTITY, to_sample_frame


class Batch:
    """Objects flattened for one call into the core: rings, parts, objects.

    COCO flat lists are the common case: they are gathered as they are and
    converted in one pass in C by the funnel's reader (_annotations.flat_rings), never one NumPy call per
    part.  Other polygon forms go through the library's one input funnel, one part each.
    """

    def __init__(self) -> None:
        self.parts: list[Any] = []  # flat lists, or Rings of other polygon forms
        self.parts_per_object: list[int] = []
        self.polygon_objects: list[int] = []  # object index of each encoded object
        self.passthrough: dict[int, Mapping[str, Any]] = {}
        self.has_rings = False

    def add(self, index: int, item: Any) -> None:
        # The common case first, with exact type checks: a list of lists of numbers.
        if type(item) is list and item and type(item[0]) is list and item[0] and type(item[0][0]) in (float, int):
            if len(item[0]) != 2 or _layouts.is_segmentation(item, thorough=True):
                self._add_parts(index, item)
                return
        if isinstance(item, Mapping) and "counts" in item:
            self.passthrough[index] = item
        elif _layouts.is_flat(item):
            self._add_parts(index, [item])
        elif _layouts.is_segmentation(item, thorough=True) or (isinstance(item, (list, tuple)) and len(item) == 0):
            self._add_parts(index, item)
        else:
            self._add_polygon(index, item, f"objects[{index}]")

    def _add_parts(self, index: int, parts: Any) -> None:
        for k, part in enumerate(parts):
            if type(part) is not list and not _layouts.is_flat(part):
                raise ValueError(
                    f"objects[{index}][{k}] must be a COCO flat list [x1, y1, x2, y2, ...] like "
                    f"objects[{index}][0], got {_describe(part)}"
                )
        self.parts.extend(parts)
        self.parts_per_object.append(len(parts))
        self.polygon_objects.append(index)

    def _add_polygon(self, index: int, item: Any, name: str) -> None:
        try:
            rings = _inputs.polygon(item, name=name)  # the library's one funnel, as every entry point
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"{error} (objects[i] may be a COCO segmentation [[x1, y1, ...], ...], "
                "a COCO RLE dict, or any polygon polymask.mask takes)"
            ) from None
        self.parts.append(rings)
        self.parts_per_object.append(1)
        self.polygon_objects.append(index)
        self.has_rings = True

    def arrays(self) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        """(vertices in the sample frame, ring_ends, part_ends, object_ends)."""
        object_ends = np.cumsum(np.asarray(self.parts_per_object, dtype=np.int64))
        if not self.has_rings:
            vertices, ring_ends = self._flat(self.parts, object_ends, 0)
            part_ends = np.arange(1, len(self.parts) + 1, dtype=np.int64)
        else:
            chunks, lengths, part_sizes = [], [], []
            for k, part in enumerate(self.parts):
                if isinstance(part, Rings):
                    ends = part.ring_ends_or_single()
                    chunks.append(part.vertices)
                    lengths.append(np.diff(ends, prepend=0))
                    part_sizes.append(len(ends))
                else:
                    ring, ring_length = self._flat([part], object_ends, k)
                    chunks.append(ring)
                    lengths.append(ring_length)
                    part_sizes.append(1)
            vertices = np.concatenate(chunks)
            ring_ends = np.cumsum(np.concatenate(lengths))
            part_ends = np.cumsum(np.asarray(part_sizes, dtype=np.int64))
        vertices = to_sample_frame(np.ascontiguousarray(vertices, dtype=np.float64), IDENTITY)
        return vertices, np.ascontiguousarray(ring_ends, dtype=np.int64), part_ends, object_ends

    def _flat(self, parts: list[Any], object_ends: NDArray[Any], first_part: int) -> tuple[NDArray[Any], NDArray[Any]]:
        """Flat lists to (M, 2) vertices and ring ends, by the funnel's reader; errors name the object and part."""
        return _annotations.flat_rings(parts, lambda part: self._part_name(first_part + part, object_ends))

    def _part_name(self, part_index: int, object_ends: np.ndarray) -> str:
        position = int(np.searchsorted(object_ends, part_index, side="right"))
        first = int(object_ends[position - 1]) if position > 0 else 0
        return f"objects[{self.polygon_objects[position]}][{part_index - first}]"
