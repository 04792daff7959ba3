"""all_touched=True leaves out slivers; all_touched="exact" is coverage > 0.

``all_touched=True`` counts a cell as touched when its centre is inside (the
contract's mask) or when more than a tiny share of its area is inside
(1e-9 of the cell; the coverage deciding it is
within 1e-10 of exact).  Real borders stored an ulp past a cell side, as
Natural Earth's 49th parallel is (49.000000000000114), then no longer touch a
whole row of cells, matching GDAL.  ``all_touched="exact"`` keeps the area
definition.  Every expectation here comes from the exact rational reference
of tests/coverage_reference.py, with shares chosen far from the tolerance
band where a test says which side of it they are on.
"""
from __future__ import annotations

import numpy as np
import pytest

import polymask
import polymask.course.problems
from tests.coverage_reference import exact_coverage, positive

RULES = ("evenodd", "nonzero")
TOLERANCE = 1e-9


def tolerant(exact: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The all_touched=True truth: centre inside, or exact share above the tolerance."""
    return centres | np.vectorize(lambda v: v > TOLERANCE, otypes=[bool])(exact)


def strip_under_row(height: float) -> np.ndarray:
    """Cells 1..3 of rows 1..2, reaching `height` of a cell's side into row 0."""
    return np.array([(0.5, 0.5 - height), (3.5, 0.5 - height), (3.5, 2.5), (0.5, 2.5)])


def test_the_tolerance_is_the_documented_one():
    from polymask import _coverage_sweep

    assert _coverage_sweep.min_share(1) == TOLERANCE and _coverage_sweep.min_share(2) == 0.0


def test_an_edge_one_ulp_past_a_cell_side_touches_only_with_exact():
    polygon = strip_under_row(0.5 - np.nextafter(0.5, 0.0))  # the top edge at the largest double below 0.5
    exact = exact_coverage([polygon], (4, 5))
    assert 0 < exact[0, 1] < 1e-15
    loose = polymask.mask(polygon, (4, 5), all_touched=True)
    strict = polymask.mask(polygon, (4, 5), all_touched="exact")
    np.testing.assert_array_equal(strict, positive(exact))
    np.testing.assert_array_equal(loose, tolerant(exact, polymask.mask(polygon, (4, 5))))
    assert strict[0, 1:4].all() and not loose[0].any() and loose[1:3, 1:4].all()


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
    row = int(round((50.0 - 49.0) / 0.1)) - 1  # the cells between 49.1 and 49.0
    assert strict[row].sum() == 100 and not loose[row].any()
    np.testing.assert_array_equal(loose[row + 1:], strict[row + 1:])
    fractions = polymask.coverage(country, shape, transform=transform)
    assert 0 < fractions[row].max() < 1e-11


def test_a_corner_graze_touches_only_with_exact():
    # The edge x + y = 3 - 2^-30 cuts off cell (1, 1)'s corner: area 2^-61.
    eps = 2.0 ** -30
    triangle = [(6.0, -3.0 - eps), (6.0, 6.0), (-3.0 - eps, 6.0)]
    exact = exact_coverage([triangle], (6, 6))
    strict = polymask.mask(triangle, (6, 6), all_touched="exact")
    loose = polymask.mask(triangle, (6, 6), all_touched=True)
    assert strict[1, 1] and not loose[1, 1]
    np.testing.assert_array_equal(strict, positive(exact))
    np.testing.assert_array_equal(loose, tolerant(exact, polymask.mask(triangle, (6, 6))))


@pytest.mark.parametrize("height, touched", [(2.0 ** -29, True), (2.0 ** -31, False), (2.0 ** -20, True),
                                             (2.0 ** -40, False)])
def test_shares_on_either_side_of_the_tolerance(height, touched):
    # Row 0's cells 1..3 hold exactly `height` of their area: 1.9e-9 and
    # 9.5e-7 are past the band (1e-9 +- 1e-10), 4.7e-10 and 9.1e-13 short of it.
    polygon = strip_under_row(height)
    loose = polymask.mask(polygon, (4, 5), all_touched=True)
    assert loose[0, 1:4].all() == touched and loose[0, 1:4].any() == touched
    assert polymask.mask(polygon, (4, 5), all_touched="exact")[0, 1:4].all()


def test_cells_whose_centre_is_in_stay_touched_however_thin():
    # A needle through the centre of pixel (1, 1), 2e-12 thick: the contract's
    # mask takes that pixel, so all_touched=True does too (it is never less
    # than the mask); the cells it only crosses are left out.
    needle = [(0.2, 1 - 1e-12), (2.4, 1 - 1e-12), (2.4, 1 + 1e-12), (0.2, 1 + 1e-12)]
    centres = polymask.mask(needle, (3, 4))
    loose = polymask.mask(needle, (3, 4), all_touched=True)
    np.testing.assert_array_equal(loose, centres)
    assert centres[1, 1] and centres[1, 2] and centres.sum() == 2
    strict = polymask.mask(needle, (3, 4), all_touched="exact")
    assert strict[1, 0] and strict.sum() == 3  # cell (1, 0) holds x from 0.2 to 0.5 of the needle


def _slivered_polygons():
    """Random stars with one edge an ulp past a cell side, and their exact answers' inputs."""
    rng = np.random.default_rng(41)
    polygons = []
    for _ in range(5):
        star = rng.uniform(2, 18, (7, 2))
        side = np.nextafter(np.floor(star[:, 1].min()) + 0.5, -np.inf)
        polygons.append(np.vstack([star, [(star[-1, 0], side), (star[0, 0] + 0.25, side)]]))
    return polygons


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("mode", [True, "exact"])
def test_every_mask_path_agrees_with_the_reference(rule, mode):
    shape = (22, 21)
    for polygon in _slivered_polygons():
        exact = exact_coverage([polygon], shape, rule)
        centres = polymask.mask(polygon, shape, fill_rule=rule)
        expected = positive(exact) if mode == "exact" else tolerant(exact, centres)
        assert (positive(exact) != tolerant(exact, centres)).any()  # each polygon has slivers
        for threads in (1, 2):
            got = polymask.mask(polygon, shape, fill_rule=rule, all_touched=mode, threads=threads)
            np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(polymask.mask(polygon.tolist(), shape, fill_rule=rule, all_touched=mode),
                                      expected)
        out = np.ones(shape, dtype=np.uint8)
        polymask.mask(polygon, shape, fill_rule=rule, all_touched=mode, out=out)
        np.testing.assert_array_equal(out.view(bool), expected)
        window = polymask.mask(polygon, shape, fill_rule=rule, all_touched=mode, window=(3, 2, 15, 11))
        np.testing.assert_array_equal(window, expected[3:18, 2:13])
        # An identity transform: cells are [c, c + 1] x [r, r + 1], so shift by a half.
        shifted = polymask.mask(polygon + 0.5, shape, fill_rule=rule, all_touched=mode,
                                transform=(1.0, 0.0, 0.0, 0.0, 1.0, 0.0))
        np.testing.assert_array_equal(shifted, expected)


@pytest.mark.parametrize("mode", [True, "exact"])
def test_label_images_and_dask_agree_with_the_masks(mode):
    da = pytest.importorskip("dask.array")
    import polymask.dask

    shape = (22, 21)
    polygons = _slivered_polygons()
    expected = np.zeros(shape, dtype=np.int32)
    for value, polygon in enumerate(polygons, start=1):
        exact = exact_coverage([polygon], shape)
        truth = positive(exact) if mode == "exact" else tolerant(exact, polymask.mask(polygon, shape))
        expected[truth] = value
    for threads in (1, 2):
        labels = polymask.rasterize(polygons, shape, dtype=np.int32, all_touched=mode, threads=threads)
        np.testing.assert_array_equal(labels, expected)
    window = polymask.rasterize(polygons, shape, dtype=np.int32, all_touched=mode, window=(4, 3, 12, 15))
    np.testing.assert_array_equal(window, expected[4:16, 3:18])
    lazy = polymask.dask.rasterize(polygons, shape, dtype=np.int32, all_touched=mode, chunks=(7, 8))
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), expected)
    lazy_mask = polymask.dask.mask(polygons[0], shape, all_touched=mode, chunks=(5, 6))
    assert isinstance(lazy_mask, da.Array)
    np.testing.assert_array_equal(lazy_mask.compute(scheduler="synchronous"),
                                  polymask.mask(polygons[0], shape, all_touched=mode))


@pytest.mark.parametrize("value", [1, 0, None, "yes", "EXACT", "touched", 1e-9, [True]])
def test_other_values_are_refused_before_anything_is_written(value):
    import polymask.dask

    polygon = strip_under_row(0.25)
    out = np.full((4, 5), 7, dtype=np.uint8)
    message = r"all_touched must be True, False or 'exact', got"
    with pytest.raises(ValueError, match=message):
        polymask.mask(polygon, (4, 5), all_touched=value, out=out)
    with pytest.raises(ValueError, match=message):
        polymask.rasterize([polygon], (4, 5), all_touched=value, out=out)
    assert (out == 7).all()
    with pytest.raises(ValueError, match=message):
        polymask.dask.mask(polygon, (4, 5), all_touched=value)
    with pytest.raises(ValueError, match=message):
        polymask.dask.rasterize([polygon], (4, 5), all_touched=value)


def test_numpy_booleans_are_taken():
    polygon = strip_under_row(0.25)
    np.testing.assert_array_equal(polymask.mask(polygon, (4, 5), all_touched=np.True_),
                                  polymask.mask(polygon, (4, 5), all_touched=True))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(3))
def test_exact_is_coverage_positive_on_random_polygons(rule, seed):
    polygon = polymask.course.problems.random_polygon(30, 48, seed=seed)
    strict = polymask.mask(polygon, (48, 48), fill_rule=rule, all_touched="exact")
    np.testing.assert_array_equal(strict, polymask.coverage(polygon, (48, 48), fill_rule=rule) > 0)
    rng = np.random.default_rng(seed)
    rings = [rng.integers(-4, 36, (7, 2)) / 4]  # quarter-integer vertices: exact against rationals
    np.testing.assert_array_equal(polymask.mask(rings, (10, 10), fill_rule=rule, all_touched="exact"),
                                  positive(exact_coverage(rings, (10, 10), rule)))


@pytest.mark.parametrize("mode", [True, "exact"])
def test_far_from_the_origin_the_same_cells_are_left_out(mode):
    # Past 2^16 the marking and the coverage take extended precision; an edge
    # an ulp below a cell side there leaves 1.5e-11 of a cell, still a sliver.
    shift = 70000.0
    shape = (22, 21)
    near = _slivered_polygons()
    far = []
    for polygon in near:
        moved = polygon + shift
        side = np.nextafter(np.floor(moved[:, 1].min()) + 0.5, -np.inf)
        moved[-2:, 1] = side  # the sliver edge, an ulp below the cell side at this magnitude
        far.append(moved)
    expected = polymask.rasterize(near, shape, dtype=np.int32, all_touched=mode)
    strict = polymask.rasterize(near, shape, dtype=np.int32, all_touched="exact")
    assert (expected != strict).any() == (mode is True)  # the slivers are there, and left out by True
    for threads in (1, 2):
        got = polymask.rasterize(far, (70022, 70021), dtype=np.int32, all_touched=mode, threads=threads,
                                 window=(70000, 70000, 22, 21))
        np.testing.assert_array_equal(got, expected)
    window = (70000, 70000, 22, 21)
    np.testing.assert_array_equal(polymask.mask(far[0], (70022, 70021), all_touched=mode, window=window),
                                  polymask.mask(near[0], shape, all_touched=mode))
