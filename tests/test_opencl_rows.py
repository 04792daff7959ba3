"""The GPU-shaped path: the rows kernel (a work-group per row), bit-packed results,
page-locked results from a pool, kernel="auto", and a warm call that sends an
unchanged polygon only once.  Every mask is held to the contract's float64 rule
computed independently (tests/_support.double_mask).  Why these tests never skip
for a missing runtime: tests/_opencl_support.py.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from polymask import opencl
from polymask.opencl import launch, pinned
from tests import _opencl_support
from tests._opencl_support import needs_device
from tests._support import assert_same_mask, double_mask

no_device_environment = _opencl_support.no_device_environment
engine = _opencl_support.engine

# Shapes that reach every branch of rows.cl: rows that start mid-way through a 16-byte
# chunk (odd widths), widths below one chunk, and rows wider than one pass of local
# memory (32768 columns), so the parity is carried from pass to pass.
SHAPES = [(1, 1), (2, 15), (5, 33), (17, 40), (9, 1000), (3, 32769), (2, 70001)]


def polygons_for(shape, seed):
    rows, cols = shape
    rng = np.random.default_rng(seed)
    angle = np.linspace(0, 2 * np.pi, 300, endpoint=False)
    radius = np.where(np.arange(300) % 2, 0.2, 0.5) * max(rows, cols)
    return {
        "random": np.c_[rng.uniform(-3, cols + 3, 24), rng.uniform(-3, rows + 3, 24)],
        "star": np.c_[cols / 2 + radius * np.cos(angle), rows / 2 + 0.3 * radius * np.sin(angle)],
        "on pixel centres": np.array([[0, 0], [cols - 1, 0], [cols - 1, rows - 1], [0, rows - 1]], float),
        "huge and off the image": np.array([[-1e300, -1e300], [1e300, 0.5], [-5, 1e300]]),
    }


@needs_device
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_rows_kernel_gives_the_contract_mask(engine, shape):
    for name, vertices in polygons_for(shape, seed=shape[1]).items():
        assert_same_mask(engine.mask(vertices, shape, kernel="rows"), double_mask(vertices, shape),
                         f"{name} on {shape}")


@needs_device
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_packed_results_hold_one_bit_a_pixel_in_packbits_layout(engine, shape):
    for name, vertices in polygons_for(shape, seed=7).items():
        expected = double_mask(vertices, shape)
        packed = engine.mask(vertices, shape, packed=True)
        assert packed.dtype == np.uint8 and packed.shape == (shape[0], -(-shape[1] // 8)), name
        np.testing.assert_array_equal(packed, np.packbits(expected, axis=1), err_msg=f"{name} on {shape}")
        assert_same_mask(opencl.unpack(packed, shape), expected, f"unpacked {name} on {shape}")


@needs_device
def test_packed_device_results_stay_on_the_device(engine):
    import pyopencl.array as cl_array

    vertices, shape = polygons_for((40, 77), seed=3)["random"], (40, 77)
    d_packed = engine.mask(cl_array.to_device(engine.queue, vertices), shape, packed=True)
    assert isinstance(d_packed, cl_array.Array) and d_packed.dtype == np.uint8
    assert_same_mask(opencl.unpack(d_packed, shape), double_mask(vertices, shape), "device packed")


@needs_device
def test_packing_is_refused_where_it_cannot_be_done(engine):
    square = [(1, 1), (8, 1), (8, 8)]
    with pytest.raises(ValueError, match="packed=True needs kernel 'rows', got kernel 'pixel'"):
        engine.mask(square, (10, 10), kernel="pixel", packed=True)
    with pytest.raises(ValueError, match="out= takes an unpacked mask"):
        engine.mask(square, (10, 10), packed=True, out=np.empty((10, 2), np.uint8))
    with pytest.raises(ValueError, match=r"a packed 10x10 mask is a uint8 array of shape \(10, 2\), got bool"):
        opencl.unpack(np.zeros((10, 10), bool), (10, 10))
    for not_a_flag in ("yes", 1, None):
        with pytest.raises(TypeError, match=f"packed must be True or False, got {not_a_flag!r}"):
            engine.mask(square, (10, 10), packed=not_a_flag)
    assert engine.mask(square, (10, 10), packed=np.bool_(True)).dtype == np.uint8
    with pytest.raises(ValueError, match="kernel must be one of 'auto', 'pixel', 'scanline', 'rows', got 'fast'"):
        engine.mask(square, (10, 10), kernel="fast")


def test_auto_picks_rows_on_a_gpu_and_scanline_on_a_cpu():
    from polymask.opencl.common import cl

    if cl is None:
        pytest.fail("PyOpenCL is part of the test extra")
    assert opencl.programs.chosen_kernel("auto", cl.device_type.GPU) == "rows"
    assert opencl.programs.chosen_kernel("auto", cl.device_type.ACCELERATOR) == "rows"
    assert opencl.programs.chosen_kernel("auto", cl.device_type.CPU) == "scanline"
    assert opencl.programs.chosen_kernel("auto", cl.device_type.CPU, packed=True) == "rows"
    assert opencl.programs.chosen_kernel("pixel", cl.device_type.GPU) == "pixel"


@needs_device
def test_profile_names_the_kernel_auto_chose():
    report = opencl.profile([(1, 1), (30, 3), (20, 29)], (32, 32), repeats=1)
    assert report["kernel"] == opencl.programs.chosen_kernel("auto", opencl.engine().device_type)


def test_rows_groups_fit_the_row_and_the_kernel():
    assert launch.rows_group(1, 1024) == 32 and launch.rows_group(16 * 40, 1024) == 64
    assert launch.rows_group(16384, 1024) == 256 and launch.rows_group(16384, 128) == 128
    assert launch.rows_group(16384, 1) == 1
    assert launch.geometry("rows", (7, 100), 256) == ((7 * 32,), (32,))


# ---- page-locked results ------------------------------------------------------------------------------

BIG = (2048, 2560)  # 5 MiB: above pinned.PINNED_MIN_BYTES


@needs_device
def test_large_results_come_from_the_pool_and_are_reused_once_dropped():
    reused = opencl.MaskEngine(precision="double")
    square = [(10, 10), (2500, 10), (2500, 2000), (10, 2000)]
    first = reused.mask(square, BIG)
    assert BIG[0] * BIG[1] >= pinned.PINNED_MIN_BYTES
    assert isinstance(first.base, pinned._Lease), "a 5 MiB result lives in page-locked memory"
    address = first.__array_interface__["data"][0]
    del first
    second = reused.mask(square, BIG)
    assert second.__array_interface__["data"][0] == address and reused.pinned.allocations == 1
    assert_same_mask(second, double_mask(np.array(square, float), BIG), "a reused block")


@needs_device
def test_a_result_still_in_use_is_never_overwritten():
    reused = opencl.MaskEngine(precision="double")
    left = np.array([(0, 0), (500, 0), (500, 2047), (0, 2047)], float)
    right = np.array([(1500, 0), (2559, 0), (2559, 2047), (1500, 2047)], float)
    first = reused.mask(left, BIG)
    view = first[100:200, 400:600]  # a view keeps the block, like the array itself
    del first
    second = reused.mask(right, BIG)
    assert not np.shares_memory(view, second)
    assert_same_mask(view, double_mask(left, BIG)[100:200, 400:600], "a view of the first result")
    assert_same_mask(second, double_mask(right, BIG), "the second result")


@needs_device
def test_the_pool_keeps_at_most_keep_bytes_for_later():
    small = opencl.MaskEngine(precision="double", keep_bytes=1 << 20)
    small.mask([(0, 0), (9, 0), (0, 9)], BIG)  # dropped at once: 5 MiB is above keep_bytes
    assert small.pinned.free_bytes() == 0
    generous = opencl.MaskEngine(precision="double", keep_bytes=1 << 30)
    generous.mask([(0, 0), (9, 0), (0, 9)], BIG)
    assert generous.pinned.free_bytes() >= BIG[0] * BIG[1]
    generous.release()
    assert generous.pinned.free_bytes() == 0


# ---- the warm call ----------------------------------------------------------------------------------


@needs_device
def test_an_unchanged_polygon_is_sent_once_and_a_changed_one_again():
    reused = opencl.MaskEngine(precision="double")
    vertices = np.array([(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)])
    reused.mask(vertices, (32, 32))
    assert "upload" in reused._events
    reused.mask(vertices.copy(), (32, 32))
    assert "upload" not in reused._events, "the same polygon, bit for bit, is already on the device"
    vertices[1, 0] = 31.0  # changed in place: the engine compares values, not array identity
    assert_same_mask(reused.mask(vertices, (32, 32)), double_mask(vertices, (32, 32)), "changed in place")
    assert "upload" in reused._events
    negative_zero = np.array([(-0.0, 0.0), (30.0, 3.0), (20.0, 29.0)])
    reused.mask(np.abs(negative_zero), (32, 32))
    reused.mask(negative_zero, (32, 32))
    assert "upload" in reused._events, "-0.0 and 0.0 differ in their bits, so the vertices are sent"


@needs_device
def test_a_warm_call_makes_no_allocation_and_asks_the_runtime_nothing(monkeypatch):
    reused = opencl.MaskEngine(precision="double")
    vertices = [(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)]
    reused.mask(vertices, (32, 32))
    allocations = reused.allocations
    from polymask.opencl.common import cl

    def no_query(*args, **kwargs):
        raise AssertionError("a warm call queried the runtime")

    monkeypatch.setattr(cl.Device, "get_info", no_query)
    monkeypatch.setattr(cl.Kernel, "get_work_group_info", no_query)
    monkeypatch.setattr(cl.MemoryObject, "get_info", no_query)
    for _ in range(3):
        reused.mask(vertices, (32, 32))
    assert reused.allocations == allocations


# ---- the GPU check, run on whatever device is here ------------------------------------------------------


@needs_device
def test_the_gpu_check_runs_and_finds_no_pixel_off(tmp_path):
    report_path = tmp_path / "gpu.json"
    done = subprocess.run([sys.executable, "-m", "polymask.bench.gpu", "--sizes", "48", "--repeats", "1",
                           "--overhead-repeats", "3", "--json", str(report_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text())
    assert [case["pixels_off"] for case in report["cases"]] == [0, 0]
    assert "| 48² | 24 random vertices |" in done.stdout and "warm 32x32 call" in done.stdout
    assert len(report["warm_32x32_us"]) == 3 and "bare launch + blocking copy" in report["warm_32x32_us"]


@needs_device
def test_device_results_on_a_gpu_come_from_a_pool_and_go_back_to_it(monkeypatch):
    import pyopencl.array as cl_array

    from polymask.opencl.common import cl

    pooled = opencl.MaskEngine(precision="double")
    pooled.device_type = cl.device_type.GPU  # the GPU path, run on whatever device is here
    vertices, shape = polygons_for((300, 500), seed=5)["star"], (300, 500)
    d_vertices = cl_array.to_device(pooled.queue, vertices)
    first = pooled.mask(d_vertices, shape)
    assert_same_mask(first.get(), double_mask(vertices, shape), "first pooled result")
    assert pooled._device_pool.active_blocks == 1
    del first
    second = pooled.mask(d_vertices, shape)
    assert (pooled._device_pool.active_blocks, pooled._device_pool.held_blocks) == (1, 0), "the block came back"
    assert_same_mask(second.get(), double_mask(vertices, shape), "second pooled result")
    del second
    pooled.release()
    assert pooled._device_pool.held_blocks == 0


@needs_device
def test_spinning_waits_give_the_same_masks(monkeypatch):
    spinning = opencl.MaskEngine(precision="double")
    spinning.spin_wait = True  # the GPU's way to wait, on whatever device is here
    monkeypatch.setattr(opencl.buffers, "SPIN_SECONDS", 0.001)  # and past the spin, into sleeps
    for shape in [(32, 32), (700, 900)]:
        vertices = polygons_for(shape, seed=11)["star"]
        assert_same_mask(spinning.mask(vertices, shape), double_mask(vertices, shape), f"spinning on {shape}")
