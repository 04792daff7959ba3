"""The benchmark problems, generated the same way everywhere.

The 2014 course timed a 1024x1024 image and a random 24-vertex polygon.
Its generator is not published, so polymask fixes its own: vertices drawn
uniformly in [0, size) on both axes from NumPy's PCG64 with a fixed seed.
Such a polygon is self-intersecting, which is exactly the stress the
even-odd rule is for.  Label images take many small polygons instead
(`small_polygons`), like building footprints or cell outlines.
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


def small_polygons(count: int, shape: tuple[int, int], n_vertices: int = 8,
                   seed: int = STANDARD_SEED) -> np.ndarray:
    """(count, n_vertices, 2) float64: small star-shaped polygons anywhere in an image of `shape`.

    Each has its vertices in angle order around a uniform random centre, at
    radii uniform in [3, 20) pixels: what the label-image benchmarks burn.
    """
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 1, size=(count, 1, 2)) * [shape[1], shape[0]]
    angles = np.sort(rng.uniform(0, 2 * np.pi, size=(count, n_vertices)), axis=1)
    radii = rng.uniform(3, 20, size=(count, n_vertices))
    return centres + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
