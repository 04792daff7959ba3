"""``rasterize(..., merge=...)``: what a pixel claimed by several polygons gets.

The reference is NumPy over each polygon's own mask (``polymask.mask`` of the
polygon alone, with the same ``all_touched``), merged in polygon order: the
rules are about the order and the arithmetic, the masks are the contract's.
rasterio's ``MergeAlg.add`` is a second reference for "add" on shapes where
GDAL's cells are the contract's (boxes off the cell centres).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import polymask

SHAPE = (37, 45)
RULES = ["last", "first", "add", "min", "max", "count"]


def _random_polygons(rng, count=25):
    return [rng.uniform(-4, 49, size=(int(rng.integers(3, 9)), 2)) for _ in range(count)]


def _reference(polygons, values, rule, dtype, all_touched=False, background=None):
    """Each polygon's own mask, merged in order with NumPy in the label type."""
    result = np.zeros(SHAPE, dtype=dtype) if background is None else background.copy()
    claimed = np.zeros(SHAPE, dtype=bool)
    order = range(len(polygons))
    for p in order:
        inside = polymask.mask(polygons[p], SHAPE, all_touched=all_touched)
        value = np.asarray(values[p]).astype(dtype)
        if rule == "last":
            result[inside] = value
        elif rule == "first":
            result[inside & ~claimed] = value
        elif rule in ("min", "max"):
            pick = np.fmin if rule == "min" else np.fmax
            fresh = inside & ~claimed
            result[fresh] = value
            result[inside & ~fresh] = pick(result[inside & ~fresh], value)
        elif rule == "add":
            result[inside] = result[inside] + value
        else:
            result[inside] = result[inside] + np.asarray(1).astype(dtype)
        claimed |= inside
    return result


@pytest.mark.parametrize("all_touched", [False, True])
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_each_rule_is_numpy_over_the_polygons_masks(rule, dtype, all_touched):
    rng = np.random.default_rng(RULES.index(rule))
    polygons = _random_polygons(rng)
    values = rng.integers(-50, 100, len(polygons)) if dtype == np.int32 else rng.normal(0, 1e3, len(polygons))
    expected = _reference(polygons, values, rule, dtype, all_touched)
    got = polymask.rasterize(polygons, SHAPE, None if rule == "count" else values, dtype=dtype, merge=rule,
                             all_touched=all_touched)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)
    for threads in (1, 3):  # the same sums, in the same order, on any threads
        again = polymask.rasterize(polygons, SHAPE, None if rule == "count" else values, dtype=dtype, merge=rule,
                                   all_touched=all_touched, threads=threads)
        np.testing.assert_array_equal(again, expected)


@pytest.mark.parametrize("rule", ["add", "count", "min", "first"])
def test_out_is_the_background_of_every_rule(rule):
    rng = np.random.default_rng(11)
    polygons = _random_polygons(rng, 15)
    values = rng.integers(1, 40, len(polygons)).astype(float)
    background = rng.integers(0, 5, SHAPE).astype(np.float64)
    out = background.copy()
    polymask.rasterize(polygons, SHAPE, None if rule == "count" else values, out=out, merge=rule)
    np.testing.assert_array_equal(out, _reference(polygons, values, rule, np.float64, background=background))


def test_add_and_count_choose_a_type_that_holds_every_sum():
    square = [(0, 0), (4, 0), (4, 4), (0, 4)]
    labels = polymask.rasterize([square] * 300, (5, 5), 200, merge="add")
    assert labels.dtype == np.uint16 and labels[1, 1] == 60000
    assert polymask.rasterize([square] * 400, (5, 5), 200, merge="add").dtype == np.int32  # 80000
    counts = polymask.rasterize([square] * 300, (5, 5), merge="count")
    assert counts.dtype == np.uint16 and counts[1, 1] == 300 and counts[4, 4] == 0
    with pytest.raises(ValueError, match=r"merge='add' of these values may reach 0 to 60000 on a pixel, beyond uint8"):
        polymask.rasterize([square] * 300, (5, 5), 200, merge="add", dtype=np.uint8)
    with pytest.raises(ValueError, match="merge='count' counts the polygons on each pixel and takes no values"):
        polymask.rasterize([square], (5, 5), [3], merge="count")
    with pytest.raises(ValueError, match=r"merge must be one of 'last', 'first', 'add', 'min', 'max', 'count', "
                                         r"got 'sum'"):
        polymask.rasterize([square], (5, 5), merge="sum")


def test_nan_values_lose_to_numbers_in_min_and_max():
    square, inner = [(0, 0), (4, 0), (4, 4), (0, 4)], [(1, 1), (3, 1), (3, 3), (1, 3)]
    for rule in ("min", "max"):
        labels = polymask.rasterize([square, inner], (5, 5), [7.0, np.nan], merge=rule)
        assert labels[2, 2] == 7.0 and labels[0, 0] == 7.0
        labels = polymask.rasterize([inner, square], (5, 5), [np.nan, np.nan], merge=rule)
        assert np.isnan(labels[2, 2]) and labels[4, 4] == 0


@pytest.mark.parametrize("all_touched", [False, True])
def test_add_is_rasterios_merge_alg_add(all_touched):
    features = pytest.importorskip("rasterio.features")
    from rasterio.enums import MergeAlg
    from shapely.geometry import box

    rng = np.random.default_rng(12)
    boxes = []
    for _ in range(40):
        x0, y0 = rng.integers(-3, 44, 2) + 0.3
        boxes.append(box(x0, y0, x0 + rng.integers(2, 15) + 0.4, y0 + rng.integers(2, 15) + 0.4))
    values = rng.integers(1, 9, len(boxes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = features.rasterize(list(zip(boxes, values.tolist())), out_shape=SHAPE, dtype="int32",
                                      merge_alg=MergeAlg.add, all_touched=all_touched)
    got = polymask.rasterize(boxes, SHAPE, values, dtype=np.int32, merge="add", all_touched=all_touched,
                             transform=(1, 0, 0, 0, 1, 0))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("rule", RULES)
def test_the_dask_rasterize_merges_alike(rule):
    pytest.importorskip("dask")
    import polymask.dask

    rng = np.random.default_rng(13)
    polygons = _random_polygons(rng)
    values = None if rule == "count" else rng.normal(0, 10, len(polygons))
    lazy = polymask.dask.rasterize(polygons, SHAPE, values, chunks=(10, 16), merge=rule)
    np.testing.assert_array_equal(lazy.compute(), polymask.rasterize(polygons, SHAPE, values, merge=rule))
