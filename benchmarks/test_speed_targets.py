"""The speed targets of issue 13, each a ratio of medians within one run.

    pytest benchmarks/test_speed_targets.py --benchmark-only \\
        --benchmark-columns=median,iqr,rounds --benchmark-group-by=group

Groups (compare within a group):

* ``standard-integer``: single-threaded ``polymask.mask`` vs ``np.zeros`` +
  ``cv2.fillPoly`` on the standard problem (1024x1024, 24 random vertices)
  rounded to integers, plus ``polymask.mask`` into a preallocated ``out=``
  and the memory floor (filling that ``out``).  OpenCV gets the vertices as
  a user with integer vertices hands them over, int32 points and no
  fixed-point shift (its fastest call here, about 10% faster than
  polymask.course.peers' 1/256-pixel call, also timed, which the other groups use
  because their vertices are not integers).
  Targets: mask <= 0.5x OpenCV; out= <= 2x the floor.
* ``small-in-8192``: a 40-vertex polygon about 300 px wide in an 8192x8192
  image: only the polygon's rows should cost anything.  Target <= 1.0x OpenCV.
* ``coco-1000``: 1,000 COCO-like instances (10-60 vertices, 20-240 px) on
  640x480: ``polymask.masks`` (one call, and crop=True) vs a loop of the
  OpenCV peer, and vs a loop of ``polymask.mask``.
  Target: masks <= 0.5x the OpenCV loop.

Every polymask call is timed at default threads beside ``threads=1``, and
every benchmark records whether its result matches the contract (OpenCV's
boundary convention differs; extra_info counts the pixels).
"""
import numpy as np
import pytest

import polymask
from benchmarks._support import inside_even_odd, record
from polymask.course import peers, problems
from polymask.course.problems import standard_problem

cv2 = pytest.importorskip("cv2")
opencv = peers.get("opencv").function


def standard_integer():
    vertices, shape = standard_problem()
    return np.round(vertices), shape


def small_in_8192():
    return problems.small_in_large_image(8192)


coco_instances = problems.instance_polygons


# ---- standard problem, integer vertices ----------------------------------------

@pytest.mark.benchmark(group="standard-integer")
@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_standard_polymask_mask(benchmark, threads):
    vertices, shape = standard_integer()
    result = benchmark(polymask.mask, vertices, shape, threads=threads)
    record(benchmark, backend=f"polymask.mask threads={threads or 'default'}", result=result,
           expected=polymask.mask(vertices, shape))
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.benchmark(group="standard-integer")
def test_standard_opencv(benchmark):
    vertices, shape = standard_integer()
    points = [vertices.astype(np.int32)]

    def zeros_and_fill():
        result = np.zeros(shape, np.uint8)
        cv2.fillPoly(result, points, 1)
        return result

    result = benchmark(zeros_and_fill)
    record(benchmark, backend="np.zeros + cv2.fillPoly, int32 vertices", result=result,
           expected=polymask.mask(vertices, shape))


@pytest.mark.benchmark(group="standard-integer")
def test_standard_opencv_fixed_point(benchmark):
    vertices, shape = standard_integer()
    result = benchmark(opencv, vertices, shape)
    record(benchmark, backend="np.zeros + cv2.fillPoly, 1/256-px vertices (polymask.course.peers)", result=result,
           expected=polymask.mask(vertices, shape))


@pytest.mark.benchmark(group="standard-integer")
@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_standard_polymask_out(benchmark, threads):
    vertices, shape = standard_integer()
    out = np.ones(shape, dtype=bool)
    result = benchmark(polymask.mask, vertices, shape, out=out, threads=threads)
    record(benchmark, backend=f"polymask.mask out= threads={threads or 'default'}", result=result,
           expected=polymask.mask(vertices, shape))
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.benchmark(group="standard-integer")
def test_standard_floor(benchmark):
    _, shape = standard_integer()
    out = np.empty(shape, dtype=bool)
    benchmark(out.fill, False)
    benchmark.extra_info.update(backend="floor: out.fill(False)")


# ---- a small polygon in a big image ---------------------------------------------

@pytest.mark.benchmark(group="small-in-8192")
@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_small_in_8192_polymask(benchmark, threads):
    vertices, shape = small_in_8192()
    result = benchmark(polymask.mask, vertices, shape, threads=threads)
    # The NumPy formula over the polygon's bounding box; every other pixel is outside.
    expected = np.zeros(shape, dtype=bool)
    row0, col0 = (max(int(np.floor(low)), 0) for low in vertices[:, ::-1].min(axis=0))
    row1, col1 = (min(int(np.ceil(high)) + 1, side) for high, side in zip(vertices[:, ::-1].max(axis=0), shape))
    rows, cols = np.mgrid[row0:row1, col0:col1]
    expected[row0:row1, col0:col1] = inside_even_odd(vertices, cols.astype(np.float64), rows.astype(np.float64))
    record(benchmark, backend=f"polymask.mask threads={threads or 'default'}", result=result, expected=expected)
    assert result.sum() > 50000 and not result[0].any()


@pytest.mark.benchmark(group="small-in-8192")
def test_small_in_8192_opencv(benchmark):
    vertices, shape = small_in_8192()
    result = benchmark(opencv, vertices, shape)
    record(benchmark, backend="np.zeros + cv2.fillPoly", result=result,
           expected=polymask.mask(vertices, shape))


# ---- 1,000 COCO-like instances ----------------------------------------------------

@pytest.fixture(scope="module")
def coco(request):
    # CI runs each benchmark once (--benchmark-disable): 100 instances keep
    # its memory small (1,000 dense 640x480 masks are 300 MB per copy).
    fast = getattr(request.config, "polymask_fast_mode", False)
    polygons, shape = coco_instances(count=100 if fast else 1000)
    return polygons, shape, polymask.masks(polygons, shape)


@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_coco_polymask_masks(benchmark, coco, threads):
    polygons, shape, expected = coco
    benchmark.group = f"coco-{len(polygons)}"
    result = benchmark(polymask.masks, polygons, shape, threads=threads)
    record(benchmark, backend=f"polymask.masks threads={threads or 'default'}", result=result,
           expected=expected)
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_coco_polymask_masks_crop(benchmark, coco, threads):
    polygons, shape, expected = coco
    benchmark.group = f"coco-{len(polygons)}"
    crops = benchmark(polymask.masks, polygons, shape, threads=threads, crop=True)
    ok = all(np.array_equal(c.mask, e[c.slices]) for c, e in zip(crops, expected))
    benchmark.extra_info.update(backend=f"polymask.masks crop=True threads={threads or 'default'}",
                                matches_contract=ok)
    assert ok


@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads=1"])
def test_coco_polymask_mask_loop(benchmark, coco, threads):
    polygons, shape, expected = coco
    benchmark.group = f"coco-{len(polygons)}"
    result = benchmark(lambda: [polymask.mask(p, shape, threads=threads) for p in polygons])
    record(benchmark, backend=f"loop of polymask.mask threads={threads or 'default'}", result=np.stack(result),
           expected=expected)


def test_coco_opencv_loop(benchmark, coco):
    polygons, shape, expected = coco
    benchmark.group = f"coco-{len(polygons)}"
    result = benchmark(lambda: [opencv(p, shape) for p in polygons])
    record(benchmark, backend="loop of np.zeros + cv2.fillPoly", result=np.stack(result),
           expected=expected)


# ---- the same instances, each contender in a fresh process ------------------------

def test_steady_state_script():
    # benchmarks/steady_state.py, as a smoke run: every contender's row, and
    # the counts its table is read by (a round's page faults, the ratio).
    from benchmarks import steady_state

    results = steady_state.measure(rounds=2, count=20)
    assert list(results) == list(steady_state.CONTENDERS)
    for result in results.values():
        assert len(result["seconds"]) == len(result["faults"]) == 2
        assert all(seconds > 0 for seconds in result["seconds"])
    table = steady_state.report(results)
    assert all(f"| {name} |" in table for name in steady_state.CONTENDERS)
    assert "| opencv-loop |" in table and " 1.00 |" in table
