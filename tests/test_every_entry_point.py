"""The same bad polygon sent to every public entry point gets the same error, and `out=` is left as it was.

Every entry point reads its polygons through one funnel (polymask/_inputs.py)
and allocates or checks its result through one allocator
(polymask/_outputs.py), so a guarantee written there holds for all of them.
This table is the proof: one row per entry point, one column per bad
input; an entry point added without the funnel would answer differently.
The messages name the argument in the public API's words (``vertices``,
``polygon``, ``polygons[1]``, ``regions[1]``).
"""
from __future__ import annotations

import numpy as np
import pytest

import polymask
import polymask.coco
import polymask.dask
import polymask.opencl
import polymask.xarray

GOOD = [(1.0, 1.0), (6.0, 1.5), (4.0, 6.0)]
SHAPE = (8, 8)

#: bad polygon -> (exception type, what the message says after the argument's name).
BAD = {
    "nan vertex": ([(0.0, 0.0), (np.nan, 0.0), (0.0, 5.0)], ValueError, r"\[1\] = \(nan, 0\.0\) is not finite"),
    "infinite vertex": ([(0.0, 0.0), (3.0, 0.0), (0.0, np.inf)], ValueError, r"\[2\] = \(0\.0, inf\) is not finite"),
    "three numbers a vertex": (np.zeros((4, 3)), ValueError, r"must have shape \(N, 2\)"),
    "text": ([("a", "b"), ("c", "d"), ("e", "f")], TypeError, r"must hold real numbers"),
    "None": (None, TypeError, r"got None"),
    "a COCO RLE": ({"size": [8, 8], "counts": "PPY1"}, ValueError, r"looks like a COCO RLE"),
}

GRID = np.arange(8.0)

#: entry point -> (call taking one polygon, the argument's name in its messages).
ONE_POLYGON = {
    "mask": (lambda p: polymask.mask(p, SHAPE), "vertices"),
    "mask all_touched": (lambda p: polymask.mask(p, SHAPE, all_touched=True), "vertices"),
    "mask transform": (lambda p: polymask.mask(p, SHAPE, transform=(1, 0, 0, 0, 1, 0)), "vertices"),
    "mask window": (lambda p: polymask.mask(p, SHAPE, window=(1, 1, 4, 4)), "vertices"),
    "mask backend=cython_typed": (lambda p: polymask.mask(p, SHAPE, backend="cython_typed"), "vertices"),
    "coverage": (lambda p: polymask.coverage(p, SHAPE), "polygon"),
    "contains": (lambda p: polymask.contains(p, GRID, GRID[:, None]), "polygon"),
    "dask.mask": (lambda p: polymask.dask.mask(p, SHAPE), "vertices"),
    "dask.coverage": (lambda p: polymask.dask.coverage(p, SHAPE), "polygon"),
    "xarray.mask": (lambda p: polymask.xarray.mask(p, GRID, GRID), "polygon"),
    "opencl.mask": (lambda p: polymask.opencl.mask(p, SHAPE), "vertices"),
}

#: entry point -> call taking a list of polygons (the bad one second); messages name `<name>[1]`.
MANY_POLYGONS = {
    "masks": (lambda ps: polymask.masks(ps, SHAPE), "polygons"),
    "masks crop": (lambda ps: polymask.masks(ps, SHAPE, crop=True), "polygons"),
    "rasterize": (lambda ps: polymask.rasterize(ps, SHAPE), "polygons"),
    "rasterize all_touched": (lambda ps: polymask.rasterize(ps, SHAPE, all_touched=True), "polygons"),
    "coverages": (lambda ps: polymask.coverages(ps, SHAPE), "polygons"),
    "contains_labels": (lambda ps: polymask.contains_labels(ps, GRID, GRID), "polygons"),
    "dask.rasterize": (lambda ps: polymask.dask.rasterize(ps, SHAPE), "polygons"),
    "xarray.mask_2d": (lambda ps: polymask.xarray.mask_2d(ps, GRID, GRID, later_wins=True), "regions"),
    "xarray.mask_3d": (lambda ps: polymask.xarray.mask_3d(ps, GRID, GRID), "regions"),
    "coco.encode": (lambda ps: polymask.coco.encode(ps, *SHAPE), "objects"),
}
#: (entry point, bad input) pairs where the input is no error: coco.encode takes a COCO RLE as it is.
NOT_BAD_THERE = {("coco.encode", "a COCO RLE")}


def _needs_opencl(entry: str) -> None:
    if entry.startswith("opencl") and not polymask.available_backends()["opencl"].available:
        pytest.skip("no OpenCL device here")  # GPU code may skip; CI installs a CPU runtime


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("entry", list(ONE_POLYGON))
def test_one_bad_polygon_gets_the_same_error_everywhere(entry, bad):
    _needs_opencl(entry)
    call, name = ONE_POLYGON[entry]
    polygon, error, words = BAD[bad]
    with pytest.raises(error, match=rf"{name}{words if words.startswith(chr(92) + '[') else '.*' + words}"):
        call(polygon)


@pytest.mark.parametrize("entry, bad", [(entry, bad) for entry in MANY_POLYGONS for bad in BAD
                                         if bad != "None" and (entry, bad) not in NOT_BAD_THERE])
def test_a_bad_polygon_in_a_collection_gets_the_same_error_everywhere(entry, bad):
    call, name = MANY_POLYGONS[entry]
    polygon, error, words = BAD[bad]
    with pytest.raises(error, match=rf"{name}\[1\]{words if words.startswith(chr(92) + '[') else '.*' + words}"):
        call([GOOD, polygon])


def test_the_good_polygon_passes_every_entry_point():
    """The table's calls work on good input: each row above fails only for the bad polygon."""
    expected = polymask.mask(GOOD, SHAPE)
    for entry, (call, _) in ONE_POLYGON.items():
        if entry.startswith("opencl") and not polymask.available_backends()["opencl"].available:
            continue
        result = np.asarray(call(GOOD))
        if entry in ("mask", "mask backend=cython_typed", "dask.mask", "opencl.mask"):  # the sample-point frame
            assert np.array_equal(result, expected), entry
    for call, _ in MANY_POLYGONS.values():
        call([GOOD, GOOD])


#: entry point that takes out= -> (call with out, a good out buffer).
WITH_OUT = {
    "mask": (lambda p, out: polymask.mask(p, SHAPE, out=out), lambda: np.full(SHAPE, 7, np.uint8)),
    "mask all_touched": (lambda p, out: polymask.mask(p, SHAPE, out=out, all_touched=True),
                         lambda: np.full(SHAPE, 7, np.uint8)),
    "mask backend=numpy": (lambda p, out: polymask.mask(p, SHAPE, out=out, backend="numpy"),
                           lambda: np.full(SHAPE, 7, np.uint8)),
    "coverage": (lambda p, out: polymask.coverage(p, SHAPE, out=out), lambda: np.full(SHAPE, 0.5)),
    "masks": (lambda p, out: polymask.masks([GOOD, p], SHAPE, out=out), lambda: np.full((2, *SHAPE), 7, np.uint8)),
    "rasterize": (lambda p, out: polymask.rasterize([GOOD, p], SHAPE, out=out), lambda: np.full(SHAPE, 9, np.int32)),
    "opencl.mask": (lambda p, out: polymask.opencl.mask(p, SHAPE, out=out), lambda: np.full(SHAPE, 7, np.uint8)),
}


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("entry", list(WITH_OUT))
def test_a_refused_polygon_leaves_out_as_it_was(entry, bad):
    _needs_opencl(entry)
    call, new_out = WITH_OUT[entry]
    out = new_out()
    before = out.copy()
    with pytest.raises((TypeError, ValueError)):
        call(BAD[bad][0], out)
    assert np.array_equal(out, before), f"{entry}: out changed although {bad!r} was refused"


@pytest.mark.parametrize("entry", list(WITH_OUT))
def test_a_good_polygon_fills_out_in_place(entry):
    """The other side of the test above: the same call with a good polygon writes `out`."""
    _needs_opencl(entry)
    call, new_out = WITH_OUT[entry]
    out = new_out()
    before = out.copy()
    assert call(GOOD, out) is out
    assert not np.array_equal(out, before), entry


#: A triangle over half of the largest image.
HUGE = [(0.0, 0.0), (2.0**31 - 2, 0.0), (0.0, 2.0**31 - 2)]

#: entry point -> a call whose result cannot be allocated (terabytes).
TOO_LARGE = {
    "mask": lambda: polymask.mask(GOOD, (2**31 - 1, 2**31 - 1)),
    "coverage": lambda: polymask.coverage(GOOD, (2**31 - 1, 2**31 - 1)),
    "rasterize": lambda: polymask.rasterize([GOOD], (2**31 - 1, 2**31 - 1)),
    "masks": lambda: polymask.masks([GOOD] * 4, (2**31 - 1, 2**31 - 1)),
    "contains": lambda: polymask.contains(GOOD, np.zeros(2**21), np.zeros(2**22)[:, None]),
    "mask all_touched": lambda: polymask.mask(GOOD, (2**31 - 1, 2**31 - 1), all_touched=True),
    "rasterize all_touched": lambda: polymask.rasterize([GOOD], (2**31 - 1, 2**31 - 1), all_touched=True),
    "contains_labels": lambda: polymask.contains_labels([GOOD], np.zeros(2**21), np.zeros(2**22)[:, None]),
    # The crops of polygons that span the image: exabytes in one buffer.
    "coverages": lambda: polymask.coverages([HUGE] * 4, (2**31 - 1, 2**31 - 1)),
    "masks crop": lambda: polymask.masks([HUGE] * 4, (2**31 - 1, 2**31 - 1), crop=True),
    "opencl.mask": lambda: polymask.opencl.mask(GOOD, (2**31 - 1, 2**31 - 1)),
}


@pytest.mark.parametrize("entry", list(TOO_LARGE))
def test_a_result_that_cannot_be_allocated_says_its_size(entry):
    """The one allocator's MemoryError: the array's shape, its size, and the way out.

    coverages once raised NumPy's raw "array is too big" ValueError.
    """
    _needs_opencl(entry)
    with pytest.raises(MemoryError, match=r"cannot allocate a [0-9x]+ .*\([0-9.]+ GB\); \w"):
        TOO_LARGE[entry]()


#: polymask.dask's lazy arrays -> the block each computes.
LAZY = {
    "dask.mask": (lambda: polymask.dask.mask(GOOD, (64, 64), chunks=32), "mask"),
    "dask.rasterize": (lambda: polymask.dask.rasterize([GOOD], (64, 64), chunks=32), "uint8 label"),
    "dask.coverage": (lambda: polymask.dask.coverage(GOOD, (64, 64), chunks=32), "float64 coverage"),
}


@pytest.mark.parametrize("entry", list(LAZY))
def test_a_dask_block_that_cannot_be_allocated_says_its_size(entry, monkeypatch):
    """Each block comes from the one allocator too: a block memory cannot hold names itself and the way out."""
    from polymask import _outputs

    lazy, block = LAZY[entry]
    array = lazy()

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(_outputs, "_zeros", no_memory)
    message = rf"cannot allocate a 32x32 {block} block \([0-9.]+ GB\); pass smaller chunks="
    with pytest.raises(MemoryError, match=message):
        array.compute(scheduler="synchronous")
