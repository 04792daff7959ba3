"""Cheats and sloppy solutions a learner might try: each gets a FAIL from the
checker that names what is wrong (one test per case).
"""
import re
import textwrap

from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import SOLUTION, learner_file, solution_path, solution_text

# The shared fixtures, bound here so that pytest finds them.
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


# ---- cheats and sloppy solutions: each gets a FAIL that names what is wrong ----------------


def _with_prefix(text, prefix):
    """The 01 solution with `prefix` put at the top of mask() (after its docstring)."""
    marker = '    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""\n'
    assert marker in text
    return text.replace(marker, marker + textwrap.indent(textwrap.dedent(prefix), "    "))


def test_raising_only_at_timing_size_fails_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), 'if shape[0] == 80:\n    raise MemoryError("too big for me")\n')
    result = checker.check("01", learner_file(tmp_path, text), time_size=80, repeats=1)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "failed during timing" in str(result) and "MemoryError: too big for me" in str(result)


def test_a_segfault_only_at_timing_size_fails_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), "if shape[0] == 80:\n    import ctypes; ctypes.string_at(0)\n")
    result = checker.check("01", learner_file(tmp_path, text), time_size=80, repeats=1)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "crashed the Python process (signal SIGSEGV) during timing" in str(result)


def test_an_endless_loop_only_at_timing_size_is_stopped_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), "while shape[0] == 80:\n    pass\n")
    lines = []
    result = checker.check("01", learner_file(tmp_path, text), time_size=80, repeats=1, timing_timeout=1.5,
                           progress=lines.append)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "did not finish timing within 1.5 s, its time limit" in str(result)
    assert "timing 1.5 s per repeat" in lines[0] and "  timing ..." in lines


def test_replacing_the_reference_is_refused_before_running(tmp_path):
    path = learner_file(tmp_path, """\
        import numpy as np
        import polymask
        polymask.mask = lambda vertices, shape, **options: np.zeros(shape, bool)
        def mask(vertices, shape):
            return np.zeros(shape, bool)
        """)
    result = checker.check("01", path)
    assert result.status == "wrong" and result.exit_code == 1
    assert "was not run" in str(result) and "uses polymask's own polymask.mask" in str(result)


def test_replacing_the_reference_at_run_time_changes_nothing_the_checker_compares_with(tmp_path):
    path = learner_file(tmp_path, """\
        import numpy as np
        library = __import__("poly" + "mask")  # hidden from the source scan
        library.mask = lambda vertices, shape, **options: np.zeros(shape, bool)
        def point_inside(polygon, px, py):
            return False
        def mask(vertices, shape):
            return np.zeros(shape, bool)
        """)
    result = checker.check("01", path, timing=False)
    assert result.status == "wrong" and result.phase == "loading your file", str(result)
    assert "used polymask's own code" in str(result)


def test_json_printed_on_stdout_is_not_a_verdict(tmp_path):
    fake = '{"event": "cases_done"}\\n{"event": "finished"}'
    for exit_call, expected in (("sys.exit(0)", "SystemExit: 0"),
                                ("os._exit(0)", "crashed the Python process (exit 0)")):
        path = learner_file(tmp_path, f"""\
            import json, os, sys
            print('{fake}')
            print(json.dumps({{"event": "cases", "count": 24, "failures": []}}), flush=True)
            {exit_call}
            """)
        result = checker.check("01", path)
        assert result.status == "wrong" and result.phase == "loading your file", str(result)
        assert expected in str(result)


def test_calling_polymask_is_refused_with_the_reason(tmp_path):
    path = learner_file(tmp_path, """\
        from polymask import mask as reference
        def point_inside(polygon, px, py):
            return False
        def mask(vertices, shape):
            return reference(vertices, shape)
        """)
    result = checker.check("01", path)
    assert result.status == "wrong"
    assert "line 1 (`from polymask import mask as reference`) uses polymask's own mask" in str(result)
    assert "compute the mask yourself" in str(result)
    # Hidden from the source scan, it is still caught when it runs.
    hidden = learner_file(tmp_path, """\
        import importlib
        def point_inside(polygon, px, py):
            return False
        def mask(vertices, shape):
            return getattr(importlib.import_module("poly" + "mask"), "ma" + "sk")(vertices, shape)
        """, name="hidden.py")
    result = checker.check("01", hidden, timing=False)
    assert result.status == "wrong" and "used polymask's own code" in str(result)
    through_stages = learner_file(tmp_path, hidden.read_text().replace(
        'getattr(importlib.import_module("poly" + "mask"), "ma" + "sk")',
        'importlib.import_module("poly" + "mask").stages.get("scanline").load()'), name="stages.py")
    result = checker.check("01", through_stages, timing=False)
    assert result.status == "wrong" and "used polymask's own code" in str(result)


def test_get_include_stays_allowed():
    assert checker.source.borrowed_answer("import polymask\nprint(polymask.get_include())\n", "py") is None
    assert checker.source.borrowed_answer("from polymask import get_include, get_library_dirs\n", "py") is None
    assert checker.source.borrowed_answer("from polymask.core cimport Polygon\n", "pyx") is None


def test_untyped_loops_fail_exercise_03_naming_the_yellow_lines(tmp_path):
    untyped = solution_text("03").replace(
        "    cdef Py_ssize_t rows = shape[0], cols = shape[1]\n    cdef Py_ssize_t row, col\n",
        "    rows, cols = shape\n")
    assert untyped != solution_text("03")
    result = checker.check("03", learner_file(tmp_path, untyped, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the annotation check", str(result)
    report = str(result)
    assert "its loops still call into Python" in report
    assert "for row in range(rows):" in report and "out[row, col] = point_inside(vertices, col, row)" in report


def test_a_serial_loop_with_prange_only_in_a_comment_fails_exercise_06(tmp_path):
    # The serial loop itself (and the word in a comment): the built module starts no OpenMP region.
    solution = solution_text("06")
    serial = "for row in range(rows):  # omp parallel for: prange(rows, nogil=True)"
    text_only = re.sub(r"for row in prange\(rows,[^\n]*\):", serial, solution)
    assert text_only != solution, "the solution's prange loop was not found"
    result = checker.check("06", learner_file(tmp_path, text_only, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the built module", str(result)
    assert "right mask on all 34 cases, but the built module starts no OpenMP parallel region" in str(result)


def test_num_threads_1_fails_exercise_06_on_a_quiet_machine(tmp_path, monkeypatch):
    from polymask.course.checker import technique

    monkeypatch.setattr(technique, "cpu_pressure", lambda: 0.0)  # no task waited for a CPU: a quiet machine
    one = solution_text("06").replace("num_threads=team", "num_threads=1")
    result = checker.check("06", learner_file(tmp_path, one, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and "it ran on 1 thread" in str(result), str(result)


def test_a_leaking_polygon_fails_exercise_05(tmp_path):
    leaking = solution_text("05").replace("        del self.polygon\n", "        pass\n")
    result = checker.check("05", learner_file(tmp_path, leaking, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the memory check", str(result)
    assert "Polygon leaks its C++ polygon" in str(result) and "del self.polygon" in str(result)


def test_a_file_of_another_exercise_fails(tmp_path):
    result = checker.check("05", solution_path(checker.get_exercise("03")))
    assert result.status == "wrong"
    assert "it has no `cdef class Polygon` (it looks like exercise 03's file" in str(result)
    result = checker.check("06", solution_path(checker.get_exercise("05")), timing=False)
    assert result.status == "wrong" and "mask(vertices, shape, threads) is expected" in str(result)
    result = checker.check("01", solution_path(checker.get_exercise("08")), timing=False)
    assert result.status == "wrong" and "no function point_inside(polygon, px, py)" in str(result)


def test_the_08_test_set_reaches_1e300(tmp_path):
    overflowing = solution_text("08").replace(
        "np.clip(np.sort(np.ceil(x_cross)), 0, cols).astype(np.int64)",
        "np.clip(np.sort(np.ceil(x_cross)).astype(np.int64), 0, cols)")
    result = checker.check("08", learner_file(tmp_path, overflowing), timing=False)
    assert result.status == "wrong", str(result)
    assert "case 'extreme_x_1e300'" in str(result)
    assert max(abs(case.vertices).max() for case in checker.exercises.checker_cases() if case.vertices.size) == 1e300
