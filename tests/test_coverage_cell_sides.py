"""Coverage of edges that lie exactly on cell sides.

A vertical edge on a cell side x = c + 1/2 (or a horizontal one on y = r + 1/2)
leaves the cell beyond it exactly empty, whatever its ends: an abscissa
interpolated a few ulps off the side would give that cell a residue of
area, and ``coverage > 0`` would then disagree with the exact all_touched.
Rectilinear polygons with coordinates on cell sides and at fractional
places (ends like y = -0.2, whose binary values are not dyadic), in the
sample frame and under transforms that map cell sides exactly, against the
exact rational reference (tests/coverage_reference.py).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polymask
from tests.coverage_reference import exact_coverage, max_error, positive

BOUND = 1e-10
SHAPE = (9, 10)

# Axis-aligned transforms whose cell sides map to exact sample-frame
# half-integers ((x - c) / a - 1/2 is exact for a cell side x = a*k + c).
TRANSFORMS = {
    "sample-frame": None,
    "identity-cells": (1.0, 0.0, 0.0, 0.0, 1.0, 0.0),
    "north-up": (0.5, 0.0, 100.0, 0.0, -0.5, 200.0),
    "south-up-3": (2.0, 0.0, -10.0, 0.0, 3.0, 5.0),
}


def _to_world(cells: np.ndarray, transform) -> np.ndarray:
    """Cell-frame (col, row) to world coordinates (the sample frame when no transform)."""
    if transform is None:
        return cells - 0.5  # cell sides k become sample-frame sides k - 1/2
    a, _, c, _, e, f = transform
    return np.c_[a * cells[:, 0] + c, e * cells[:, 1] + f]


def _sample_frame_exactly(world: np.ndarray, transform) -> list[list[tuple[Fraction, Fraction]]]:
    """The world vertices in the sample frame, in exact rationals."""
    if transform is None:
        return [[(Fraction(float(x)), Fraction(float(y))) for x, y in world]]
    a, _, c, _, e, f = (Fraction(v) for v in transform)
    half = Fraction(1, 2)
    return [[((Fraction(float(x)) - c) / a - half, (Fraction(float(y)) - f) / e - half) for x, y in world]]


def _check(cells: np.ndarray, transform, rule: str = "evenodd") -> None:
    world = _to_world(cells, transform)
    fractions = polymask.coverage(world, SHAPE, transform=transform, fill_rule=rule)
    exact = exact_coverage(_sample_frame_exactly(world, transform), SHAPE, rule)
    assert max_error(fractions, exact) <= BOUND
    touched = positive(exact)
    np.testing.assert_array_equal(fractions > 0, touched)
    np.testing.assert_array_equal(fractions == 1, np.vectorize(lambda v: v == 1, otypes=[bool])(exact))
    for all_touched in ("exact", True):
        np.testing.assert_array_equal(
            polymask.mask(world, SHAPE, transform=transform, fill_rule=rule, all_touched=all_touched), touched
        )


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_vertical_edges_on_cell_sides_with_fractional_ends(transform):
    # Cell frame: columns 2 and 7 are cell sides, the rows' ends are not dyadic.
    cells = np.array([(2.0, -0.2), (7.0, -0.2), (7.0, 8.7), (2.0, 8.7)])
    _check(cells, TRANSFORMS[transform])


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_horizontal_edges_on_cell_sides_with_fractional_ends(transform):
    cells = np.array([(-0.3, 1.0), (9.1, 1.0), (9.1, 6.0), (-0.3, 6.0)])
    _check(cells, TRANSFORMS[transform])


def test_the_cell_beyond_a_vertical_side_is_exactly_empty():
    # The sample frame: x = 1.5 is the side between columns 1 and 2.
    square = np.array([(1.5, -0.2), (4.5, -0.2), (4.5, 3.7), (1.5, 3.7)])
    fractions = polymask.coverage(square, (4, 7))
    assert np.all(fractions[:, :2] == 0.0)
    assert np.all(fractions[:, 5:] == 0.0)
    np.testing.assert_array_equal(polymask.mask(square, (4, 7), all_touched=True), fractions > 0)


# Coordinates on cell sides (integers in the cell frame) or at tenths, whose
# binary values are not dyadic.
_side_or_tenth = st.one_of(
    st.integers(-1, 11).map(float),
    st.integers(-15, 105).map(lambda k: k / 10.0),
)


@st.composite
def _rectilinear(draw):
    """A rectilinear ring (alternately horizontal and vertical edges), cell frame."""
    m = draw(st.integers(2, 4))
    xs = draw(st.lists(_side_or_tenth, min_size=m, max_size=m))
    ys = draw(st.lists(_side_or_tenth, min_size=m, max_size=m))
    vertices = []
    for k in range(m):
        vertices += [(xs[k], ys[k]), (xs[(k + 1) % m], ys[k])]
    return np.array(vertices)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cells=_rectilinear(), transform=st.sampled_from(sorted(TRANSFORMS)), rule=st.sampled_from(("evenodd", "nonzero"))
)
def test_property_rectilinear_polygons_on_cell_sides(cells, transform, rule):
    _check(cells, TRANSFORMS[transform], rule)


def _staircase(steps: int = 30) -> np.ndarray:
    """Steps 3 columns wide and 10.3 rows high: vertical edges on cell sides, ends at tenths."""
    points = [(1.5, -0.2)]
    for k in range(steps):
        x = 1.5 + 3 * (k + 1)
        points += [(x, 10.3 * k - 0.2), (x, 10.3 * (k + 1) - 0.2)]
    points.append((1.5, 10.3 * steps - 0.2))
    return np.array(points)


def test_threads_crops_and_dask_agree_on_cell_sides():
    import polymask.dask

    # 300 rows: enough for two threads, and columns to crop and chunk.
    stairs = _staircase()
    shape = (300, 96)
    one = polymask.coverage(stairs, shape, threads=1)
    np.testing.assert_array_equal(polymask.coverage(stairs, shape), one)
    np.testing.assert_array_equal(polymask.coverage(stairs, shape, threads=2), one)
    corner = exact_coverage(stairs, None, "evenodd", window=(0, 0, 45, 20))  # the first steps, exactly
    assert max_error(one[:45, :20], corner) <= BOUND
    np.testing.assert_array_equal(one[:45, :20] > 0, positive(corner))
    (crop,) = polymask.coverages([stairs], shape)
    np.testing.assert_array_equal(crop.mask, one[crop.slices])
    lazy = polymask.dask.coverage(stairs, shape, chunks=(64, 27))
    np.testing.assert_array_equal(lazy.compute(), one)
    np.testing.assert_array_equal(polymask.mask(stairs, shape, all_touched=True), one > 0)
