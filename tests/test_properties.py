"""Properties of ``polymask.mask`` checked with hypothesis, on every backend.

Where tests/test_contract.py pins known answers, this file lets hypothesis
invent polygons and shrink any failure to a minimal one:

* on random float polygons every available backend equals the float64
  reference (tests/_support.py's ``double_mask``) bit for bit;
* on half-integer polygons it equals exact rational arithmetic (``exact_mask``);
* invariants that hold exactly: an integer translation shifts the mask by
  the same pixels; reversing the vertex order of a half-integer polygon does
  not change the even-odd mask; rotating the list's starting vertex or
  repeating a vertex changes nothing for any floats (the same edges are
  computed with the same operands); ``out=`` and the thread count do not
  change the result.

Stages marked ``slow`` in polymask.course.stages.STAGES (pure Python) get the same
properties on images of at most 24x24.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import polymask
from polymask.course import stages
from tests._support import assert_same_mask, double_mask, exact_mask

BACKENDS = [name for name, (ok, _) in polymask.available_backends().items() if ok]
THREADED = [name for name in BACKENDS if stages.get(name).threaded]

#: The largest image side used here; small enough for the slow stages too.
SIDE = 24

# deadline=None: the machine running CI is shared, and a slow first call
# (JIT, kernel build) is not a property failure.
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXACT = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = st.tuples(st.integers(1, SIDE), st.integers(1, SIDE))


def float_polygons(low=-6.0, high=SIDE + 6.0, max_vertices=12):
    """Any finite floats around (and a little beyond) the image: the general case."""
    coordinate = st.floats(low, high, allow_nan=False, allow_infinity=False)
    return st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=max_vertices).map(
        lambda points: np.array(points, dtype=np.float64).reshape(-1, 2))


def half_integer_polygons(low=-4, high=2 * SIDE + 8, max_vertices=10):
    """Vertices on the half-integer grid, where float64 is exact (|v| < 2**22)."""
    doubled = st.integers(low, high)
    return st.lists(st.tuples(doubled, doubled), min_size=0, max_size=max_vertices).map(
        lambda points: np.array(points, dtype=np.float64).reshape(-1, 2) / 2.0)



@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=float_polygons(), shape=shapes)
def test_random_float_polygons_equal_the_float64_reference(backend, vertices, shape):
    assert_same_mask(polymask.mask(vertices, shape, backend=backend), double_mask(vertices, shape), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=float_polygons(low=-1e6, high=1e6, max_vertices=6), shape=shapes)
def test_polygons_far_beyond_the_image_equal_the_reference(backend, vertices, shape):
    # Long edges crossing the small image: x_cross far from every pixel,
    # large cancellations in (x[j] - x[i]) * (py - y[i]).
    assert_same_mask(polymask.mask(vertices, shape, backend=backend), double_mask(vertices, shape), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@EXACT
@given(vertices=half_integer_polygons(max_vertices=8), shape=st.tuples(st.integers(1, 14), st.integers(1, 14)))
def test_half_integer_polygons_equal_exact_arithmetic(backend, vertices, shape):
    assert_same_mask(polymask.mask(vertices, shape, backend=backend), exact_mask(vertices, shape), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=half_integer_polygons(), shape=shapes,
       shift=st.tuples(st.integers(0, 9), st.integers(0, 9)))
def test_integer_translation_shifts_the_mask(backend, vertices, shape, shift):
    dx, dy = shift
    rows, cols = shape
    moved = polymask.mask(vertices + (dx, dy), (rows + dy, cols + dx), backend=backend)
    assert_same_mask(moved[dy:, dx:], polymask.mask(vertices, shape, backend=backend), f"{backend} shifted by {shift}")


@PROPERTY
@given(vertices=half_integer_polygons(), shape=shapes,
       offset=st.tuples(st.integers(0, 2**20), st.integers(0, 2**20)))
def test_translation_far_from_the_origin_through_a_window(vertices, shape, offset):
    # The scanline core fills any window: a polygon moved a million pixels
    # away and filled in the window that follows it gives the same mask.
    dx, dy = offset
    rows, cols = shape
    moved = polymask.mask(vertices + (dx, dy), (rows + dy, cols + dx), window=(dy, dx, rows, cols))
    assert_same_mask(moved, polymask.mask(vertices, shape), f"moved by {offset}")


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=half_integer_polygons(), shape=shapes)
def test_reversing_the_vertex_order_keeps_the_even_odd_mask(backend, vertices, shape):
    # Exact for grid polygons only: reversed, each x_cross is computed from
    # the edge's other end, which may round differently for general floats.
    assert_same_mask(polymask.mask(vertices[::-1], shape, backend=backend),
                 polymask.mask(vertices, shape, backend=backend), f"{backend} reversed")


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=float_polygons(), shape=shapes, data=st.data())
def test_starting_vertex_and_repeated_vertices_change_nothing(backend, vertices, shape, data):
    # Rotating the list keeps every edge (i, i - 1) with the same operands;
    # a repeated vertex adds a zero-length edge that never crosses a row.
    assume(len(vertices) > 0)
    start = data.draw(st.integers(0, len(vertices) - 1), label="start")
    repeat = data.draw(st.integers(0, len(vertices) - 1), label="repeat")
    expected = polymask.mask(vertices, shape, backend=backend)
    rotated = np.roll(vertices, -start, axis=0)
    assert_same_mask(polymask.mask(rotated, shape, backend=backend), expected, f"{backend} rotated by {start}")
    repeated = np.insert(vertices, repeat, vertices[repeat], axis=0)
    assert_same_mask(polymask.mask(repeated, shape, backend=backend), expected, f"{backend} vertex {repeat} twice")


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=float_polygons(), shape=shapes, dtype=st.sampled_from([bool, np.uint8]),
       stale=st.integers(0, 255))
def test_out_gives_the_same_mask_whatever_it_held(backend, vertices, shape, dtype, stale):
    out = np.full(shape, stale, dtype=np.uint8).view(dtype) if dtype is bool else np.full(shape, stale, np.uint8)
    result = polymask.mask(vertices, shape, backend=backend, out=out)
    assert result is out
    assert set(np.unique(out.view(np.uint8))) <= {0, 1}
    assert_same_mask(out.view(bool), polymask.mask(vertices, shape, backend=backend), f"{backend} out={dtype}")


@pytest.mark.parametrize("backend", THREADED)
@PROPERTY
@given(vertices=float_polygons(max_vertices=20), rows=st.integers(1, 200), cols=st.integers(1, SIDE),
       threads=st.sampled_from([0, 1, 2, 3, 7]))
def test_thread_count_does_not_change_the_mask(backend, vertices, rows, cols, threads):
    # Tall images: the core only splits rows over threads past 16 rows each.
    shape = (rows, cols)
    assert_same_mask(polymask.mask(vertices, shape, backend=backend, threads=threads),
                 polymask.mask(vertices, shape, backend=backend, threads=1), f"{backend} threads={threads}")


@PROPERTY
@given(vertices=float_polygons(), shape=shapes)
def test_nonzero_rule_equals_the_reference(vertices, shape):
    assert_same_mask(polymask.mask(vertices, shape, fill_rule="nonzero"),
                 double_mask(vertices, shape, fill_rule="nonzero"), "nonzero")


def _any_finite_polygons():
    """Finite floats of any magnitude, up to 1.8e308: x_cross may overflow to +-inf or NaN."""
    coordinate = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                           st.floats(-2.0, SIDE + 2.0), st.integers(-2, SIDE + 2).map(float))
    return st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=8).map(
        lambda points: np.array(points, dtype=np.float64).reshape(-1, 2))


@pytest.mark.parametrize("backend", BACKENDS)
@PROPERTY
@given(vertices=_any_finite_polygons(), shape=shapes)
def test_finite_polygons_of_any_magnitude_equal_the_reference(backend, vertices, shape):
    assert_same_mask(polymask.mask(vertices, shape, backend=backend), double_mask(vertices, shape), backend)


@PROPERTY
@given(vertices=_any_finite_polygons(), shape=shapes, col0=st.integers(0, 2 * SIDE))
def test_a_burned_polygon_claims_exactly_its_mask(vertices, shape, col0):
    # Windows to the right of the polygon included: rasterize must not skip
    # a polygon whose x_cross overflows to +inf (it then fills whole rows).
    rows, cols = shape
    full = (rows, cols + col0)
    window = (0, col0, rows, cols)
    burned = polymask.rasterize([vertices], full, window=window, dtype=np.uint8)
    assert_same_mask(burned == 1, polymask.mask(vertices, full, window=window), "rasterize vs mask")


def test_rasterize_does_not_skip_a_polygon_whose_crossings_overflow():
    # Found by csrc/fuzz: every vertex lies left of column 3, but the edge
    # from (5.8e-275, 1.8e308) to (2.2, -3.2e-31) overflows its x_cross to
    # +inf, so under the contract the polygon fills all of row 0 and beyond.
    vertices = [(2.200000047683716, -3.15547070427389e-31), (5.780941725538054e-275, 1.7976931348623157e308),
                (1.5e-323, 0.0)]
    shape, window = (16, 8976), (0, 8960, 16, 16)
    expected = double_mask(vertices, (16, 8976))[:, 8960:]
    assert expected.all()
    assert_same_mask(polymask.mask(vertices, shape, window=window), expected, "mask")
    assert_same_mask(polymask.rasterize([vertices], shape, window=window, dtype=np.uint8) == 1, expected, "rasterize")
