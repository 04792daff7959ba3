"""Python threads and ``polymask.mask``: right answers, and the GIL let go.

* Eight Python threads start together (a Barrier) and each masks its own
  polygon, over and over, on every available backend; every result must
  equal that polygon's reference mask (tests/reference.py).  Half the threads
  also ask the core for OpenMP threads, so Python threads and OpenMP teams
  run at once.
* While one thread runs a long fill, another thread keeps running Python:
  the fill releases the GIL.  benchmarks/test_gil.py measures the speed-up
  this gives; here it is checked without timing the fill itself.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import polymask
from polymask import stages
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


def test_the_fill_releases_the_gil():
    # One thread fills a mask that takes a good fraction of a second on one
    # core; meanwhile the main thread counts how long it waits between its
    # own Python steps.  If the fill held the GIL, the main thread would
    # stall for the whole fill; released, it never waits much longer than
    # the interpreter's switch interval.
    side = 3000
    polygon = _spiky_polygon(6000, side)  # 3000 rows x 12000 crossings: about 0.3 s
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
