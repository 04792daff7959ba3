"""Types of polymask._line_cells, the line walks' binding (src/polymask/_line_cells.pyx)."""

import numpy as np
import numpy.typing as npt

def cells(
    xy: npt.NDArray[np.float64], line_ends: npt.NDArray[np.int64], height: int, width: int, all_touched: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def burn(
    cell_ends: npt.NDArray[np.int64],
    pixels: npt.NDArray[np.int64],
    values: npt.NDArray[np.generic],
    out: npt.NDArray[np.generic],
    row0: int,
    col0: int,
    width: int,
    add: bool,
    positions: npt.NDArray[np.int64] | None = None,
    below: npt.NDArray[np.int64] | None = None,
) -> None: ...
