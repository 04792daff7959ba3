"""contains and contains_labels at scale: crowded bands, many polygons, grids.

A comb puts every edge of a polygon in one band of its outline; a label
set mixes polygons small enough to test edge by edge with large ones that
get an index of their own, and boxes the grid of cells cannot hold.  The
answers are compared with the contract's float64 formula evaluated point
by point (tests/_support.py), and the grid paths with the same call on the
broadcast points.  Memory is measured in a fresh interpreter: the peak
resident set above what the inputs already took.
"""
from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest

import polymask
from polymask import _contains
from tests._support import double_points, run_isolated

RULES = ["evenodd", "nonzero"]


def comb(teeth: int, height: float = 1e-3, width: float = 1000.0) -> np.ndarray:
    """Issue 41's comb: teeth between y = 0 and `height`, closed far above them."""
    xs = np.linspace(0, width, teeth)
    ys = np.where(np.arange(teeth) % 2, height, 0.0)
    return np.vstack([np.column_stack([xs, ys]), [(width, 1e6), (0, 1e6)]])


@pytest.mark.parametrize("fill_rule", RULES)
def test_a_comb_answers_as_the_rule(fill_rule):
    polygon = comb(3001)
    rng = np.random.default_rng(41)
    x = np.concatenate([rng.uniform(-1, 1001, 3000), polygon[:, 0], np.nextafter(polygon[:, 0], np.inf)])
    y = np.concatenate([rng.uniform(-1e-4, 1.1e-3, 3000), polygon[:, 1], polygon[:, 1]])
    np.testing.assert_array_equal(polymask.contains(polygon, x, y, fill_rule=fill_rule),
                                  double_points([polygon], x, y, fill_rule))


@pytest.mark.parametrize("fill_rule", RULES)
def test_wiggles_and_random_vertices_answer_as_the_rule(fill_rule):
    rng = np.random.default_rng(5)
    angles = np.linspace(0, 2 * np.pi, 20000, endpoint=False)
    radii = 500 + 20 * np.sin(angles * 500)
    wiggly = np.column_stack([600 + radii * np.cos(angles), 600 + radii * np.sin(angles)])
    for polygon in (wiggly, rng.uniform(0, 1000, (3000, 2))):
        x, y = rng.uniform(0, 1200, (2, 1500))
        expected = _rule_at(polygon, x, y, fill_rule)
        np.testing.assert_array_equal(expected[:50], double_points([polygon], x[:50], y[:50], fill_rule))
        np.testing.assert_array_equal(polymask.contains(polygon, x, y, fill_rule=fill_rule), expected)


def _label_set(rng):
    """Small polygons, a few large ones, and one whose x_cross may overflow (no box in the grid)."""
    polygons = []
    for p in range(150):
        n = 300 if p % 40 == 3 else int(rng.integers(3, 9))
        polygons.append(rng.uniform(-12, 12, (n, 2)) + rng.uniform(0, 200, 2))
    # (x extent times y extent overflows: the contract's product may be infinite)
    polygons.insert(70, np.array([[-1e300, 90.0], [1e300, 90.0], [1e300, 1e10], [-1e300, 1e10]]))
    return polygons


def _rule_at(ring, x, y, fill_rule):
    """The contract's float64 formula, edge by edge over arrays of points (double_points, vectorised)."""
    ring = np.asarray(ring, dtype=np.float64)
    count = np.zeros(np.shape(x), dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for (xi, yi), (xj, yj) in zip(ring, np.roll(ring, 1, axis=0)):
            right = ((yi > y) != (yj > y)) & (x < (xj - xi) * (y - yi) / (yj - yi) + xi)
            count += right * (1 if fill_rule == "evenodd" or yi > yj else -1)
    return count % 2 == 1 if fill_rule == "evenodd" else count != 0


def _expected_labels(polygons, x, y, fill_rule):
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    expected = np.zeros(x.shape, dtype=np.int64)
    for p, polygon in enumerate(polygons):
        expected[_rule_at(polygon, x, y, fill_rule)] = p + 1
    return expected


@pytest.mark.parametrize("fill_rule", RULES)
def test_labels_of_small_large_and_unboxed_polygons(fill_rule):
    rng = np.random.default_rng(7)
    polygons = _label_set(rng)
    x, y = rng.uniform(-20, 220, (2, 4000))
    x = np.concatenate([x, polygons[3][:, 0], [0.0, 1e299]])
    y = np.concatenate([y, polygons[3][:, 1], [92.0, 92.0]])
    np.testing.assert_array_equal(polymask.contains_labels(polygons, x, y, fill_rule=fill_rule),
                                  _expected_labels(polygons, x, y, fill_rule))


@pytest.mark.parametrize("fill_rule", RULES)
def test_labels_on_a_grid_equal_the_points(fill_rule, monkeypatch):
    rng = np.random.default_rng(8)
    polygons = _label_set(rng)
    x = np.concatenate([rng.uniform(-20, 220, 70), polygons[0][:, 0], [5.0, 5.0]])  # unsorted, repeated
    y = np.concatenate([rng.uniform(-20, 220, 50), polygons[0][:, 1], [92.0]])[:, None]
    points = polymask.contains_labels(polygons, *np.broadcast_arrays(x, y), fill_rule=fill_rule)
    np.testing.assert_array_equal(points, _expected_labels(polygons, x, y, fill_rule))
    monkeypatch.setattr(_contains, "_BLOCK", 37)  # blocks of rows and of points that end mid-row
    np.testing.assert_array_equal(polymask.contains_labels(polygons, x, y, fill_rule=fill_rule), points)
    np.testing.assert_array_equal(polymask.contains_labels(polygons, *np.broadcast_arrays(x, y),
                                                           fill_rule=fill_rule), points)


def test_label_index_tests_small_polygons_in_place():
    """Only polygons of more than a few edges get an index of their own."""
    rng = np.random.default_rng(9)
    polygons = _label_set(rng)
    flat = polymask._inputs.polygons(polygons)
    index = polymask._points.PolygonLabels(flat.vertices, flat.ring_ends, flat.polygon_ends)
    assert index.indexed_polygons == sum(len(polygon) > 32 for polygon in polygons)


# ---- memory: the peak above the inputs, in a fresh interpreter ---------------------

MEMORY = textwrap.dedent('''
    import json, sys
    import numpy as np
    import polymask

    def resident(field="VmRSS"):
        # VmHWM, the peak, belongs to this image: ru_maxrss keeps the forking parent's peak across exec.
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field + ":"))

    case, rng = sys.argv[1], np.random.default_rng(0)
    if case == "outline":  # one point against a 10^6-vertex wiggly outline
        angles = np.linspace(0, 2 * np.pi, 10**6, endpoint=False)
        radii = 500 + 20 * np.sin(angles * 5000)
        polygon = np.column_stack([600 + radii * np.cos(angles), 600 + radii * np.sin(angles)])
        del angles, radii
        run = lambda: polymask.contains(polygon, [600.0], [600.0])
    elif case == "random":  # 10^6 random vertices: edges spanning a third of the height each
        polygon = rng.uniform(0, 1000, (10**6, 2))
        run = lambda: polymask.contains(polygon, [500.0], [500.0])
    elif case == "polygons":  # 10^6 six-vertex polygons and one point
        polygons = rng.uniform(0, 4000, (10**6, 1, 2)) + rng.uniform(-5, 5, (10**6, 6, 2))
        run = lambda: polymask.contains_labels(polygons, [100.0], [100.0])
    else:  # a rectilinear 8000 x 8000 grid: the result is 64 MB of uint8
        square = [(1000, 1000), (7000, 1000), (7000, 7000), (1000, 7000)]
        run = lambda: polymask.contains_labels([square], np.arange(8000.0), np.arange(8000.0)[:, None])
    before = resident()
    run()
    print(json.dumps({"above": resident("VmHWM") - before}))
''')

#: case -> the most bytes the call may take above the inputs (per vertex or polygon).
MEMORY_BOUNDS = {"outline": 300e6, "random": 340e6, "polygons": 500e6, "grid": 2 * 64e6}


@pytest.mark.parametrize("case", list(MEMORY_BOUNDS))
def test_memory_stays_near_the_inputs_and_the_result(case):
    completed = run_isolated([sys.executable, "-c", MEMORY, case], 300)
    assert completed is not None, f"{case}: no result within 300 s"
    assert completed.returncode == 0, f"{case}: failed:\n{completed.stderr[-3000:]}"
    above = json.loads(completed.stdout.strip().splitlines()[-1])["above"]
    assert above <= MEMORY_BOUNDS[case], f"{case}: {above / 1e6:.0f} MB above the inputs"
