"""The benchmark problems, generated the same way everywhere.

The 2014 course timed a 1024x1024 image and a random 24-vertex polygon.
Its generator is not published, so polymask fixes its own: vertices drawn
uniformly in [0, size) on both axes from NumPy's PCG64 with a fixed seed.
Such a polygon is self-intersecting, which is exactly the stress the
even-odd rule is for.
"""
from __future__ import annotations

import numpy as np

#: Seed of the standard problem; every table and test uses it.
STANDARD_SEED = 2014
STANDARD_SIZE = 1024
STANDARD_VERTICES = 24


def random_polygon(n_vertices: int, size: int, seed: int = STANDARD_SEED) -> np.ndarray:
    """n_vertices random (x, y) vertices, uniform in [0, size), as (N, 2) float64."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.0, float(size), size=(n_vertices, 2))


def standard_problem(size: int = STANDARD_SIZE, n_vertices: int = STANDARD_VERTICES,
                     seed: int = STANDARD_SEED) -> tuple[np.ndarray, tuple[int, int]]:
    """(vertices, shape) of the course's problem, or a resized variant of it."""
    return random_polygon(n_vertices, size, seed), (size, size)
