"""The OpenCL kernels against the contract: both equal it bit for bit in double,
on odd shapes and grid-aligned cases, and in float32 differ only within the
documented bound.  Why these tests never skip for a missing runtime:
tests/_opencl_support.py.
"""
import math

import numpy as np
import pytest

import polymask
from polymask import opencl
from polymask.course import stages
from polymask.course.cases import contract_cases
from tests import _opencl_support
from tests._opencl_support import KERNELS, needs_device
from tests._support import assert_same_mask, double_mask, exact_mask

# The shared fixtures, bound here so that pytest finds them.
no_device_environment = _opencl_support.no_device_environment
engine = _opencl_support.engine


# ---- the contract, bit for bit, in double ---------------------------------------------------------


CONTRACT = [(size, case) for size in (24, 37) for case in contract_cases(size)]


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("size,case", CONTRACT, ids=[f"{case.name}-{size}" for size, case in CONTRACT])
def test_both_kernels_equal_the_contract_in_double(engine, kernel, size, case):
    # 37 and the wide 42 columns are not multiples of any work-group size.
    assert_same_mask(engine.mask(case.vertices, case.shape, kernel=kernel),
                     double_mask(case.vertices, case.shape), f"{kernel} {case.name}")


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 70), (70, 1), (131, 67), (65, 17)])
def test_odd_image_shapes(engine, kernel, shape):
    vertices = polymask.course.problems.random_polygon(17, max(shape), seed=3) - 0.5
    assert_same_mask(engine.mask(vertices, shape, kernel=kernel), double_mask(vertices, shape), f"{shape}")


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_grid_aligned_cases_equal_exact_arithmetic(engine, kernel):
    for case in contract_cases(24):
        if case.grid_aligned:
            assert_same_mask(engine.mask(case.vertices, case.shape, kernel=kernel),
                             exact_mask(case.vertices, case.shape), case.name)


@needs_device
def test_the_opencl_stage_and_backend_equal_the_contract():
    vertices, shape = polymask.course.problems.standard_problem(size=96, n_vertices=24)
    expected = double_mask(vertices, shape)
    assert_same_mask(stages.get("opencl").load()(vertices, shape), expected, "stage")
    assert_same_mask(polymask.mask(vertices, shape, backend="opencl"), expected, "backend")


# ---- float32: the documented bound -----------------------------------------------------------------


def distance_to_boundary(points, vertices):
    """Euclidean distance from each (x, y) point to the polygon's closest edge, in float64."""
    xy = np.asarray(vertices, dtype=np.float64)
    start, end = xy, np.roll(xy, 1, axis=0)
    best = np.full(len(points), np.inf)
    for a, b in zip(start, end):
        direction = b - a
        length2 = float(direction @ direction)
        offset = points - a
        t = np.clip(offset @ direction / length2, 0.0, 1.0) if length2 > 0 else np.zeros(len(points))
        nearest = a + t[:, None] * direction
        best = np.minimum(best, np.hypot(*(points - nearest).T))
    return best


def near_edge_polygons():
    """Polygons whose edges pass within 1e-9..1e-6 of pixel centres: float32 must round them."""
    rng = np.random.default_rng(11)
    polygons = []
    for k in range(12):
        size = int(rng.integers(20, 48))
        n = int(rng.integers(3, 16))
        base = rng.integers(-2, size + 2, size=(n, 2)).astype(np.float64)
        jitter = rng.choice([-1, 1], size=(n, 2)) * 10.0 ** rng.uniform(-9, -6, size=(n, 2))
        polygons.append((base + jitter, (size, size + k % 3)))
    for k in range(12):
        size = int(rng.integers(20, 48))
        polygon = polymask.course.problems.random_polygon(int(rng.integers(3, 30)), size, seed=100 + k)
        polygons.append((polygon, (size, size)))
    # An edge 1e-9 right of column 5: float32 puts it on the column, so the whole column flips.
    polygons.append((np.array([(5 + 1e-9, 0.0), (5 + 1e-9, 30.0), (0.0, 30.0), (0.0, 0.0)]), (30, 10)))
    return polygons


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_float32_differs_only_within_the_documented_bound(kernel):
    single = opencl.MaskEngine(precision="single")
    total_differing = 0
    for vertices, shape in near_edge_polygons() + [(c.vertices, c.shape) for c in contract_cases(24)
                                                    if c.name != "huge_coordinates"]:
        if len(vertices) == 0:
            continue
        expected = exact_mask(vertices, shape)
        actual = single.mask(vertices, shape, kernel=kernel)
        rows, cols = np.nonzero(actual != expected)
        total_differing += len(rows)
        if not len(rows):
            continue
        tolerance = opencl.single_precision_tolerance(vertices, shape)
        distances = distance_to_boundary(np.column_stack([cols, rows]).astype(np.float64), vertices)
        assert distances.max() <= tolerance, f"pixel {distances.argmax()} is {distances.max()} from the edge"
        lengths = np.hypot(*(vertices - np.roll(vertices, 1, axis=0)).T)
        assert len(rows) <= sum(math.ceil(length) + 1 for length in lengths)
    assert total_differing > 0, "the near-edge polygons should exercise the bound"


@needs_device
def test_float32_kernels_agree_with_each_other():
    single = opencl.MaskEngine(precision="single")
    for vertices, shape in near_edge_polygons():
        np.testing.assert_array_equal(single.mask(vertices, shape, kernel="pixel"),
                                      single.mask(vertices, shape, kernel="scanline"))


@needs_device
def test_float32_on_the_standard_problem_is_nearly_exact():
    vertices, shape = polymask.course.problems.standard_problem()
    differing = np.count_nonzero(opencl.mask(vertices, shape, precision="single", kernel="scanline")
                                 != polymask.mask(vertices, shape))
    assert differing <= sum(math.ceil(v) + 1 for v in np.hypot(*(vertices - np.roll(vertices, 1, 0)).T))
