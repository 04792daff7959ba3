"""The examples in polymask's docstrings run and print what they show.

A docstring example is the first code a user copies; one went stale when
NumPy 2 began printing scalars as ``np.int64(6)``, and nothing noticed.
Every module with ``>>>`` examples is listed here, and a test fails if a
module gains examples without being listed, so none can drift again.
"""
from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

import polymask

#: Modules whose docstrings hold examples, as imported by users.
WITH_EXAMPLES = ["polymask", "polymask._api", "polymask._masks", "polymask._rasterize", "polymask._coverage",
                 "polymask._threads", "polymask.course.stages", "polymask._contains", "polymask._install_dirs",
                 "polymask.opencl.processing", "polymask.opencl.shared", "polymask.opencl.discovery",
                 "polymask.opencl.programs", "polymask.opencl.common", "polymask.opencl.host",
                 "polymask.opencl.resident",  # OpenCL: the test extra brings PoCL
                 "polymask.coco", "polymask.dask", "polymask.xarray"]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    results = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    assert results.attempted > 0, f"{name} has no example left: drop it from WITH_EXAMPLES"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {name} failed (output above)"


def test_every_module_with_examples_is_checked():
    package = pathlib.Path(polymask.__file__).parent
    found = set()
    for path in package.rglob("*.py"):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(package.parent).with_suffix("").parts
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    checked = set(WITH_EXAMPLES)
    assert found <= checked, f"modules with examples not checked: {sorted(found - checked)}"
