"""Types of polymask._coverage_sweep, the exact coverage sweep's binding (src/polymask/_coverage_sweep.pyx)."""
from typing import Any

import numpy as np
import numpy.typing as npt

def coverage(
    vertices: npt.NDArray[np.float64],
    out: npt.NDArray[Any],
    row0: int = 0,
    col0: int = 0,
    rule: int = 0,
    threads: int = 0,
    ring_ends: npt.NDArray[np.int64] | None = None,
    zeroed: bool = False,
) -> None: ...
def new_coverage(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64] | None,
    row0: int,
    col0: int,
    height: int,
    width: int,
    dtype: npt.DTypeLike,
    rule: int,
    threads: int,
    what: str,
    hint: str,
) -> npt.NDArray[Any]: ...
def fill_touched(
    vertices: npt.NDArray[np.float64],
    out: npt.NDArray[np.uint8],
    row0: int = 0,
    col0: int = 0,
    rule: int = 0,
    threads: int = 0,
    ring_ends: npt.NDArray[np.int64] | None = None,
    zeroed: bool = False,
    all_touched: int = 1,
) -> None: ...
def coverage_crops(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    polygon_ends: npt.NDArray[np.int64],
    boxes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    out: npt.NDArray[Any],
    rule: int = 0,
    threads: int = 0,
) -> None: ...
