"""Types of the cython_typed lesson (cython_typed.pyx)."""
import numpy as np
from numpy.typing import NDArray

def mask(vertices: NDArray[np.float64], shape: tuple[int, int]) -> NDArray[np.bool_]: ...
