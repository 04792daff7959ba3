"""Every public call checks all of its input before it writes a byte of `out=`,
and checks what reaches the core, not only what the caller passed.

* A transform that maps finite vertices to infinity (a scale of 1e-100 and
  vertices at ±1e300) is a ValueError that names the transform, in every
  function that takes ``transform=``: the fills once saw infinities and
  returned an empty mask for a square covering the image.
* The core's own checks are a last line behind the Python ones; when one
  fires, its message reaches Python without the C++ function's name.
* A bad later part of a COCO segmentation, a bad later polygon of a batch,
  or any bad argument leaves `out` exactly as it was, for every entry point
  that takes ``out=``.
"""
from __future__ import annotations

import json
import sys
import textwrap
import warnings

import numpy as np
import pytest

import polymask
import polymask.coco
import polymask.dask
from polymask import _coverage_sweep
from tests._support import run_isolated

#: A square covering any image, at ±1e300: finite, and infinite once a cell
#: of 1e-100 maps it into pixels.
HUGE_SQUARE = [(-1e300, -1e300), (1e300, -1e300), (1e300, 1e300), (-1e300, 1e300)]
TINY_CELLS = (1e-100, 0.0, 0.0, 0.0, 1e-100, 0.0)
TINY_SHEARED_CELLS = (1e-100, 1e-101, 0.0, 0.0, 1e-100, 0.0)
SMALL = [(1, 1), (3, 1), (3, 3)]

#: Every public call that takes transform=, given a polygon (or its list) and the transform.
TRANSFORMED_CALLS = {
    "mask": lambda p, t: polymask.mask(p, (4, 4), transform=t),
    "mask all_touched": lambda p, t: polymask.mask(p, (4, 4), transform=t, all_touched=True),
    "mask of COCO parts": lambda p, t: polymask.mask([np.ravel(SMALL).tolist(), np.ravel(p).tolist()], (4, 4),
                                                     transform=t),
    "masks": lambda p, t: polymask.masks([SMALL, p], (4, 4), transform=t),
    "masks crop": lambda p, t: polymask.masks([SMALL, p], (4, 4), transform=t, crop=True),
    "rasterize": lambda p, t: polymask.rasterize([SMALL, p], (4, 4), transform=t),
    "rasterize all_touched": lambda p, t: polymask.rasterize([SMALL, p], (4, 4), transform=t, all_touched=True),
    "coverage": lambda p, t: polymask.coverage(p, (4, 4), transform=t),
    "coverages": lambda p, t: polymask.coverages([SMALL, p], (4, 4), transform=t),
    "dask.mask": lambda p, t: polymask.dask.mask(p, (4, 4), transform=t),
    "dask.rasterize": lambda p, t: polymask.dask.rasterize([SMALL, p], (4, 4), transform=t),
    "dask.coverage": lambda p, t: polymask.dask.coverage(p, (4, 4), transform=t),
}


@pytest.mark.parametrize("transform", [TINY_CELLS, TINY_SHEARED_CELLS], ids=["scaled", "sheared"])
@pytest.mark.parametrize("call", list(TRANSFORMED_CALLS))
def test_a_transform_that_maps_vertices_to_infinity_is_a_value_error(call, transform):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's overflow warning must not be the only sign
        with pytest.raises(ValueError, match=r"transform=\(1e-100, .*maps the vertex .*not finite") as caught:
            TRANSFORMED_CALLS[call](HUGE_SQUARE, transform)
    assert "polymask::" not in str(caught.value)


def test_the_error_names_the_polygon_of_a_batch():
    with pytest.raises(ValueError, match=r"of polygons\[1\] to \(-inf, -inf\)"):
        polymask.rasterize([SMALL, HUGE_SQUARE], (4, 4), transform=TINY_CELLS)


def test_the_same_transform_on_a_polygon_that_stays_finite_works():
    # The ValueError is about these coordinates, not the transform: 1e-100 cells
    # over a polygon of 1e-100 sides are an ordinary mask.
    square = [(x * 1e-100, y * 1e-100) for x, y in [(0, 0), (2, 0), (2, 2), (0, 2)]]
    np.testing.assert_array_equal(polymask.mask(square, (3, 3), transform=TINY_CELLS),
                                  [[1, 1, 0], [1, 1, 0], [0, 0, 0]])


def test_the_cores_last_line_check_speaks_without_its_cpp_name():
    # Only a private call can reach the core with a non-finite vertex: the
    # public ones refuse it first.  The core's message keeps what was wrong.
    vertices = np.array([[0.0, 0.0], [np.inf, 0.0], [0.0, 2.0]])
    with pytest.raises(ValueError) as caught:
        _coverage_sweep.coverage(vertices, np.zeros((4, 4)), 0, 0, 0, 1, None, True)
    assert "finite" in str(caught.value) and "polymask::" not in str(caught.value)


def test_a_corrupt_counts_string_speaks_without_the_cores_cpp_name():
    with pytest.raises(ValueError) as caught:
        polymask.coco.decode({"size": [2, 2], "counts": b"4~"})
    assert "polymask::" not in str(caught.value)


# ---- out= is untouched by an input that is refused ---------------------------------

def _guarded(shape, dtype) -> np.ndarray:
    """An output buffer holding a pattern no call would write (bytes 0x5A)."""
    buffer = np.empty(shape, dtype=dtype)
    buffer.view(np.uint8)[...] = 0x5A
    return buffer


GOOD = [(0, 0), (6, 0), (6, 6), (0, 6)]

#: (entry point, out's shape and dtype, the call with out=) for bad input of every kind.
REFUSED = {
    "mask: COCO part 1 has a string": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, "x", 2, 3, 3]], (8, 8), out=out)),
    "mask: COCO part 1 has a NaN": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, np.nan, 2, 3, 3]], (8, 8), out=out)),
    "mask: COCO part 1 has an odd count": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, 2, 2, 3]], (8, 8), out=out)),
    "mask: COCO part 2 is not flat": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, 2, 2, 3, 3], "x"], (8, 8), out=out)),
    "mask: COCO part 1 overflows under the transform": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], np.ravel(HUGE_SQUARE).tolist()], (8, 8),
                                                out=out, transform=TINY_CELLS)),
    "mask: COCO parts with a bad window": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, 2, 2, 3, 3]], (8, 8), out=out,
                                                window=(0, 0, 9, 9))),
    "mask: COCO parts with bad threads": (
        (8, 8), bool, lambda out: polymask.mask([[1, 1, 6, 1, 6, 6], [1, 1, 2, 2, 3, 3]], (8, 8), out=out,
                                                threads="two")),
    "mask: a NaN vertex": ((8, 8), bool, lambda out: polymask.mask([(0, 0), (np.nan, 1), (2, 2)], (8, 8), out=out)),
    "mask: a ring with a NaN": (
        (8, 8), bool, lambda out: polymask.mask([GOOD, [(1, 1), (2, np.nan), (3, 3)]], (8, 8), out=out)),
    "mask: overflow under the transform": (
        (8, 8), bool, lambda out: polymask.mask(HUGE_SQUARE, (8, 8), out=out, transform=TINY_CELLS)),
    "mask: a bad fill rule": ((8, 8), bool, lambda out: polymask.mask(GOOD, (8, 8), out=out, fill_rule="odd")),
    "mask: a bad backend": ((8, 8), bool, lambda out: polymask.mask(GOOD, (8, 8), out=out, backend="nope")),
    "mask all_touched: a NaN": (
        (8, 8), np.uint8, lambda out: polymask.mask([(0, 0), (np.nan, 1), (2, 2)], (8, 8), out=out,
                                                    all_touched=True)),
    "masks: polygon 1 has a NaN": (
        (2, 8, 8), bool, lambda out: polymask.masks([GOOD, [(0, 0), (np.nan, 1), (2, 2)]], (8, 8), out=out)),
    "masks: polygon 1 overflows under the transform": (
        (2, 8, 8), bool, lambda out: polymask.masks([GOOD, HUGE_SQUARE], (8, 8), out=out, transform=TINY_CELLS)),
    "masks: out of the wrong count": ((3, 8, 8), bool, lambda out: polymask.masks([GOOD, GOOD], (8, 8), out=out)),
    "rasterize: polygon 1 has a NaN": (
        (8, 8), np.uint8, lambda out: polymask.rasterize([GOOD, [(0, 0), (np.nan, 1), (2, 2)]], (8, 8), out=out)),
    "rasterize: polygon 1 overflows under the transform": (
        (8, 8), np.uint8, lambda out: polymask.rasterize([GOOD, HUGE_SQUARE], (8, 8), out=out,
                                                         transform=TINY_CELLS)),
    "rasterize: a value that does not fit": (
        (8, 8), np.uint8, lambda out: polymask.rasterize([GOOD, GOOD], (8, 8), [1, 300], out=out)),
    "rasterize: too few values": (
        (8, 8), np.uint8, lambda out: polymask.rasterize([GOOD, GOOD], (8, 8), [1], out=out)),
    "coverage: a ring with a NaN": (
        (8, 8), np.float64, lambda out: polymask.coverage([GOOD, [(1, 1), (2, np.nan), (3, 3)]], (8, 8), out=out)),
    "coverage: overflow under the transform": (
        (8, 8), np.float64, lambda out: polymask.coverage(HUGE_SQUARE, (8, 8), out=out, transform=TINY_CELLS)),
    "coverage: a bad window": (
        (8, 8), np.float64, lambda out: polymask.coverage(GOOD, (8, 8), out=out, window=(1, 1, 8, 8))),
    "coverage: a dtype that is not out's": (
        (8, 8), np.float64, lambda out: polymask.coverage(GOOD, (8, 8), out=out, dtype=np.float32)),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_input_leaves_out_untouched(case):
    shape, dtype, call = REFUSED[case]
    out = _guarded(shape, dtype)
    with pytest.raises((TypeError, ValueError)):
        call(out)
    assert (out.view(np.uint8) == 0x5A).all(), f"{case}: out was written before the input was refused"


def test_every_entry_point_that_takes_out_is_covered():
    # A new public function with out= must get its refusal cases above.
    import inspect

    takes_out = {name for name in polymask.__all__
                 if callable(getattr(polymask, name)) and "out" in _parameters(getattr(polymask, name), inspect)}
    covered = {case.split(":")[0].split(" ")[0] for case in REFUSED}
    assert takes_out == covered


def _parameters(function, inspect) -> set[str]:
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return set()


def test_the_union_of_good_coco_parts_still_fills_out():
    out = _guarded((8, 8), bool)
    result = polymask.mask([[1, 1, 6, 1, 6, 6], [1, 5, 2, 5, 1, 7]], (8, 8), out=out)
    assert result is out
    expected = polymask.mask([(1, 1), (6, 1), (6, 6)], (8, 8)) | polymask.mask([(1, 5), (2, 5), (1, 7)], (8, 8))
    np.testing.assert_array_equal(out, expected)


# ---- out= after a MemoryError while filling --------------------------------------------

OUT_OF_MEMORY = textwrap.dedent('''
    import json, resource, sys
    import numpy as np
    import polymask

    call = sys.argv[1]
    angles = np.linspace(0, 2 * np.pi, 2_000_000, endpoint=False)
    outline = np.column_stack([50 + 40 * np.cos(angles), 50 + 40 * np.sin(angles)])
    out = np.full((100, 100), 7, dtype=np.uint8 if call == "mask" else np.float64)
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    # Room for the call's small arrays, none for the core's edge tables (~100 MB).
    limit = pages * resource.getpagesize() + 48 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        if call == "mask":
            polymask.mask(outline, (100, 100), out=out, all_touched=True)
        else:
            polymask.coverage(outline, (100, 100), out=out)
        error = None
    except MemoryError as caught:
        error = type(caught).__name__
    written = out[out != 7]
    print(json.dumps({"error": error, "in_range": bool(((written >= 0) & (written <= 1)).all())}))
''')


@pytest.mark.parametrize("call", ["mask", "coverage"])
def test_a_memory_error_while_filling_leaves_out_holding_old_or_result_values(call):
    completed = run_isolated([sys.executable, "-c", OUT_OF_MEMORY, call], 120)
    assert completed is not None and completed.returncode == 0, completed and completed.stderr[-3000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report == {"error": "MemoryError", "in_range": True}, report
