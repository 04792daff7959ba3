"""Coverage of row strips that vertices cut but no two edges cross.

The sweep cuts such a strip at its vertices into pieces, each a simple
strip of its own height, and sums the pieces' shares cell by cell
(csrc/src/coverage_vertex_row.hpp).  These polygons put vertices inside
strips on purpose: peaks and valleys, a vertex in every row, edges along
cell sides in the same strip as a vertex elsewhere (the inside changes
there with no cell touched), spikes traced back over themselves, more
vertices in one strip than the path takes (the general sweep then), and
windows that cut the pieces' runs.  The truth is tests/coverage_reference.py
(exact rationals).
"""

from __future__ import annotations

import numpy as np
import pytest

import polymask
from tests._coverage_checks import assert_matches_exact, assert_windows_equal_slices
from tests.coverage_reference import exact_coverage, max_error, positive

BOUND = 1e-10
RULES = ("evenodd", "nonzero")
SHAPE = (12, 14)


def _zigzag(rows: int) -> np.ndarray:
    # A vertex inside every row strip, on both sides.
    left = [(2.0 + 0.7 * (k % 2), k + 0.3) for k in range(rows)]
    right = [(11.0 - 0.9 * (k % 2), k + 0.6) for k in range(rows)][::-1]
    return np.array(left + right)


POLYGONS = {
    # Peaks and valleys at ordinates inside strips (on a 1/8 grid, so that
    # which cells an edge passes is exact, not a matter of rounding).
    "star": np.array(
        [
            (7.25, 0.125),
            (8.375, 4.375),
            (12.75, 5.25),
            (8.875, 7.125),
            (10.125, 11.625),
            (6.875, 8.25),
            (2.25, 10.75),
            (4.625, 6.25),
            (1.25, 3.875),
            (5.75, 3.625),
        ]
    ),
    "zigzag": _zigzag(12),
    # Sides along cell sides (x = 1.5, 9.5) in strips a vertex of the other ring cuts.
    "sides-and-vertex": [
        np.array([(1.5, 0.5), (9.5, 0.5), (9.5, 9.5), (1.5, 9.5)]),
        np.array([(3.0, 2.2), (7.1, 4.8), (3.4, 6.7)]),
    ],
    # A spike traced back over itself: edges overlapping along a stretch.
    "spike": [
        np.array([(1.2, 1.3), (10.7, 1.9), (11.4, 10.2), (2.1, 9.6)]),
        np.array([(6.0, 2.2), (12.3, 7.7), (6.0, 2.2), (6.0, 7.4)]),
    ],
    # Twelve vertices in the strip of row 5: more pieces than the path takes.
    "crowded-row": np.array([(1.0 + k, 4.6 + 0.07 * k) for k in range(12)] + [(12.5, 10.5), (0.5, 10.5)]),
    # Two rings of one orientation overlapping: winding two under nonzero.
    "winding-two": [
        np.array([(1.2, 1.3), (8.7, 1.6), (9.1, 8.6), (1.5, 8.2)]),
        np.array([(4.4, 3.1), (12.2, 3.4), (12.6, 10.9), (4.8, 11.3)]),
    ],
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(POLYGONS))
def test_cut_rows_match_exact_reference(name, rule):
    assert_matches_exact(POLYGONS[name], SHAPE, rule, BOUND)


def test_sides_keep_the_inside_between_them():
    # The cells between the two sides, in strips the triangle's vertices cut,
    # are wholly inside where the triangle is not: exactly 1, not 0.
    fractions = polymask.coverage(POLYGONS["sides-and-vertex"], SHAPE)
    assert np.all(fractions[1:10, 2] == 1.0)
    assert np.all(fractions[1:10, 8] == 1.0)


@pytest.mark.parametrize("dtype", [np.float64, np.uint8])
@pytest.mark.parametrize("rule", RULES)
def test_windows_cutting_pieces_equal_slices(dtype, rule):
    for name in ("star", "zigzag", "spike"):
        assert_windows_equal_slices(POLYGONS[name], SHAPE, rule, dtype, range(2, 10), (1, 3, SHAPE[1]))


def test_random_polygons_on_a_half_grid_match_exact_reference():
    # Vertices on a 1/2 grid: on cell sides, sample points and strip ends,
    # with vertices inside strips wherever an ordinate is an integer.
    rng = np.random.default_rng(7)
    for trial in range(60):
        rings = [rng.integers(0, 24, size=(rng.integers(3, 8), 2)) / 2.0 for _ in range(rng.integers(1, 3))]
        rule = RULES[trial % 2]
        fractions = polymask.coverage(rings, SHAPE, fill_rule=rule)
        exact = exact_coverage(rings, SHAPE, rule)
        assert max_error(fractions, exact) <= BOUND, (trial, rings)
        np.testing.assert_array_equal(fractions > 0, positive(exact))
