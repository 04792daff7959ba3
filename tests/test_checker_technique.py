"""The technique is read from what was built and from behaviour, never from the lines.

Each dishonest submission here computes right masks without the lesson: a typed loop
pasted into the C++ exercise, a NumPy broadcast beside a dummy cdef function, Python
threads instead of prange, a Polygon that frees only at the size the memory check
used to use.  Each must FAIL; the official solutions pass (tests/test_exercises.py).
"""
import shutil
from pathlib import Path

import pytest

from polymask.course import checker
from polymask.course.build import build_cython
from polymask.course.checker import artifact
from tests import _exercise_support

ROOT = Path(__file__).resolve().parents[1]
DISHONEST = ROOT / "tests" / "dishonest"
SOLUTIONS = ROOT / "exercises" / "solutions"
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


def _copy(tmp_path, name):
    target = tmp_path / "mask.pyx"
    shutil.copyfile(DISHONEST / name, target)
    return target


@pytest.mark.parametrize("exercise, name, words", [
    ("04", "typed_loop_04.pyx", "never calls polymask::Polygon::Polygon() and polymask::Polygon::contains()"),
    ("03", "numpy_broadcast.pyx", "does not call the cdef point_inside inside a typed loop"),
    ("06", "thread_pool.pyx", "starts no OpenMP parallel region"),
])
def test_the_built_module_shows_the_technique_is_missing(tmp_path, exercise, name, words):
    result = checker.check(exercise, _copy(tmp_path, name), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the built module", report
    assert "gives the right mask on all 34 cases, but" in report and words in report, report


def test_the_core_called_once_per_mask_for_show_fails_04(tmp_path):
    # The right symbols are there; the calls of the core's per-pixel test, counted at run time, are not.
    result = checker.check("04", _copy(tmp_path, "core_for_show.pyx"), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the call count", report
    assert "called the C++ core's Polygon::contains 1 time for a" in report, report


def test_a_polygon_that_frees_only_at_one_size_fails_05(tmp_path):
    result = checker.check("05", _copy(tmp_path, "leak_unless_20000.pyx"), timing=False)
    assert result.status == "wrong" and "Polygon leaks its C++ polygon" in str(result), str(result)


@pytest.mark.parametrize("name", ["leak_odd_sizes.pyx", "leak_above_29000.pyx", "leak_one_in_16.pyx",
                                  "never_frees.pyx", "detached_storage.pyx"])
def test_a_polygon_that_leaks_some_objects_fails_05_by_the_census(tmp_path, name):
    # leak_above_29000 and leak_one_in_16 leak less than the /proc reading allows: only the census sees them.
    # detached_storage deletes polygons whose heap block it detached, and frees a ballast as it leaks: the
    # census's bytes still see every block.
    result = checker.check("05", _copy(tmp_path, name), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the memory check", report
    assert "left their C++ polygon alive" in report, report


def test_a_forged_census_still_meets_the_process_memory(tmp_path):
    result = checker.check("05", _copy(tmp_path, "forged_census.pyx"), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the memory check", report
    # It forges the polygon and vertex counts, not the heap bytes: the census's bytes, or else the
    # process's memory, still show the leak.
    assert "left their C++ polygon alive or its heap block unfreed" in report or "grew the process by" in report, \
        report


def test_a_python_class_is_not_an_extension_type():
    plain = build_cython(DISHONEST / "docstring_class.pyx", link_core=True)
    solution = build_cython(SOLUTIONS / "05_cdef_class" / "mask.pyx", link_core=True)
    assert plain.ok and solution.ok
    assert "not a `cdef class`" in artifact.extension_type_failure(artifact.symbols(plain.module_path),
                                                                   plain.module_name)
    assert artifact.extension_type_failure(artifact.symbols(solution.module_path), solution.module_name) is None


def test_a_call_outside_a_counted_loop_does_not_count():
    call = "__pyx_f_4mod1_point_inside"
    head = "static PyObject *__pyx_pf_4mod1_mask(PyObject *v) {\n"
    in_loop = head + f"  for (__pyx_t_1 = 0; __pyx_t_1 < n; __pyx_t_1+=1) {{\n    x = {call}(v, 1., 2.);\n  }}\n}}\n"
    after_loop = head + f"  for (__pyx_t_1 = 0; __pyx_t_1 < n; __pyx_t_1+=1) {{\n  }}\n  x = {call}(v, 1., 2.);\n}}\n"
    python_loop = head + f"  for (;;) {{\n    x = {call}(v, 1., 2.);\n  }}\n}}\n"
    assert artifact.typed_call_failure(in_loop, "mod1") is None
    assert artifact.typed_call_failure(after_loop, "mod1") is not None
    assert artifact.typed_call_failure(python_loop, "mod1") is not None


def test_the_per_pixel_rule_in_numpy_is_not_a_scanline_fill(tmp_path):
    path = tmp_path / "mask.py"
    shutil.copyfile(DISHONEST / "numpy_per_pixel.py", path)
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong" and result.phase == "the scaling check", str(result)
    assert "its cost grows like per-pixel code" in str(result)


@pytest.mark.parametrize("name", ["one_item_does_all.cl", "window_from_launch.cl"])
def test_one_work_item_computing_the_image_fails_07(tmp_path, name):
    # window_from_launch reads the probe's window from get_global_offset and get_global_size.
    path = tmp_path / "mask.cl"
    shutil.copyfile(DISHONEST / name, path)
    result = checker.check("07", path, timing=False)
    if result.status == "error" and "OpenCL" in str(result):
        pytest.skip(f"no OpenCL device here: {str(result).splitlines()[0]}")
    assert result.status == "wrong" and result.phase == "the work-item check", str(result)
    assert "it is not one work-item per pixel" in str(result)


def test_a_spinning_twin_with_a_slowed_serial_run_never_passes_06(tmp_path):
    # threads=1 sleeps as long as it worked: wall time says 2x, CPU time says one thread did it all.
    result = checker.check("06", _copy(tmp_path, "slowed_serial_twin.pyx"), timing=False)
    assert not result.passed and result.status in ("wrong", "inconclusive"), str(result)
    assert result.phase == "the thread check", str(result)
