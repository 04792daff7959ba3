"""A pipeline user's script, type-checked by tests/test_typing.py with ``mypy --strict``.

Each ``reveal_type`` line ends with the type mypy must infer there; the test
runs mypy on this file (it is never imported) and compares them.
"""
from __future__ import annotations

import numpy as np

import polymask
import polymask.coco
from polymask.typing import RLE, CompressedRLE, MaskArray, PolygonLike

square = [(1.0, 1.0), (5.0, 1.0), (5.0, 4.0), (1.0, 4.0)]
triangle = np.array([[0, 0], [3, 0], [0, 3]], dtype=np.float64)
shapes: list[PolygonLike] = [square, triangle, {"type": "Polygon", "coordinates": [square]}]


def field(boundary: PolygonLike) -> MaskArray:
    return polymask.mask(boundary, (8, 8))


reveal_type(polymask.mask(square, (6, 7)))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.bool[bool]]]
reveal_type(polymask.mask(triangle, (4, 4), out=np.zeros((4, 4), np.uint8)))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.unsignedinteger[numpy._typing._nbit_base._8Bit]]]
reveal_type(polymask.masks(shapes, (8, 8)))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.bool[bool]]]
crops = polymask.masks(shapes, (8, 8), crop=True)
reveal_type(crops)  # list[tuple[numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]], int, int, fallback=polymask._masks.Crop]]
for crop in crops:
    reveal_type(crop.slices)  # tuple[slice[Any, Any, Any], slice[Any, Any, Any]]
reveal_type(polymask.rasterize(shapes, (8, 8)))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.integer[Any] | numpy.floating[Any]]]
reveal_type(polymask.rasterize(shapes, (8, 8), dtype=np.int32))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.signedinteger[numpy._typing._nbit_base._32Bit]]]
reveal_type(polymask.coverage(square, (6, 7)))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]
reveal_type(polymask.coverage(square, (6, 7), dtype=np.float32))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.floating[numpy._typing._nbit_base._32Bit]]]
reveal_type(polymask.contains(square, [1.5, 9.0], [1.5, 9.0]))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.bool[bool]]]

segmentations = [[[1.0, 1.0, 5.0, 1.0, 5.0, 4.0]], [[0.0, 0.0, 3.0, 0.0, 0.0, 3.0]]]
rles = polymask.coco.encode(segmentations, 8, 8)
reveal_type(rles)  # list[TypedDict(polymask.typing.CompressedRLE, {'size': list[int], 'counts': bytes})]
reveal_type(rles[0]["counts"])  # bytes
reveal_type(polymask.coco.encode(segmentations, 8, 8, compressed=False)[0]["counts"])  # list[int]
first: CompressedRLE = rles[0]
reveal_type(polymask.coco.area(first))  # int
areas = polymask.coco.area(rles)
reveal_type(areas)  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.unsignedinteger[numpy._typing._nbit_base._64Bit]]]
total = sum(int(a) for a in areas)
reveal_type(polymask.coco.decode(rles))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.unsignedinteger[numpy._typing._nbit_base._8Bit]]]
reveal_type(polymask.coco.iou(rles, rles))  # numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]
reveal_type(polymask.coco.merge(rles))  # TypedDict(polymask.typing.CompressedRLE, {'size': list[int], 'counts': bytes})


def coco_annotations(segmentations: list[list[list[float]]]) -> list[RLE]:
    """A list[RLE] filled by encode: the default's precise type still fits the wider list."""
    return polymask.coco.encode(segmentations, 8, 8)


def coco_uncompressed(segmentations: list[list[list[float]]]) -> list[RLE]:
    return polymask.coco.encode(segmentations, 8, 8, compressed=False)


def regions_on_a_grid(lon: np.ndarray, lat: np.ndarray) -> None:
    """The xarray masks say when they are lazy: with chunks= always (LazyDataArray), else above LAZY_POINTS.

    Without chunks= the type is MaybeLazyDataArray, which mypy shows as the DataArray it always is.
    """
    import polymask.xarray

    reveal_type(polymask.xarray.mask_3d(shapes, lon, lat))  # xarray.core.dataarray.DataArray
    reveal_type(polymask.xarray.mask_3d(shapes, lon, lat, chunks=256))  # polymask.xarray.LazyDataArray
    reveal_type(polymask.xarray.mask_2d(shapes, lon, lat, chunks=(90, 180)))  # polymask.xarray.LazyDataArray
    reveal_type(polymask.xarray.mask_2d(shapes, lon, lat))  # xarray.core.dataarray.DataArray
