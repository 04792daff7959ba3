"""polymask.contains and polymask.contains_labels: the contract at any points.

References: the crossing rule in exact rational arithmetic where the
contract promises exactness (integer vertices, points on the half-integer
grid, within 2^20), and the contract's float64 formula evaluated point by
point elsewhere (tests/_support.py); and polymask.mask where the points are
the grid's.
"""
from __future__ import annotations

import numpy as np
import pytest

import polymask
from tests._support import double_points, exact_points

RULES = ["evenodd", "nonzero"]


def _adversarial_points(rings, rng, count=300):
    """Vertices, edge midpoints, points on horizontal edges and their rows, and random half-integer points."""
    vertices = np.concatenate([np.asarray(ring, dtype=float) for ring in rings])
    rolled = np.concatenate([np.roll(np.asarray(ring, dtype=float), 1, axis=0) for ring in rings])
    midpoints = np.round((vertices + rolled)) / 2  # half-integer: on the edge when it is axis-aligned or diagonal
    low, high = vertices.min(axis=0) - 2, vertices.max(axis=0) + 2
    random = np.round(rng.uniform(low, high, size=(count, 2)) * 2) / 2
    rows = np.column_stack([rng.uniform(low[0], high[0], len(vertices)).round(), vertices[:, 1]])
    points = np.concatenate([vertices, midpoints, random, rows, vertices + 0.5, vertices - 0.5])
    return points[:, 0], points[:, 1]


@pytest.mark.parametrize("fill_rule", RULES)
@pytest.mark.parametrize("seed", range(6))
def test_equals_exact_rationals_on_integer_polygons(seed, fill_rule):
    rng = np.random.default_rng(seed)
    scale = [8, 40, 2**20, 8, 40, 2**20][seed]
    n = int(rng.integers(3, 30))
    rings = [rng.integers(-scale, scale, size=(n, 2)).astype(float)]
    if seed % 2:  # a second ring: a hole or a second part
        rings.append(rng.integers(-scale, scale, size=(5, 2)).astype(float))
    x, y = _adversarial_points(rings, rng)
    got = polymask.contains(rings if len(rings) > 1 else rings[0], x, y, fill_rule=fill_rule)
    np.testing.assert_array_equal(got, exact_points(rings, x, y, fill_rule))


@pytest.mark.parametrize("fill_rule", RULES)
@pytest.mark.parametrize("n_vertices", [3, 24, 1000])
def test_equals_the_float64_formula_on_random_polygons(n_vertices, fill_rule):
    rng = np.random.default_rng(n_vertices)
    ring = rng.uniform(-100, 100, size=(n_vertices, 2))
    x, y = rng.uniform(-110, 110, size=(2, 400))
    # Points one ulp either side of every vertex, and on the rows of the vertices.
    x = np.concatenate([x, np.nextafter(ring[:, 0], np.inf), np.nextafter(ring[:, 0], -np.inf), ring[:, 0]])
    y = np.concatenate([y, ring[:, 1], np.nextafter(ring[:, 1], np.inf), np.nextafter(ring[:, 1], -np.inf)])
    np.testing.assert_array_equal(polymask.contains(ring, x, y, fill_rule=fill_rule),
                                  double_points([ring], x, y, fill_rule))


@pytest.mark.parametrize("threads", [1, 2, None])
def test_at_the_grid_it_is_the_mask(threads):
    rng = np.random.default_rng(7)
    shape = (97, 131)
    rows, cols = np.mgrid[0:shape[0], 0:shape[1]]
    for trial in range(10):
        ring = rng.uniform(-10, 140, size=(int(rng.integers(3, 60)), 2))
        if trial % 2:
            ring = ring.round()  # grid-aligned vertices: points on edges and vertices
        for fill_rule in RULES:
            expected = polymask.mask(ring, shape, fill_rule=fill_rule)
            np.testing.assert_array_equal(polymask.contains(ring, cols, rows, fill_rule=fill_rule, threads=threads),
                                          expected)
            # Broadcast: a column of rows and a row of columns.
            np.testing.assert_array_equal(
                polymask.contains(ring, np.arange(shape[1]), np.arange(shape[0])[:, None], fill_rule=fill_rule),
                expected)


@pytest.mark.parametrize("fill_rule", RULES)
def test_a_row_of_x_and_a_column_of_y_fill_by_rows_with_the_same_answers(fill_rule):
    # x uneven, unsorted, with repeats and the vertices' own x; y in any order:
    # the rectilinear fill must give every point what the point path gives it.
    rng = np.random.default_rng(12)
    for trial in range(8):
        ring = rng.uniform(-50, 50, size=(30, 2))
        if trial % 2:
            ring = ring.round()
        x = np.concatenate([rng.uniform(-60, 60, 80), ring[:, 0], [ring[0, 0]]])
        y = np.concatenate([rng.uniform(-60, 60, 40), ring[:, 1]])
        x_grid, y_grid = np.meshgrid(x, y)  # full arrays: the point path
        by_points = polymask.contains(ring, x_grid, y_grid, fill_rule=fill_rule)
        for row, column in [(x, y[:, None]), (x[None, :], y[:, None])]:
            np.testing.assert_array_equal(polymask.contains(ring, row, column, fill_rule=fill_rule), by_points)
        np.testing.assert_array_equal(by_points[:5, :5], double_points([ring], x_grid[:5, :5], y_grid[:5, :5],
                                                                        fill_rule))


def test_many_points_on_threads_equal_one_thread():
    rng = np.random.default_rng(8)
    angles = np.sort(rng.uniform(0, 2 * np.pi, 1000))
    radii = rng.uniform(200, 500, 1000)
    ring = np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])
    x, y = rng.uniform(-520, 520, size=(2, 300_000))
    one = polymask.contains(ring, x, y, threads=1)
    np.testing.assert_array_equal(polymask.contains(ring, x, y), one)
    sample = slice(0, 2000)
    np.testing.assert_array_equal(one[sample], double_points([ring], x[sample], y[sample]))


def test_holes_and_geojson():
    outer, hole = [(0, 0), (6, 0), (6, 6), (0, 6)], [(2, 2), (4, 2), (4, 4), (2, 4)]
    geojson = {"type": "Polygon", "coordinates": [outer, hole]}
    x = np.array([1, 3, 5, 2, 4, 6])
    y = np.array([1, 3, 3, 2, 2, 3])
    np.testing.assert_array_equal(polymask.contains(geojson, x, y), [True, False, True, False, True, False])


def test_shapes_and_scalars():
    square = [(0, 0), (2, 0), (2, 2), (0, 2)]
    assert polymask.contains(square, 1, 1).shape == ()
    assert polymask.contains(square, 1, 1)[()]
    assert polymask.contains(square, np.zeros((0, 3)), 1).shape == (0, 3)
    assert polymask.contains(square, np.ones((2, 1, 3)), np.ones(4)[:, None]).shape == (2, 4, 3)


@pytest.mark.parametrize(("x", "y", "error", "words"), [
    ([1, -np.inf], [1, 1], ValueError, "x[1] = -inf is not finite"),
    ([1, 1], [[1], [np.inf]], ValueError, "y[1, 0] = inf is not finite"),
    ([1, 2, 3], [1, 2], ValueError, "x and y must broadcast to one shape, got shapes (3,) and (2,)"),
    (["a"], [1], TypeError, "x must be real numbers, got dtype <U1"),
    ([1], "1", TypeError, "y must be real numbers"),
    ([True], [1], TypeError, "x must be real numbers, got dtype bool"),
])
def test_bad_points_are_refused_by_name(x, y, error, words):
    with pytest.raises(error) as raised:
        polymask.contains([(0, 0), (2, 0), (2, 2)], x, y)
    assert words in str(raised.value)


def test_bad_polygon_rule_and_threads_are_refused():
    with pytest.raises(ValueError, match="not finite"):
        polymask.contains([(0, 0), (np.nan, 0), (2, 2)], [1], [1])
    with pytest.raises(ValueError, match="fill_rule must be one of"):
        polymask.contains([(0, 0), (2, 0), (2, 2)], [1], [1], fill_rule="winding")
    with pytest.raises(TypeError, match="threads"):
        polymask.contains([(0, 0), (2, 0), (2, 2)], [1], [1], threads=1.5)


def test_degenerate_polygons_hold_no_point():
    for ring in [np.zeros((0, 2)), [(0, 0), (3, 3)], [(0, 1), (5, 1), (9, 1)]]:
        assert not polymask.contains(ring, [0, 1, 2, 4], [0, 1, 1, 4]).any()


@pytest.mark.parametrize("fill_rule", RULES)
def test_labels_are_contains_later_over_earlier(fill_rule):
    rng = np.random.default_rng(9)
    polygons = [rng.uniform(0, 50, size=(int(rng.integers(3, 12)), 2)) for _ in range(12)]
    x, y = rng.uniform(-5, 55, size=(2, 5000))
    expected = np.zeros(x.shape, dtype=np.int64)
    for p, polygon in enumerate(polygons):
        expected[polymask.contains(polygon, x, y, fill_rule=fill_rule)] = p + 1
    labels = polymask.contains_labels(polygons, x, y, fill_rule=fill_rule)
    assert labels.dtype == np.uint8
    np.testing.assert_array_equal(labels, expected)
    values = np.arange(12) * 1.5 - 3
    labelled = polymask.contains_labels(polygons, x, y, values, dtype=np.float32, fill_rule=fill_rule)
    assert labelled.dtype == np.float32
    np.testing.assert_array_equal(labelled, np.concatenate([[0], values]).astype(np.float32)[expected])


def test_labels_at_the_grid_are_rasterize():
    rng = np.random.default_rng(10)
    polygons = [rng.uniform(-5, 45, size=(8, 2)) for _ in range(20)]
    rows, cols = np.mgrid[0:40, 0:45]
    np.testing.assert_array_equal(polymask.contains_labels(polygons, cols, rows),
                                  polymask.rasterize(polygons, (40, 45)))


def _points_with_nan(rng, count=4000):
    """Random points around [0, 50]^2, a fifth of them missing x, y or both (NaN)."""
    x, y = rng.uniform(-5, 55, size=(2, count))
    x[rng.random(count) < 0.1] = np.nan
    y[rng.random(count) < 0.1] = np.nan
    return x, y


@pytest.mark.parametrize("fill_rule", RULES)
def test_a_point_with_a_nan_coordinate_is_in_no_polygon_as_in_shapely(fill_rule):
    shapely = pytest.importorskip("shapely")
    rng = np.random.default_rng(11)
    x, y = _points_with_nan(rng)
    square = [(0, 0), (50, 0), (50, 50), (0, 50)]  # convex: shapely's answer is the contract's off the border
    expected = shapely.contains_xy(shapely.Polygon(square), x, y)
    assert np.isnan(x[~expected]).any() and not np.isnan(x[expected]).any()
    np.testing.assert_array_equal(polymask.contains(square, x, y, fill_rule=fill_rule), expected)
    polygon = rng.uniform(0, 50, size=(9, 2))
    known = ~(np.isnan(x) | np.isnan(y))
    answer = polymask.contains(polygon, x, y, fill_rule=fill_rule)
    assert not answer[~known].any()
    np.testing.assert_array_equal(answer[known], polymask.contains(polygon, x[known], y[known], fill_rule=fill_rule))


def test_nan_rows_and_columns_of_a_grid_are_in_no_polygon():
    polygon = [(0, 0), (7, 0), (7, 5), (0, 5)]
    x, y = np.arange(8.0), np.arange(6.0)[:, None]
    x[[2, 5]], y[3] = np.nan, np.nan
    full = polymask.contains(polygon, np.broadcast_to(x, (6, 8)), np.broadcast_to(y, (6, 8)))  # point by point
    grid = polymask.contains(polygon, x, y)
    assert not grid[3].any() and not grid[:, [2, 5]].any() and grid[0, 0]
    np.testing.assert_array_equal(grid, full)
    labels = polymask.contains_labels([polygon], x[::-1], y, values=[7])  # descending x: the sorted path too
    np.testing.assert_array_equal(labels, np.where(grid[:, ::-1], 7, 0))


def test_nan_points_get_the_background_label():
    rng = np.random.default_rng(12)
    polygons = [rng.uniform(0, 50, size=(int(rng.integers(3, 12)), 2)) for _ in range(12)]
    x, y = _points_with_nan(rng)
    known = ~(np.isnan(x) | np.isnan(y))
    labels = polymask.contains_labels(polygons, x, y, values=np.arange(12) + 5)
    assert (labels[~known] == 0).all()
    np.testing.assert_array_equal(labels[known], polymask.contains_labels(polygons, x[known], y[known],
                                                                          values=np.arange(12) + 5))
    expected = np.zeros(x.shape, dtype=np.int64)
    for p, polygon in enumerate(polygons):
        expected[polymask.contains(polygon, x, y)] = p + 5
    np.testing.assert_array_equal(labels, expected)


def test_polygon_vertices_with_nan_stay_refused():
    with pytest.raises(ValueError, match="not finite"):
        polymask.contains_labels([[(0, 0), (np.nan, 0), (2, 2)]], [1], [1])
