"""Types of the cython_prange lesson: prange, nogil and OpenMP (cython_prange.pyx)."""
import numpy as np
from numpy.typing import NDArray

ROWS_PER_CHUNK: int

def mask(vertices: NDArray[np.float64], shape: tuple[int, int], threads: int = 0,
         place: bool = True) -> NDArray[np.bool_]: ...
def mask_static(vertices: NDArray[np.float64], shape: tuple[int, int], threads: int = 0) -> NDArray[np.bool_]: ...
