"""How time grows with image size and vertex count, for the fast backends and peers.

Sizes 256..8192 at 24 vertices, vertex counts 3..100,000 at 1024x1024.  The
per-pixel backends (cython_prange, numba, opencl) are O(H*W*N): they are
left out of the combinations above ~4e9 edge tests, which would take
minutes; the peers stop at 10,000 vertices (see MAX_PEER_VERTICES); the
scanline core runs everything.
"""
import pytest

import polymask
from polymask.course import peers, stages
from polymask.course.problems import random_polygon

SIZES = [256, 512, 1024, 2048, 4096, 8192]
VERTEX_COUNTS = [3, 10, 100, 1000, 10_000, 100_000]
PER_PIXEL = ["cython_prange", "numba", "opencl"]
SCANLINE_LIKE = ["scanline", "opencv", "pillow"]
MAX_PER_PIXEL_WORK = 4e9  # pixels x edges
# cv2.fillPoly slows down much faster than linearly on random polygons with
# many vertices (about 2 s at 10,000 vertices on 256x256 here, minutes at
# 100,000), so the peers stop at 10,000.
MAX_PEER_VERTICES = 10_000


def _combinations(parameter, fast_mode):
    values = SIZES if parameter == "size" else VERTEX_COUNTS
    if fast_mode:
        values = values[:1] + values[-1:] if parameter == "vertices" else values[:1]
    combos = []
    for backend in SCANLINE_LIKE + PER_PIXEL:
        for value in values:
            size = value if parameter == "size" else 1024
            n_vertices = value if parameter == "vertices" else 24
            if fast_mode:
                size = min(size, 256)
            if backend in PER_PIXEL and size * size * n_vertices > MAX_PER_PIXEL_WORK:
                continue
            if backend in peers.ids() and n_vertices > MAX_PEER_VERTICES:
                continue
            combos.append(pytest.param(backend, size, n_vertices, id=f"{backend}-{size}-{n_vertices}"))
    return combos


def pytest_generate_tests(metafunc):
    if "scaling_case" in metafunc.fixturenames:
        parameter = metafunc.function.__name__.split("_")[1]  # test_size_... / test_vertices_...
        metafunc.parametrize("backend,size,n_vertices",
                             _combinations(parameter, metafunc.config.polymask_fast_mode))
        metafunc.parametrize("scaling_case", [parameter])


def _run(benchmark, backend, size, n_vertices, group):
    vertices = random_polygon(n_vertices, size)
    shape = (size, size)
    if backend in stages.ids():
        status = stages.availability(backend)
        assert status.available, f"{backend} must run here (the test extra installs it): {status.reason}"
        function = lambda: polymask.mask(vertices, shape, backend=backend)  # noqa: E731
        kind = "stage"
    else:
        peer = peers.get(backend)
        function = lambda: peer.function(vertices, shape)  # noqa: E731
        kind = "peer"
    benchmark.group = group
    result = benchmark(function)
    from benchmarks._support import record

    record(benchmark, backend=backend, kind=kind, shape=shape, n_vertices=n_vertices,
           result=result, expected=polymask.mask(vertices, shape))
    if kind == "stage":
        assert benchmark.extra_info["matches_contract"]


def test_size_scaling(benchmark, scaling_case, backend, size, n_vertices):
    _run(benchmark, backend, size, n_vertices, f"size {size}x{size}, {n_vertices} vertices")


def test_vertices_scaling(benchmark, scaling_case, backend, size, n_vertices):
    _run(benchmark, backend, size, n_vertices, f"vertices {n_vertices}, {size}x{size}")
