"""The OpenCL backend's surroundings: whether it is available and why not, kernels
shipped as package resources, device discovery and choice, precision, and the
facade's public names.  The kernels against the contract are
test_opencl_contract.py; the engine, test_opencl_engine.py.  Why these tests
never skip for a missing runtime: tests/_opencl_support.py.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import polymask
from polymask import opencl
from polymask.opencl.availability import resolve_precision
from polymask.opencl.common import DEVICE_ENV, OPENCL_ENV, PYOPENCL_ENV
from polymask.opencl.discovery import has_fp64
from tests import _opencl_support
from tests._opencl_support import KERNELS, REPOSITORY, needs_device
from tests._support import assert_same_mask

# The shared fixtures, bound here so that pytest finds them.
no_device_environment = _opencl_support.no_device_environment
engine = _opencl_support.engine


# ---- availability ------------------------------------------------------------------------


@needs_device
def test_opencl_is_available_here():
    # A failure here means the CI set-up did not install a working runtime.
    assert opencl.unavailable_reason() is None
    assert polymask.available_backends()["opencl"].available


def test_opt_out_gives_the_clear_error(monkeypatch):
    monkeypatch.setenv(OPENCL_ENV, "0")
    reason = opencl.unavailable_reason()
    assert reason is not None and "POLYMASK_OPENCL=0" in reason
    assert opencl.devices() == []
    with pytest.raises(ImportError, match="POLYMASK_OPENCL=0"):
        opencl.require()
    with pytest.raises(opencl.OpenCLUnavailable, match="POLYMASK_OPENCL=0"):
        opencl.MaskEngine()


def run_python(code, **environment):
    env = {**os.environ, **environment}
    env.pop(DEVICE_ENV, None)
    env.pop(PYOPENCL_ENV, None)
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
    monkeypatch.setenv(PYOPENCL_ENV, "0:0")
    assert opencl.select_device() == opencl.select_device("0:0")
    monkeypatch.setenv(DEVICE_ENV, last.key)
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
    monkeypatch.setenv(DEVICE_ENV, "tpu")
    with pytest.raises(ValueError, match=r"\$POLYMASK_DEVICE = 'tpu'"):
        opencl.select_device()


@needs_device
def test_an_unusable_device_choice_makes_the_backend_unavailable_with_the_reason(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "tpu")
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
    assert resolve_precision("auto", NoFp64Device()) is False
    assert resolve_precision("single", NoFp64Device()) is False
    with pytest.raises(opencl.OpenCLError, match="test device without fp64.*precision='single'"):
        resolve_precision("double", NoFp64Device())
    with pytest.raises(ValueError, match="'auto', 'double', 'single'.*'half'"):
        resolve_precision("half", NoFp64Device())


@needs_device
def test_auto_precision_is_double_where_the_device_has_fp64(engine):
    auto = opencl.MaskEngine(engine.device)
    assert auto.precision == ("double" if has_fp64(engine.device) else "single")


def test_the_facade_keeps_every_public_name_and_one_cache():
    from polymask.opencl import _state, discovery, programs, shared

    for name in opencl.__all__:
        assert hasattr(opencl, name), name
    assert {"MaskEngine", "select_device", "devices", "build_program", "profile", "mask", "engine"} <= set(
        opencl.__all__)
    # One cache object, one lock: every per-process OpenCL object is in it.
    assert discovery.CACHE is programs.CACHE is shared.CACHE is _state.CACHE


def test_the_facade_re_exports_the_user_api_and_nothing_else():
    import types

    extra = {name for name, value in vars(opencl).items()
             if not name.startswith("__") and not isinstance(value, types.ModuleType)} - set(opencl.__all__)
    assert extra == {"annotations"}, sorted(extra)  # the __future__ import
    # The modules' sizes are capped by scripts/lint.py, with every module's.


@needs_device
def test_the_module_docstrings_example_runs(capsys):
    # The reference page's example is a literal block (doctest does not collect it): run it here.
    docstring = opencl.__doc__
    start = docstring.index("::\n\n") + len("::\n\n")
    block = []
    for line in docstring[start:].splitlines():
        if line and not line.startswith("    "):
            break
        block.append(line)
    exec(compile(textwrap.dedent("\n".join(block)), "polymask.opencl.__doc__", "exec"), {})
    assert capsys.readouterr().out.strip()
