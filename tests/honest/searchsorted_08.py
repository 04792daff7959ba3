"""Exercise 08 as a NumPy scanline: per row, the crossings sorted, each pixel's count from searchsorted."""
import numpy as np


def mask(vertices, shape):
    rows, cols = shape
    result = np.zeros((rows, cols), dtype=bool)
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if len(vertices) == 0:
        return result
    xi, yi = vertices[:, 0], vertices[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)  # edge (i, j), j = i - 1
    columns = np.arange(cols, dtype=np.float64)
    with np.errstate(all="ignore"):
        for row in range(rows):
            py = float(row)
            crossing = (yi > py) != (yj > py)
            xs = ((xj[crossing] - xi[crossing]) * (py - yi[crossing]) / (yj[crossing] - yi[crossing])
                  + xi[crossing])
            xs = np.sort(xs[~np.isnan(xs)])
            # Crossings right of column c: those with c < x_cross; an odd count is inside.
            right = len(xs) - np.searchsorted(xs, columns, side="right")
            result[row] = right % 2 == 1
    return result
