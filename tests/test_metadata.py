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
