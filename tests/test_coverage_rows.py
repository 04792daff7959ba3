"""Coverage of row strips no vertex, horizontal edge or crossing falls in.

Most rows of most polygons are such simple strips, and the sweep writes them
in one pass, edge run by edge run (csrc/src/coverage_simple_row.hpp).  These
polygons have few vertices and long edges, so nearly every row is simple:
slivers, edges through cell corners and along cell sides, two edges in the
same cells, regions of winding two, and windows, crops and threads that cut
a row's runs.  The truth is tests/coverage_reference.py (exact rationals).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polymask
import polymask.course.problems
from tests._coverage_checks import assert_matches_exact, assert_windows_equal_slices
from tests.coverage_reference import exact_coverage, max_error, positive

BOUND = 1e-10
RULES = ("evenodd", "nonzero")
SHAPE = (14, 16)

# Few vertices, long edges: nearly every row strip is simple.
POLYGONS = {
    # 1e-7 wide, across every row: every cell it passes holds a sliver.
    "sliver": np.array([(2.3, -0.7), (2.3 + 1e-7, -0.7), (11.1 + 1e-7, 14.6), (11.1, 14.6)]),
    # Both long edges pass the same cells in every row: their runs overlap.
    "narrow-wedge": np.array([(3.2, -1.0), (4.9, 15.5), (4.4, 15.5)]),
    # Vertices on cell corners: edges run through corners, exactly.
    "corners": np.array([(0.5, 0.5), (12.5, 3.5), (9.5, 13.5), (-0.5, 9.5)]),
    # Vertical edges on cell sides: a run of two cells, one of them untouched.
    "cell-sides": np.array([(1.5, -0.25), (9.5, -0.25), (9.5, 13.25), (1.5, 13.25)]),
    # Vertical edges on sample points: half cells.
    "sample-points": np.array([(2.0, -3.0), (7.0, -3.0), (7.0, 20.0), (2.0, 20.0)]),
    # Shallow edges: runs many cells long, cut by windows.
    "shallow": np.array([(-4.3, 1.2), (21.7, 5.9), (18.2, 12.6), (-2.9, 7.1)]),
    # Two overlapping squares of one orientation: winding two where they
    # overlap, so under nonzero some edges there close nothing.
    "winding-two": [
        np.array([(1.2, 1.3), (9.7, 1.3), (9.7, 11.6), (1.2, 11.6)]),
        np.array([(5.4, 3.1), (14.2, 3.1), (14.2, 12.9), (5.4, 12.9)]),
    ],
    # Partly outside the image on every side.
    "beyond": np.array([(-5.5, 6.3), (8.1, -4.4), (22.6, 7.7), (7.3, 19.9)]),
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(POLYGONS))
def test_simple_rows_match_exact_reference(name, rule):
    assert_matches_exact(POLYGONS[name], SHAPE, rule, BOUND)


def test_sliver_cells_hold_their_sliver():
    fractions = polymask.coverage(POLYGONS["sliver"], SHAPE)
    # 1e-7 wide over a cell's height: about 1e-7 in each row's one or two cells.
    assert np.all(fractions <= 2e-7)
    assert np.all(np.count_nonzero(fractions, axis=1) >= 1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
@pytest.mark.parametrize("rule", RULES)
def test_windows_cutting_runs_equal_slices(dtype, rule):
    for name in ("shallow", "winding-two", "narrow-wedge"):
        assert_windows_equal_slices(POLYGONS[name], SHAPE, rule, dtype, range(3, 12), (1, 2, 5, SHAPE[1]))


def test_crops_equal_slices():
    polygons = [POLYGONS[name] for name in sorted(POLYGONS) if name != "winding-two"]
    for crop, polygon in zip(polymask.coverages(polygons, SHAPE), polygons):
        np.testing.assert_array_equal(crop.mask, polymask.coverage(polygon, SHAPE)[crop.slices])


@pytest.mark.parametrize("name, size", [("random-24", 1024), ("outline", 2048)])
def test_threads_are_bit_identical(name, size):
    if name == "random-24":
        polygon = polymask.course.problems.random_polygon(24, size)
    else:
        angles = np.linspace(0, 2 * np.pi, 1000, endpoint=False)
        radii = 0.4 * size * (1 + 0.1 * np.cos(3 * angles + 0.4) + 0.05 * np.cos(7 * angles))
        polygon = np.c_[size / 2 + radii * np.cos(angles), size / 2 + radii * np.sin(angles)]
    for dtype in (np.uint8, np.float64):
        one = polymask.coverage(polygon, (size, size), dtype=dtype, threads=1)
        np.testing.assert_array_equal(polymask.coverage(polygon, (size, size), dtype=dtype, threads=2), one)
        np.testing.assert_array_equal(polymask.coverage(polygon, (size, size), dtype=dtype), one)
    if name == "outline":  # simple: the fractions sum to the shoelace area
        x, y = polygon[:, 0], polygon[:, 1]
        shoelace = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert abs(one.sum() - shoelace) <= 1e-9 * shoelace


# Four to six vertices anywhere around a 12x12 grid, on a 1/4 lattice half the
# time (corners, sides and sample points), else anywhere to 1e-9 (areas below
# 2^-40 of a cell near subnormal coordinates are residue by design: see
# test_coverage.py's fractions near 0 and 1).
_coordinate = st.one_of(
    st.integers(-8, 56).map(lambda q: q / 4.0),
    st.floats(-2.0, 14.0, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 9)),
)
_polygons = st.lists(st.tuples(_coordinate, _coordinate), min_size=4, max_size=6).map(np.array)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polygon=_polygons, rule=st.sampled_from(RULES))
def test_property_few_vertices_match_exact_reference(polygon, rule):
    fractions = polymask.coverage(polygon, (12, 12), fill_rule=rule)
    exact = exact_coverage(polygon, (12, 12), rule)
    assert max_error(fractions, exact) <= BOUND
    np.testing.assert_array_equal(fractions > 0, positive(exact))
