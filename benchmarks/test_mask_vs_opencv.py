"""polymask.mask against OpenCV's fillPoly and the memory floor.

Two problems: the course's standard one (1024x1024, 24 random vertices) and
a large one (4096x4096, 1,000 random vertices).  Every benchmark allocates
its output as a user would (cv2 needs np.zeros first), except the floor,
which only fills a preallocated array once: nothing that writes every
pixel can beat it.  Compare the groups' medians as ratios:

    pytest benchmarks/test_mask_vs_opencv.py --benchmark-only --benchmark-columns=median,iqr,rounds

OpenCV is called exactly as `polymask bench` calls it, through
polymask.course.peers (vertices in 1/256-pixel fixed point, its own boundary
convention), so its mask differs from the contract; extra_info records by
how much.
"""
import numpy as np
import pytest

import polymask
from benchmarks._support import record
from polymask.course import peers
from polymask.course.problems import standard_problem

pytest.importorskip("cv2")
opencv_mask = peers.get("opencv").function

PROBLEMS = {
    "standard-1024-24": standard_problem(1024, 24),
    "large-4096-1000": standard_problem(4096, 1000),
}


@pytest.fixture(params=list(PROBLEMS), ids=list(PROBLEMS))
def problem(request):
    return request.param, *PROBLEMS[request.param]


def test_polymask_mask(benchmark, problem):
    problem_id, vertices, shape = problem
    benchmark.group = problem_id
    result = benchmark(polymask.mask, vertices, shape)
    expected = polymask.mask(vertices, shape, threads=1)
    record(benchmark, backend="polymask", result=result, expected=expected, shape=shape, n_vertices=len(vertices))
    assert benchmark.extra_info["matches_contract"]


def test_opencv_fillpoly(benchmark, problem):
    problem_id, vertices, shape = problem
    benchmark.group = problem_id
    result = benchmark(opencv_mask, vertices, shape)
    record(benchmark, backend="opencv", result=result, expected=polymask.mask(vertices, shape), shape=shape,
           n_vertices=len(vertices))


def test_memory_floor(benchmark, problem):
    problem_id, vertices, shape = problem
    out = np.empty(shape, bool)
    benchmark.group = problem_id
    benchmark(out.fill, False)
    benchmark.extra_info.update(backend="floor", shape=list(shape))
