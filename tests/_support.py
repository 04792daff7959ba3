"""Shared test support: independent references for the mask contract and one
mask-equality assertion, imported as ``tests._support`` by every test module.

Neither shares code with polymask: `exact_mask` uses rational arithmetic
(fractions.Fraction), so it is the mathematical truth for the crossing rule;
`double_mask` evaluates the contract's float64 formula with NumPy, one
operation per ufunc call, so it rounds exactly like the C++ core must.
"""
from __future__ import annotations

import os
import signal
import subprocess
from fractions import Fraction

import numpy as np
import pytest


def _edges(vertices):
    """(x_i, y_i, x_j, y_j) for each edge (i, j = i - 1), as the contract orders them."""
    n = len(vertices)
    for i in range(n):
        j = (i - 1) % n
        yield vertices[i][0], vertices[i][1], vertices[j][0], vertices[j][1]


def exact_mask(vertices, shape) -> np.ndarray:
    """The even-odd crossing rule in exact rational arithmetic."""
    points = [(Fraction(float(x)), Fraction(float(y))) for x, y in np.asarray(vertices, dtype=float).reshape(-1, 2)]
    edges = list(_edges(points))
    rows, cols = shape
    result = np.zeros(shape, dtype=bool)
    for row in range(rows):
        py = Fraction(row)
        crossings = [
            (xj - xi) * (py - yi) / (yj - yi) + xi
            for xi, yi, xj, yj in edges
            if (yi > py) != (yj > py)
        ]
        for col in range(cols):
            result[row, col] = sum(1 for x_cross in crossings if col < x_cross) % 2 == 1
    return result


def double_mask(vertices, shape, fill_rule: str = "evenodd") -> np.ndarray:
    """The contract's float64 rule at every pixel, vectorised over edges.

    For each row, the crossing test and x_cross are computed for all edges at
    once; each pixel then counts the crossings with px < x_cross.  Works for
    100,000 vertices on a small image.  (One ring: double_rings_mask below.)
    """
    return double_rings_mask([vertices], shape, fill_rule)


def picture(mask: np.ndarray) -> str:
    """A mask as rows of '#' and '.', for readable assertion messages."""
    return "\n".join("".join("#" if v else "." for v in row) for row in np.asarray(mask, dtype=bool))


# ---- several rings: holes and multi-polygons -------------------------------
#
# A polygon with rings is the union of its rings' edges, each ring closing on
# itself; the rule then counts crossings over all of them.  These references
# take the rings as a plain list of (Ni, 2) sequences, so they never see how
# polymask parses GeoJSON or shapely.


def _ring_edge_arrays(rings):
    """xi, yi, xj, yj over all rings, edge (i, j = i - 1) within each ring."""
    parts = [np.asarray(ring, dtype=np.float64).reshape(-1, 2) for ring in rings]
    parts = [ring for ring in parts if len(ring)]
    if not parts:
        empty = np.zeros(0)
        return empty, empty, empty, empty
    xi = np.concatenate([ring[:, 0] for ring in parts])
    yi = np.concatenate([ring[:, 1] for ring in parts])
    xj = np.concatenate([np.roll(ring[:, 0], 1) for ring in parts])
    yj = np.concatenate([np.roll(ring[:, 1], 1) for ring in parts])
    return xi, yi, xj, yj


def double_rings_mask(rings, shape, fill_rule: str = "evenodd") -> np.ndarray:
    """The contract's float64 formula over every edge of every ring, per pixel.

    fill_rule "evenodd": odd crossing count; "nonzero": the signed count
    (+1 for an edge (i, j) with y[i] > y[j], -1 otherwise) is not zero.
    """
    xi, yi, xj, yj = _ring_edge_arrays(rings)
    rows, cols = shape
    result = np.zeros(shape, dtype=bool)
    columns = np.arange(cols, dtype=np.float64)
    with np.errstate(all="ignore"):
        for row in range(rows):
            py = np.float64(row)
            crosses = (yi > py) != (yj > py)
            a, b, c, d = xi[crosses], yi[crosses], xj[crosses], yj[crosses]
            x_cross = (c - a) * (py - b) / (d - b) + a
            right_of_pixel = columns[:, None] < x_cross[None, :]
            if fill_rule == "evenodd":
                result[row] = right_of_pixel.sum(axis=1) % 2 == 1
            else:
                direction = np.where(b > d, 1, -1)
                result[row] = (right_of_pixel * direction[None, :]).sum(axis=1) != 0
    return result


def exact_rings_mask(rings, shape, fill_rule: str = "evenodd") -> np.ndarray:
    """The same rule over all rings in exact rational arithmetic (slow: small cases)."""
    edges = []
    for ring in rings:
        points = [(Fraction(float(x)), Fraction(float(y))) for x, y in np.asarray(ring, dtype=float).reshape(-1, 2)]
        edges.extend(_edges(points))
    rows, cols = shape
    result = np.zeros(shape, dtype=bool)
    for row in range(rows):
        py = Fraction(row)
        crossings = [((xj - xi) * (py - yi) / (yj - yi) + xi, 1 if yi > yj else -1)
                     for xi, yi, xj, yj in edges if (yi > py) != (yj > py)]
        for col in range(cols):
            right = [direction for x_cross, direction in crossings if col < x_cross]
            result[row, col] = (len(right) % 2 == 1) if fill_rule == "evenodd" else sum(right) != 0
    return result


def labels_in_order(polygon_rings, shape, values, background=0, dtype=np.int64, fill_rule: str = "evenodd"):
    """A label image: each polygon's reference mask, applied in order over a background."""
    labels = np.full(shape, background, dtype=dtype)
    for rings, value in zip(polygon_rings, values):
        labels[double_rings_mask(rings, shape, fill_rule)] = value
    return labels


def assert_same_mask(actual, expected, label: str = "mask") -> None:
    """Fail unless `actual` is a bool mask equal to `expected`, with a picture of both.

    The one mask-equality assertion of the suite: the dtype and shape must
    match exactly, and the message counts the differing pixels.
    """
    actual = np.asarray(actual)
    assert actual.dtype == bool and actual.shape == expected.shape, \
        f"{label}: got {actual.dtype} {actual.shape}, expected bool {expected.shape}"
    if not np.array_equal(actual, expected):
        wrong = int(np.count_nonzero(actual != expected))
        pytest.fail(f"{label}: {wrong} pixels differ\nactual:\n{picture(actual)}\nexpected:\n{picture(expected)}")


#: What sits above the library: the course (stages, checker, lessons) and the runner
#: and command line that stand on both.  The library imports none of them, and
#: ``import polymask`` loads none of them (test_import_graph.py, test_layers.py).
ABOVE_THE_LIBRARY = ("polymask.course", "polymask.bench", "polymask.cli", "polymask.__main__")


def run_isolated(command, timeout, env=None, preexec_fn=None):
    """Run `command` in its own session; on timeout kill it and every child it forked, return None.

    `preexec_fn` runs in the child before the command (e.g. to set resource limits).
    """
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env=env, preexec_fn=preexec_fn)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


# ---- arbitrary points (polymask.contains) -----------------------------------


def double_points(rings, px, py, fill_rule: str = "evenodd") -> np.ndarray:
    """The contract's float64 formula at each point (px[k], py[k]), over every edge of every ring."""
    xi, yi, xj, yj = _ring_edge_arrays(rings)
    px, py = np.broadcast_arrays(np.asarray(px, dtype=np.float64), np.asarray(py, dtype=np.float64))
    result = np.zeros(px.shape, dtype=bool)
    for index in np.ndindex(px.shape):
        x, y = px[index], py[index]
        crosses = (yi > y) != (yj > y)
        a, b, c, d = xi[crosses], yi[crosses], xj[crosses], yj[crosses]
        right = x < (c - a) * (y - b) / (d - b) + a
        if fill_rule == "evenodd":
            result[index] = right.sum() % 2 == 1
        else:
            result[index] = np.where(b > d, 1, -1)[right].sum() != 0
    return result


def exact_points(rings, px, py, fill_rule: str = "evenodd") -> np.ndarray:
    """The crossing rule at each point (px[k], py[k]) in exact rational arithmetic (slow: small cases)."""
    edges = []
    for ring in rings:
        points = [(Fraction(float(x)), Fraction(float(y))) for x, y in np.asarray(ring, dtype=float).reshape(-1, 2)]
        edges.extend(_edges(points))
    px, py = np.broadcast_arrays(np.asarray(px, dtype=np.float64), np.asarray(py, dtype=np.float64))
    result = np.zeros(px.shape, dtype=bool)
    for index in np.ndindex(px.shape):
        x, y = Fraction(float(px[index])), Fraction(float(py[index]))
        right = [1 if yi > yj else -1 for xi, yi, xj, yj in edges
                 if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi]
        result[index] = (len(right) % 2 == 1) if fill_rule == "evenodd" else sum(right) != 0
    return result
