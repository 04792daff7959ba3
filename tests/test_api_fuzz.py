"""Fuzzing the public API where the C++ fuzzer cannot reach: transforms, COCO layouts, RLEs, grids.

csrc/fuzz/fuzz_core.cpp drives the core.  What lies in front of it --
``transform=`` mapping vertices into pixels, COCO segmentations in every
layout, hostile RLE dicts for ``coco.decode/area/iou/merge``, and the
coordinates ``polymask.xarray`` reads -- is Python, and is fuzzed here with
hypothesis.  Every call must end in one of two ways:

* a result that passes the checks named in each test (the reference mask of
  the vertices as the transform maps them; an RLE's area equal to its
  decoded mask's sum; ...), or
* TypeError or ValueError (MemoryError where a size is absurd), with any
  ``out=`` array exactly as it was.

Never another exception, never a silently empty or wrong result.  CI runs
each test on a few hundred inputs; a longer run is

    POLYMASK_FUZZ_EXAMPLES=20000 python -m pytest tests/test_api_fuzz.py -p no:randomly
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polymask
import polymask.coco
import polymask.xarray
from tests._support import double_mask

EXAMPLES = int(os.environ.get("POLYMASK_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 1000,
                suppress_health_check=list(HealthCheck))
REFUSALS = (TypeError, ValueError, MemoryError)

#: Doubles that break naive arithmetic, beside ordinary ones.
SPECIAL = st.sampled_from([0.0, -0.0, 1e-300, -1e-300, 1e-100, 1e300, -1e300, 1.7976931348623157e308,
                           5e-324, float("nan"), float("inf"), -float("inf"), 0.5, 2.0**31, -2.0**31])
NUMBER = st.one_of(st.floats(-20, 20), st.integers(-20, 20), SPECIAL)
SHAPE = (9, 11)


def refused_leaving(out: np.ndarray, before: np.ndarray, call) -> object:
    """call(): its result, or None after a refusal that left `out` as it was."""
    try:
        return call()
    except REFUSALS as error:
        assert str(error), f"{type(error).__name__} without a message"
        np.testing.assert_array_equal(out, before, err_msg=f"out= was written before: {error}")
        return None


# ---- transform= --------------------------------------------------------------------

@FUZZ
@given(vertices=st.lists(st.tuples(NUMBER, NUMBER), min_size=0, max_size=7),
       scale=st.tuples(NUMBER, NUMBER), offset=st.tuples(NUMBER, NUMBER),
       call=st.sampled_from(["mask", "rasterize", "masks", "coverage"]))
def test_transform_maps_vertices_or_is_refused(vertices, scale, offset, call):
    a, e = scale
    c, f = offset
    transform = (a, 0.0, c, 0.0, e, f)
    fill = {"mask": (np.uint8, 7), "rasterize": (np.uint8, 7), "masks": (np.uint8, 7), "coverage": (np.float64, 7.0)}
    dtype, sentinel = fill[call]
    out = np.full((1, *SHAPE) if call == "masks" else SHAPE, sentinel, dtype=dtype)
    before = out.copy()
    runs = {
        "mask": lambda: polymask.mask(vertices, SHAPE, transform=transform, out=out),
        "rasterize": lambda: polymask.rasterize([vertices], SHAPE, transform=transform, out=out),
        "masks": lambda: polymask.masks([vertices], SHAPE, transform=transform, out=out),
        "coverage": lambda: polymask.coverage(vertices, SHAPE, transform=transform, out=out),
    }
    result = refused_leaving(out, before, runs[call])
    points = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    with np.errstate(all="ignore"):
        mapped = np.column_stack([(points[:, 0] - c) / a - 0.5, (points[:, 1] - f) / e - 0.5])
    usable = all(np.isfinite(v) for v in transform) and a != 0 and e != 0 and np.isfinite(points).all()
    if usable and np.isfinite(mapped).all():
        # The contract on the mapped vertices: what the call must give.
        assert result is not None, "a usable transform and finite vertices were refused"
        # Two vertices are a ring too: out and back, and with huge coordinates
        # the two crossings can round apart (the rule decides, as for any ring).
        expected = double_mask(mapped, SHAPE) if len(mapped) >= 2 else np.zeros(SHAPE, dtype=bool)
        if call == "coverage":
            assert np.all((out >= 0) & (out <= 1))
        else:
            # rasterize burns 1 over the background out= holds (7); the masks write every byte.
            got = out == 1 if call == "rasterize" else (out[0] if call == "masks" else out).astype(bool)
            np.testing.assert_array_equal(got, expected)
    else:
        # Non-finite vertices or coefficients, a singular transform, or
        # vertices it sends to infinity: refused, never an empty mask.
        assert result is None, f"accepted: vertices {vertices}, transform {transform}"


# ---- COCO segmentations in every layout ------------------------------------------------

COORDINATE = st.one_of(st.floats(-3, 12), st.integers(-3, 12), SPECIAL, st.sampled_from(["x", None, True, [1]]))
FLAT_PART = st.lists(COORDINATE, max_size=12)
RLE_COUNTS = st.one_of(
    st.lists(st.one_of(st.integers(-3, 120), st.sampled_from([2**32, 2**40, -2**63, 1.5, True, "7", None])),
             max_size=8),
    st.text(max_size=12),
    st.binary(max_size=12),
    st.sampled_from([None, 5, {"a": 1}, bytearray(b"0"), "", b""]),
)
RLE = st.fixed_dictionaries({"size": st.one_of(st.just([8, 8]), st.lists(st.integers(-2, 10), max_size=3),
                                               st.sampled_from([[2**31, 2**31], "88", None, [8.0, 8]])),
                             "counts": RLE_COUNTS})
SEGMENTATION = st.one_of(st.lists(FLAT_PART, max_size=3), RLE, st.sampled_from([None, "abc", 5, [], [[]]]))


def square_mask(rle: dict) -> None:
    """An RLE that was read must decode to its area; area, decode, iou and merge agree on it."""
    decoded = polymask.coco.decode(rle)
    assert decoded.dtype == np.uint8 and decoded.shape == tuple(rle["size"])
    area = polymask.coco.area(rle)
    assert area == decoded.sum()
    merged = polymask.coco.merge([rle, rle])
    assert polymask.coco.area(merged) == area
    assert polymask.coco.area(polymask.coco.merge([rle, rle], intersect=True)) == area
    iou = polymask.coco.iou([rle], [rle])
    assert iou.shape == (1, 1) and iou[0, 0] == (1.0 if area else 0.0)


@FUZZ
@given(segmentation=SEGMENTATION)
def test_coco_encode_reads_each_layout_or_refuses_it(segmentation):
    try:
        (rle,) = polymask.coco.encode([segmentation], 8, 8)
    except REFUSALS as error:
        assert str(error)
        return
    square_mask(rle)
    if isinstance(segmentation, list) and all(
            isinstance(part, list) and len(part) % 2 == 0 and len(part) >= 6 for part in segmentation):
        # Polygon parts: the union of each part's COCO mask.
        expected = np.zeros((8, 8), dtype=bool)
        for part in segmentation:
            expected |= polymask.coco.decode(polymask.coco.encode([[part]], 8, 8)[0])
        np.testing.assert_array_equal(polymask.coco.decode(rle), expected)


@FUZZ
@given(rle=RLE)
def test_hostile_rles_are_read_consistently_or_refused(rle):
    try:
        polymask.coco.area(rle)
    except REFUSALS as error:
        assert str(error)
        for call in (polymask.coco.decode, lambda r: polymask.coco.merge([r]), lambda r: polymask.coco.iou([r], [r])):
            with pytest.raises(REFUSALS):
                call(rle)
        return
    square_mask(rle)


# ---- polymask.xarray coordinates -----------------------------------------------------------

AXIS = st.one_of(
    st.lists(st.one_of(st.floats(-400, 400), SPECIAL), min_size=0, max_size=9),
    st.lists(st.floats(-400, 400), min_size=2, max_size=9).map(sorted),
    st.builds(lambda start, step, n: [start + step * k for k in range(n)],
              st.floats(-360, 360), st.floats(-60, 60), st.integers(0, 9)),
    st.sampled_from([None, "lon", 5, [[1.0, 2.0], [3.0]]]),
)
REGION = [(-10.0, -10.0), (40.0, -10.0), (40.0, 30.0), (-10.0, 30.0)]


@FUZZ
@given(lon=AXIS, lat=AXIS, wrap=st.sampled_from([None, False, 180, 360]))
def test_grid_coordinates_are_read_or_refused(lon, lat, wrap):
    try:
        result = polymask.xarray.mask_2d([REGION], lon, lat, wrap_lon=wrap)
    except REFUSALS as error:
        assert str(error)
        return
    lon_values, lat_values = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    assert not np.isinf(lon_values).any() and not np.isinf(lat_values).any(), "infinite coordinates accepted"
    assert result.shape == (lat_values.size, lon_values.size)
    values = result.values
    # A NaN coordinate is a point in no region, as regionmask has it.
    assert np.isnan(values[np.isnan(lat_values)]).all() and np.isnan(values[:, np.isnan(lon_values)]).all()
    assert np.isin(values[np.isfinite(values)], [0]).all(), "a number that is no region's"
    # The region's interior points (away from its border) are in it: with the
    # longitudes wrapped to the region's -180..180 (None, 180) or as given
    # (False); wrap_lon=360 puts the grid in 0..360, where the region's
    # western part is not.
    if wrap == 360:
        return
    lon_region = (lon_values + 180) % 360 - 180 if wrap in (None, 180) else lon_values
    for r, y in enumerate(lat_values):
        for col, x in enumerate(lon_region):
            if -9 < x < 39 and -9 < y < 29:
                assert values[r, col] == 0, (x, y, values)
