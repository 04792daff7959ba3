"""Random polylines in pixel units, of every kind the line walks treat apart, for the line tests."""

from __future__ import annotations

import numpy as np
from affine import Affine

SHAPE = (29, 37)
TRANSFORMS = [
    Affine.identity(),
    Affine(0.1, 0.0, -1.0, 0.0, -0.1, 2.0),
    Affine(0.37, 0.05, 3.0, 0.02, -0.41, 7.0),
    Affine(2.0, 0.0, 10.0, 0.0, 0.5, -4.0),
]


def pixel_lines(seed, count):
    """Polylines in pixel units, of every kind the walks treat apart."""
    rng = np.random.default_rng(seed)
    height, width = SHAPE
    lines = []
    for k in range(count):
        n = int(rng.integers(2, 7))
        reach = 6.0 if k % 3 else 60.0  # every third line may reach far out
        cols, rows = rng.uniform(-reach, width + reach, n), rng.uniform(-reach, height + reach, n)
        if k % 4 == 1:  # short steps
            cols, rows = np.cumsum(rng.normal(0, 1.5, n)) + cols[0], np.cumsum(rng.normal(0, 1.5, n)) + rows[0]
        if k % 5 == 0:
            cols, rows = np.round(cols * 2) / 2, np.round(rows * 2) / 2
        if k % 6 == 0:
            cols, rows = np.round(cols), np.round(rows)
        if k % 7 == 0:
            cols = cols[0] + rng.uniform(-0.012, 0.012, n)
        if k % 11 == 0:
            rows = rows[0] + rng.uniform(-0.012, 0.012, n)
        if k % 13 == 0:  # diagonals through cell corners
            rows = rows[0] + (cols - cols[0]) * rng.choice([1.0, -1.0, 0.5, -2.0])
        lines.append(np.stack([cols, rows], axis=1))
    return lines
