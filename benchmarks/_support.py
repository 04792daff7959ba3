"""Shared benchmark support, imported as ``benchmarks._support``."""
import numpy as np


def record(benchmark, *, backend, kind, shape, n_vertices, result, expected, scale=1.0):
    """Fill extra_info the way `polymask bench --from-json` reads it."""
    result = np.asarray(result, dtype=bool)
    benchmark.extra_info.update(
        backend=backend, kind=kind, size=list(shape), n_vertices=int(n_vertices), scale=scale,
        matches_contract=bool(np.array_equal(result, expected)),
        pixels_differing=int(np.count_nonzero(result != expected)),
    )
