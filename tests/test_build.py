"""The compiled parts are really there: no silent fallback to pure Python."""
import importlib.machinery
import importlib.metadata
import os
from pathlib import Path

import pytest

import polymask
from polymask import _core


def test_core_is_a_compiled_extension():
    assert _core.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), _core.__file__


def test_build_info_reports_the_build():
    info = polymask.build_info()
    assert info["version"] == polymask.__version__ == info["core_version"]
    assert info["compiler"] and info["compiler"] != "unknown"
    assert info["build_type"] == "Release"
    assert isinstance(info["openmp"], bool)
    assert info["threads"] >= 1
    for key in ("python", "numpy"):
        assert info[key]


def test_openmp_is_compiled_in_where_required():
    # CI and the README's commands set POLYMASK_REQUIRE_OPENMP=1: a build
    # without OpenMP must not pass there.
    if os.environ.get("POLYMASK_REQUIRE_OPENMP") != "1":
        pytest.skip("POLYMASK_REQUIRE_OPENMP is not 1: this build may leave OpenMP out")
    info = polymask.build_info()
    assert info["openmp"] and info["openmp_version"] >= 201107


def test_learner_builds_use_the_flags_cmake_built_the_core_with():
    """One source for build flags: CMake writes polymask/_build_flags.py, _build reads it."""
    from polymask import _build_flags
    from polymask.course import build as _build

    assert "-ffp-contract=off" in _build_flags.FP_FLAGS or "/fp:precise" in _build_flags.FP_FLAGS
    compile_args, link_args = _build.compile_flags(openmp=True, link_core=True)
    for flag in _build_flags.FP_FLAGS + _build_flags.OPENMP_FLAGS:
        assert flag in compile_args
    for flag in _build_flags.OPENMP_FLAGS:
        assert flag in link_args
    # The module links the shared core and finds it where it is installed.
    assert f"-Wl,-rpath,{polymask.get_library_dirs()[0]}" in link_args
    assert compile_args[0] == f"-std=c++{_build_flags.CXX_STANDARD}"
    assert _build_flags.CORE_USES_OPENMP == polymask.build_info()["openmp"]



def test_the_installed_distribution_carries_the_license():
    """The wheel ships LICENSE in its dist-info (PEP 639) and declares BSD-3-Clause."""
    dist = importlib.metadata.distribution("polymask")
    licenses = [path for path in dist.files or () if path.match("*.dist-info/licenses/LICENSE")]
    assert licenses, f"no dist-info/licenses/LICENSE among the installed files of polymask {dist.version}"
    assert "BSD 3-Clause License" in licenses[0].read_text(encoding="utf-8")
    assert dist.metadata["License-Expression"] == "BSD-3-Clause"


COMPILED_MODULES = ["_core", "_one_step", "_polygons", "_coco", "_coverage_sweep", "_line_cells", "_points"]


@pytest.mark.parametrize("name", COMPILED_MODULES)
def test_each_compiled_module_ships_a_stub_that_matches_it(name):
    """The typed surface: polymask/<module>.pyi names every function the module has, with its parameters."""
    import ast
    import importlib
    import inspect
    from pathlib import Path

    module = importlib.import_module(f"polymask.{name}")
    stub_path = Path(polymask.__file__).parent / f"{name}.pyi"
    assert stub_path.is_file(), f"{stub_path} is not installed"
    stubbed = {node.name: [arg.arg for arg in node.args.args + node.args.kwonlyargs]
               for node in ast.parse(stub_path.read_text()).body if isinstance(node, ast.FunctionDef)}
    compiled = {attr: list(inspect.signature(value).parameters)
                for attr, value in vars(module).items()
                if callable(value) and not isinstance(value, type) and not attr.startswith("__")
                and getattr(value, "__module__", None) == module.__name__}
    assert stubbed == compiled


def test_the_package_says_it_is_typed():
    assert (Path(polymask.__file__).parent / "py.typed").is_file()


# ---- x86-64-v2 -----------------------------------------------------------------

def _on_x86_64():
    import platform

    return platform.machine().lower() in ("x86_64", "amd64")


def test_the_core_is_built_for_x86_64_v2_on_x86_64():
    # SSE4.1's roundsd in its legacy (non-VEX) encoding, 66 0F 3A 0B: only
    # code compiled for x86-64-v2 has it (the AVX2 crossing pass uses the VEX
    # form), so a core built for the plain baseline has none.
    from polymask import _build_flags

    if not _on_x86_64():
        assert not _build_flags.CORE_X86_64_V2
        return
    assert _build_flags.CORE_X86_64_V2 is True
    library = next(Path(polymask.get_library_dirs()[0]).glob("*polymask_core*"))
    assert library.read_bytes().count(b"\x66\x0f\x3a\x0b") > 0


def test_check_cpu_names_the_missing_features_and_the_way_out():
    from polymask._cpu import X86_64_V2_FEATURES, check_cpu

    every = dict.fromkeys(X86_64_V2_FEATURES, True)
    check_cpu(True, every)  # a CPU with all of them: nothing to say
    check_cpu(True, None)   # features unknown: nothing to check
    check_cpu(False, {**every, "SSE42": False, "POPCNT": False})  # a plain-baseline build runs anywhere
    with pytest.raises(ImportError) as raised:
        check_cpu(True, {**every, "SSE42": False, "POPCNT": False})
    message = str(raised.value)
    assert "lacks SSE42, POPCNT" in message and "SSE41" not in message
    assert "POLYMASK_X86_64_V2=OFF" in message


def test_numpy_reports_the_features_the_check_reads():
    from polymask._cpu import X86_64_V2_FEATURES, numpy_cpu_features

    features = numpy_cpu_features()
    assert features is not None
    if _on_x86_64():
        assert all(name in features for name in X86_64_V2_FEATURES)
        assert all(features[name] for name in X86_64_V2_FEATURES)  # this machine runs the suite


def test_importing_polymask_on_a_cpu_without_sse42_raises_before_any_compiled_module_loads():
    # NumPy's feature table, edited in a fresh interpreter, stands in for an
    # old CPU: the import must stop with the message, and must not have
    # loaded the core (whose first SSE4 instruction would be SIGILL there).
    import subprocess
    import sys

    if not _on_x86_64():
        pytest.skip("x86-64 only: elsewhere the core needs no check")
    # polymask._cpu cannot be imported without importing polymask, so the
    # table is edited through NumPy before polymask is imported at all.
    code = (
        "import sys\n"
        "try:\n"
        "    import numpy._core._multiarray_umath as umath\n"
        "except ImportError:\n"
        "    import numpy.core._multiarray_umath as umath\n"
        "umath.__cpu_features__['SSE42'] = False\n"
        "try:\n"
        "    import polymask\n"
        "except ImportError as error:\n"
        "    loaded = sorted(name for name in sys.modules if name.startswith('polymask._') and\n"
        "                    getattr(sys.modules[name], '__file__', '').endswith(('.so', '.pyd')))\n"
        "    print('refused:', error, '| compiled modules loaded:', loaded)\n"
        "else:\n"
        "    print('imported')\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("refused:"), completed.stdout
    assert "lacks SSE42" in completed.stdout
    assert completed.stdout.rstrip().endswith("compiled modules loaded: []"), completed.stdout


def test_one_version_everywhere(capsys):
    """pyproject.toml owns the version; the package, the core, `polymask info` and the docs report it."""
    import importlib.metadata
    import re

    from polymask import cli

    root = Path(__file__).resolve().parents[1]
    declared = re.search(r'^version = "([^"]+)"$', (root / "pyproject.toml").read_text(encoding="utf-8"), re.M)[1]
    assert polymask.__version__ == importlib.metadata.version("polymask") == declared
    assert polymask.build_info()["version"] == declared
    assert cli.main(["info"]) == 0
    assert f"version: {declared}" in capsys.readouterr().out
    assert "release = polymask.__version__" in (root / "docs" / "conf.py").read_text(encoding="utf-8")
