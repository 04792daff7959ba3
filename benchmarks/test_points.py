"""Points: ``polymask.contains`` against shapely and matplotlib on scattered points.

    pytest benchmarks/test_points.py --benchmark-only --benchmark-columns=median,iqr,rounds \\
        --benchmark-group-by=group

Group ``points-<count>-star-<vertices>``: which of 10^6 points, uniform in
the bounding box of a 1,000-vertex star (sorted angles, random radii: a
simple polygon, so every library's answer is defined), lie inside.
polymask at default threads and ``threads=1``; the point peers of
``polymask.course.peers`` (shapely's ``contains_xy`` on a prepared polygon,
matplotlib's ``Path.contains_points``), each called as a user would, array
conversion included.  extra_info counts the points each answer differs from
the contract (polymask's answer, itself checked against the contract's
float64 formula on a sample first).  Target: polymask at least 10x faster
than both peers.
"""
import functools

import numpy as np
import pytest

import polymask
from benchmarks._support import record
from polymask.course import peers

SIZES = [(1_000_000, 1000)]
FAST_SIZES = [(10_000, 100)]


def pytest_generate_tests(metafunc):
    if "points_problem" in metafunc.fixturenames:
        sizes = FAST_SIZES if metafunc.config.polymask_fast_mode else SIZES
        metafunc.parametrize("points_problem", sizes, ids=[f"points-{n}-star-{v}" for n, v in sizes])


def contract_at(ring, x, y):
    """The contract's float64 formula at each point, edge arrays at a time (a slow, independent check)."""
    xi, yi = ring[:, 0], ring[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)
    inside = np.zeros(len(x), dtype=bool)
    with np.errstate(all="ignore"):
        for k, (px, py) in enumerate(zip(x, y)):
            crosses = (yi > py) != (yj > py)
            a, b, c, d = xi[crosses], yi[crosses], xj[crosses], yj[crosses]
            inside[k] = np.count_nonzero(px < (c - a) * (py - b) / (d - b) + a) % 2 == 1
    return inside


@functools.lru_cache(maxsize=None)
def problem(count: int, n_vertices: int):
    """The star, the points and the contract's answer at them (checked on a sample)."""
    rng = np.random.default_rng(2014)
    angles = np.sort(rng.uniform(0, 2 * np.pi, n_vertices))
    radii = rng.uniform(250, 500, n_vertices)
    star = np.column_stack([512 + radii * np.cos(angles), 512 + radii * np.sin(angles)])
    x, y = rng.uniform(0, 1024, size=(2, count))
    expected = polymask.contains(star, x, y, threads=1)
    sample = slice(0, 2000)
    assert np.array_equal(expected[sample], contract_at(star, x[sample], y[sample]))
    return star, x, y, expected


@pytest.mark.parametrize("threads", [None, 1], ids=["default", "threads1"])
def test_polymask_contains(benchmark, points_problem, threads):
    star, x, y, expected = problem(*points_problem)
    count, n_vertices = points_problem
    benchmark.group = f"points-{count}-star-{n_vertices}"
    inside = benchmark(polymask.contains, star, x, y, threads=threads)
    assert record(benchmark, backend="polymask" if threads is None else "polymask-threads1", result=inside,
                  expected=expected, points=count,
                  n_vertices=n_vertices)


@pytest.mark.parametrize("peer", peers.POINT_PEERS, ids=lambda peer: peer.id)
def test_peer_contains(benchmark, points_problem, peer):
    available, reason = peer.availability()
    if not available:
        pytest.fail(f"the test extra installs every peer; {peer.id} is missing: {reason}")
    star, x, y, expected = problem(*points_problem)
    count, n_vertices = points_problem
    benchmark.group = f"points-{count}-star-{n_vertices}"
    inside = benchmark(peer.function, star, x, y)
    record(benchmark, backend=peer.id, result=inside, expected=expected, points=count, n_vertices=n_vertices)
