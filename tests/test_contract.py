"""polymask.mask obeys the mask contract, bit for bit.

Grid-aligned polygons are checked against exact rational arithmetic; every
polygon is checked against the contract's float64 rule evaluated by NumPy.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polymask
from polymask.course.cases import contract_cases, many_vertex_case
from tests._support import assert_same_mask, double_mask, exact_mask

CASES = contract_cases()
GRID_CASES = [case for case in CASES if case.grid_aligned]



def test_grid_case_set_is_not_empty():
    assert len(GRID_CASES) >= 10


@pytest.mark.parametrize("case", GRID_CASES, ids=lambda c: c.name)
def test_grid_aligned_polygons_equal_exact_arithmetic(case):
    assert_same_mask(polymask.mask(case.vertices, case.shape), exact_mask(case.vertices, case.shape), case.name)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_case_equals_the_double_rule(case):
    assert_same_mask(polymask.mask(case.vertices, case.shape), double_mask(case.vertices, case.shape), case.name)


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_thread_count_does_not_change_the_mask(threads):
    vertices, shape = polymask.course.problems.standard_problem(size=200, n_vertices=60)
    assert_same_mask(polymask.mask(vertices, shape, threads=threads), double_mask(vertices, shape), "threads")


def test_one_hundred_thousand_vertices():
    case = many_vertex_case(size=24, n_vertices=100_000)
    assert_same_mask(polymask.mask(case.vertices, case.shape), double_mask(case.vertices, case.shape), case.name)


def test_one_hundred_thousand_integer_vertices_are_exact():
    # Exact rational arithmetic with integers only: px < x_cross  <=>
    # (px - xi) * (yj - yi) < (xj - xi) * (py - yi) when yj > yi (flip if not).
    rng = np.random.default_rng(5)
    vertices = rng.integers(-3, 30, size=(100_000, 2))
    rows, cols = 20, 27
    xi, yi = vertices[:, 0], vertices[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)
    expected = np.zeros((rows, cols), bool)
    for row in range(rows):
        crosses = (yi > row) != (yj > row)
        a, b, c, d = xi[crosses], yi[crosses], xj[crosses], yj[crosses]
        px = np.arange(cols)[:, None]
        lhs = (px - a) * (d - b)
        rhs = (c - a) * (row - b)
        right = np.where(d > b, lhs < rhs, lhs > rhs)
        expected[row] = right.sum(axis=1) % 2 == 1
    assert_same_mask(polymask.mask(vertices, (rows, cols)), expected, "100k integer vertices")


def test_half_open_rule_shared_edges_partition_the_image():
    # Two polygons sharing a slanted edge: every pixel belongs to exactly one.
    left = [(0, 0), (13.3, 0), (7.1, 20), (0, 20)]
    right = [(13.3, 0), (20, 0), (20, 20), (7.1, 20)]
    a, b = polymask.mask(left, (20, 20)), polymask.mask(right, (20, 20))
    assert not np.any(a & b), "shared edge claimed twice"
    assert np.all(a | b), "gap along the shared edge"


def test_literal_square_is_half_open():
    expected = np.array([
        [0, 0, 0, 0, 0, 0],
        [0, 1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0, 0],
        [0, 0, 0, 0, 0, 0],
    ], dtype=bool)
    assert_same_mask(polymask.mask([(1, 1), (4, 1), (4, 4), (1, 4)], (5, 6)), expected, "square")


def test_point_exactly_on_a_horizontal_edge_follows_the_rule():
    # Row 2 lies on the top edge (inside, half-open) and row 5 on the bottom (outside).
    result = polymask.mask([(1, 2), (4, 2), (4, 5), (1, 5)], (7, 6))
    assert result[2, 1:4].all() and not result[5].any()


def test_out_is_filled_in_place_and_returned():
    vertices, shape = [(0, 0), (5, 0), (5, 5)], (6, 7)
    expected = polymask.mask(vertices, shape)
    for dtype in (bool, np.uint8):
        out = np.full(shape, 7 if dtype is np.uint8 else True, dtype=dtype)
        result = polymask.mask(vertices, shape, out=out)
        assert result is out
        np.testing.assert_array_equal(out.astype(bool), expected)
        assert set(np.unique(out.view(np.uint8))) <= {0, 1}


def test_accepts_lists_tuples_ints_float32_and_fortran_order():
    vertices = [(1, 1), (9, 2), (5, 8)]
    expected = polymask.mask(np.array(vertices, dtype=np.float64), (10, 10))
    for variant in (vertices, tuple(vertices), np.array(vertices, dtype=np.int32),
                    np.array(vertices, dtype=np.float32), np.asfortranarray(np.array(vertices, float)),
                    np.array(vertices, dtype=object), np.repeat(np.array(vertices, float), 2, axis=0)[::2]):
        np.testing.assert_array_equal(polymask.mask(variant, (10, 10)), expected)


def test_accepts_numpy_integer_shapes():
    np.testing.assert_array_equal(polymask.mask([(0, 0), (3, 0), (0, 3)], (np.int64(4), np.uint8(4))),
                                  polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4)))


def test_readme_example():
    result = polymask.mask([(1, 1), (6.5, 2), (4, 7)], (8, 8))
    expected = exact_mask([(1, 1), (6.5, 2), (4, 7)], (8, 8))
    assert_same_mask(result, expected, "readme")


coordinate = st.floats(min_value=-40, max_value=80, allow_nan=False, width=64)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=30),
       st.integers(1, 40), st.integers(1, 40))
def test_random_polygons_equal_the_double_rule(vertices, rows, cols):
    assert_same_mask(polymask.mask(vertices, (rows, cols)), double_mask(vertices, (rows, cols)), "hypothesis")


grid = st.integers(-10, 50).map(lambda v: v / 2)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(grid, grid), min_size=0, max_size=12))
def test_random_half_integer_polygons_are_exact(vertices):
    assert_same_mask(polymask.mask(vertices, (20, 23)), exact_mask(vertices, (20, 23)), "hypothesis exact")
