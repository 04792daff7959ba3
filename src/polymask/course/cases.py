"""The contract's polygon set: every backend is checked on these cases.

The tests, the stage ladder's checks and the exercise checker all use this
one list, so "passes the tests" means the same thing everywhere.  Each case
is small enough for the pure-Python stage at the default size, and together
they cover what the mask contract singles out: horizontal and vertical
edges, vertices exactly on pixel centres, integer and half-integer
polygons, repeated and collinear vertices, self-intersection, polygons
partly or wholly outside the image, negative and huge coordinates, and 0,
1, 2 and 3 vertices.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polymask.course.problems import random_polygon


@dataclass(frozen=True)
class Case:
    """One polygon on one image."""

    name: str
    vertices: np.ndarray  # (N, 2) float64
    shape: tuple[int, int]
    #: True when every vertex is on the integer or half-integer grid, so the
    #: double result must equal exact rational arithmetic.
    grid_aligned: bool


def make_case(name, vertices, shape, grid_aligned=None) -> Case:
    array = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if grid_aligned is None:
        # The contract's exactness promise: integer vertices below 2**24,
        # half-integer ones below 2**22, in magnitude.
        integer = bool(np.all(array == np.round(array)))
        half_integer = bool(np.all(array * 2 == np.round(array * 2)))
        bound = 2.0**24 if integer else 2.0**22
        grid_aligned = half_integer and (array.size == 0 or float(np.abs(array).max()) < bound)
    return Case(name, array, tuple(shape), grid_aligned)


def contract_cases(size: int = 24) -> list[Case]:
    """The polygon set on a `size` x `size` image (most cases scale with it)."""
    s = float(size)
    shape = (size, size)
    wide = (size, size + 5)  # a non-square image catches rows/cols mix-ups
    rng = np.random.default_rng(7)
    star = [(s / 2 + s * 0.45 * np.cos(a), s / 2 + s * 0.45 * np.sin(a))
            for a in np.linspace(0, 4 * np.pi, 5, endpoint=False)]
    cases = [
        make_case("square", [(2, 2), (s - 4, 2), (s - 4, s - 4), (2, s - 4)], shape),
        make_case("triangle", [(1, 1), (s - 2, 3), (s / 2, s - 1)], wide),
        make_case("concave_u", [(1, 1), (s - 2, 1), (s - 2, s - 2), (s - 6, s - 2), (s - 6, 5),
                            (6, 5), (6, s - 2), (1, s - 2)], shape),
        make_case("rectilinear_steps", [(0, 0), (6, 0), (6, 4), (12, 4), (12, 9), (s - 1, 9),
                                    (s - 1, s - 1), (0, s - 1)], wide),
        make_case("pixel_centres_diamond", [(s / 2, 0), (s - 1, s / 2), (s / 2, s - 1), (0, s / 2)], shape),
        make_case("half_integer", [(0.5, 1.5), (s - 2.5, 0.5), (s - 0.5, s - 3.5), (3.5, s - 1.5)], shape),
        make_case("repeated_vertices", [(3, 3), (3, 3), (s - 3, 3), (s - 3, 3), (s - 3, s - 3),
                                    (3, s - 3), (3, s - 3), (3, 3)], shape),
        make_case("collinear_points", [(2, 2), (s / 2, 2), (s - 2, 2), (s - 2, s / 2), (s - 2, s - 2),
                                   (2, s - 2), (2, s / 2)], shape),
        make_case("pentagram", star, shape, grid_aligned=False),
        make_case("figure_eight", [(1, 1), (s / 2, 1), (s / 2, s / 2), (s - 1, s / 2), (s - 1, s - 1),
                               (s / 2, s - 1), (s / 2, s / 2), (1, s / 2)], shape),
        make_case("partly_outside", [(-5, -3), (s / 2, -7), (s + 6, s / 2), (s / 3, s + 4)], wide),
        make_case("wholly_outside", [(s + 1, 0), (s + 9, 0), (s + 5, s)], shape),
        make_case("contains_image", [(-100, -100), (s + 100, -100), (s + 100, s + 100), (-100, s + 100)], shape),
        make_case("negative_coordinates", [(-40, -2), (s / 2, -30), (s / 2 + 0.25, s / 2 + 0.75), (-3, s / 2)], shape),
        make_case("huge_coordinates", [(-1e12, -3), (1e15, s / 3), (s / 2, 1e9), (-1e300, s / 2)], shape),
        make_case("no_vertices", np.zeros((0, 2)), shape),
        make_case("one_vertex", [(s / 2, s / 2)], shape),
        make_case("two_vertices", [(1, 1), (s - 1, s - 1)], shape),
        make_case("three_vertices", [(0.25, 0.75), (s - 0.5, s / 3 + 0.125), (s / 4, s - 0.0625)], shape),
        make_case("zero_area_spike", [(2, 2), (s - 2, s / 2), (2, 2)], shape),
        make_case("random_24", random_polygon(24, size, seed=2014), shape, grid_aligned=False),
        make_case("random_24_wide", random_polygon(24, size + 5, seed=1) - [0.0, 2.5], wide, grid_aligned=False),
        make_case("random_integer_40", rng.integers(-2, size + 2, size=(40, 2)), shape),
        make_case("random_half_integer_30", rng.integers(-4, 2 * size + 4, size=(30, 2)) / 2.0, wide),
    ]
    return cases


def many_vertex_case(size: int = 24, n_vertices: int = 100_000) -> Case:
    """A random polygon with a great many vertices (the vertex-count stress case)."""
    return make_case(f"random_{n_vertices}", random_polygon(n_vertices, size, seed=99), (size, size),
                 grid_aligned=False)
