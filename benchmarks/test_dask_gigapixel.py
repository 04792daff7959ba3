"""A gigapixel mask on Dask (2 worker processes) against the single-machine mask.

Both fill every pixel of a SIDE x SIDE mask of the standard random polygon
and count the inside pixels, so neither ships the 1 GB result anywhere:
Dask fills 4096x4096 blocks on a LocalCluster of 2 single-threaded worker
processes and sums them; the single machine fills the whole mask with the
core's threads and counts it.  Compare medians as ratios:

    pytest benchmarks/test_dask_gigapixel.py --benchmark-only --benchmark-columns=median,iqr,rounds

SIDE is 32768 when benchmarking; under --benchmark-disable (CI: run once,
cannot rot) it is 2048.  $POLYMASK_BENCH_DASK_SIDE overrides both.
"""
import os

import numpy as np
import pytest

import polymask
from benchmarks._support import record
from polymask.course.problems import standard_problem

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.array")
import polymask.dask  # noqa: E402  (after the importorskips)

CHUNK = 4096
N_VERTICES = 24


@pytest.fixture(scope="module")
def side(request):
    if os.environ.get("POLYMASK_BENCH_DASK_SIDE"):
        return int(os.environ["POLYMASK_BENCH_DASK_SIDE"])
    return 2048 if request.config.getoption("benchmark_disable", False) else 32768


@pytest.fixture(scope="module")
def problem(side):
    vertices, shape = standard_problem(size=side, n_vertices=N_VERTICES)
    return vertices, shape


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


@pytest.fixture(scope="module")
def expected_count(problem):
    return int(np.count_nonzero(polymask.mask(*problem)))


def dask_group(problem):
    """The group of this file's benchmarks: the image and its chunks."""
    rows, cols = problem[1]
    return f"dask-mask-{rows}x{cols}-chunks-{CHUNK}"


def record_count(benchmark, backend, shape, count, expected):
    """record() for a count of inside pixels on a `shape` image."""
    record(benchmark, backend=backend, result=count, expected=expected, differing=abs(count - expected),
           shape=shape, chunk=CHUNK, inside_pixels=count)


def test_single_machine_mask(benchmark, problem, expected_count):
    benchmark.group = dask_group(problem)
    count = benchmark(lambda: int(np.count_nonzero(polymask.mask(*problem))))
    record_count(benchmark, "polymask.mask", problem[1], count, expected_count)
    assert count == expected_count


def test_dask_mask_two_workers(benchmark, problem, client, expected_count):
    lazy = polymask.dask.mask(*problem, chunks=CHUNK)
    benchmark.group = dask_group(problem)
    count = benchmark(lambda: int(client.compute(lazy.sum()).result()))
    record_count(benchmark, "polymask.dask.mask", problem[1], count, expected_count)
    assert count == expected_count
