"""The stage registry is the one dispatch of ``polymask.mask(backend=...)``.

``polymask.mask`` checks its arguments once and hands them to
``Stage.fill``: the stages with a ``fill`` (scanline, opencl) write the
caller's buffer or allocate their own, the others' arrays are used as is.
These tests fail if an argument is checked twice or a result copied twice.
"""
import tracemalloc

import numpy as np
import pytest

import polymask
from polymask.course import stages
from polymask.course.problems import random_polygon
from tests._support import assert_same_mask


def test_every_backend_goes_through_its_stage_fill():
    scanline = stages.get("scanline")
    assert scanline.fill is polymask.course.stages.scanline.fill  # the production path is the stage's module
    for stage in stages.STAGES:
        assert callable(stage.fill), stage.id


@pytest.mark.parametrize("backend", ["cython_typed", "cython_cpp", "cython_prange", "numpy"])
def test_a_teaching_stages_array_is_returned_without_a_second_copy(backend):
    shape = (400, 500)
    vertices = random_polygon(12, 400)
    expected = polymask.mask(vertices, shape)
    polymask.mask(vertices, shape, backend=backend)  # warm: imports, numba-free first calls
    tracemalloc.start()
    try:
        result = polymask.mask(vertices, shape, backend=backend)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_same_mask(result, expected, backend)
    if backend != "numpy":  # the vectorized stage's own temporaries are several images
        # One mask of rows * cols bytes, not the stage's and a copy of it.
        assert peak < 1.5 * shape[0] * shape[1], f"{backend}: peak {peak} bytes for a {shape} mask"


def test_opencl_input_is_checked_once(monkeypatch):
    if not stages.availability("opencl").available:
        pytest.skip("no OpenCL device here")  # GPU code may skip; CI installs a CPU runtime
    from polymask.opencl import host as processing

    checked = []

    def counting(vertices, *args, **kwargs):
        checked.append(vertices)
        return original(vertices, *args, **kwargs)

    original = processing._one_ring
    monkeypatch.setattr(processing, "_one_ring", counting)
    vertices = random_polygon(24, 64)
    result = polymask.mask(vertices, (64, 80), backend="opencl")
    assert checked == [], "the engine checked the vertices polymask.mask had checked"
    assert_same_mask(result, polymask.mask(vertices, (64, 80)), "opencl")
    out = np.ones((64, 80), dtype=np.uint8)
    assert polymask.mask(vertices, (64, 80), backend="opencl", out=out) is out
    assert_same_mask(out.astype(bool), result, "opencl out=")
    polymask.course.stages.opencl.mask(vertices, (64, 80))  # a learner's direct call is checked at its boundary
    assert len(checked) == 1


def test_a_gil_holding_stage_run_in_its_child_gives_the_same_mask(monkeypatch):
    """A long call of cython_typed runs in a forked child (Ctrl-C can end it); its mask is the contract's."""
    from polymask.course.stages import _running

    monkeypatch.setattr(_running, "_seconds_per_edge_test", {})  # no speed known yet: the child runs it
    children = []
    in_a_child = _running._in_a_child_process
    monkeypatch.setattr(_running, "_in_a_child_process", lambda *args: children.append(1) or in_a_child(*args))
    shape = (300, 400)
    vertices = random_polygon(24, 300)
    out = np.ones(shape, dtype=np.uint8)
    assert polymask.mask(vertices, shape, backend="cython_typed", out=out) is out
    assert children == [1]
    assert_same_mask(out.view(bool), polymask.mask(vertices, shape), "cython_typed in a child")


def test_an_error_in_the_stage_s_child_reaches_the_caller():
    from polymask.course.stages import _running

    def failing():
        raise ValueError("raised in the child")

    with pytest.raises(ValueError, match="raised in the child"):
        _running._in_a_child_process(failing, (2, 2))
