"""Exercise 08 as a scanline in plain Python: per row a loop over the edges, the spans filled by slices."""

import math

import numpy as np


def mask(vertices, shape):
    rows, cols = shape
    result = np.zeros((rows, cols), dtype=bool)
    points = [(float(x), float(y)) for x, y in np.asarray(vertices, dtype=np.float64).reshape(-1, 2)]
    for row in range(rows):
        py = float(row)
        starts = []  # ceil(x_cross) of each crossing, clipped to the image: pixel col counts it when col < start
        xj, yj = points[-1] if points else (0.0, 0.0)
        for xi, yi in points:  # edge (i, j), j = i - 1
            if (yi > py) != (yj > py):
                x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
                if not math.isnan(x_cross):  # col < NaN is never true: such a crossing counts for no pixel
                    starts.append(0 if x_cross < 0 else cols if x_cross > cols else math.ceil(x_cross))
            xj, yj = xi, yi
        starts.sort()
        if len(starts) % 2:  # an odd count left of the first start: inside from column 0
            starts.insert(0, 0)
        for first, end in zip(starts[0::2], starts[1::2]):
            result[row, first:end] = True
    return result
