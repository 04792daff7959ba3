"""The installed package's metadata says what pyproject.toml and the wheel build promise.

The classifiers are what a package index shows and filters by; a Python
version the wheels are built for but not listed (or listed but not built)
misleads the reader, and so would a license classifier beside the SPDX
expression (PEP 639 forbids the pair; the build backend refuses it).
"""
from __future__ import annotations

import re
import sys
from importlib.metadata import metadata
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_with_its_file():
    project = PYPROJECT["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"] and (ROOT / "LICENSE").is_file()
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    installed = metadata("polymask")
    assert installed["License-Expression"] == "BSD-3-Clause"
    assert "LICENSE" in installed.get_all("License-File")


def test_python_classifiers_are_the_versions_the_wheels_are_built_for():
    built = {f"3.{minor}" for minor in re.findall(r"cp3(\d+)-\*", PYPROJECT["tool"]["cibuildwheel"]["build"])}
    listed = {c.rsplit(" :: ", 1)[1] for c in PYPROJECT["project"]["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    assert listed == built
    lowest = min(built, key=lambda version: int(version.split(".")[1]))
    assert PYPROJECT["project"]["requires-python"] == f">={lowest}"


def test_typed_is_claimed_and_true():
    assert "Typing :: Typed" in PYPROJECT["project"]["classifiers"]
    assert (ROOT / "src" / "polymask" / "py.typed").is_file()


def test_the_installed_classifiers_are_pyprojects():
    assert sorted(metadata("polymask").get_all("Classifier")) == sorted(PYPROJECT["project"]["classifiers"])


def test_the_author_is_named():
    assert PYPROJECT["project"]["authors"] == [{"name": "the polymask authors"}]
    assert "the polymask authors" in metadata("polymask")["Author"]


def test_the_sdist_takes_sources_only_and_the_wheel_no_build_files():
    """The sdist's include patterns name top-level folders only: an unanchored "csrc" also
    matches build/<wheel tag>/csrc/ and ships the last build's object files; the wheel leaves
    out the CMake lists and the templates CMake fills in (scripts/wheel.sh checks both artifacts)."""
    build = PYPROJECT["tool"]["scikit-build"]
    assert build["sdist"]["include"] and all(pattern.startswith("/") for pattern in build["sdist"]["include"])
    assert {"CMakeLists.txt", "*.in"} <= set(build["wheel"]["exclude"])
    from importlib.metadata import files

    shipped = [str(path) for path in files("polymask") or []]
    assert not [path for path in shipped if path.endswith(("CMakeLists.txt", ".py.in"))], shipped
