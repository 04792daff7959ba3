"""Benchmark fixtures.

    pytest benchmarks --benchmark-only                       the full grids
    pytest benchmarks --benchmark-only --benchmark-json=r.json && polymask bench --from-json r.json

In CI the suite runs with --benchmark-disable: each benchmark body runs once
(so the code and its correctness checks cannot rot) and the size and vertex
grids shrink to their smallest entries.
"""


def pytest_configure(config):
    # Read by the test modules' parametrization (tiny grids when disabled).
    config.polymask_fast_mode = bool(config.getoption("benchmark_disable", False))
