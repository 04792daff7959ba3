"""Honest work passes: a correct solution written another way, and the official ones on a busy machine.

The files in tests/honest/ solve an exercise by another route than its
official solution (typed `while` loops over the edges in reverse order, a
cdef helper per row, only the pixels of the bounding box asked about through a
strided memoryview of Fortran-ordered vertices, a Polygon class with extra methods, an explicit
`parallel()` block with a static schedule in chunks, a NumPy scanline with
searchsorted, a scanline in plain Python loops); each must PASS.  The
06 solutions must also PASS beside two processes spinning on the machine's
cores: the thread check reads CPU time, which a busy machine does not change.
"""
import shutil
import subprocess
import sys

import pytest

from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import ROOT

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

HONEST = ROOT / "tests" / "honest"
SOLUTIONS = ROOT / "exercises" / "solutions"


def _check(tmp_path, exercise, source):
    target = tmp_path / ("mask" + source.suffix)
    shutil.copyfile(source, target)
    return checker.check(exercise, target, timing=False, progress=False)


@pytest.mark.parametrize("exercise, name", [
    ("03", "while_loops_03.pyx"),
    ("03", "row_helper_03.pyx"),
    ("03", "bounding_box_03.pyx"),
    ("05", "extra_methods_05.pyx"),
    ("06", "static_chunks_06.pyx"),
    ("08", "searchsorted_08.py"),
    ("08", "python_loops_08.py"),
])
def test_an_honest_solution_by_another_route_passes(tmp_path, exercise, name):
    result = _check(tmp_path, exercise, HONEST / name)
    assert result.passed, str(result)


@pytest.mark.wallclock
@pytest.mark.parametrize("source", [SOLUTIONS / "06_prange" / "mask.pyx", HONEST / "static_chunks_06.pyx"],
                         ids=["official", "static_chunks"])
def test_06_passes_beside_two_spinning_processes(tmp_path, source):
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        result = _check(tmp_path, "06", source)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert result.passed, str(result)
