"""Repeated calls do not grow the process: no leak per call, anywhere.

Each test warms a call up (caches, JIT, kernel builds settle), then repeats
it 10,000 times (the teaching stages: as many as fit in about two seconds,
300 to 2,000) and checks two meters:

* the resident set size (/proc/self/statm), which sees C++ allocations
  (a Polygon or an edge table not freed) as well as Python ones;
* tracemalloc, which sees every Python object and NumPy buffer kept alive.

The calls use a 200-vertex polygon on a 64x64 image, so one leaked mask
(4 KiB) or one leaked polygon (about 14 KiB in the core) per call would grow
the process by tens of megabytes, far beyond the bounds below.  Error paths
(calls that raise) are repeated too: an exception must not keep its buffers.
The OpenCL engine (polymask.opencl.MaskEngine) gets the same treatment
where an OpenCL device is available.
"""
from __future__ import annotations

import functools
import gc
import os
import resource
import time
import tracemalloc

import numpy as np
import pytest

import polymask
from polymask.course import stages
from tests._support import double_mask

CALLS = 10_000
SHAPE = (64, 64)
#: Bounds on growth over all the repeated calls (not per call).
RSS_BOUND = 4 * 2**20
TRACED_BOUND = 128 * 2**10

BACKENDS = [name for name, (ok, _) in polymask.available_backends().items() if ok]


def _polygon(n=200, seed=3):
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(10, 34, n)
    return np.column_stack([32 + radii * np.cos(angles), 32 + radii * np.sin(angles)])


POLYGON = _polygon()


def rss_bytes() -> int:
    """The resident set size now (Linux), else the peak so far (a leak grows both)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def assert_no_growth(call, calls=CALLS):
    """Warm call() up, run it `calls` times watching RSS, then calls // 5 times under tracemalloc.

    tracemalloc counts bytes exactly (no noise from the allocator), so a
    fifth of the calls is plenty for it, and keeps its overhead out of CI.
    """
    for _ in range(max(50, calls // 10)):
        call()
    gc.collect()
    before = rss_bytes()
    for _ in range(calls):
        call()
    gc.collect()
    rss_growth = rss_bytes() - before

    tracemalloc.start()
    try:
        call()
        gc.collect()
        traced_before = tracemalloc.get_traced_memory()[0]
        traced_calls = max(1, calls // 5)
        for _ in range(traced_calls):
            call()
        gc.collect()
        traced_growth = tracemalloc.get_traced_memory()[0] - traced_before
        if traced_growth > TRACED_BOUND:
            top = tracemalloc.take_snapshot().statistics("lineno")[:3]
            pytest.fail(f"tracemalloc grew {traced_growth:,} bytes over {traced_calls:,} calls; top: {top}")
    finally:
        tracemalloc.stop()
    assert rss_growth < RSS_BOUND, f"RSS grew {rss_growth:,} bytes over {calls:,} calls"


def _expect_error(error, *args, **kwargs):
    def call():
        try:
            polymask.mask(*args, **kwargs)
        except error:
            return
        raise AssertionError(f"polymask.mask{args} did not raise {error.__name__}")
    return call


def test_the_polygon_is_big_enough_to_show_a_leak():
    assert len(POLYGON) == 200
    assert polymask.mask(POLYGON, SHAPE).sum() > 1000


def test_repeated_masks_do_not_grow_the_process():
    # threads=1 in the long loops: on a busy CI machine waking an OpenMP team
    # costs more than the fill; the threaded path has its own test below.
    assert_no_growth(lambda: polymask.mask(POLYGON, SHAPE, threads=1))


def test_repeated_threaded_masks_do_not_grow_the_process():
    tall = (256, 64)  # 16 rows per thread at least: the core really starts a team
    assert_no_growth(lambda: polymask.mask(POLYGON, tall, threads=2), calls=500)


def test_repeated_masks_into_out_do_not_grow_the_process():
    out = np.empty(SHAPE, np.uint8)
    assert_no_growth(lambda: polymask.mask(POLYGON, SHAPE, out=out, threads=1))
    np.testing.assert_array_equal(out.view(bool), double_mask(POLYGON, SHAPE))


def test_rings_windows_and_nonzero_do_not_grow_the_process():
    rings = [POLYGON, POLYGON[::-1] * 0.5 + 16, [(0, 0), (5, 0), (0, 5)]]
    assert_no_growth(lambda: polymask.mask(rings, SHAPE, fill_rule="nonzero", window=(8, 4, 40, 50), threads=1))


def test_polygons_of_every_size_do_not_grow_the_process():
    # A different vertex count each call: buffers sized per call are freed too.
    sizes = iter(range(10**9))
    assert_no_growth(lambda: polymask.mask(POLYGON[: next(sizes) % 200], SHAPE, threads=1))


def test_repeated_point_queries_do_not_grow_the_process():
    """contains and contains_labels build an index per call: it must go with the call."""
    rng = np.random.default_rng(4)
    x, y = rng.uniform(0, 64, (2, 500))
    polygons = [POLYGON, POLYGON[:7] + 3, POLYGON[::-1] * 0.5]
    calls = iter(range(10**9))
    assert_no_growth(lambda: polymask.contains(POLYGON, x, y, threads=1) if next(calls) % 2 else
                     polymask.contains_labels(polygons, x, y, threads=1), calls=2000)
    assert_no_growth(lambda: polymask.contains_labels(polygons, x, y[:40, None], threads=1), calls=1000)


@pytest.mark.parametrize("name,call", [
    ("non-finite vertex", _expect_error(ValueError, np.vstack([POLYGON, [(np.nan, 1.0)]]), SHAPE)),
    ("wrong vertex shape", _expect_error(ValueError, np.zeros((200, 3)), SHAPE)),
    ("bad image shape", _expect_error(ValueError, POLYGON, (0, 64))),
    ("wrong out dtype", _expect_error(TypeError, POLYGON, SHAPE, out=np.empty(SHAPE, np.float32))),
    ("unallocatable mask", _expect_error(MemoryError, POLYGON, (2**31 - 1, 2**31 - 1))),
    ("unknown backend", _expect_error(ValueError, POLYGON, SHAPE, backend="nope")),
])
def test_calls_that_raise_do_not_grow_the_process(name, call):
    assert_no_growth(call)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_repeated_does_not_grow_the_process(backend):
    # As many calls as fit in about two seconds, between 300 and 2,000: the
    # per-pixel stages take milliseconds a call, the core microseconds.
    stage = stages.get(backend)
    vertices, shape = (POLYGON[::10] / 4, (16, 16)) if stage.slow else (POLYGON, SHAPE)
    options = {"threads": 1} if stage.threaded else {}
    expected = double_mask(vertices, shape)
    assert np.array_equal(polymask.mask(vertices, shape, backend=backend, **options), expected)
    started = time.perf_counter()
    for _ in range(5):
        polymask.mask(vertices, shape, backend=backend, **options)
    seconds_per_call = (time.perf_counter() - started) / 5
    calls = int(min(2_000, max(300, 2.0 / seconds_per_call)))
    assert_no_growth(lambda: polymask.mask(vertices, shape, backend=backend, **options), calls=calls)


def test_the_opencl_engine_repeated_does_not_grow_the_process():
    # Assumes polymask.opencl exposes available()/unavailable_reason() and
    # MaskEngine(device=None) with .mask(vertices, shape, kernel=...) returning
    # a bool array.  Missing OpenCL (no PyOpenCL, no device) skips with the
    # reason; a module whose engine API differs fails here.
    opencl = pytest.importorskip("polymask.opencl", reason="polymask.opencl is not part of this build")
    if not opencl.available():
        pytest.skip(f"no OpenCL here: {opencl.unavailable_reason()}")
    engine = opencl.MaskEngine()
    for kernel in ("pixel", "scanline"):
        first = engine.mask(POLYGON, SHAPE, kernel=kernel)
        assert first.dtype == bool and first.shape == SHAPE
        if engine.precision == "double":
            np.testing.assert_array_equal(first, double_mask(POLYGON, SHAPE))
        # The full 10,000 calls for the per-pixel kernel, 2,000 for the scanline one.
        assert_no_growth(functools.partial(engine.mask, POLYGON, SHAPE, kernel=kernel),
                         calls=CALLS if kernel == "pixel" else 2_000)
