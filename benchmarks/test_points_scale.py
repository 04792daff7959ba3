"""Points at scale (issue 41): crowded bands, huge outlines, many polygons, grids.

    pytest benchmarks/test_points_scale.py --benchmark-only --benchmark-columns=median,min,rounds \\
        --benchmark-group-by=group

Groups (each with what it is compared with, timed in the same run):

* ``comb-200k``: issue 41's comb (200,000 teeth in one band of its
  outline) and 200,000 points among the teeth; polymask.contains at default
  threads and threads=1.  Target: at most 2 s.
* ``outline-1e6``: one point against a 10^6-vertex wiggly outline, beside
  polymask.mask of the same polygon on 1200x1200 (the index and the
  polygon's own edge table are built per call).  Target: at most 1 s.
* ``random-3e6``: one point against 3x10^6 random vertices (memory: tests/
  test_points_index.py).
* ``labels-natural-earth-1e6``: contains_labels of 10^6 random lon/lat
  points in Natural Earth's 177 countries (pyogrio's test copy), beside a
  shapely loop (``contains_xy`` per country after a bounding-box
  prefilter).  Target: at most 0.5x the loop.  extra_info counts the points
  on which the two differ (borders: the contract's half-open rule).
* ``labels-polygons-2e6``: 2x10^6 six-vertex polygons and one point.
* ``labels-grid-8000``: contains_labels of one square on an 8000x8000
  rectilinear grid, beside contains of the same square.
"""
import functools
import os

import numpy as np
import pytest

import polymask
from benchmarks._support import inside_even_odd, record

SCALE = {"comb": 200_000, "outline": 10**6, "random": 3 * 10**6, "earth": 10**6, "polygons": 2 * 10**6,
         "grid": 8000}
FAST_SCALE = {"comb": 2000, "outline": 10**4, "random": 10**4, "earth": 10**4, "polygons": 10**4, "grid": 100}


@pytest.fixture
def scale(request):
    return FAST_SCALE if request.config.polymask_fast_mode else SCALE


@functools.lru_cache(maxsize=None)
def comb_problem(n: int):
    xs, ys = np.linspace(0, 1000, n), np.where(np.arange(n) % 2, 1e-3, 0.0)
    polygon = np.vstack([np.c_[xs, ys], [(1000, 1e6), (0, 1e6)]])
    rng = np.random.default_rng(41)
    return polygon, rng.uniform(0, 1000, n), rng.uniform(0, 1e-3, n)


@pytest.mark.parametrize("threads", [None, 1])
def test_comb(benchmark, scale, threads):
    polygon, x, y = comb_problem(scale["comb"])
    benchmark.group = f"comb-{len(x)}-points"
    inside = benchmark.pedantic(polymask.contains, (polygon, x, y), {"threads": threads}, rounds=3)
    expected = polymask.contains(polygon, x, y, threads=1)
    record(benchmark, backend=f"polymask threads={threads}", result=inside, expected=expected,
           points=len(x), n_vertices=len(polygon))


@functools.lru_cache(maxsize=None)
def outline(n: int) -> np.ndarray:
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    radii = 500 + 20 * np.sin(angles * (n // 200))
    return np.column_stack([600 + radii * np.cos(angles), 600 + radii * np.sin(angles)])


@pytest.mark.parametrize("call", ["contains", "mask"])
def test_outline(benchmark, scale, call):
    polygon = outline(scale["outline"])
    benchmark.group = f"outline-{len(polygon)}-vertices"
    if call == "contains":
        result = benchmark.pedantic(polymask.contains, (polygon, [600.0], [600.0]), rounds=3)
        record(benchmark, backend="polymask.contains, 1 point", result=result, expected=np.array([True]),
               n_vertices=len(polygon))
    else:
        result = benchmark.pedantic(polymask.mask, (polygon, (1200, 1200)), rounds=3)
        record(benchmark, backend="polymask.mask 1200x1200", result=result[600, 600], expected=True,
               n_vertices=len(polygon))


def test_random_vertices(benchmark, scale):
    polygon = np.random.default_rng(1).uniform(0, 1000, (scale["random"], 2))
    benchmark.group = f"random-{len(polygon)}-vertices"
    result = benchmark.pedantic(polymask.contains, (polygon, [500.0], [500.0]), rounds=1)
    record(benchmark, backend="polymask.contains, 1 point", result=result,
           expected=inside_even_odd(polygon, [500.0], [500.0]), n_vertices=len(polygon))


@functools.lru_cache(maxsize=None)
def countries():
    """Natural Earth's 177 countries (110m), as shapely geometries, from pyogrio's test data."""
    pyogrio = pytest.importorskip("pyogrio")
    shapely = pytest.importorskip("shapely")
    path = os.path.join(os.path.dirname(pyogrio.__file__), "tests", "fixtures", "naturalearth_lowres",
                        "naturalearth_lowres.shp")
    if not os.path.exists(path):
        pytest.skip(f"Natural Earth is not at {path}")
    return list(shapely.from_wkb(pyogrio.raw.read(path)[2]))


def shapely_loop(geometries, x, y):
    """The peer: each country's bounding box first, then shapely.contains_xy on the points inside it."""
    import shapely

    labels = np.zeros(len(x), dtype=np.uint8)
    for number, geometry in enumerate(geometries, start=1):
        shapely.prepare(geometry)
        x_min, y_min, x_max, y_max = geometry.bounds
        candidates = np.flatnonzero((x >= x_min) & (x <= x_max) & (y >= y_min) & (y <= y_max))
        labels[candidates[shapely.contains_xy(geometry, x[candidates], y[candidates])]] = number
    return labels


@pytest.mark.parametrize("library", ["polymask", "shapely"])
def test_labels_natural_earth(benchmark, scale, library):
    geometries = countries()
    rng = np.random.default_rng(177)
    x, y = rng.uniform(-180, 180, scale["earth"]), rng.uniform(-90, 90, scale["earth"])
    expected = polymask.contains_labels(geometries, x, y)
    benchmark.group = f"labels-natural-earth-{len(x)}-points"
    if library == "polymask":
        labels = benchmark.pedantic(polymask.contains_labels, (geometries, x, y), rounds=5)
    else:
        labels = benchmark.pedantic(shapely_loop, (geometries, x, y), rounds=5)
    record(benchmark, backend=library, result=labels, expected=expected,
           points=len(x), polygons=len(geometries))


def test_labels_many_polygons(benchmark, scale):
    rng = np.random.default_rng(0)
    count = scale["polygons"]
    polygons = rng.uniform(0, 4000, (count, 1, 2)) + rng.uniform(-5, 5, (count, 6, 2))
    benchmark.group = f"labels-{count}-polygons"
    labels = benchmark.pedantic(polymask.contains_labels, (polygons, [100.0], [100.0]), rounds=1)
    x, y = polygons[..., 0], polygons[..., 1]  # the contract's formula for every polygon at once
    xj, yj = np.roll(x, 1, axis=1), np.roll(y, 1, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = (xj - x) * (100.0 - y) / (yj - y) + x
    holding = np.flatnonzero(np.count_nonzero(((y > 100.0) != (yj > 100.0)) & (100.0 < x_cross), axis=1) % 2) + 1
    expected = np.array([holding[-1] if len(holding) else 0])  # the last polygon holding the point labels it
    record(benchmark, backend="polymask.contains_labels, 1 point", result=labels, expected=expected,
           polygons=count)


@pytest.mark.parametrize("call", ["contains_labels", "contains"])
def test_labels_grid(benchmark, scale, call):
    side = scale["grid"]
    square = [(side / 8, side / 8), (7 * side / 8, side / 8), (7 * side / 8, 7 * side / 8), (side / 8, 7 * side / 8)]
    x, y = np.arange(float(side)), np.arange(float(side))[:, None]
    expected = polymask.contains(square, x, y)
    benchmark.group = f"labels-grid-{side}x{side}"
    if call == "contains":
        result = benchmark.pedantic(polymask.contains, (square, x, y), rounds=3)
    else:
        result = benchmark.pedantic(polymask.contains_labels, ([square], x, y), rounds=3)
    record(benchmark, backend=call, result=result, expected=expected, shape=(side, side))
