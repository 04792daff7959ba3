"""polymask.mask's one-call branch for one ring and the defaults (polymask._core.plain_mask).

The common call -- one ring already in the core's form, the defaults, maybe
an out= buffer -- is checked and filled in one Cython call, which runs the
funnel's own one-step tests (the ones as_vertices, as_shape and result_array
start with); anything else goes to the funnel.  The branch must be invisible:

* it accepts exactly what the funnel's one-step tests accept, and has no check of its own;
* the same mask as the general path, bit for bit, with and without out=;
* any other argument (other layouts and dtypes, non-finite numbers, NumPy
  integers in the shape, a mismatched out=) gives the general path's mask
  or error, and a refused out= is left untouched;
* ``polymask.threads(n)`` still decides the thread count.

New masks are allocated in one of two ways (np.zeros with only the spans
written, or np.empty with every byte written: tests/test_lazy_zeros.py);
the equality tests here run on both.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import polymask
from polymask import _core, _one_step
from tests._support import double_rings_mask


def checked_mask(vertices, shape, **options):
    """The checked path: backend="scanline" is never plain."""
    return polymask.mask(vertices, shape, backend="scanline", **options)


def random_polygons(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = (int(rng.integers(1, 90)), int(rng.integers(1, 90)))
        vertices = rng.uniform(-10, max(shape) + 10, size=(int(rng.integers(0, 14)), 2))
        if rng.random() < 0.4:
            vertices = np.round(vertices)
        yield vertices, shape


@pytest.mark.parametrize("threads", [1, 2])
def test_plain_masks_equal_the_checked_path_and_the_reference(threads):
    for vertices, shape in random_polygons(11, 150):
        plain = _core.plain_mask(vertices, shape, threads)
        assert plain.dtype == bool and plain.shape == shape
        reference = double_rings_mask([vertices], shape) if len(vertices) else np.zeros(shape, dtype=bool)
        assert np.array_equal(plain, reference), (vertices, shape)
        assert np.array_equal(checked_mask(vertices, shape, threads=threads), reference)
        assert np.array_equal(polymask.mask(vertices, shape, threads=threads), reference)


@pytest.mark.parametrize("dtype", [bool, np.uint8])
def test_plain_out_is_filled_in_place_every_byte(dtype):
    for vertices, shape in random_polygons(12, 100):
        out = np.full(shape, 7 if dtype is np.uint8 else True, dtype=dtype)  # garbage: all rewritten
        result = _core.plain_mask(vertices, shape, 1, out)
        assert result is out
        reference = double_rings_mask([vertices], shape) if len(vertices) else np.zeros(shape, dtype=bool)
        assert np.array_equal(out.astype(bool), reference) and set(np.unique(out)) <= {0, 1}


def test_a_covering_polygon_in_dirty_memory_has_every_byte_written():
    # Mostly covered, heap-sized results come from np.empty: freed dirty
    # memory of the same size is what malloc hands back next.
    rng = np.random.default_rng(5)
    for _ in range(30):
        shape = (int(rng.integers(200, 600)), int(rng.integers(200, 600)))
        vertices = np.column_stack([rng.uniform(-20, shape[1] + 20, 12), np.linspace(-5, shape[0] + 5, 12)])
        dirty = np.full(shape, True)
        del dirty
        result = polymask.mask(vertices, shape, threads=1)
        assert np.array_equal(result, double_rings_mask([vertices], shape))
        assert set(np.unique(result.view(np.uint8))) <= {0, 1}


@pytest.mark.parametrize("threads", [1, 2])
def test_plain_all_touched_masks_equal_the_checked_path_and_the_coverage(threads):
    """all_touched=True takes the plain path too: the cells of positive coverage, as the checked path."""
    for vertices, shape in random_polygons(13, 120):
        plain = _core.plain_mask(vertices, shape, threads, None, True)
        assert plain.dtype == bool and plain.shape == shape
        reference = polymask.coverage(vertices, shape) > 0
        assert np.array_equal(plain, reference), (vertices, shape)
        assert np.array_equal(checked_mask(vertices, shape, threads=threads, all_touched=True), reference)
        assert np.array_equal(polymask.mask(vertices, shape, threads=threads, all_touched=True), reference)


@pytest.mark.parametrize("dtype", [bool, np.uint8])
def test_plain_all_touched_out_is_filled_in_place_every_byte(dtype):
    for vertices, shape in random_polygons(14, 80):
        out = np.full(shape, 7 if dtype is np.uint8 else True, dtype=dtype)  # garbage: all rewritten
        assert _core.plain_mask(vertices, shape, 1, out, True) is out
        assert np.array_equal(out.astype(bool), polymask.coverage(vertices, shape) > 0)
        assert set(np.unique(out)) <= {0, 1}


def test_all_touched_that_is_not_a_bool_takes_the_checked_path(monkeypatch):
    """Only the bools True and False are plain: any other value keeps the checked path's meaning."""
    calls = []
    plain_mask = _core.plain_mask
    monkeypatch.setattr(_core, "plain_mask", lambda *args: calls.append(args) or plain_mask(*args))
    vertices = np.array([(0.5, 0.5), (5.2, 1.0), (2.0, 4.7)])
    expected = polymask.coverage(vertices, (6, 6)) > 0
    assert np.array_equal(polymask.mask(vertices, (6, 6), all_touched=np.True_), expected)
    assert calls == []
    polymask.mask(vertices, (6, 6), all_touched=True)
    assert len(calls) == 1 and calls[0][-1] is True


@settings(max_examples=150, deadline=None)
@given(vertices=hnp.arrays(np.float64, st.tuples(st.integers(0, 12), st.just(2)),
                           elements=st.floats(-1e300, 1e300) | st.floats(-40, 40) | st.integers(-40, 40).map(float)),
       shape=st.tuples(st.integers(1, 40), st.integers(1, 40)), with_out=st.booleans())
def test_any_finite_ring_gives_the_checked_paths_mask(vertices, shape, with_out):
    # Huge, tiny, integral and repeated coordinates: one core, so one answer.
    out = np.ones(shape, dtype=bool) if with_out else None
    plain = _core.plain_mask(vertices, shape, 1, out)
    assert np.array_equal(plain, checked_mask(vertices, shape, threads=1))


RING = np.array([(0, 0), (5, 0), (0, 5.0)])


def returned_as_is(check, value):
    """Whether a funnel check returns `value` itself: what its one-step test passes (the slow path converts)."""
    try:
        return check(value) is value
    except (TypeError, ValueError):
        return False


def test_the_branch_accepts_exactly_what_the_funnels_one_step_tests_accept():
    """Each argument is plain for the branch iff the funnel's one-step test for it says so."""
    from polymask._arguments import as_shape
    from polymask._outputs import result_array
    from polymask._validation import as_vertices

    for vertices in [RING, np.zeros((0, 2))] + [case[0] for case in OFF_THE_FAST_BRANCH.values()]:
        plain = _one_step.core_ring_status(vertices) == -1
        assert (_core.plain_mask(vertices, (6, 6), 1) is not None) == plain
        assert returned_as_is(as_vertices, vertices) == plain
    shapes = [(6, 6), (1, 1), [6, 6], (np.int64(6), 6), (True, 6), (6.0, 6), (0, 6), (6, -1), (6, 2**31),
              (10**30, 6), (6, 6, 1), (6,), "66", None]
    for shape in shapes:
        assert (_core.plain_mask(RING, shape, 1) is not None) == _one_step.shape_is_plain(shape), shape
    for shape in shapes + [(2**31 - 1, 1), (1, 2**31 - 1)]:
        assert returned_as_is(as_shape, shape) == _one_step.shape_is_plain(shape), shape
    outs = [np.zeros((6, 6), dtype=bool), np.zeros((6, 6), dtype=np.uint8), np.zeros((6, 6), dtype=np.int8),
            np.zeros((6, 6), dtype="S1"), np.zeros((6, 6), dtype=bool, order="F"), np.zeros((6, 7), dtype=bool),
            np.zeros((6, 6, 1), dtype=bool), np.zeros((6, 12), dtype=bool)[:, ::2], np.zeros(36, dtype=bool),
            np.lib.stride_tricks.as_strided(np.zeros((6, 6), dtype=bool), writeable=False),
            np.zeros((6, 6), dtype=bool).view(np.matrix), [[0] * 6] * 6]
    for out in outs:
        ready = _one_step.mask_out_ready(out, (6, 6))
        assert (_core.plain_mask(RING, (6, 6), 1, out) is not None) == ready, out
        if ready:
            assert result_array(out, (6, 6)) is out


def test_the_funnels_checks_start_with_the_one_step_tests(monkeypatch):
    """as_vertices, as_shape and result_array ask _one_step's tests, the ones the branch runs."""
    from polymask import _arguments, _outputs, _validation

    asked = []

    def recorded(module, name):
        test = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args: asked.append(name) or test(*args))

    recorded(_validation, "core_ring_status")
    recorded(_arguments, "shape_is_plain")
    recorded(_outputs, "mask_out_ready")
    out = np.zeros((6, 6), dtype=bool)
    assert _validation.as_vertices(RING) is RING and _arguments.as_shape((6, 6)) == (6, 6)
    assert _outputs.result_array(out, (6, 6)) is out
    assert asked == ["core_ring_status", "shape_is_plain", "mask_out_ready"]


def test_the_one_step_vertex_check_knows_only_what_the_core_takes():
    """as_vertices' one-step test: -1 for a finite native float64 C-contiguous (N, 2) ndarray, the bad row
    for a non-finite one, -2 (the general path converts and checks) for anything else."""
    plain = np.array([(0, 0), (5, 0), (0, 5.0), (1, 1)])
    assert _one_step.core_ring_status(plain) == -1
    assert _one_step.core_ring_status(np.zeros((0, 2))) == -1
    assert _one_step.core_ring_status(np.array([(0, 0), (5, 0), (0, np.inf)])) == 2
    others = [plain.tolist(), plain.astype(np.float32), plain.astype(np.int64), plain.astype(">f8"),
              np.asfortranarray(plain), plain[::2], np.zeros((3, 3)), np.zeros(6), None]
    for other in others:
        assert _one_step.core_ring_status(other) == -2, other


OFF_THE_FAST_BRANCH = {
    "list": ([(0, 0), (5, 0), (0, 5)], (6, 6), 1, None),
    "float32": (np.array([(0, 0), (5, 0), (0, 5)], dtype=np.float32), (6, 6), 1, None),
    "int64": (np.array([(0, 0), (5, 0), (0, 5)]), (6, 6), 1, None),
    "fortran": (np.asfortranarray(np.array([(0, 0), (5, 0), (0, 5.5)])), (6, 6), 1, None),
    "strided": (np.array([(0, 0), (9, 9), (5, 0), (9, 9), (0, 5)], dtype=float)[::2], (6, 6), 1, None),
    "three columns": (np.zeros((3, 3)), (6, 6), 1, None),
    "big-endian": (np.array([(0, 0), (5, 0), (0, 5)], dtype=">f8"), (6, 6), 1, None),
    "nan": (np.array([(0, 0), (np.nan, 0), (0, 5)]), (6, 6), 1, None),
    "inf": (np.array([(0, 0), (5, 0), (0, -np.inf)]), (6, 6), 1, None),
    "shape list": (np.array([(0, 0), (5, 0), (0, 5.0)]), [6, 6], 1, None),
    "shape numpy ints": (np.array([(0, 0), (5, 0), (0, 5.0)]), (np.int64(6), 6), 1, None),
    "shape zero": (np.array([(0, 0), (5, 0), (0, 5.0)]), (0, 6), 1, None),
    "shape huge": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 2**31), 1, None),
    "shape three": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6, 1), 1, None),
    "out shape": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), 1, np.zeros((6, 7), dtype=bool)),
    "out dtype": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), 1, np.zeros((6, 6), dtype=np.int16)),
    "out read-only": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), 1,
                      np.lib.stride_tricks.as_strided(np.zeros((6, 6), dtype=bool), writeable=False)),
    "out strided": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), 1, np.zeros((6, 12), dtype=bool)[:, ::2]),
    "out list": (np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), 1, [[0] * 6] * 6),
}


@pytest.mark.parametrize("case", OFF_THE_FAST_BRANCH.values(), ids=OFF_THE_FAST_BRANCH.keys())
def test_other_arguments_give_the_general_paths_mask_or_error(case):
    vertices, shape, threads, out = case
    assert _core.plain_mask(vertices, shape, threads, out) is None  # not plain: the funnel reads it
    before = out.copy() if isinstance(out, np.ndarray) else None
    try:
        expected = checked_mask(vertices, shape, threads=threads, out=out)
    except (TypeError, ValueError) as error:
        with pytest.raises(type(error), match=re.escape(str(error))):
            polymask.mask(vertices, shape, threads=threads, out=out)
        if before is not None:
            assert np.array_equal(out, before), "a refused out= must be left untouched"
    else:
        assert np.array_equal(polymask.mask(vertices, shape, threads=threads), expected)


def test_non_finite_vertices_keep_their_message():
    with pytest.raises(ValueError, match=r"vertices\[1\] = \(nan, 0.0\) is not finite"):
        polymask.mask(np.array([(0, 0), (np.nan, 0), (0, 5)]), (6, 6))


THREADS_SCENARIO = """
import os, numpy as np, polymask
polymask._core._reset_pool_learning(adaptive=False)  # the plan by work alone, whatever else the machine runs
def tasks():
    return len(os.listdir("/proc/self/task"))
# A 2000-vertex star: enough work per row that helpers clearly pay, so the pool
# starts one without the block (a 4-vertex quad was too little work to be sure).
angles = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
radii = np.where(np.arange(2000) % 2, 1000.0, 400.0)
vertices = np.c_[1024 + radii * np.cos(angles), 1024 + radii * np.sin(angles)]
before = tasks()
with polymask.threads(1):
    for _ in range(5):
        polymask.mask(vertices, (2048, 2048))
pinned = tasks()
# The pool wakes a helper only on a core it sees free: on a shared machine a call
# can find none, so the default gets a few calls to show that it does start one.
for _ in range(20):
    polymask.mask(vertices, (2048, 2048))
    if tasks() > pinned:
        break
print(before, pinned, tasks())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_threads_block_still_pins_the_plain_path():
    environment = dict(os.environ, POLYMASK_NUM_THREADS="4")
    output = subprocess.run([sys.executable, "-c", THREADS_SCENARIO], capture_output=True, text=True,
                            check=True, env=environment).stdout.split()
    before, pinned, after = map(int, output)
    assert pinned == before, "polymask.threads(1) was ignored: a helper thread started"
    assert after > pinned, "without the block the default (4 threads) should start helpers"


@pytest.mark.parametrize("threads", [True, -1, 10**6, 1.5, "2"], ids=["bool", "negative", "huge", "float", "text"])
def test_threads_are_checked_once_by_the_funnel_on_the_plain_path(threads):
    """The fast branch takes threads from the funnel's one check (as_threads), not from a range of its own."""
    from polymask._threads import as_threads

    with pytest.raises((TypeError, ValueError)) as funnel:
        as_threads(threads)
    with pytest.raises(type(funnel.value), match=re.escape(str(funnel.value))):
        polymask.mask(np.array([(0, 0), (5, 0), (0, 5.0)]), (6, 6), threads=threads)
