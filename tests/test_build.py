"""The compiled parts are really there: no silent fallback to pure Python."""
import importlib.machinery
import os

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
