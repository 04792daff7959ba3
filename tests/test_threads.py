"""Python threads and ``polymask.mask``: right answers, and the GIL let go.

* Eight Python threads start together (a Barrier) and each masks its own
  polygon, over and over, on every available backend; every result must
  equal that polygon's reference mask (tests/_support.py).  Half the threads
  also ask the core for helper threads, so Python threads and the core's
  pool run at once.
* While one thread runs a long fill, another thread keeps running Python:
  the fill releases the GIL.  benchmarks/test_gil.py measures the speed-up
  this gives; here it is checked without timing the fill itself.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polymask
from polymask import _core
from polymask.course import stages
from tests._support import double_mask

BACKENDS = [name for name, (ok, _) in polymask.available_backends().items() if ok]

THREADS = 8
#: Calls per thread; every one is checked.
REPEATS = 25


def _polygon(seed: int, shape) -> np.ndarray:
    """A different random polygon per thread: 5 to 20 vertices around the image."""
    rng = np.random.default_rng(seed)
    rows, cols = shape
    n = int(rng.integers(5, 21))
    return np.column_stack([rng.uniform(-2, cols + 2, n), rng.uniform(-2, rows + 2, n)])


def _shape_for(backend: str, k: int):
    # Slow (pure-Python) stages get tiny images; the others a few thousand pixels.
    # Shapes differ per thread so a mix-up between threads cannot go unseen.
    return (16 + k % 3, 20 - k % 4) if stages.get(backend).slow else (64 + 8 * k, 96 - 4 * k)


def _run_together(work, count=THREADS):
    """Run work(k) for k < count in `count` threads released at the same instant."""
    barrier = threading.Barrier(count)
    failures: list[BaseException] = []

    def body(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as error:  # noqa: BLE001 - reported on the main thread
            failures.append(error)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running after 300 s"
    if failures:
        raise failures[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_eight_threads_at_once_each_get_their_own_mask(backend):
    shapes = [_shape_for(backend, k) for k in range(THREADS)]
    polygons = [_polygon(1000 + k, shapes[k]) for k in range(THREADS)]
    expected = [double_mask(polygons[k], shapes[k]) for k in range(THREADS)]
    repeats = 3 if stages.get(backend).slow else REPEATS
    options = [{"threads": 0 if k % 2 else 1} if stages.get(backend).threaded else {} for k in range(THREADS)]
    wrong: list[str] = []

    def work(k):
        out = np.empty(shapes[k], bool)
        for repeat in range(repeats):
            # Alternate new arrays and out=, so both paths run concurrently.
            result = polymask.mask(polygons[k], shapes[k], backend=backend,
                                   out=out if repeat % 2 else None, **options[k])
            if not np.array_equal(result, expected[k]):
                wrong.append(f"thread {k}, call {repeat}: {int((result != expected[k]).sum())} pixels differ")

    _run_together(work)
    assert not wrong, f"{backend}: " + "; ".join(wrong[:5])


def test_threads_share_one_polygon_and_one_output_row_band_each():
    # Eight threads fill disjoint windows of one shared output array at once:
    # the tiles meet exactly, as in the Dask path.
    shape = (8 * 40, 300)
    polygon = _polygon(7, shape)
    whole = np.zeros(shape, bool)

    def work(k):
        rows = slice(40 * k, 40 * (k + 1))
        polymask.mask(polygon, shape, window=(40 * k, 0, 40, shape[1]), out=whole[rows], threads=1)

    _run_together(work)
    np.testing.assert_array_equal(whole, double_mask(polygon, shape))


def _spiky_polygon(spikes: int, side: int) -> np.ndarray:
    """A comb with `spikes` teeth across the whole image: every row crosses every tooth."""
    xs = np.linspace(0, side, 2 * spikes + 1)
    ys = np.tile([0.5, side - 0.5], spikes + 1)[: 2 * spikes + 1]
    return np.column_stack([np.concatenate([xs, [side, 0]]), np.concatenate([ys, [side + 1, side + 1]])])


@pytest.mark.wallclock
def test_the_fill_releases_the_gil():
    # One thread fills a mask that takes a good fraction of a second on one
    # core; meanwhile the main thread counts how long it waits between its
    # own Python steps.  If the fill held the GIL, the main thread would
    # stall for the whole fill; released, it never waits much longer than
    # the interpreter's switch interval.
    side = 6000
    polygon = _spiky_polygon(12000, side)  # 6000 rows x 24000 crossings: about 0.3 s
    started = time.perf_counter()
    polymask.mask(polygon, (side, side), threads=1)
    fill_seconds = time.perf_counter() - started
    assert fill_seconds > 0.1, f"the fill took {fill_seconds:.3f} s: too short to tell"

    done = threading.Event()

    def fill():
        polymask.mask(polygon, (side, side), threads=1)
        done.set()

    worker = threading.Thread(target=fill)
    longest_wait = 0.0
    steps = 0
    last = time.perf_counter()  # before start(): a stall while the worker begins counts too
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_wait = max(longest_wait, now - last)
        last = now
        steps += 1
    worker.join()
    assert steps > 100, f"the main thread took only {steps} steps during a {fill_seconds:.3f} s fill"
    assert longest_wait < fill_seconds / 2, (
        f"the main thread stalled {longest_wait:.3f} s during a {fill_seconds:.3f} s fill: the GIL was held")


# ---- the threading layer: counts, chunking, caps, resources ------------------



_coordinate = st.floats(-8, 72, allow_nan=False, allow_infinity=False)


# Any forced chunking (csrc/src/testing.hpp) is the C++ suite's to try: the
# hook is internal to the core, so these fills chunk by their work.
@settings(max_examples=40, deadline=None)
@given(vertices=st.lists(st.tuples(_coordinate, _coordinate), min_size=0, max_size=12),
       rows=st.integers(1, 70), cols=st.integers(1, 70), threads=st.integers(0, 9),
       fill_rule=st.sampled_from(["evenodd", "nonzero"]))
def test_masks_are_identical_for_every_thread_count(vertices, rows, cols, threads, fill_rule):
    polygon = np.array(vertices, dtype=np.float64).reshape(-1, 2)
    expected = double_mask(polygon, (rows, cols), fill_rule)
    got = polymask.mask(polygon, (rows, cols), threads=threads, fill_rule=fill_rule)
    labels = polymask.rasterize([polygon, polygon[::-1] + 3], (rows, cols), threads=threads,
                                fill_rule=fill_rule)
    np.testing.assert_array_equal(got, expected)
    single = polymask.rasterize([polygon, polygon[::-1] + 3], (rows, cols), threads=1, fill_rule=fill_rule)
    np.testing.assert_array_equal(labels, single)


def test_threads_is_an_upper_bound_capped_at_a_few_per_cpu():
    info = polymask.build_info()
    assert "pool" in info["threading"]
    assert info["thread_cap"] >= 4
    assert _core.thread_count(1) == 1
    assert _core.thread_count(1024) == info["thread_cap"]
    assert 1 <= info["threads"] <= info["thread_cap"]
    # The largest accepted count still gives the right mask.
    np.testing.assert_array_equal(polymask.mask(_polygon(3, (90, 80)), (90, 80), threads=1024),
                                  double_mask(_polygon(3, (90, 80)), (90, 80)))


def test_the_threads_context_manager_pins_the_default():
    polygon, shape = _polygon(5, (64, 64)), (64, 64)
    with polymask.threads(1) as count:
        assert count == 1
        from polymask._threads import as_threads
        assert as_threads(None) == 1
        assert as_threads(3) == 3  # an explicit argument still wins
        assert as_threads(0) == 1  # 0, like None, is the default
        with polymask.threads(2):
            assert as_threads(None) == 2
        assert as_threads(None) == 1
        np.testing.assert_array_equal(polymask.mask(polygon, shape), double_mask(polygon, shape))
    assert as_threads(None) == 0
    with pytest.raises(ValueError, match="polymask.threads\\(n\\) must be between 0 .* got -2"):
        with polymask.threads(-2):
            pass
    with pytest.raises(TypeError, match="got 1.5"):
        with polymask.threads(1.5):
            pass


def _run_python(code, env_extra=None, timeout=120):
    env = dict(os.environ)
    env.pop("POLYMASK_NUM_THREADS", None)
    env.pop("OMP_NUM_THREADS", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


DEFAULT_THREADS = "import polymask; print(polymask.build_info()['threads'], polymask.build_info()['thread_cap'])"


@pytest.mark.parametrize("env,expected", [
    ({"OMP_NUM_THREADS": "100000"}, "cap"),
    ({"OMP_NUM_THREADS": "3"}, 3),
    ({"OMP_NUM_THREADS": "3", "POLYMASK_NUM_THREADS": "1"}, 1),
    ({"POLYMASK_NUM_THREADS": "100000"}, "cap"),
])
def test_environment_sets_the_default_within_the_cap(env, expected):
    completed = _run_python(DEFAULT_THREADS, env)
    assert completed.returncode == 0, completed.stderr
    threads, cap = map(int, completed.stdout.split())
    assert threads == (cap if expected == "cap" else min(expected, cap))


#: A zigzag of 2,000 vertices across all 300 rows of a 300 x 300 mask: every
#: row crosses about 2,000 edges, work a fill asks helper threads for.
COMB = """
import numpy as np
comb = np.column_stack([np.linspace(1, 298, 2000), np.where(np.arange(2000) % 2 == 0, 1.0, 298.0)])
"""

FILL_UNDER_PRESSURE = COMB + """
import sys, numpy as np, polymask
from polymask import _core
_core._reset_pool_learning(adaptive=False)  # helpers for the work alone, whatever else the machine runs
vertices = comb  # every fill asks for helper threads
single = polymask.mask(vertices, (300, 300), threads=1)
{limit}
for threads in (None, 2, 1024):
    for _ in range(3):
        assert (polymask.mask(vertices, (300, 300), threads=threads) == single).all()
print("alive")
"""

#: Leave the process a little more address space than it has now: a new
#: thread's stack (8 MiB by default) no longer fits.
ADDRESS_SPACE_LIMIT = """
import resource
with open("/proc/self/statm") as statm:
    pages = int(statm.read().split()[0])
current = pages * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (current + 4 * 2**20, resource.RLIM_INFINITY))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_threads_that_cannot_start_cost_nothing_but_speed():
    completed = _run_python(FILL_UNDER_PRESSURE.format(limit=ADDRESS_SPACE_LIMIT))
    assert completed.returncode == 0 and "alive" in completed.stdout, completed.stderr[-2000:]
    # threads=10**4 is refused with a clear error, not a dead process.
    refused = _run_python("import polymask\n" + ADDRESS_SPACE_LIMIT + "\ntry:\n"
                          "    polymask.mask([(0, 0), (4, 0), (0, 4)], (8, 8), threads=10**4)\n"
                          "except ValueError as error:\n    print('refused:', error)\n")
    assert refused.returncode == 0 and "refused: threads must be between 0" in refused.stdout, refused.stderr[-2000:]


def test_omp_num_threads_huge_leaves_every_backend_alive():
    code = FILL_UNDER_PRESSURE.format(limit="") + """
for backend in ("cython_prange", "numba", "scanline"):
    assert (polymask.mask(vertices, (300, 300), backend=backend) == single).all(), backend
# The fills above asked for helpers (under pressure they ask the same and none start).
assert _core.pool_statistics()["threaded_calls"] > 0
print("all backends")
"""
    completed = _run_python(code, {"OMP_NUM_THREADS": "100000"}, timeout=300)
    assert completed.returncode == 0 and "all backends" in completed.stdout, completed.stderr[-2000:]


THREADS_STARTED = """
import os, numpy as np, polymask
polymask._core._reset_pool_learning(adaptive=False)  # the plan by work alone, whatever else the machine runs
def tasks():
    return len(os.listdir("/proc/self/task"))
before = tasks()
square = np.array([(2, 2), (60, 3), (58, 61), (3, 59)], dtype=float)
for _ in range(50):
    polymask.mask(square, (64, 64), threads=8)
small = tasks()
# A 2000-vertex star on 4096x4096: work a helper clearly pays for.  The pool wakes
# one only on a core it sees free; with that learning off it must start one at once,
# and the loop's few tries only tolerate a pool that starts its helper lazily.
angles = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
radii = np.where(np.arange(2000) % 2, 2000.0, 800.0)
star = np.c_[2048 + radii * np.cos(angles), 2048 + radii * np.sin(angles)]
for _ in range(10):
    polymask.mask(star, (4096, 4096), threads=2)
    if tasks() > small:
        break
print(before, small, tasks())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_fill_too_small_to_gain_starts_no_thread():
    completed = _run_python(THREADS_STARTED)
    assert completed.returncode == 0, completed.stderr[-2000:]
    before, small, large = map(int, completed.stdout.split())
    assert small == before, "64x64 fills started threads"
    assert large == before + 1, "a 4096x4096 fill on 2 threads should start exactly one helper"


def test_threadpoolctl_sees_and_limits_polymask():
    import threadpoolctl

    polymask_pools = [info for info in threadpoolctl.threadpool_info() if info["user_api"] == "polymask"]
    assert len(polymask_pools) == 1, polymask_pools
    assert polymask_pools[0]["filepath"] == _core.__file__
    from polymask._threads import as_threads
    with threadpoolctl.threadpool_limits(limits=1, user_api="polymask"):
        assert as_threads(None) == 1
        polygon = _polygon(9, (64, 64))
        np.testing.assert_array_equal(polymask.mask(polygon, (64, 64)), double_mask(polygon, (64, 64)))
    assert as_threads(None) == _core.thread_count(0)  # restored to the default's count


def test_xarray_follows_polymask_threads_on_large_grids(monkeypatch):
    """polymask.xarray once passed 0 (every CPU) to the core on grids of 2**22 points or more, whatever the block."""
    pytest.importorskip("xarray")
    import polymask.xarray
    from polymask import _polygons

    asked = []
    rasterize = _polygons.rasterize

    def recording(*arguments):
        asked.append(arguments[-1])  # the thread count
        return rasterize(*arguments)

    monkeypatch.setattr(_polygons, "rasterize", recording)
    # A 0.1-degree grid: 6.5 million points, filled in memory by one core call.
    lon, lat = np.arange(-179.95, 180, 0.1), np.arange(-89.95, 90, 0.1)
    box = [(-50, -40), (50, -40), (50, 40), (-50, 40)]
    with polymask.threads(1):
        inside = polymask.xarray.mask(box, lon, lat)
    assert asked == [1], asked
    assert int(inside.sum()) == 1000 * 800
