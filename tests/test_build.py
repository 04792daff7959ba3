"""The compiled parts are really there: no silent fallback to pure Python."""
import importlib.machinery
import os

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
    if os.environ.get("POLYMASK_REQUIRE_OPENMP") == "1":
        info = polymask.build_info()
        assert info["openmp"] and info["openmp_version"] >= 201107


def test_learner_builds_use_the_flags_cmake_built_the_core_with():
    """One source for build flags: CMake writes polymask/_build_flags.py, _build reads it."""
    from polymask import _build, _build_flags

    assert "-ffp-contract=off" in _build_flags.FP_FLAGS or "/fp:precise" in _build_flags.FP_FLAGS
    compile_args, link_args = _build.compile_flags(openmp=True, link_core=True)
    for flag in _build_flags.FP_FLAGS + _build_flags.OPENMP_FLAGS:
        assert flag in compile_args
    for flag in _build_flags.OPENMP_FLAGS + _build_flags.CORE_LINK_FLAGS:
        assert flag in link_args
    assert compile_args[0] == f"-std=c++{_build_flags.CXX_STANDARD}"
    assert _build_flags.CORE_USES_OPENMP == polymask.build_info()["openmp"]


COMPILED_MODULES = ["_core", "_coco", "_coverage_sweep"]


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
    from pathlib import Path

    assert (Path(polymask.__file__).parent / "py.typed").is_file()
