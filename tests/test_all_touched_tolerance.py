"""all_touched=True takes a border an ulp past a grid line as on it; "exact" is coverage > 0.

``all_touched=True`` counts a cell as touched when it shares positive area
with the region both as given and with every vertex coordinate within 1e-7
pixel of a cell side moved onto that side.  Real borders stored an ulp past
a cell side, as Natural Earth's 49th parallel is (49.000000000000114), then
touch nothing beyond it, as with GDAL; and moving a vertex never adds a
cell.  ``all_touched="exact"`` is ``coverage > 0``.  The expectations come
from the exact rational reference of tests/coverage_reference.py, applied to
the given polygon and to one moved here with fractions.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import polymask
import polymask.dask
from tests.coverage_reference import exact_coverage, positive

RULES = ("evenodd", "nonzero")
TOLERANCE = Fraction(1, 10**7)


def moved(polygon: np.ndarray) -> np.ndarray:
    """`polygon` with each coordinate within TOLERANCE of a half-integer moved onto it (exact arithmetic)."""
    def move(value: float) -> float:
        side = Fraction(math.floor(value)) + Fraction(1, 2)
        return float(side) if abs(Fraction(value) - side) <= TOLERANCE else value

    return np.vectorize(move, otypes=[float])(polygon)


def tolerant_truth(polygon: np.ndarray, shape: tuple[int, int], rule: str = "evenodd") -> np.ndarray:
    """all_touched=True's answer: positive area as given and as moved."""
    return positive(exact_coverage(polygon, shape, rule)) & positive(exact_coverage(moved(polygon), shape, rule))


def strip_under_row(height: float) -> np.ndarray:
    """Cells 1..3 of rows 1..2, reaching `height` of a cell's side into row 0."""
    return np.array([(0.5, 0.5 - height), (3.5, 0.5 - height), (3.5, 2.5), (0.5, 2.5)])


def test_an_edge_one_ulp_past_a_cell_side_touches_only_with_exact():
    polygon = strip_under_row(0.5 - np.nextafter(0.5, 0.0))  # the top edge at the largest double below 0.5
    exact = exact_coverage(polygon, (4, 5))
    assert 0 < exact[0, 1] < 1e-15
    loose = polymask.mask(polygon, (4, 5), all_touched=True)
    strict = polymask.mask(polygon, (4, 5), all_touched="exact")
    np.testing.assert_array_equal(strict, positive(exact))
    np.testing.assert_array_equal(loose, tolerant_truth(polygon, (4, 5)))
    assert strict[0, 1:4].all() and not loose[0].any() and loose[1:3, 1:4].all()


@pytest.mark.parametrize("height, touched", [(2.0 ** -23, True), (2.0 ** -24, False), (2.0 ** -10, True),
                                             (2.0 ** -45, False)])
def test_reaches_on_either_side_of_the_tolerance(height, touched):
    # Row 0's cells 1..3 reach `height` of a pixel into the region: 1.2e-7 is
    # past 1e-7, 6e-8 short of it.
    polygon = strip_under_row(height)
    loose = polymask.mask(polygon, (4, 5), all_touched=True)
    assert loose[0, 1:4].all() == touched and loose[0, 1:4].any() == touched
    assert polymask.mask(polygon, (4, 5), all_touched="exact")[0, 1:4].all()


def test_natural_earths_49th_parallel_leaves_the_row_above_alone():
    # A country south of 49 N whose border is stored one ulp above 49, on a
    # 0.1 degree north-up grid: the row of cells just above 49 holds a sliver
    # of about 1e-12 of each cell.
    border = 49.000000000000114
    country = [(-120.0, 45.0), (-110.0, 45.0), (-110.0, border), (-120.0, border)]
    transform = (0.1, 0.0, -125.0, 0.0, -0.1, 50.0)  # rows from 50 N down
    shape = (60, 160)
    loose = polymask.mask(country, shape, transform=transform, all_touched=True)
    strict = polymask.mask(country, shape, transform=transform, all_touched="exact")
    row = 9  # the cells between 49.1 and 49.0
    assert strict[row].sum() == 100 and not loose[row].any()
    np.testing.assert_array_equal(loose[row + 1:], strict[row + 1:])
    assert 0 < polymask.coverage(country, shape, transform=transform)[row].max() < 1e-11
    labels = polymask.rasterize([country], shape, [7], transform=transform, all_touched=True)
    np.testing.assert_array_equal(labels == 7, loose)


def test_moving_a_vertex_adds_no_corner_graze():
    # An edge exactly through the corner (-1/2, 3/2) (shifted here by (3, 0))
    # from a vertex 2^-40 past a row's side: moved onto the side, the vertex
    # would make the edge graze the cell left of the corner.
    delta = 2.0 ** -40
    polygon = np.array([(3.0, 0.5 + delta), (1.875, 2.75 - 1.25 * delta), (6.25, 2.75)])
    shape = (4, 8)
    assert positive(exact_coverage(moved(polygon), shape))[1, 2]
    assert not positive(exact_coverage(polygon, shape))[1, 2]
    loose = polymask.mask(polygon, shape, all_touched=True)
    assert not loose[1, 2]
    np.testing.assert_array_equal(loose, tolerant_truth(polygon, shape))


def _near_side_polygons(seed: int) -> list[np.ndarray]:
    """Random polygons whose coordinates sit on, near and far from cell sides."""
    rng = np.random.default_rng(seed)
    offsets = np.array([0.0, 1e-13, -3e-9, 9.9e-8, -1e-7, 1.01e-7, 2e-7, -0.3])
    polygons = []
    for n in (3, 5, 8):
        sides = rng.integers(0, 11, (n, 2)) + 0.5
        polygons.append(sides + rng.choice(offsets, (n, 2)))
    return polygons


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(4))
def test_every_path_agrees_with_the_reference(rule, seed):
    shape = (12, 13)
    polygons = _near_side_polygons(seed)
    for polygon in polygons:
        for mode, truth in ((True, tolerant_truth(polygon, shape, rule)),
                            ("exact", positive(exact_coverage(polygon, shape, rule)))):
            result = polymask.mask(polygon, shape, all_touched=mode, fill_rule=rule)
            np.testing.assert_array_equal(result, truth, err_msg=f"mask, all_touched={mode!r}")
            assert not (result & ~positive(exact_coverage(polygon, shape, rule))).any()  # never more than exact
            out = np.full(shape, True)
            polymask.mask(polygon, shape, all_touched=mode, fill_rule=rule, out=out)
            np.testing.assert_array_equal(out, truth)
            window = polymask.mask(polygon, shape, all_touched=mode, fill_rule=rule, window=(2, 3, 7, 8))
            np.testing.assert_array_equal(window, truth[2:9, 3:11])
            labels = polymask.rasterize([polygon], shape, [5], all_touched=mode, fill_rule=rule, threads=2)
            np.testing.assert_array_equal(labels == 5, truth)
            lazy = polymask.dask.mask(polygon, shape, chunks=5, all_touched=mode, fill_rule=rule).compute()
            np.testing.assert_array_equal(lazy, truth, err_msg=f"dask.mask, all_touched={mode!r}")
            lazy_labels = polymask.dask.rasterize([polygon], shape, [5], chunks=5, all_touched=mode,
                                                  fill_rule=rule).compute()
            np.testing.assert_array_equal(lazy_labels == 5, truth)


def test_a_label_image_of_moved_polygons_burns_later_over_earlier():
    shape = (12, 13)
    polygons = _near_side_polygons(9)
    expected = np.zeros(shape, np.uint8)
    for value, polygon in enumerate(polygons, start=1):
        expected[tolerant_truth(polygon, shape)] = value
    for threads in (1, 2):
        np.testing.assert_array_equal(polymask.rasterize(polygons, shape, all_touched=True, threads=threads),
                                      expected)


@pytest.mark.parametrize("value", [1, 0, "yes", "Exact", None, 0.5, [True]])
def test_anything_but_true_false_or_exact_is_refused(value):
    square = [(1, 1), (4, 1), (4, 4), (1, 4)]
    out = np.zeros((6, 6), bool)
    with pytest.raises(ValueError, match=r"all_touched must be True, False or 'exact', got"):
        polymask.mask(square, (6, 6), all_touched=value, out=out)
    assert not out.any()
    with pytest.raises(ValueError, match=r"all_touched must be True, False or 'exact', got"):
        polymask.rasterize([square], (6, 6), all_touched=value)
    with pytest.raises(ValueError, match=r"all_touched must be True, False or 'exact', got"):
        polymask.dask.mask(square, (6, 6), all_touched=value)


def test_numpy_booleans_are_booleans():
    square = [(0.5, 0.5 - 1e-12), (3.5, 0.5 - 1e-12), (3.5, 3.5), (0.5, 3.5)]
    np.testing.assert_array_equal(polymask.mask(square, (5, 5), all_touched=np.bool_(True)),
                                  polymask.mask(square, (5, 5), all_touched=True))
