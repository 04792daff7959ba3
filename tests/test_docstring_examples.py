"""The examples in polymask's docstrings run and print what they show.

A docstring example is the first code a user copies; one went stale when
NumPy 2 began printing scalars as ``np.int64(6)``, and nothing noticed.
Every module with ``>>>`` examples is listed here, and a test fails if a
module gains examples without being listed, so none can drift again.
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import pathlib
import re

import pytest

import polymask

#: Modules whose docstrings hold examples, as imported by users.
WITH_EXAMPLES = ["polymask", "polymask._api", "polymask._masks", "polymask._rasterize", "polymask._coverage",
                 "polymask._threads", "polymask.course.stages", "polymask._contains", "polymask._install_dirs",
                 "polymask.opencl.processing", "polymask.opencl.shared", "polymask.opencl.discovery",
                 "polymask.opencl.availability", "polymask.opencl.programs", "polymask.opencl.common",
                 "polymask.opencl.host",
                 "polymask.opencl.resident",  # OpenCL: the test extra brings PoCL
                 "polymask.coco", "polymask.dask", "polymask.xarray"]


class _DefinedHere(doctest.DocTestFinder):
    """doctest's finder, taking what a module's file defines even where ``__module__`` names the public module.

    Public functions report ``polymask`` (or ``polymask.opencl``) as their
    module, so plain ``doctest.testmod`` of the private module that defines
    them would find none of their examples.
    """

    def _from_module(self, module, object):  # noqa: A002 (doctest's own parameter name)
        where = _defined_in(object)
        if where:
            return where == inspect.getsourcefile(module)
        if inspect.isclass(object):  # no function of its own (an exception class): its class statement
            return re.search(rf"^class {object.__name__}\b", inspect.getsource(module), re.MULTILINE) is not None
        return super()._from_module(module, object)


def _defined_in(thing) -> str | None:
    """The source file of a function, or of a class's own functions (its __module__ may name another)."""
    candidates = [value for value in vars(thing).values()] if inspect.isclass(thing) else [thing]
    for candidate in candidates:
        function = inspect.unwrap(getattr(candidate, "__func__", getattr(candidate, "fget", candidate)))
        if inspect.isfunction(function):
            return inspect.getsourcefile(function)
    return None


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    results = _run(module)
    assert results.attempted > 0, f"{name} has no example left: drop it from WITH_EXAMPLES"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {name} failed (output above)"


def _run(module) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    for test in _DefinedHere(exclude_empty=True).find(module, module.__name__):
        runner.run(test)
    return runner.summarize(verbose=False)


def test_every_module_with_examples_is_checked():
    package = pathlib.Path(polymask.__file__).parent
    found = set()
    for path in package.rglob("*.py"):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(package.parent).with_suffix("").parts
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    checked = set(WITH_EXAMPLES)
    assert found <= checked, f"modules with examples not checked: {sorted(found - checked)}"
