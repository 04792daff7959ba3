"""The benchmark problems, generated the same way everywhere.

The 2014 course timed a 1024x1024 image and a random 24-vertex polygon.
Its generator is not published, so polymask fixes its own: vertices drawn
uniformly in [0, size) on both axes from NumPy's PCG64 with a fixed seed.
Such a polygon is self-intersecting, which is exactly the stress the
even-odd rule is for.  Label images take many small polygons instead
(`small_polygons`), like building footprints or cell outlines; instance
masks take COCO-like objects (`instance_polygons`); and one small polygon in
a huge image (`small_in_large_image`) is the sparse extreme, where only the
polygon's rows should cost anything.
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


def small_in_large_image(size: int = 8192, n_vertices: int = 40) -> tuple[np.ndarray, tuple[int, int]]:
    """(vertices, shape): a star of `n_vertices` about 300 px wide near the middle of a size x size image."""
    angles = np.linspace(0.0, 2.0 * np.pi, n_vertices, endpoint=False)
    radius = np.where(np.arange(n_vertices) % 2 == 0, 150.0, 110.0)
    centre = size / 2 - 95.7
    vertices = np.column_stack([centre + radius * np.cos(angles), centre + radius * np.sin(angles)])
    return vertices, (size, size)


def instance_polygons(count: int = 1000, shape: tuple[int, int] = (480, 640),
                      seed: int = 13) -> tuple[list[np.ndarray], tuple[int, int]]:
    """(polygons, shape): star-shaped instances like COCO's, 10-60 vertices, 20-240 px across, anywhere."""
    rng = np.random.default_rng(seed)
    polygons = []
    for _ in range(count):
        n = int(rng.integers(10, 61))
        size = rng.uniform(20.0, 240.0)
        centre = rng.uniform([0.0, 0.0], [shape[1], shape[0]])
        angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, n))
        radius = rng.uniform(0.3, 0.5, n) * size
        polygons.append(np.column_stack([centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles)]))
    return polygons, shape
