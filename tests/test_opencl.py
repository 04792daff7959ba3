"""The OpenCL backend: both kernels obey the contract, the float32 bound holds,
the engine keeps its program and buffers, and failures say what went wrong.

These tests never skip for a missing runtime: `pip install .[test]` brings
PoCL (and scripts/install-opencl.sh the system's PoCL where pip's cannot
build kernels), so "no OpenCL here" is a failure.  The one way out is the
explicit POLYMASK_OPENCL=0, and then the tests check that it gives the clear
error instead.
"""
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import polymask
from polymask import opencl
from polymask.course import stages
from polymask.course.cases import contract_cases
from tests._support import assert_same_mask, double_mask, exact_mask

OPTED_OUT = os.environ.get(opencl.OPENCL_ENV, "").strip() == "0"
KERNELS = ["pixel", "scanline"]
REPOSITORY = Path(__file__).resolve().parents[1]

needs_device = pytest.mark.skipif(OPTED_OUT, reason="POLYMASK_OPENCL=0: OpenCL turned off on purpose "
                                                    "(test_opt_out_gives_the_clear_error checks that)")



@pytest.fixture(autouse=True)
def no_device_environment(monkeypatch):
    # The device choice in the developer's shell must not steer these tests.
    monkeypatch.delenv(opencl.DEVICE_ENV, raising=False)
    monkeypatch.delenv(opencl.PYOPENCL_ENV, raising=False)


@pytest.fixture(scope="module")
def engine():
    return opencl.MaskEngine(precision="double")


# ---- availability ------------------------------------------------------------------------


@needs_device
def test_opencl_is_available_here():
    # A failure here means the CI set-up did not install a working runtime.
    assert opencl.unavailable_reason() is None
    assert polymask.available_backends()["opencl"].available


def test_opt_out_gives_the_clear_error(monkeypatch):
    monkeypatch.setenv(opencl.OPENCL_ENV, "0")
    reason = opencl.unavailable_reason()
    assert reason is not None and "POLYMASK_OPENCL=0" in reason
    assert opencl.devices() == []
    with pytest.raises(ImportError, match="POLYMASK_OPENCL=0"):
        opencl.require()
    with pytest.raises(opencl.OpenCLUnavailable, match="POLYMASK_OPENCL=0"):
        opencl.MaskEngine()


def run_python(code, **environment):
    env = {**os.environ, **environment}
    env.pop(opencl.DEVICE_ENV, None)
    env.pop(opencl.PYOPENCL_ENV, None)
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                               env=env, cwd=str(REPOSITORY / "tests"), timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


UNAVAILABLE_CHECK = """
    import polymask
    from polymask import opencl
    status = polymask.available_backends()["opencl"]
    assert not status.available
    print("REASON", status.reason)
    assert opencl.devices() == []
    try:
        polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4), backend="opencl")
    except RuntimeError as error:
        print("ERROR", error)
    else:
        raise AssertionError("backend='opencl' ran without OpenCL")
    # auto never picks OpenCL, so it still works
    assert polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4)).sum() == 6
"""


def fake_pyopencl(tmp_path, body):
    package = tmp_path / "pyopencl"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(body))
    return str(tmp_path)


def test_without_any_platform_the_backend_says_how_to_install_one(tmp_path):
    # An ICD loader with no platform behind it, as on a fresh machine.
    stub = fake_pyopencl(tmp_path, """
        class Error(Exception):
            pass
        class LogicError(Error):
            pass
        def get_platforms():
            raise LogicError("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR")
    """)
    output = run_python(UNAVAILABLE_CHECK, PYTHONPATH=stub, POLYMASK_OPENCL="1")
    assert "REASON" in output and "no OpenCL platform" in output
    assert "ERROR backend 'opencl' is not available here" in output
    assert "pocl" in output.lower() and "pip install" in output


def test_without_pyopencl_the_backend_says_how_to_install_it(tmp_path):
    stub = fake_pyopencl(tmp_path, 'raise ImportError("No module named pyopencl (test stub)")')
    output = run_python(UNAVAILABLE_CHECK, PYTHONPATH=stub, POLYMASK_OPENCL="1")
    assert "PyOpenCL cannot be imported" in output and "pip install 'polymask[opencl]'" in output


def test_opt_out_in_a_fresh_process():
    output = run_python(UNAVAILABLE_CHECK, POLYMASK_OPENCL="0")
    assert "POLYMASK_OPENCL=0" in output


# ---- kernels as package resources ------------------------------------------------------------


def test_kernels_ship_in_the_package_with_the_cores_own_header():
    folder = opencl.kernel_dir()
    assert folder.parent == Path(polymask.__file__).parent
    # The device compiles exactly the header the C++ core compiles.
    installed = (folder / "polymask" / "crossing.h").read_bytes()
    assert installed == (REPOSITORY / "csrc/include/polymask/crossing.h").read_bytes()
    for kernel in KERNELS:
        source = opencl.kernel_source(kernel)
        assert '#include "polymask/crossing.h"' in source
        assert source == (REPOSITORY / "kernels" / f"{kernel}.cl").read_text()
    assert "#pragma OPENCL FP_CONTRACT OFF" in (folder / "precision.h").read_text()


def test_build_options_allow_no_contraction_or_fast_math():
    for use_double in (True, False):
        options = " ".join(opencl.build_options(use_double))
        assert f"-DPM_USE_DOUBLE={int(use_double)}" in options
        assert "-cl-mad-enable" not in options and "fast-relaxed" not in options
        assert "-cl-fp32-correctly-rounded-divide-sqrt" in options


def test_unknown_kernel_is_rejected_with_the_choices():
    with pytest.raises(ValueError, match="'pixel', 'scanline'.*'blocks'"):
        opencl.kernel_source("blocks")


# ---- devices ------------------------------------------------------------------------------------


@needs_device
def test_devices_lists_type_compute_units_memory_and_fp64():
    found = opencl.devices()
    assert found
    for info in found:
        assert info.type in ("gpu", "cpu", "accelerator", "other")
        assert info.compute_units >= 1 and info.global_memory_bytes > 0 and info.max_alloc_bytes > 0
        assert isinstance(info.fp64, bool)
        assert info.key.startswith(info.type + ":")
    assert len({info.key for info in found}) == len(found)


@needs_device
def test_every_listed_key_selects_its_device():
    for info in opencl.devices():
        assert opencl.select_device(info.key) == info.device
        assert opencl.select_device(info) == info.device
        assert opencl.select_device(info.device) == info.device


@needs_device
def test_device_info_pickles_as_its_description():
    import dataclasses
    import pickle

    for info in opencl.devices():
        copy = pickle.loads(pickle.dumps(info))
        assert copy == info and repr(copy) == repr(info)
        assert copy.device == info.device  # this process has the device: the copy holds it
        assert opencl.select_device(copy) == info.device
    # Where the receiving process has no such device, the description still arrives.
    missing = dataclasses.replace(opencl.devices()[0], key="gpu:99", name="elsewhere")
    copy = pickle.loads(pickle.dumps(missing))
    assert copy.key == "gpu:99" and copy.name == "elsewhere" and copy.device is None


@needs_device
def test_a_type_string_picks_a_device_of_that_type_that_builds():
    kind = opencl.devices()[0].type
    chosen = opencl.select_device(kind)
    assert [info for info in opencl.devices() if info.device == chosen][0].type == kind


@needs_device
def test_environment_order_explicit_then_polymask_device_then_pyopencl_ctx(monkeypatch):
    found = opencl.devices()
    first, last = found[0], found[-1]
    monkeypatch.setenv(opencl.PYOPENCL_ENV, "0:0")
    assert opencl.select_device() == opencl.select_device("0:0")
    monkeypatch.setenv(opencl.DEVICE_ENV, last.key)
    assert opencl.select_device() == last.device
    assert opencl.select_device(first.key) == first.device


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_default_device_builds_the_kernels(kernel):
    triangle = [(0, 0), (3, 0), (0, 3)]
    built = opencl.MaskEngine(opencl.select_device()).mask(triangle, (4, 4), kernel=kernel)
    assert_same_mask(built, polymask.mask(triangle, (4, 4)), f"{kernel} kernel on the default device")


@needs_device
@pytest.mark.parametrize("spec", ["tpu", "cpu:99", "gpu:x", "no-such-device-name", "7:0"])
def test_bad_device_strings_name_the_value_and_the_choices(spec):
    with pytest.raises(ValueError) as caught:
        opencl.select_device(spec)
    assert repr(spec) in str(caught.value) and "devices here" in str(caught.value)


@needs_device
def test_bad_device_in_the_environment_names_the_variable(monkeypatch):
    monkeypatch.setenv(opencl.DEVICE_ENV, "tpu")
    with pytest.raises(ValueError, match=r"\$POLYMASK_DEVICE = 'tpu'"):
        opencl.select_device()


@needs_device
def test_an_unusable_device_choice_makes_the_backend_unavailable_with_the_reason(monkeypatch):
    monkeypatch.setenv(opencl.DEVICE_ENV, "tpu")
    reason = opencl.unavailable_reason()
    assert reason is not None and "$POLYMASK_DEVICE = 'tpu'" in reason


@needs_device
def test_device_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="got 5"):
        opencl.select_device(5)


# ---- precision -----------------------------------------------------------------------------------


class NoFp64Device:
    """Just enough of a pyopencl.Device without fp64 for resolve_precision."""

    name = "test device without fp64"
    double_fp_config = 0
    extensions = "cl_khr_byte_addressable_store"

    class platform:
        name = "test platform"
        version = "OpenCL 1.2"


def test_precision_resolution():
    assert opencl.resolve_precision("auto", NoFp64Device()) is False
    assert opencl.resolve_precision("single", NoFp64Device()) is False
    with pytest.raises(opencl.OpenCLError, match="test device without fp64.*precision='single'"):
        opencl.resolve_precision("double", NoFp64Device())
    with pytest.raises(ValueError, match="'auto', 'double', 'single'.*'half'"):
        opencl.resolve_precision("half", NoFp64Device())


@needs_device
def test_auto_precision_is_double_where_the_device_has_fp64(engine):
    auto = opencl.MaskEngine(engine.device)
    assert auto.precision == ("double" if opencl._has_fp64(engine.device) else "single")


# ---- the contract, bit for bit, in double ---------------------------------------------------------


CONTRACT = [(size, case) for size in (24, 37) for case in contract_cases(size)]


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("size,case", CONTRACT, ids=[f"{case.name}-{size}" for size, case in CONTRACT])
def test_both_kernels_equal_the_contract_in_double(engine, kernel, size, case):
    # 37 and the wide 42 columns are not multiples of any work-group size.
    assert_same_mask(engine.mask(case.vertices, case.shape, kernel=kernel),
                     double_mask(case.vertices, case.shape), f"{kernel} {case.name}")


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 70), (70, 1), (131, 67), (65, 17)])
def test_odd_image_shapes(engine, kernel, shape):
    vertices = polymask.course.problems.random_polygon(17, max(shape), seed=3) - 0.5
    assert_same_mask(engine.mask(vertices, shape, kernel=kernel), double_mask(vertices, shape), f"{shape}")


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_grid_aligned_cases_equal_exact_arithmetic(engine, kernel):
    for case in contract_cases(24):
        if case.grid_aligned:
            assert_same_mask(engine.mask(case.vertices, case.shape, kernel=kernel),
                             exact_mask(case.vertices, case.shape), case.name)


@needs_device
def test_the_opencl_stage_and_backend_equal_the_contract():
    vertices, shape = polymask.course.problems.standard_problem(size=96, n_vertices=24)
    expected = double_mask(vertices, shape)
    assert_same_mask(stages.get("opencl").load()(vertices, shape), expected, "stage")
    assert_same_mask(polymask.mask(vertices, shape, backend="opencl"), expected, "backend")


# ---- float32: the documented bound -----------------------------------------------------------------


def distance_to_boundary(points, vertices):
    """Euclidean distance from each (x, y) point to the polygon's closest edge, in float64."""
    xy = np.asarray(vertices, dtype=np.float64)
    start, end = xy, np.roll(xy, 1, axis=0)
    best = np.full(len(points), np.inf)
    for a, b in zip(start, end):
        direction = b - a
        length2 = float(direction @ direction)
        offset = points - a
        t = np.clip(offset @ direction / length2, 0.0, 1.0) if length2 > 0 else np.zeros(len(points))
        nearest = a + t[:, None] * direction
        best = np.minimum(best, np.hypot(*(points - nearest).T))
    return best


def near_edge_polygons():
    """Polygons whose edges pass within 1e-9..1e-6 of pixel centres: float32 must round them."""
    rng = np.random.default_rng(11)
    polygons = []
    for k in range(12):
        size = int(rng.integers(20, 48))
        n = int(rng.integers(3, 16))
        base = rng.integers(-2, size + 2, size=(n, 2)).astype(np.float64)
        jitter = rng.choice([-1, 1], size=(n, 2)) * 10.0 ** rng.uniform(-9, -6, size=(n, 2))
        polygons.append((base + jitter, (size, size + k % 3)))
    for k in range(12):
        size = int(rng.integers(20, 48))
        polygon = polymask.course.problems.random_polygon(int(rng.integers(3, 30)), size, seed=100 + k)
        polygons.append((polygon, (size, size)))
    # An edge 1e-9 right of column 5: float32 puts it on the column, so the whole column flips.
    polygons.append((np.array([(5 + 1e-9, 0.0), (5 + 1e-9, 30.0), (0.0, 30.0), (0.0, 0.0)]), (30, 10)))
    return polygons


@needs_device
@pytest.mark.parametrize("kernel", KERNELS)
def test_float32_differs_only_within_the_documented_bound(kernel):
    single = opencl.MaskEngine(precision="single")
    total_differing = 0
    for vertices, shape in near_edge_polygons() + [(c.vertices, c.shape) for c in contract_cases(24)
                                                    if c.name != "huge_coordinates"]:
        if len(vertices) == 0:
            continue
        expected = exact_mask(vertices, shape)
        actual = single.mask(vertices, shape, kernel=kernel)
        rows, cols = np.nonzero(actual != expected)
        total_differing += len(rows)
        if not len(rows):
            continue
        tolerance = opencl.single_precision_tolerance(vertices, shape)
        distances = distance_to_boundary(np.column_stack([cols, rows]).astype(np.float64), vertices)
        assert distances.max() <= tolerance, f"pixel {distances.argmax()} is {distances.max()} from the edge"
        lengths = np.hypot(*(vertices - np.roll(vertices, 1, axis=0)).T)
        assert len(rows) <= sum(math.ceil(length) + 1 for length in lengths)
    assert total_differing > 0, "the near-edge polygons should exercise the bound"


@needs_device
def test_float32_kernels_agree_with_each_other():
    single = opencl.MaskEngine(precision="single")
    for vertices, shape in near_edge_polygons():
        np.testing.assert_array_equal(single.mask(vertices, shape, kernel="pixel"),
                                      single.mask(vertices, shape, kernel="scanline"))


@needs_device
def test_float32_on_the_standard_problem_is_nearly_exact():
    vertices, shape = polymask.course.problems.standard_problem()
    differing = np.count_nonzero(opencl.mask(vertices, shape, precision="single", kernel="scanline")
                                 != polymask.mask(vertices, shape))
    assert differing <= sum(math.ceil(v) + 1 for v in np.hypot(*(vertices - np.roll(vertices, 1, 0)).T))


# ---- the engine -------------------------------------------------------------------------------------


@needs_device
def test_engine_reused_for_100_calls_with_varying_polygons_and_sizes():
    reused = opencl.MaskEngine(precision="double")
    rng = np.random.default_rng(2024)
    for call in range(100):
        shape = (int(rng.integers(1, 45)), int(rng.integers(1, 45)))
        n = int(rng.integers(0, 30))
        vertices = rng.uniform(-5, max(shape) + 5, size=(n, 2))
        kernel = KERNELS[call % 2]
        assert_same_mask(reused.mask(vertices, shape, kernel=kernel), double_mask(vertices, shape),
                         f"call {call}: {n} vertices on {shape} by {kernel}")


@needs_device
def test_repeated_masks_of_one_size_pay_no_allocation_and_no_compilation():
    reused = opencl.MaskEngine(precision="double")
    vertices, shape = polymask.course.problems.standard_problem(size=64, n_vertices=24)
    for kernel in KERNELS:
        reused.mask(vertices, shape, kernel=kernel)
    builds, allocations, compiled = reused.builds, reused.allocations, opencl.build_count()
    for seed in range(10):
        other = polymask.course.problems.random_polygon(24, 64, seed=seed)
        reused.mask(other, shape, kernel=KERNELS[seed % 2])
        reused.mask(other[:10], (32, 50), kernel=KERNELS[seed % 2])  # smaller fits the same buffers
    assert (reused.builds, reused.allocations, opencl.build_count()) == (builds, allocations, compiled)
    reused.mask(polymask.course.problems.random_polygon(100, 64), (128, 128))  # larger grows both, once
    assert reused.allocations == allocations + 2


@needs_device
def test_programs_are_built_once_per_process():
    opencl.MaskEngine(precision="double").mask([(0, 0), (3, 0), (0, 3)], (4, 4), kernel="scanline")
    compiled = opencl.build_count()
    fresh = opencl.MaskEngine(precision="double")
    fresh.mask([(0, 0), (3, 0), (0, 3)], (4, 4), kernel="scanline")
    assert opencl.build_count() == compiled and fresh.builds == 0


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


# ---- hardening: waits before frees, snapshots, buffer release (issue 18) ----------------------------------


@needs_device
def test_a_failed_result_waits_for_the_kernel_before_anything_is_freed(engine, monkeypatch):
    import pyopencl

    from polymask.opencl import processing as engine_module

    vertices, shape = polymask.course.problems.standard_problem(size=2048)
    event = engine.enqueue(vertices, shape)

    def out_of_memory(out, shape):
        raise MemoryError("no room for the host mask (simulated)")

    monkeypatch.setattr(engine_module, "result_array", out_of_memory)
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
    assert opencl.engine().resident_bytes() <= opencl.MaskEngine.KEEP_BYTES
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


def test_the_facade_keeps_every_public_name_and_one_cache():
    from polymask.opencl import common, discovery, programs, shared

    for name in opencl.__all__:
        assert hasattr(opencl, name), name
    assert {"MaskEngine", "select_device", "devices", "build_program", "profile", "mask", "engine"} <= set(
        opencl.__all__)
    # One cache object, one lock: every per-process OpenCL object is in it.
    assert discovery.CACHE is programs.CACHE is shared.CACHE is common.CACHE
    # The modules' sizes are capped by scripts/lint.py, with every module's.
