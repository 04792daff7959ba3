"""polymask.course.problems: the benchmark problems are what their docstrings say, the same every time."""
import numpy as np

from polymask.course.problems import random_polygon, small_polygons, standard_problem


def test_standard_problem_is_the_seeded_random_polygon():
    vertices, shape = standard_problem()
    assert shape == (1024, 1024)
    np.testing.assert_array_equal(vertices, random_polygon(24, 1024))
    assert vertices.shape == (24, 2) and vertices.min() >= 0 and vertices.max() < 1024


def test_small_polygons_are_small_stars_anywhere_in_the_image():
    polygons = small_polygons(2000, (300, 500), n_vertices=16, seed=3)
    assert polygons.shape == (2000, 16, 2) and polygons.dtype == np.float64
    # Vertices at radii in [3, 20) around a centre in the image: every
    # polygon fits a 40-pixel box, and the boxes' middles spread over the
    # whole image (x up to 500 wide, y up to 300 high).
    spans = polygons.max(axis=1) - polygons.min(axis=1)
    assert spans.max() < 40 and spans.min() > 3
    middles = (polygons.max(axis=1) + polygons.min(axis=1)) / 2
    assert middles[:, 0].min() < 40 and middles[:, 0].max() > 460
    assert middles[:, 1].min() < 40 and middles[:, 1].max() > 260
    # The same seed gives the same polygons, another seed others.
    np.testing.assert_array_equal(polygons, small_polygons(2000, (300, 500), n_vertices=16, seed=3))
    assert not np.array_equal(polygons, small_polygons(2000, (300, 500), n_vertices=16, seed=4))
