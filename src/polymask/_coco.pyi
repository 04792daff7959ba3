"""Types of polymask._coco, COCO run-length encodings from the core's spans (src/polymask/_coco.pyx)."""
from typing import Any

import numpy as np
import numpy.typing as npt

from polymask.typing import CompressedRLE, UncompressedRLE

def encode(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    part_ends: npt.NDArray[np.int64],
    object_ends: npt.NDArray[np.int64],
    height: int,
    width: int,
    rule: int = 0,
    threads: int = 0,
    compress: bool = True,
) -> list[bytes] | list[npt.NDArray[np.uint32]]: ...
def compress(counts: npt.NDArray[np.uint32]) -> bytes: ...
def decompress(text: bytes) -> npt.NDArray[np.uint32]: ...
def decode_into(counts: npt.NDArray[np.uint32], out: npt.NDArray[np.uint8]) -> None: ...
def merge(a: npt.NDArray[np.uint32], b: npt.NDArray[np.uint32], intersect: bool = False) -> npt.NDArray[np.uint32]: ...
def merge_dicts(rles: list[Any], intersect: bool = False, compressed: bool = True) -> dict[str, Any] | None: ...
def intersection_areas(
    left: list[npt.NDArray[np.uint32]], right: list[npt.NDArray[np.uint32]], height: int
) -> npt.NDArray[np.uint64]: ...
def flat_parts(
    parts: list[list[float]],
) -> tuple[npt.NDArray[np.float64] | None, npt.NDArray[np.int64] | None, int, str | None]: ...
def encode_segmentations(
    objects: list[list[list[float]]],
    height: int,
    width: int,
    rule: int = 0,
    threads: int = 0,
    compress: bool = True,
) -> list[CompressedRLE] | list[UncompressedRLE] | None: ...
