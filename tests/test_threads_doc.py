"""What ``threads=`` means is written once, and every public ``threads`` parameter points there.

The definition (the default's order of sources, the cap, small fills on the
calling thread) lives in the docstring of ``polymask.threads``; each public
function's ``threads`` parameter says the same short sentence, so no
docstring can drift into a claim of its own ("all cores").
"""
import importlib
import inspect

import pytest

import polymask

SENTENCE = "The most threads to use (None or 0: the default; see :func:`polymask.threads`)."
MODULES = ["polymask", "polymask.coco", "polymask.dask"]


def _words(text: str) -> str:
    return " ".join(text.split())


def _functions_with_a_threads_parameter():
    found = []
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # polymask.dask without Dask
            continue
        for name in module.__all__:
            function = getattr(module, name)
            if inspect.isfunction(function) and "threads" in inspect.signature(function).parameters:
                found.append(pytest.param(function, id=f"{module_name}.{name}"))
    return found


FUNCTIONS = _functions_with_a_threads_parameter()


def test_the_public_fills_are_all_found():
    names = {param.id for param in FUNCTIONS}
    assert {"polymask.mask", "polymask.masks", "polymask.rasterize", "polymask.coverage",
            "polymask.coverages", "polymask.contains", "polymask.coco.encode"} <= names, names


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_threads_parameter_says_the_one_sentence(function):
    assert SENTENCE in _words(inspect.getdoc(function) or ""), (
        f"{function.__module__}.{function.__qualname__}: its `threads` parameter should say {SENTENCE!r}")
    assert "all cores" not in _words(inspect.getdoc(function))


def test_polymask_threads_holds_the_definition():
    definition = _words(inspect.getdoc(polymask.threads))
    # Every source of the default, in order, the cap and the small-fill rule.
    order = ["polymask.threads(n)", "threadpoolctl", "$POLYMASK_NUM_THREADS", "$OMP_NUM_THREADS",
             "the CPUs this process may use"]
    positions = [definition.find(source) for source in order]
    assert -1 not in positions and positions == sorted(positions), dict(zip(order, positions))
    assert 'build_info()["thread_cap"]' in definition
    assert "runs on the calling thread alone" in definition
