"""Types of the cython_plain lesson: pure Python compiled by Cython (cython_plain.pyx)."""
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

def point_inside(polygon: Sequence[tuple[float, float]], px: float, py: float) -> bool: ...
def mask(vertices: ArrayLike, shape: tuple[int, int]) -> NDArray[np.bool_]: ...
