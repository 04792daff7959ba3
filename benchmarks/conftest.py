"""Benchmark fixtures.

    pytest benchmarks --benchmark-only                       the full grids
    pytest benchmarks --benchmark-only --benchmark-json=r.json && polymask bench --from-json r.json

In CI the suite runs with --benchmark-disable: each benchmark body runs once
(so the code and its correctness checks cannot rot) and the size and vertex
grids shrink to their smallest entries.
"""
import numpy as np


def pytest_configure(config):
    # Read by the test modules' parametrization (tiny grids when disabled).
    config.polymask_fast_mode = bool(config.getoption("benchmark_disable", False))


def record(benchmark, *, backend, kind, shape, n_vertices, result, expected, scale=1.0):
    """Fill extra_info the way `polymask bench --from-json` reads it."""
    result = np.asarray(result, dtype=bool)
    benchmark.extra_info.update(
        backend=backend, kind=kind, size=list(shape), n_vertices=int(n_vertices), scale=scale,
        matches_contract=bool(np.array_equal(result, expected)),
        pixels_differing=int(np.count_nonzero(result != expected)),
    )
