"""Label images: polymask.rasterize against rasterio and a loop of cv2.fillPoly.

The problem: 10,000 random small polygons (8 vertices within 20 pixels of a
random centre) burned with labels 1..10,000 into a 4096x4096 uint16 image,
later over earlier.  Every contender gets its input prepared outside the
timing (a (P, N, 2) array, GeoJSON dicts, rounded int32 arrays) and
allocates its own output, as a user would.  Compare medians as ratios:

    pytest benchmarks/test_label_images.py --benchmark-only --benchmark-columns=median,iqr,rounds

A second group, ``rasterize-1000000-polygons``, burns a million such
polygons (all_touched False and True) on one thread and on all: threads
must never hurt, and with a million polygons they once did (every band
looked at every polygon).  Under --benchmark-disable (CI) it burns 20,000.

rasterio samples pixel centres (c + 0.5, r + 0.5); a half-pixel transform
aligns them with the contract's sample points (c, r).  OpenCV rounds
vertices to integers and has its own boundary rule.  extra_info records how
many pixels each differs from polymask's exact labels.
"""
import functools

import numpy as np
import pytest

import polymask
from benchmarks._support import record
from polymask.course.problems import small_polygons

SHAPE = (4096, 4096)
COUNT = 10_000
SEED = 2014


POLYGONS = small_polygons(COUNT, SHAPE, seed=SEED)
VALUES = np.arange(1, COUNT + 1, dtype=np.uint16)


@pytest.fixture(scope="module")
def expected():
    return polymask.rasterize(POLYGONS, SHAPE, VALUES, threads=1)


#: The group of the benchmarks of COUNT polygons, set before each timing by the marker.
GROUP = f"rasterize-{COUNT}-polygons-{SHAPE[0]}x{SHAPE[1]}"


def record_labels(benchmark, backend, result, expected):
    """record() for a label image of this file's problem."""
    record(benchmark, backend=backend, result=result, expected=expected, shape=SHAPE, n_polygons=COUNT)


@pytest.mark.benchmark(group=GROUP)
@pytest.mark.parametrize("threads", [0, 1], ids=["default", "1-thread"])  # 0: the default call
def test_polymask_rasterize(benchmark, expected, threads):
    # 1 thread too: OpenCV and rasterio burn on one core.
    result = benchmark(polymask.rasterize, POLYGONS, SHAPE, VALUES, threads=threads)
    record_labels(benchmark, f"polymask-threads-{threads or 'default'}", result, expected)
    assert benchmark.extra_info["matches_contract"]


@pytest.mark.benchmark(group=GROUP)
def test_rasterio_rasterize(benchmark, expected):
    features = pytest.importorskip("rasterio.features")
    from affine import Affine

    shapes = [({"type": "Polygon", "coordinates": [polygon.tolist()]}, int(value))
              for polygon, value in zip(POLYGONS, VALUES)]
    half_pixel = Affine.translation(-0.5, -0.5)  # pixel centres land on integer (c, r)

    def burn():
        return features.rasterize(shapes, out_shape=SHAPE, transform=half_pixel, dtype=np.uint16)

    record_labels(benchmark, "rasterio", benchmark(burn), expected)


@pytest.mark.benchmark(group=GROUP)
def test_opencv_fillpoly_loop(benchmark, expected):
    cv2 = pytest.importorskip("cv2")
    rounded = [np.round(polygon).astype(np.int32) for polygon in POLYGONS]
    labels = [int(value) for value in VALUES]

    def burn():
        out = np.zeros(SHAPE, np.uint16)
        for polygon, value in zip(rounded, labels):
            cv2.fillPoly(out, [polygon], value)
        return out

    record_labels(benchmark, "opencv", benchmark(burn), expected)


@pytest.fixture(scope="module")
def million(request):
    count = 20_000 if request.config.getoption("benchmark_disable", False) else 1_000_000
    return small_polygons(count, SHAPE, seed=SEED + 1), np.arange(1, count + 1, dtype=np.uint32)


@functools.lru_cache(maxsize=2)
def burned_one_by_one(count: int, all_touched: bool) -> np.ndarray:
    """The `million` fixture's label image from polymask.mask of each polygon, burned in order with NumPy.

    rasterize's independent reference (another code path of the core), made
    once per rule: the 1-thread and default calls are both checked against it.
    """
    polygons = small_polygons(count, SHAPE, seed=SEED + 1)
    values = np.arange(1, count + 1, dtype=np.uint32)
    labels = np.zeros(SHAPE, dtype=values.dtype)
    for polygon, value in zip(polygons, values):  # later over earlier, each from its own windowed mask
        (col0, row0), (col1, row1) = np.floor(polygon.min(axis=0)) - 1, np.ceil(polygon.max(axis=0)) + 2
        row0, col0 = max(int(row0), 0), max(int(col0), 0)
        row1, col1 = min(int(row1), SHAPE[0]), min(int(col1), SHAPE[1])
        if row1 > row0 and col1 > col0:
            inside = polymask.mask(polygon, SHAPE, window=(row0, col0, row1 - row0, col1 - col0),
                                   all_touched=all_touched)
            labels[row0:row1, col0:col1][inside] = value
    return labels


@pytest.mark.parametrize("all_touched", [False, True], ids=["centre", "all-touched"])
@pytest.mark.parametrize("threads", [0, 1], ids=["default", "1-thread"])  # 0: the default call
def test_polymask_rasterize_a_million_polygons(benchmark, million, threads, all_touched):
    polygons, values = million
    benchmark.group = f"rasterize-{len(values)}-polygons-{SHAPE[0]}x{SHAPE[1]}"
    result = benchmark.pedantic(polymask.rasterize, (polygons, SHAPE, values),
                                {"threads": threads, "all_touched": all_touched}, rounds=3, warmup_rounds=0)
    expected = burned_one_by_one(len(values), all_touched)
    record(benchmark, backend=f"polymask-threads-{threads or 'default'}{'-all-touched' if all_touched else ''}",
           result=result, expected=expected, shape=SHAPE, n_polygons=len(values))
    assert benchmark.extra_info["matches_contract"]
