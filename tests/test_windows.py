"""Windows: every fill can compute (row0, col0, height, width) of the image,
identical to the same slice of the full result."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polymask
from polymask.course.problems import standard_problem

SHAPE = (61, 47)
VERTICES, _ = standard_problem(size=60, n_vertices=30)
RINGS = [[(2.5, 3), (40.25, 1), (44, 55.5), (5, 58)], [(10, 10), (30, 12.5), (20, 40)]]


@settings(max_examples=80, deadline=None)
@given(data=st.data(), fill_rule=st.sampled_from(["evenodd", "nonzero"]),
       polygon=st.sampled_from(["one ring", "rings"]))
def test_mask_window_equals_the_slice(data, fill_rule, polygon):
    vertices = VERTICES if polygon == "one ring" else RINGS
    row0 = data.draw(st.integers(0, SHAPE[0]), label="row0")
    col0 = data.draw(st.integers(0, SHAPE[1]), label="col0")
    height = data.draw(st.integers(0, SHAPE[0] - row0), label="height")
    width = data.draw(st.integers(0, SHAPE[1] - col0), label="width")
    full = polymask.mask(vertices, SHAPE, fill_rule=fill_rule)
    window = polymask.mask(vertices, SHAPE, fill_rule=fill_rule, window=(row0, col0, height, width))
    assert window.dtype == bool and window.shape == (height, width)
    assert np.array_equal(window, full[row0:row0 + height, col0:col0 + width])


def test_windows_tile_the_full_mask():
    full = polymask.mask(VERTICES, SHAPE)
    tiled = np.zeros(SHAPE, bool)
    for row0 in range(0, SHAPE[0], 16):
        for col0 in range(0, SHAPE[1], 10):
            height, width = min(16, SHAPE[0] - row0), min(10, SHAPE[1] - col0)
            tiled[row0:row0 + height, col0:col0 + width] = polymask.mask(
                VERTICES, SHAPE, window=(row0, col0, height, width), threads=2)
    assert np.array_equal(tiled, full)


def test_window_fills_out_in_place():
    out = np.full((5, 7), 0xAB, np.uint8)  # every byte must be written
    result = polymask.mask(VERTICES, SHAPE, window=(20, 30, 5, 7), out=out)
    assert result is out
    assert np.array_equal(out, polymask.mask(VERTICES, SHAPE)[20:25, 30:37].astype(np.uint8))


def test_out_must_have_the_window_shape():
    with pytest.raises(ValueError, match=r"out must have shape \(5, 7\), got \(61, 47\)"):
        polymask.mask(VERTICES, SHAPE, window=(0, 0, 5, 7), out=np.zeros(SHAPE, bool))


def test_rasterize_window_equals_the_slice():
    rng = np.random.default_rng(8)
    polygons = rng.uniform(-5, 65, size=(1, 1, 2)) + rng.uniform(-12, 12, size=(40, 6, 2))
    full = polymask.rasterize(polygons, SHAPE, fill_rule="nonzero")
    for window in [(0, 0, 61, 47), (3, 4, 20, 30), (60, 46, 1, 1), (10, 0, 0, 47)]:
        row0, col0, height, width = window
        part = polymask.rasterize(polygons, SHAPE, fill_rule="nonzero", window=window)
        assert np.array_equal(part, full[row0:row0 + height, col0:col0 + width]), window


BAD_WINDOWS = [
    (5, TypeError, r"window must be a \(row0, col0, height, width\) tuple of integers, got 5"),
    ((0, 0, 5), ValueError, r"got 3 values"),
    ((0, 0, 5, 5, 5), ValueError, r"got 5 values"),
    ((-1, 0, 5, 5), ValueError, "window row0 must be at least 0, got -1"),
    ((0, 0, -2, 5), ValueError, "window height must be at least 0, got -2"),
    ((0, 1.5, 5, 5), TypeError, "window col0 must be an integer, got 1.5"),
    ((0, 0, True, 5), TypeError, "window height must be an integer, got True"),
    ((60, 0, 2, 5), ValueError, r"must lie inside the image of shape \(61, 47\): it reaches row 62"),
    ((0, 40, 2, 8), ValueError, r"it reaches row 2 and column 48"),
]


@pytest.mark.parametrize("window,error,message", BAD_WINDOWS, ids=range(len(BAD_WINDOWS)))
@pytest.mark.parametrize("fill", ["mask", "rasterize"])
def test_bad_windows(fill, window, error, message):
    with pytest.raises(error, match=message):
        if fill == "mask":
            polymask.mask(VERTICES, SHAPE, window=window)
        else:
            polymask.rasterize([VERTICES], SHAPE, window=window)


def test_numpy_integer_windows_are_accepted():
    window = tuple(np.int64(v) for v in (1, 2, 3, 4))
    assert np.array_equal(polymask.mask(VERTICES, SHAPE, window=window), polymask.mask(VERTICES, SHAPE)[1:4, 2:6])


def test_teaching_stages_refuse_a_window():
    with pytest.raises(ValueError, match="backend 'python' fills one ring of the whole image.*window="):
        polymask.mask(VERTICES, SHAPE, backend="python", window=(0, 0, 2, 2))
