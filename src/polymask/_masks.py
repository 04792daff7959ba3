"""Many instance masks in one call: ``polymask.masks``.

Instance segmentation (COCO, detectors, microscopy) wants one mask per
object, and objects are small.  Calling ``polymask.mask`` per object pays the
Python checks and a fresh full-size array each time; ``masks`` validates the
whole list once (polymask/_rings.py), then makes one call into the C++ core
(csrc/include/polymask/masks.hpp) that fills every instance with threads
across instances.  Each mask equals ``polymask.mask`` of that polygon, bit
for bit: same sweep, same rule.

Two outputs: a dense (N, H, W) stack, or with ``crop=True`` each instance's
bounding-box crop and where it sits, which is what instance-segmentation
code stores (a crop of a 40-pixel object in a 640x480 image is 40 bytes,
not 300 KB).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from polymask import _core
from polymask._rings import as_polygon_list, vertex_ranges
from polymask._threads import as_threads
from polymask._transform import as_transform, to_sample_frame
from polymask._types import FillRule, PolygonsLike, Shape, TransformLike
from polymask._validation import _describe, as_fill_rule, as_shape, check_out_layout


class Crop(NamedTuple):
    """One instance's mask cropped to the smallest box that holds its pixels.

    ``mask`` is a (height, width) bool array whose pixel (r, c) is the image
    pixel (row0 + r, col0 + c); ``image_mask[crop.slices] == crop.mask``.
    An instance with no pixel in the image has a (0, 0) mask at (0, 0).
    Unpacks as ``mask, row0, col0``.  ``polymask.coverages`` returns the
    same type, with the fractions of the cells in the box as ``mask``.
    """

    #: The instance's pixels in its box, a (height, width) bool array (coverages: its fractions).
    mask: np.ndarray
    #: The image row of the box's first row.
    row0: int
    #: The image column of the box's first column.
    col0: int

    @property
    def slices(self) -> tuple[slice, slice]:
        """Where the crop sits in the image: ``image[crop.slices]``."""
        height, width = self.mask.shape
        return slice(self.row0, self.row0 + height), slice(self.col0, self.col0 + width)


def masks(polygons: PolygonsLike, shape: Shape, *, out: np.ndarray | None = None, threads: int | None = None,
          fill_rule: FillRule = "evenodd", crop: bool = False,
          transform: TransformLike | None = None) -> np.ndarray | list[Crop]:
    """Return one boolean mask per polygon, filled in one call.

    Parameters
    ----------
    polygons : sequence of polygons
        Each is anything ``polymask.mask`` takes: an (N, 2) array-like of
        (x, y) vertices, a list of rings, a GeoJSON-like mapping or a shapely
        Polygon / MultiPolygon.  A (P, N, 2) NumPy array is P one-ring
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
        None or 0: all cores.  Threads go across instances; each instance
        is filled by one thread (fewer instances than threads: threads
        within each).
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
    flat = as_polygon_list(polygons)
    rows_cols = as_shape(shape)
    rule = as_fill_rule(fill_rule)
    thread_count = as_threads(threads)
    if not isinstance(crop, (bool, np.bool_)):
        raise TypeError(f"crop must be True or False, got {_describe(crop)}")
    vertices = flat.vertices
    matrix = as_transform(transform)
    if matrix is not None:
        vertices = to_sample_frame(vertices, matrix, "polygons", vertex_ranges(flat)[1])
    if crop:
        if out is not None:
            raise ValueError("out= cannot be used with crop=True: crops have one shape per instance")
        boxes, buffer, offsets = _core.mask_crops(vertices, flat.ring_ends, flat.polygon_ends, *rows_cols,
                                                  rule, thread_count)
        crops = []
        for (row0, col0, height, width), offset in zip(boxes.tolist(), offsets.tolist()):
            crops.append(Crop(buffer[offset:offset + height * width].reshape(height, width), row0, col0))
        return crops
    stack_shape = (len(flat), *rows_cols)
    if out is None:
        try:
            result = np.zeros(stack_shape, dtype=bool)  # calloc: pages no instance touches stay untouched
        except (MemoryError, ValueError):
            gigabytes = stack_shape[0] * stack_shape[1] * stack_shape[2] / 1e9
            raise MemoryError(f"cannot allocate {stack_shape[0]} masks of {rows_cols[0]}x{rows_cols[1]} "
                              f"({gigabytes:.1f} GB); use crop=True for small instances") from None
        _core.masks(vertices, flat.ring_ends, flat.polygon_ends, result.view(np.uint8), rule, thread_count, True)
        return result
    _check_out(out, stack_shape)
    _core.masks(vertices, flat.ring_ends, flat.polygon_ends, out.view(np.uint8), rule, thread_count, False)
    return out


def _check_out(out, shape: tuple[int, int, int]) -> None:
    """`out` can take the (P, rows, cols) stack in place, or TypeError/ValueError says why."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a NumPy array of bool or uint8, got {_describe(out)}")
    if out.dtype not in (np.dtype(bool), np.dtype(np.uint8)):
        raise TypeError(f"out must have dtype bool or uint8, got {out.dtype}")
    check_out_layout(out, shape, " (polygons, rows, cols)")
