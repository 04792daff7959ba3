"""COCO RLE dicts read and checked for polymask.coco: image sizes, sizes, run lengths.

Every message names the RLE (``rles[3]``) and what was expected of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask import _coco
from polymask._arguments import as_integer as _as_integer
from polymask._describe import describe as _describe
from polymask._describe import short_repr

#: COCO's counts are 32-bit: an image must have fewer than 2^32 pixels.
MAX_PIXELS = 2**32 - 1


def image_size(height: Any, width: Any) -> tuple[int, int]:
    height = _as_integer(height, "height")
    width = _as_integer(width, "width")
    if height < 1 or width < 1:
        raise ValueError(f"height and width must be at least 1, got {height} x {width}")
    if height * width > MAX_PIXELS:
        raise ValueError(f"height * width must be below 2^32 (COCO's counts are 32-bit), got {height} x {width}")
    return height, width


def size_of(rle: Any, name: str) -> tuple[int, int]:
    if not isinstance(rle, Mapping) or "size" not in rle or "counts" not in rle:
        raise TypeError(f"{name} must be a COCO RLE dict {{'size': [h, w], 'counts': ...}}, got {_describe(rle)}")
    size = rle["size"]
    try:
        height, width = size
    except (TypeError, ValueError):
        raise ValueError(f"{name}['size'] must be [height, width], got {_describe(size)}") from None
    height = _as_integer(height, f"{name}['size'] height")
    width = _as_integer(width, f"{name}['size'] width")
    if height < 0 or width < 0 or height * width > MAX_PIXELS:
        raise ValueError(f"{name}['size'] must be two sizes >= 0 with fewer than 2^32 pixels, got {short_repr(size)}")
    return height, width


def counts_of(rle: Any, name: str, expected_size: Any = None) -> np.ndarray:
    """The uint32 run lengths of a compressed or uncompressed RLE, validated."""
    height, width = size_of(rle, name)
    if expected_size is not None and (height, width) != tuple(expected_size):
        raise ValueError(f"{name} has size {[height, width]}, expected {list(expected_size)}")
    counts = rle["counts"]
    if isinstance(counts, str):
        # COCO's counts strings are ASCII ('0' to 'o'); any other character is
        # corruption, never a character to stand in for (it read as '?' once).
        try:
            counts = counts.encode("ascii")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"{name}['counts'] is not a COCO counts string: character {error.start} "
                f"is {error.object[error.start]!r}, not ASCII"
            ) from None
    if isinstance(counts, (bytearray, memoryview)):
        counts = bytes(counts)  # bytes by another name, not a list of run lengths
    if isinstance(counts, bytes):
        try:
            runs = _coco.decompress(counts)
        except ValueError as error:
            raise ValueError(f"{name}['counts'] is not a COCO counts string: {error}") from None
    else:
        parsed: NDArray[Any] | None
        try:
            parsed = np.asarray(counts)
        except (TypeError, ValueError, RecursionError):  # ragged or nested past NumPy's 64 dimensions
            parsed = None
        if parsed is None or parsed.ndim != 1 or (parsed.size and parsed.dtype.kind not in "iu"):
            raise TypeError(
                f"{name}['counts'] must be bytes, str or a list of run lengths (ints), got {_describe(counts)}"
            )
        if parsed.size and (parsed.min() < 0 or parsed.max() > MAX_PIXELS):
            raise ValueError(f"{name}['counts'] run lengths must be in [0, 2^32), got {_describe(counts)}")
        runs = parsed.astype(np.uint32)
    total = int(runs.sum(dtype=np.uint64))
    if total != height * width:
        raise ValueError(f"{name}'s runs cover {total} pixels, but its size {[height, width]} has {height * width}")
    return runs


def as_rle_list(rles: Any, name: str) -> tuple[list[Any], bool]:
    """(list of RLE dicts, whether one dict was passed)."""
    if isinstance(rles, Mapping):
        return [rles], True
    if isinstance(rles, (str, bytes)) or not hasattr(rles, "__len__"):
        raise TypeError(f"{name} must be a COCO RLE dict or a list of them, got {_describe(rles)}")
    return list(rles), False
