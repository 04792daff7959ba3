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
from polymask.course.checker import artifact, probe, technique
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


@pytest.mark.parametrize("name, words", [
    ("numpy_broadcast.pyx", "its mask() called point_inside 0 times for a 40x47 mask of 1,880 pixels"),
    ("row_for_show.pyx", "its mask() called point_inside 40 times for a 40x47 mask of 1,880 pixels"),
    ("table_point_inside.pyx", "do not come from point_inside: in a second build of your module, point_inside "
                               "was shown the polygon moved by"),
])
def test_pixels_that_do_not_come_from_point_inside_fail_03(tmp_path, name, words):
    # Counted and moved at run time in a second build: a dummy point_inside, one call per row for show, and a
    # point_inside that reads a table NumPy filled all look like the lesson in the source and the generated C.
    result = checker.check("03", _copy(tmp_path, name), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the point_inside probe", report
    assert words in report, report
    if name == "table_point_inside.pyx":
        assert "still returned the unmoved polygon's mask" in report, report


def test_the_probe_adds_one_line_to_point_inside_and_refuses_what_it_cannot_watch():
    head = "static int __pyx_f_4mod1_point_inside("
    generated = f"int x;\n{head}__Pyx_memviewslice __pyx_v_v, double __pyx_v_px, double __pyx_v_py) {{\n  int r;\n}}\n"
    watched = probe.instrument(generated, "mod1", (3, -4), "polymask_probe_calls_ab12")
    body = watched[watched.index(head):]
    assert body.splitlines()[1].strip() == "polymask_probe_ab12(&__pyx_v_v);", body
    assert "+ (j ? -4.0 : 3.0)" in watched and "long long polymask_probe_calls_ab12 = 0;\n}" in watched
    with pytest.raises(probe.ProbeUnavailable, match="no typed memoryview"):
        probe.instrument(f"{head}double *__pyx_v_v, double __pyx_v_px) {{\n}}\n", "mod1", (3, 4), "c_ab")
    with pytest.raises(probe.ProbeUnavailable, match="defines no cdef point_inside"):
        probe.instrument("static int __pyx_f_4mod1_other(double x) {\n}\n", "mod1", (3, 4), "c_ab")


def test_a_forked_child_computing_rows_fails_06(tmp_path):
    # The child's CPU is not in the worker's /proc/<pid>/task; it is in the process tree (and, once reaped,
    # in the worker's children's time), and prange forks nothing.
    result = checker.check("06", _copy(tmp_path, "forked_rows.pyx"), timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the thread check", report
    assert "of its CPU time was used by child processes it started" in report, report


def test_cpu_time_in_child_processes_is_not_threads_sharing_rows():
    shared = dict(busiest_share=0.5, others_share=0.5, shared_rounds=4, total_ratio=1.0, demand=2.0, baseline="b")
    assert technique.thread_verdict(**shared)[0] is None
    assert technique.thread_verdict(**shared, outside_share=0.05)[0] is None
    assert "used by child processes" in technique.thread_verdict(**shared, outside_share=0.5)[0]


def test_per_pixel_work_padded_with_a_busy_loop_fails_08(tmp_path):
    # The busy-loop makes 24 vertices cost what 2,400 do, so the growth looks flat; per-pixel CPU remains.
    path = tmp_path / "mask.py"
    shutil.copyfile(DISHONEST / "padded_per_pixel.py", path)
    result = checker.check("08", path, timing=False)
    report = str(result)
    assert result.status == "wrong" and result.phase == "the scaling check", report
    assert "it is not a scanline fill" in report and "per-pixel NumPy stage" in report, report


def test_the_per_pixel_rule_in_numpy_is_not_a_scanline_fill(tmp_path):
    path = tmp_path / "mask.py"
    shutil.copyfile(DISHONEST / "numpy_per_pixel.py", path)
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong" and result.phase == "the scaling check", str(result)
    assert "it is not a scanline fill" in str(result) and "per-pixel NumPy stage" in str(result), str(result)


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
