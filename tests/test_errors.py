"""Bad input gets a clear error that names what was received and what was expected.

Degenerate polygons are not bad input (tests/test_contract.py covers them);
these are the errors the contract names: wrong array shape, non-numbers,
non-finite coordinates, non-positive or absurd image shapes, and an `out=`
of the wrong shape, dtype, layout or writability.
"""
import numpy as np
import pytest

import polymask
from tests._support import double_mask

TRIANGLE = [(0, 0), (4, 0), (0, 4)]

BAD_VERTICES = [
    (None, TypeError, "got None"),
    ("abc", TypeError, "got 'abc'"),
    ([1, 2, 3], ValueError, r"shape \(N, 2\).*\(3,\)"),
    ([[1, 2, 3]], ValueError, r"vertices\[0\] must have shape \(N, 2\).*COCO flat list.*\(3,\)"),
    (np.zeros((2, 2, 2)), ValueError, r"\(2, 2, 2\)"),
    ([[1, 2], [3]], ValueError, "could not read"),
    ([(0, 0), (1, float("nan")), (2, 2)], ValueError, r"vertices\[1\] = \(1.0, nan\) is not finite"),
    ([(0, 0), (1, 1), (float("inf"), 2)], ValueError, r"vertices\[2\] = \(inf, 2.0\) is not finite"),
    (np.array([(0, 0), (1, 1), (2, -np.inf)], np.float32), ValueError, r"vertices\[2\].*not finite"),
    (np.array([(0, 0), (1, 1), (2, 3)], dtype=complex), TypeError, "real numbers.*complex"),
    (np.array([(True, False)] * 3), TypeError, "booleans"),
    ([("a", "b"), ("c", "d"), ("e", "f")], TypeError, "real numbers"),
    # None is not a number: it must not pose as NaN.
    (np.array([(0, None), (1, 1), (2, 2)], dtype=object), TypeError, r"vertices\[0, 1\] is None"),
    ([(10**400, 0), (1, 1), (2, 2)], TypeError, "converting to float64 failed"),
]


@pytest.mark.parametrize("vertices,error,message", BAD_VERTICES, ids=range(len(BAD_VERTICES)))
def test_bad_vertices(vertices, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(vertices, (5, 5))


BAD_SHAPES = [
    (None, TypeError, "rows, cols"),
    (5, TypeError, r"\(rows, cols\) pair of integers, got 5"),
    ((5,), ValueError, "got 1 values"),
    ((5, 5, 5), ValueError, "got 3 values"),
    ((0, 5), ValueError, "rows must be at least 1, got 0"),
    ((5, -3), ValueError, "cols must be at least 1, got -3"),
    ((5.0, 5), TypeError, "rows must be an integer, got 5.0"),
    ((5, "7"), TypeError, "cols must be an integer"),
    ((True, 5), TypeError, "rows must be an integer, got True"),
    ((2**31, 5), ValueError, "at most 2147483647"),
    ((5, 10**30), ValueError, "at most"),
]


@pytest.mark.parametrize("shape,error,message", BAD_SHAPES, ids=range(len(BAD_SHAPES)))
def test_bad_shapes(shape, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(TRIANGLE, shape)


def test_mask_too_large_to_allocate_is_a_memory_error():
    with pytest.raises(MemoryError, match="cannot allocate a 2000000000x2000000000 mask"):
        polymask.mask(TRIANGLE, (2_000_000_000, 2_000_000_000))


def _read_only():
    out = np.zeros((5, 5), bool)
    out.flags.writeable = False
    return out


BAD_OUTS = [
    ([[0] * 5] * 5, TypeError, "NumPy array of bool or uint8, got"),
    (np.zeros((5, 5), np.int32), TypeError, "dtype bool or uint8, got int32"),
    (np.zeros((5, 5), np.float64), TypeError, "got float64"),
    (np.zeros((5, 6), bool), ValueError, r"shape \(5, 5\), got \(5, 6\)"),
    (np.zeros(25, bool), ValueError, r"got \(25,\)"),
    (np.zeros((5, 10), bool)[:, ::2], ValueError, "C-contiguous"),
    (np.asfortranarray(np.zeros((5, 5), bool)), ValueError, "C-contiguous"),
    (_read_only(), ValueError, "writable"),
]


@pytest.mark.parametrize("out,error,message", BAD_OUTS, ids=range(len(BAD_OUTS)))
def test_bad_out(out, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(TRIANGLE, (5, 5), out=out)


@pytest.mark.parametrize("threads,error,message", [
    (-1, ValueError, "between 0 .* got -1"),
    (10**6, ValueError, "at most|between"),
    (1.5, TypeError, "threads must be None or an integer"),
    ("2", TypeError, "threads must be None or an integer"),
    (True, TypeError, "got True"),
])
def test_bad_threads(threads, error, message):
    with pytest.raises(error, match=message):
        polymask.mask(TRIANGLE, (5, 5), threads=threads)


def test_a_failed_call_leaves_out_untouched():
    out = np.full((5, 5), True)
    with pytest.raises(ValueError):
        polymask.mask([(0, 0), (1, np.nan), (2, 2)], (5, 5), out=out)
    assert out.all()


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        polymask.mask(TRIANGLE, (5, 5), thread=2)


def test_unknown_backend_lists_the_choices():
    with pytest.raises(ValueError, match="unknown backend 'fastest'; choose one of: auto, .*scanline"):
        polymask.mask(TRIANGLE, (5, 5), backend="fastest")


def test_backend_must_be_a_string():
    with pytest.raises(TypeError, match="backend must be a string"):
        polymask.mask(TRIANGLE, (5, 5), backend=3)


def test_no_environment_variable_reroutes_the_default_call(monkeypatch):
    monkeypatch.setenv("POLYMASK_BACKEND", "no_such_stage")
    assert np.array_equal(polymask.mask(TRIANGLE, (5, 5)), double_mask(TRIANGLE, (5, 5)))
