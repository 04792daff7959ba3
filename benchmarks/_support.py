"""Shared benchmark support, imported as ``benchmarks._support``.

``record`` is the one way a benchmark says what it timed and whether its
answer was right: every benchmark's ``extra_info`` has the same keys, which
``polymask bench --from-json`` reads (orjson's bench records its
``extra_info`` the same way, so a fast wrong answer shows as wrong).
"""
from __future__ import annotations

import numpy as np


def record(benchmark, *, backend: str, result, expected, group: str | None = None, differing: int | None = None,
           scale: float = 1.0, **problem) -> bool:
    """Fill ``benchmark.extra_info`` and return whether `result` equals `expected`.

    backend    what was timed: a stage or peer id, or a short label.
    result     what it computed; expected: the reference (polymask's exact
               answer).  Arrays are compared element for element, and where
               `expected` is a bool mask `result` is read as one (nonzero is
               inside: OpenCV fills 255).  Anything else (pixel counts, lists
               of RLEs) is compared with ``==``.
    group      the problem, as ``benchmark.group`` (None: left as it is).
               Set the group before the timed call (a
               ``pytest.mark.benchmark(group=...)`` marker, or
               ``benchmark.group = ...``): pytest-benchmark copies it into
               the row's stats when the timing ends.  A group given only
               here is written into those stats as well, so the row is never
               left in no group.
    differing  how many pixels differ, for results that are not arrays, when
               the caller can tell (arrays are counted here).
    scale      the factor from the timed problem to the group's full one (slow
               stages are timed on fewer rows).
    problem    what the problem was: shape, n_vertices, kind, chunk, ...
               (tuples are stored as lists, as JSON has them).

    extra_info gets backend, matches_contract, pixels_differing (when known),
    scale, and `problem`.
    """
    if isinstance(result, np.ndarray) or isinstance(expected, np.ndarray):
        expected = np.asarray(expected)
        result = np.asarray(result, dtype=bool if expected.dtype == bool else None)
        matches = bool(np.array_equal(result, expected))
        if result.shape == expected.shape:
            differing = int(np.count_nonzero(result != expected))
    else:
        matches = bool(result == expected)
    if group is not None:
        benchmark.group = group
        stats = getattr(benchmark, "stats", None)  # None: not timed yet, or --benchmark-disable
        if stats is not None:
            stats.group = group
    benchmark.extra_info.update(backend=backend, matches_contract=matches, scale=scale,
                                **{key: list(value) if isinstance(value, tuple) else value
                                   for key, value in problem.items()})
    if differing is not None:
        benchmark.extra_info["pixels_differing"] = int(differing)
    return matches


def inside_even_odd(polygon, px, py) -> np.ndarray:
    """The contract's formula in NumPy: whether each point (px, py) is inside `polygon` (even-odd).

    An independent reference for benchmarks whose result polymask would
    otherwise be compared with itself: the same float64 operations, in the
    contract's order, over every edge at once.
    """
    x, y = polygon[:, 0], polygon[:, 1]
    xj, yj = np.roll(x, 1), np.roll(y, 1)
    px, py = np.asarray(px, dtype=np.float64)[..., None], np.asarray(py, dtype=np.float64)[..., None]
    crosses = (y > py) != (yj > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = (xj - x) * (py - y) / (yj - y) + x
    return np.count_nonzero(crosses & (px < x_cross), axis=-1) % 2 == 1
