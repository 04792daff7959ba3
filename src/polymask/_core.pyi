"""Types of polymask._core, the Cython binding of the C++ core (src/polymask/_core.pyx).

Callers validate first (polymask/_validation.py, _arguments.py); these functions check only
what memory safety needs.  Arrays are C-contiguous; vertices are (N, 2)
float64, ring and polygon ends cumulative int64 counts.
"""
from typing import Any

import numpy as np
import numpy.typing as npt

EVEN_ODD: int
NONZERO: int
MAX_THREADS: int

def fill(
    vertices: npt.NDArray[np.float64],
    out: npt.NDArray[np.uint8],
    *,
    row0: int = 0,
    col0: int = 0,
    rule: int = 0,
    threads: int = 0,
    per_pixel: bool = False,
    ring_ends: npt.NDArray[np.int64] | None = None,
    zeroed: bool = False,
) -> None: ...
def new_mask(
    vertices: npt.NDArray[np.float64],
    height: int,
    width: int,
    *,
    row0: int = 0,
    col0: int = 0,
    rule: int = 0,
    threads: int = 0,
    ring_ends: npt.NDArray[np.int64] | None = None,
    all_touched: int = 0,
) -> npt.NDArray[np.bool_]: ...
def plain_mask(
    vertices: object, shape: object, threads: int, out: Any = None, all_touched: int = 0
) -> npt.NDArray[np.bool_] | npt.NDArray[np.uint8] | None: ...
def _note_main_thread() -> None: ...
def thread_count(threads: int = 0) -> int: ...
def pool_statistics() -> dict[str, Any]: ...
def _reset_pool_learning(adaptive: bool = True) -> None: ...
def core_info() -> dict[str, Any]: ...
def first_non_finite(vertices: npt.NDArray[np.float64]) -> int: ...
