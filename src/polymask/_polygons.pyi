"""Types of polymask._polygons, the binding of the core's fills of many polygons (src/polymask/_polygons.pyx).

Callers validate first (polymask/_inputs.py and the public functions); these
functions check only what memory safety needs.  Arrays are C-contiguous;
vertices are (N, 2) float64, ring and polygon ends cumulative int64 counts.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

def rasterize(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    polygon_ends: npt.NDArray[np.int64],
    values: npt.NDArray[Any],
    out: npt.NDArray[Any],
    row0: int = 0,
    col0: int = 0,
    rule: int = 0,
    threads: int = 0,
    all_touched: int = 0,
    add: bool = False,
    find_overlap: bool = False,
) -> bool | None: ...
def masks(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    polygon_ends: npt.NDArray[np.int64],
    out: npt.NDArray[np.uint8],
    rule: int = 0,
    threads: int = 0,
    zeroed: bool = False,
) -> None: ...
def mask_crops(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    polygon_ends: npt.NDArray[np.int64],
    rows: int,
    cols: int,
    rule: int = 0,
    threads: int = 0,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.int64]]: ...
