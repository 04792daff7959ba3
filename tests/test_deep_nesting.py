"""Lists nested 1,000 deep, in every argument of every public call, are a TypeError or ValueError.

Python's ``repr()`` of such a list raises RecursionError, and so do the
conversions that recurse over it; a message that quotes the value must not
be where the call breaks.  Each argument is tried on its own, the others
valid, and the message must name the argument.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import polymask
import polymask.coco
import polymask.dask
import polymask.xarray

#: Deeper than the default recursion limit.
DEPTH = max(1000, sys.getrecursionlimit() + 10)


def deep_list():
    value = [1.0]
    for _ in range(DEPTH):
        value = [value]
    return value


SQUARE = [(1, 1), (6, 1), (6, 6), (1, 6)]
RLE = {"size": [8, 8], "counts": [10, 5, 49]}
LON, LAT = np.arange(0.5, 360, 30.0), np.arange(-75, 90, 30.0)

#: (call, the argument's name as the message says it) for each argument.
CALLS = {
    "mask vertices": (lambda d: polymask.mask(d, (8, 8)), "vertices"),
    "mask shape": (lambda d: polymask.mask(SQUARE, d), "shape"),
    "mask shape rows": (lambda d: polymask.mask(SQUARE, (d, 8)), "shape"),
    "mask window": (lambda d: polymask.mask(SQUARE, (8, 8), window=d), "window"),
    "mask window part": (lambda d: polymask.mask(SQUARE, (8, 8), window=(0, 0, d, 4)), "window"),
    "mask transform": (lambda d: polymask.mask(SQUARE, (8, 8), transform=d), "transform"),
    "mask threads": (lambda d: polymask.mask(SQUARE, (8, 8), threads=d), "threads"),
    "mask out": (lambda d: polymask.mask(SQUARE, (8, 8), out=d), "out"),
    "mask backend": (lambda d: polymask.mask(SQUARE, (8, 8), backend=d), "backend"),
    "mask fill_rule": (lambda d: polymask.mask(SQUARE, (8, 8), fill_rule=d), "fill_rule"),
    "rasterize polygons": (lambda d: polymask.rasterize(d, (8, 8)), "polygons"),
    "rasterize values": (lambda d: polymask.rasterize([SQUARE], (8, 8), values=d), "values"),
    "rasterize dtype": (lambda d: polymask.rasterize([SQUARE], (8, 8), dtype=d), "dtype"),
    "masks polygons": (lambda d: polymask.masks(d, (8, 8)), "polygons"),
    "masks shape": (lambda d: polymask.masks([SQUARE], d), "shape"),
    "coverage polygon": (lambda d: polymask.coverage(d, (8, 8)), "polygon"),
    "coverage window": (lambda d: polymask.coverage(SQUARE, (8, 8), window=d), "window"),
    "coverages polygons": (lambda d: polymask.coverages(d, (8, 8)), "polygons"),
    "contains polygon": (lambda d: polymask.contains(d, 1.0, 1.0), "polygon"),
    "contains x": (lambda d: polymask.contains(SQUARE, d, 1.0), "x"),
    "contains_labels values": (lambda d: polymask.contains_labels([SQUARE], 1.0, 1.0, values=d), "values"),
    "coco.encode objects": (lambda d: polymask.coco.encode([d], 8, 8), "objects"),
    "coco.encode height": (lambda d: polymask.coco.encode([], d, 8), "height"),
    "coco.decode": (lambda d: polymask.coco.decode(d), "rles"),
    "coco.decode counts": (lambda d: polymask.coco.decode({"size": [8, 8], "counts": d}), "counts"),
    "coco.decode size": (lambda d: polymask.coco.decode({"size": d, "counts": [64]}), "size"),
    "coco.area": (lambda d: polymask.coco.area(d), "rles"),
    "coco.iou": (lambda d: polymask.coco.iou(d, [RLE]), "detections"),
    "coco.merge": (lambda d: polymask.coco.merge(d), "rles"),
    "dask.mask chunks": (lambda d: polymask.dask.mask(SQUARE, (8, 8), chunks=d), "chunks"),
    "dask.rasterize values": (lambda d: polymask.dask.rasterize([SQUARE], (8, 8), values=d), "values"),
    "xarray.mask_3d chunks": (lambda d: polymask.xarray.mask_3d([SQUARE], LON, LAT, chunks=d), "chunks"),
    "dask.rasterize dtype": (lambda d: polymask.dask.rasterize([SQUARE], (8, 8), dtype=d), "dtype"),
    "coverage dtype": (lambda d: polymask.coverage(SQUARE, (8, 8), dtype=d), "dtype"),
    "xarray.mask_3d lon": (lambda d: polymask.xarray.mask_3d([SQUARE], d, LAT), "lon"),
    "xarray.mask_2d lat": (lambda d: polymask.xarray.mask_2d([SQUARE], LON, d), "lat"),
}


@pytest.mark.parametrize("case", CALLS)
def test_deep_nesting_is_a_clear_error(case):
    call, argument = CALLS[case]
    with pytest.raises((TypeError, ValueError)) as caught:
        call(deep_list())
    assert argument in str(caught.value), f"{case}: the message does not name {argument!r}: {caught.value}"
    assert len(str(caught.value)) < 1000, f"{case}: a message of {len(str(caught.value))} characters"
