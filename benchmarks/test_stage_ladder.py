"""The ladder on the course's standard problem: every stage, timed, checked.

    pytest benchmarks/test_stage_ladder.py --benchmark-only --benchmark-columns=median,iqr,rounds
    pytest benchmarks --benchmark-only --benchmark-json=run.json && polymask bench --from-json run.json

Every stage's own ``mask`` function is timed on the standard problem
(polymask.course.problems.standard_problem: 1024x1024, 24 random vertices), in the
group the peers use, so one table holds the ladder, the peers and the
memory floor.  Threaded stages use all cores.  Each group names the problem
it timed: a stage timed on a smaller image is in a group of its own.

The slow stages (flag ``slow``: python, python_numpy, cython_plain) would
take seconds to minutes per round at 1024x1024, so they are timed on the
same polygon scaled down to 128x128 (standard_problem(128) draws the same
uniform numbers, times 128 instead of 1024, so each pixel meets the same
edges in the same proportions) and their time is scaled up by the pixel
count, 64x: ``extra_info["scale"]``, which ``polymask bench --from-json``
applies and marks.  Per-pixel work is the same for every pixel on average,
so the scaled time estimates the full one; it is an estimate, and says so.
Their raw times stay in their own group ("standard polygon scaled to
128x128, ..."), never beside the full-size rows; ``extra_info["scaled_group"]``
names the group whose table ``polymask bench --from-json`` shows them in,
scaled and marked.

extra_info also records whether each stage's mask equals polymask.mask's,
so a fast wrong answer shows as wrong.  Under --benchmark-disable (CI) every
body runs once on small images.
"""
import numpy as np
import pytest

import polymask
from polymask.course import stages
from polymask.course.problems import STANDARD_SIZE, STANDARD_VERTICES, standard_problem

GROUP = "standard 1024x1024, 24 vertices"  # the same group as test_peers.py
SLOW_SIZE = 128  # slow stages: the standard polygon scaled to 128x128
FAST_MODE_SIZES = {"slow": 24, "fast": 96}  # --benchmark-disable: one quick run each

# opencl is benchmarked here only where it runs (it needs a device); every
# other stage must run, as the test extra installs all it needs.
BENCHMARKED = [stage for stage in stages.STAGES
               if stage.id != "opencl" or stages.availability("opencl").available]


def group_of(size):
    """The group of a stage timed at size x size: the standard problem's, or one naming the smaller image."""
    if size == STANDARD_SIZE:
        return GROUP
    return f"standard polygon scaled to {size}x{size}, {STANDARD_VERTICES} vertices"


@pytest.fixture(params=BENCHMARKED, ids=[stage.id for stage in BENCHMARKED])
def stage(request):
    status = stages.availability(request.param.id)
    assert status.available, f"stage {request.param.id!r} must run here: {status.reason}"
    return request.param


def test_stage(benchmark, stage, request):
    fast_mode = request.config.polymask_fast_mode
    if fast_mode:
        size = FAST_MODE_SIZES["slow" if stage.slow else "fast"]
    else:
        size = SLOW_SIZE if stage.slow else STANDARD_SIZE
    vertices, shape = standard_problem(size)
    stage_mask = stage.load()
    if stage.id == "numba":
        stage_mask(vertices, (8, 8))  # compile outside the timing: Numba's first call is the JIT
    benchmark.group = group_of(size)
    result = benchmark(stage_mask, vertices, shape)

    from benchmarks._support import record

    scale = (STANDARD_SIZE * STANDARD_SIZE) / (size * size) if stage.slow and not fast_mode else 1.0
    record(benchmark, backend=stage.id, kind="stage", shape=shape, n_vertices=STANDARD_VERTICES,
           result=result, expected=polymask.mask(vertices, shape), scale=scale)
    if scale != 1.0:
        benchmark.extra_info["scaled_group"] = GROUP
    benchmark.extra_info.update(title=stage.title, seconds_2014=stage.seconds_2014, slow=stage.slow,
                                side=stage.side, scaled_to=[STANDARD_SIZE, STANDARD_SIZE])
    assert result.dtype == np.bool_ and benchmark.extra_info["matches_contract"], \
        f"{stage.id}: {benchmark.extra_info['pixels_differing']} pixels differ from polymask.mask"
