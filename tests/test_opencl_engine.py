"""The OpenCL engine: it keeps its program and buffers across calls, computes where
the data is, profiles kernels and transfers apart, and its failures surface as
Python exceptions naming the device, with waits before frees.  Why
these tests never skip for a missing runtime: tests/_opencl_support.py.
"""
import math

import numpy as np
import pytest

import polymask
from polymask import opencl
from polymask.opencl.programs import build_count
from tests import _opencl_support
from tests._opencl_support import KERNELS, OPTED_OUT, needs_device
from tests._support import assert_same_mask, double_mask

# The shared fixtures, bound here so that pytest finds them.
no_device_environment = _opencl_support.no_device_environment
engine = _opencl_support.engine


# ---- the engine -------------------------------------------------------------------------------------


@needs_device
def test_engine_reused_for_100_calls_with_varying_polygons_and_sizes():
    reused = opencl.MaskEngine(precision="double")
    rng = np.random.default_rng(2024)
    for call in range(100):
        shape = (int(rng.integers(1, 45)), int(rng.integers(1, 45)))
        n = int(rng.integers(0, 30))
        vertices = rng.uniform(-5, max(shape) + 5, size=(n, 2))
        kernel = KERNELS[call % len(KERNELS)]
        assert_same_mask(reused.mask(vertices, shape, kernel=kernel), double_mask(vertices, shape),
                         f"call {call}: {n} vertices on {shape} by {kernel}")


@needs_device
def test_repeated_masks_of_one_size_pay_no_allocation_and_no_compilation():
    reused = opencl.MaskEngine(precision="double")
    vertices, shape = polymask.course.problems.standard_problem(size=64, n_vertices=24)
    for kernel in KERNELS:
        reused.mask(vertices, shape, kernel=kernel)
    builds, allocations, compiled = reused.builds, reused.allocations, build_count()
    for seed in range(10):
        other = polymask.course.problems.random_polygon(24, 64, seed=seed)
        reused.mask(other, shape, kernel=KERNELS[seed % len(KERNELS)])
        reused.mask(other[:10], (32, 50), kernel=KERNELS[seed % len(KERNELS)])  # smaller fits the same buffers
    assert (reused.builds, reused.allocations, build_count()) == (builds, allocations, compiled)
    reused.mask(polymask.course.problems.random_polygon(100, 64), (128, 128))  # larger grows both, once
    assert reused.allocations == allocations + 2


@needs_device
def test_programs_are_built_once_per_process():
    opencl.MaskEngine(precision="double").mask([(0, 0), (3, 0), (0, 3)], (4, 4), kernel="scanline")
    compiled = build_count()
    fresh = opencl.MaskEngine(precision="double")
    fresh.mask([(0, 0), (3, 0), (0, 3)], (4, 4), kernel="scanline")
    assert build_count() == compiled and fresh.builds == 0


@needs_device
def test_enqueue_returns_an_event_and_result_copies_back(engine):
    import pyopencl

    vertices, shape = [(1, 1), (9, 2.5), (4.5, 8)], (10, 11)
    event = engine.enqueue(vertices, shape, kernel="scanline")
    assert isinstance(event, pyopencl.Event)
    out = np.full(shape, 7, dtype=np.uint8)
    assert engine.result(out) is out
    np.testing.assert_array_equal(out, double_mask(vertices, shape).astype(np.uint8))


def test_result_before_enqueue_says_what_to_do():
    if OPTED_OUT:
        pytest.skip("POLYMASK_OPENCL=0")
    with pytest.raises(RuntimeError, match="call enqueue"):
        opencl.MaskEngine().result()


@needs_device
def test_engine_validates_like_the_public_api(engine):
    with pytest.raises(ValueError, match=r"vertices\[1\] = \(nan"):
        engine.mask([(0, 0), (float("nan"), 1), (2, 2)], (4, 4))
    with pytest.raises(ValueError, match="shape rows must be at least 1, got 0"):
        engine.mask([(0, 0), (1, 1), (2, 0)], (0, 4))
    with pytest.raises(ValueError, match="out must have shape"):
        engine.mask([(0, 0), (1, 1), (2, 0)], (4, 4), out=np.zeros((3, 3), bool))


# ---- compute follows data -----------------------------------------------------------------------------


@needs_device
def test_device_array_vertices_give_a_device_resident_result(engine):
    import pyopencl.array as cl_array

    vertices, shape = polymask.course.problems.standard_problem(size=50, n_vertices=24)
    d_vertices = cl_array.to_device(engine.queue, vertices)
    for kernel in KERNELS:
        d_mask = engine.mask(d_vertices, shape, kernel=kernel)
        assert isinstance(d_mask, cl_array.Array) and d_mask.context == engine.context
        assert d_mask.shape == shape and d_mask.dtype == bool
        assert_same_mask(d_mask.get(), double_mask(vertices, shape), f"device-resident {kernel}")
    # The module-level function follows the data too.
    assert isinstance(opencl.mask(d_vertices, shape, device=engine.device), cl_array.Array)


@needs_device
def test_device_array_views_and_empty_polygons(engine):
    import pyopencl.array as cl_array

    vertices = polymask.course.problems.random_polygon(13, 30, seed=8)
    d_view = cl_array.to_device(engine.queue, vertices)[3:]  # a view at a non-zero offset
    assert d_view.offset > 0
    assert_same_mask(engine.mask(d_view, (30, 30)).get(), double_mask(vertices[3:], (30, 30)), "offset view")
    d_empty = cl_array.empty(engine.queue, (0, 2), np.float64)
    assert not engine.mask(d_empty, (5, 7), kernel="scanline").get().any()


@needs_device
def test_float32_device_vertices_are_widened_on_the_device(engine):
    import pyopencl.array as cl_array

    vertices = polymask.course.problems.random_polygon(12, 30, seed=4).astype(np.float32)
    d_mask = engine.mask(cl_array.to_device(engine.queue, vertices), (30, 30))
    assert_same_mask(d_mask.get(), double_mask(vertices.astype(np.float64), (30, 30)), "float32 input")


@needs_device
def test_bad_device_arrays_are_rejected(engine):
    import pyopencl
    import pyopencl.array as cl_array

    with pytest.raises(ValueError, match=r"shape \(N, 2\).*\(6,\)"):
        engine.mask(cl_array.to_device(engine.queue, np.zeros(6)), (4, 4))
    with pytest.raises(TypeError, match="int32"):
        engine.mask(cl_array.to_device(engine.queue, np.zeros((3, 2), np.int32)), (4, 4))
    other_queue = pyopencl.CommandQueue(pyopencl.Context([engine.device]))
    with pytest.raises(ValueError, match="another OpenCL context"):
        engine.mask(cl_array.to_device(other_queue, np.zeros((3, 2))), (4, 4))


# ---- profiling ---------------------------------------------------------------------------------------------


@needs_device
def test_profiling_reports_kernel_and_transfer_time_separately():
    profiled = opencl.MaskEngine(precision="double", profiling=True)
    vertices, shape = polymask.course.problems.standard_problem(size=128)
    profiled.mask(vertices, shape)
    times = profiled.timings()
    assert times["kernel_s"] > 0 and times["download_s"] > 0 and times["upload_s"] > 0
    assert times["transfer_s"] == pytest.approx(times["upload_s"] + times["download_s"])
    with pytest.raises(RuntimeError, match="profiling=True"):
        opencl.MaskEngine().timings()


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_profile_gives_medians_for_the_bench(kernel):
    vertices, shape = polymask.course.problems.standard_problem(size=128)
    report = opencl.profile(vertices, shape, kernel=kernel, precision="double", repeats=3)
    assert report["kernel_s"] > 0 and report["transfer_s"] > 0
    assert report["kernel"] == kernel and report["precision"] == "double" and report["repeats"] == 3
    assert report["device"] and report["shape"] == shape
    with pytest.raises(ValueError, match="repeats must be a positive integer, got 0"):
        opencl.profile(vertices, shape, repeats=0)


# ---- failures surface as Python exceptions naming the device ---------------------------------------------


@needs_device
def test_build_errors_name_the_device_and_include_the_build_log():
    device = opencl.select_device()
    with pytest.raises(opencl.OpenCLBuildError) as caught:
        opencl.build_program("__kernel void broken(__global int *out) { out[0] = undeclared_name; }",
                             device, label="broken.cl")
    message = str(caught.value)
    assert "broken.cl" in message and device.name.strip() in message
    assert "build log" in message and "undeclared_name" in message
    assert isinstance(caught.value, RuntimeError)


@needs_device
def test_a_mask_larger_than_the_device_allows_is_a_clear_error(engine):
    side = math.isqrt(engine.device.max_mem_alloc_size) + 1
    with pytest.raises(opencl.OpenCLError) as caught:
        engine.mask([(0, 0), (3, 0), (0, 3)], (side, side))
    message = str(caught.value)
    assert engine.device.name.strip() in message and f"{side}x{side}" in message and "at most" in message


# ---- hardening: waits before frees, snapshots, buffer release ----------------------------------


@needs_device
def test_a_failed_result_waits_for_the_kernel_before_anything_is_freed(engine, monkeypatch):
    import pyopencl

    from polymask.opencl import host as engine_module

    vertices, shape = polymask.course.problems.standard_problem(size=2048)
    event = engine.enqueue(vertices, shape)

    def out_of_memory(out, shape):
        raise MemoryError("no room for the host mask (simulated)")

    monkeypatch.setattr(engine_module, "result_array", out_of_memory)
    monkeypatch.setattr(engine.pinned, "array", lambda shape, dtype: None)  # no page-locked memory either
    with pytest.raises(MemoryError, match="simulated"):
        engine.result()
    # Before: the error left while the kernel still ran on the engine's buffer.
    assert event.command_execution_status == pyopencl.command_execution_status.COMPLETE
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="call enqueue"):
        engine.result()  # the abandoned call has no result to give
    assert_same_mask(engine.mask(vertices[:5], (20, 30)), double_mask(vertices[:5], (20, 30)), "after the error")


@needs_device
def test_enqueue_snapshots_the_vertices(engine):
    vertices = np.array([(1.5, 0.5), (30.25, 4.0), (9.0, 27.5)])
    expected = double_mask(vertices, (32, 40))
    engine.enqueue(vertices, (32, 40))
    # The upload does not wait: it must read a copy, never the caller's array.
    assert not np.shares_memory(engine._h_vertices, vertices)
    vertices[:] = np.nan
    assert_same_mask(engine.result(), expected, "vertices changed after enqueue")


@needs_device
def test_big_buffers_are_released_after_their_result_and_on_request():
    small = opencl.MaskEngine(precision="double", keep_bytes=10_000)
    triangle = [(0, 0), (150, 0), (0, 150)]
    small.mask(triangle, (50, 50))
    assert 2_500 <= small.resident_bytes() <= 10_000, "a small mask stays resident for the next call"
    allocations = small.allocations
    small.mask(triangle, (50, 50))
    assert small.allocations == allocations, "a resident buffer is reused"
    assert_same_mask(small.mask(triangle, (200, 300)), double_mask(triangle, (200, 300)), "big mask")
    assert small.resident_bytes() <= 10_000, "a mask above keep_bytes does not stay on the device"
    small.release()
    assert small.resident_bytes() == 0
    assert_same_mask(small.mask(triangle, (50, 50)), double_mask(triangle, (50, 50)), "after release")
    with pytest.raises(ValueError, match="keep_bytes must be at least 0, got -1"):
        opencl.MaskEngine(keep_bytes=-1)


@needs_device
def test_the_shared_engine_does_not_keep_a_huge_mask_alive():
    opencl.mask([(0, 0), (9000, 0), (0, 9000)], (9000, 9000))  # 81 MB, above MaskEngine.KEEP_BYTES
    assert opencl.engine().resident_bytes() <= opencl.engine().keep_bytes
    opencl.mask([(0, 0), (90, 0), (0, 90)], (100, 100))
    assert opencl.engine().resident_bytes() > 0
    opencl.release()
    assert opencl.engine().resident_bytes() == 0


@needs_device
def test_profile_accepts_numpy_integers_for_repeats():
    report = opencl.profile([(1, 1), (30, 4), (9, 27)], (32, 40), repeats=np.int64(2))
    assert report["repeats"] == 2 and type(report["repeats"]) is int
    for bad in (2.0, True, "2"):
        with pytest.raises(ValueError, match="repeats must be a positive integer"):
            opencl.profile([(1, 1), (30, 4), (9, 27)], (32, 40), repeats=bad)


@needs_device
def test_an_allocation_failure_is_an_opencl_error_and_a_memory_error():
    assert issubclass(opencl.OpenCLMemoryError, opencl.OpenCLError)
    assert issubclass(opencl.OpenCLMemoryError, MemoryError)
