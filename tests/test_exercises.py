"""The exercises and their checker: every stub fails with a helpful message,
every solution passes (copied over its stub, Exercism-style), the stubs are
generated from the solutions, wrong answers get the right diagnosis, and
every cheat or sloppy solution a learner might try gets a FAIL that names
what is wrong (tests at the end of the file, one per case).

Each .pyx is compiled once per test session (the build cache lives in a
session temp folder), so this file costs about ten small Cython builds.
"""
import importlib.util
import os
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from polymask import cli
from polymask.course import checker
from polymask.course.build import CACHE_ENV, get_include, get_library_dirs

ROOT = Path(__file__).resolve().parents[1]
EXERCISES_DIR = ROOT / "exercises"
SOLUTION = EXERCISES_DIR / "solutions" / "01_python" / "mask.py"

#: What each stub's failure must say: the learner's next step is in it.
STUB_DIAGNOSIS = {
    "01": ["case 'square'", "324 pixels differ", "324 missing (-)", "--------"],
    "02": ["NotImplementedError: paste point_inside from exercise 01 here", "exercises/02_compile/mask.pyx"],
    "03": ["case 'square'", "324 missing (-)"],
    "04": ["case 'square'", "324 missing (-)"],
    "05": ["RuntimeError: Polygon has no C++ polygon: __cinit__ must set self.polygon"],
    "06": ["case 'square'", "324 missing (-)"],
    "07": ["the kernel left 576 of 576 pixels unwritten"],
    "08": ["case 'square'", "324 missing (-)"],
}


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory):
    """A fresh build cache per session: the builds are tested, not remembered from last time."""
    folder = tmp_path_factory.mktemp("build-cache")
    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if old is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = old


def _running_descendants():
    from polymask.course.checker.runner import descendants

    alive = set()
    for pid in descendants({os.getpid()}):
        try:
            if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                alive.add(pid)
        except OSError:
            pass
    return alive


@pytest.fixture(autouse=True)
def nothing_outlives_a_test():
    """No process started during a test is still running after it (counted through /proc)."""
    before = _running_descendants()
    yield
    import time

    time.sleep(0.05)
    assert _running_descendants() - before == set()


def _make_stubs():
    spec = importlib.util.spec_from_file_location("make_stubs", EXERCISES_DIR / "make_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stub(exercise):
    return EXERCISES_DIR / exercise.folder / exercise.filename


def _solution(exercise):
    return EXERCISES_DIR / "solutions" / exercise.folder / exercise.filename


# ---- the exercise tree ----------------------------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_every_exercise_has_readme_stub_and_solution(exercise):
    readme = (EXERCISES_DIR / exercise.folder / "README.md").read_text()
    for heading in ("## Goal", "## Procedure", "## Expected output"):
        assert heading in readme, f"{exercise.folder}/README.md lacks {heading!r}"
    assert f"polymask check {exercise.number} exercises/{exercise.folder}/{exercise.filename}" in readme
    assert _stub(exercise).is_file() and _solution(exercise).is_file()
    assert "TODO" in _stub(exercise).read_text()


def test_stubs_are_generated_from_the_solutions():
    assert _make_stubs().main(["--check"]) == 0, "run: python exercises/make_stubs.py"


def test_stub_generation_drops_solutions_and_uncomments_stub_lines():
    make_stubs = _make_stubs()
    solution = textwrap.dedent("""\
        def f():
            # BEGIN SOLUTION
            return 1
            # ELSE STUB
            # return 0  # TODO
            # END SOLUTION
        // BEGIN SOLUTION
        int x = 1;
        // END SOLUTION
        """)
    assert make_stubs.stub_text(solution) == "def f():\n    return 0  # TODO\n"
    with pytest.raises(ValueError, match="missing END SOLUTION"):
        make_stubs.stub_text("# BEGIN SOLUTION\nx = 1\n")
    with pytest.raises(ValueError, match=r"<solution>:1: found 'END SOLUTION'"):
        make_stubs.stub_text("# END SOLUTION\n")


def test_previous_stage_precedes_the_exercise_stage_on_the_ladder():
    from polymask.course import stages

    order = stages.ids()
    for exercise in checker.EXERCISES:
        if exercise.previous is not None:
            assert order.index(exercise.previous) < order.index(exercise.stage), exercise.folder


# ---- stubs fail helpfully, solutions pass ----------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_stub_fails_with_a_helpful_message(exercise):
    result = checker.check(exercise.number, _stub(exercise), timing=False)
    assert not result.passed
    assert result.status == "wrong", f"the stub must build and run, then be wrong:\n{result}"
    assert result.exit_code == 1
    report = str(result)
    assert report.startswith(f"FAIL exercise {exercise.folder}")
    for expected in STUB_DIAGNOSIS[exercise.number]:
        assert expected in report, f"{expected!r} missing from:\n{report}"


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_solution_copied_over_the_stub_passes(exercise, tmp_path):
    learner_file = tmp_path / exercise.folder / exercise.filename
    learner_file.parent.mkdir()
    shutil.copyfile(_solution(exercise), learner_file)
    result = checker.check(exercise.number, learner_file, time_size=64, repeats=1)
    if result.status == "inconclusive":  # 06 on a machine too busy to see two threads go faster
        assert exercise.number == "06" and "too busy to tell" in str(result), str(result)
        return
    assert result.passed, str(result)
    assert result.exit_code == 0 and bool(result)
    assert result.seconds > 0 and result.time_shape == (64, 64)
    compared = exercise.previous or exercise.stage
    assert result.previous_stage == compared
    assert result.previous_seconds > 0, str(result)
    assert f"speed-up over {compared}: " in str(result)
    assert "scaled down from 1024x1024" in str(result)  # 64 is not the standard size: labelled


# ---- wrong answers get the right diagnosis ----------------------------------------------


def _learner_file(tmp_path, text, name="mask.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_off_by_one_comparison_is_shown_as_extra_and_missing_pixels_with_a_picture(tmp_path):
    wrong = SOLUTION.read_text().replace("if px < x_cross:", "if px <= x_cross:")
    result = checker.check("01", _learner_file(tmp_path, wrong), timing=False)
    assert result.status == "wrong"
    first = result.failures[0]
    # `<=` counts both vertical edges of the square one column early: the
    # left column (x = 2) drops out, the column on the right edge (x = 20) comes in.
    assert (first["case"], first["kind"], first["extra"], first["missing"]) == ("square", "wrong", 18, 18)
    report = str(result)
    assert "36 pixels differ from polymask.mask -- 18 extra (+), 18 missing (-)" in report
    assert "legend:" in report
    assert "     2 ..-#################+.." in report


def test_exception_names_the_case_and_the_learners_line(tmp_path):
    path = _learner_file(tmp_path, """\
        def mask(vertices, shape):
            raise ZeroDivisionError("float division by zero")
        """)
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong"
    assert "case 'square'" in str(result) and "your mask() raised" in str(result)
    assert "ZeroDivisionError: float division by zero" in str(result)
    assert f'File "{path}", line 2, in mask' in str(result)


@pytest.mark.parametrize("body, expected", [
    ("return np.zeros((shape[1], shape[0]), bool)",
     "returned an array of shape (29, 24); expected shape (24, 29)"),
    ("return np.zeros(shape, np.uint8)", "returned dtype uint8; expected dtype bool"),
    ("return [[False] * shape[1]] * shape[0]", "mask() returned list"),
])
def test_wrong_output_type_or_shape_is_named(tmp_path, body, expected):
    path = _learner_file(tmp_path, f"import numpy as np\ndef mask(vertices, shape):\n    {body}\n")
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong"
    assert expected in str(result), str(result)


def test_a_hang_is_stopped_and_reported(tmp_path):
    path = _learner_file(tmp_path, "def mask(vertices, shape):\n    while True:\n        pass\n")
    result = checker.check("08", path, timing=False, case_timeout=2)
    assert result.status == "wrong"
    assert "did not finish case 'square' within 2 s" in str(result)


def test_a_crash_is_reported_with_the_case(tmp_path):
    path = _learner_file(tmp_path, """\
        import ctypes
        def mask(vertices, shape):
            return ctypes.string_at(0)  # reads address 0: a segfault
        """)
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong"
    assert "crashed the Python process (signal SIGSEGV) during case 'square'" in str(result)


def test_a_missing_function_and_an_import_error_are_load_errors(tmp_path):
    result = checker.check("08", _learner_file(tmp_path, "def masc(vertices, shape):\n    pass\n"))
    assert result.status == "error" and result.exit_code == 2
    assert "defines no function mask(vertices, shape)" in str(result)
    result = checker.check("01", _learner_file(tmp_path, "x = (\n", name="broken.py"))
    assert result.status == "error" and "SyntaxError" in str(result)


def test_a_cython_error_is_shown_as_cythons_message_on_the_learners_file(tmp_path):
    path = _learner_file(tmp_path, "def mask(vertices, shape):\n    cdef int = 3\n", name="mask.pyx")
    result = checker.check("02", path)
    assert result.status == "error" and result.exit_code == 2
    report = str(result)
    assert "did not build" in report and "Cython could not compile your file" in report
    assert f"{path}:2:" in report
    assert "Traceback" not in report


def test_a_serial_loop_fails_the_prange_exercise(tmp_path):
    serial = _solution(checker.get_exercise("06")).read_text().replace(
        'prange(rows, nogil=True, num_threads=team, schedule="static")', "range(rows)")
    result = checker.check("06", _learner_file(tmp_path, serial, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the thread check"
    assert "right mask on all 34 cases, but it ran on 1 thread" in str(result)


def test_an_opencl_build_error_shows_the_build_log(tmp_path):
    path = _learner_file(tmp_path, "__kernel void mask_pixel(__global uchar *mask) { oops; }\n", name="mask.cl")
    result = checker.check("07", path)
    assert result.status == "error"
    assert "could not be loaded" in str(result) and "oops" in str(result)


def test_files_of_the_wrong_kind_or_missing_are_usage_errors(tmp_path):
    assert "expects a .pyx file" in str(checker.check("02", SOLUTION))
    assert checker.check("02", SOLUTION).exit_code == 2
    missing = checker.check("01", tmp_path / "nothing.py")
    assert missing.status == "error" and "there is no file" in str(missing)
    with pytest.raises(ValueError, match="unknown exercise '99'; choose one of: 01 .01_python."):
        checker.get_exercise("99")
    assert checker.get_exercise("1").folder == checker.get_exercise("01_python/").folder == "01_python"


def test_command_line_exit_codes(tmp_path, capsys):
    assert cli.main(["check", "01", str(SOLUTION), "--no-timing"]) == 0
    assert "PASS exercise 01_python" in capsys.readouterr().out
    assert cli.main(["check", "01", str(_stub(checker.get_exercise("01"))), "--no-timing"]) == 1
    assert "FAIL exercise 01_python" in capsys.readouterr().out
    assert cli.main(["check", "99", str(SOLUTION)]) == 2
    assert "unknown exercise" in capsys.readouterr().err


def test_difference_picture_marks_extra_and_missing_pixels():
    expected = np.zeros((4, 5), bool)
    expected[1:3, 1:3] = True
    got = expected.copy()
    got[1, 1] = False
    got[2, 3] = True
    assert checker.difference_picture(got, expected) == "\n".join([
        "rows 0..3, columns 0..4:",
        "     0 .....",
        "     1 .-#..",
        "     2 .##+.",
        "     3 .....",
    ])
    assert checker.difference_picture(expected, expected) == "(no difference)"


def test_the_core_headers_and_library_are_installed_for_learners():
    assert (Path(get_include()) / "polymask" / "core.hpp").is_file()
    assert any(Path(folder).glob("*polymask_core*") for folder in get_library_dirs())


def test_the_report_is_what_a_notebook_shows():
    result = checker.check("01", SOLUTION, timing=False)

    class Printer:
        text = ""

        def text_(self, value):
            Printer.text = value

    printer = Printer()
    printer.text = printer.text_
    result._repr_pretty_(printer, False)
    assert Printer.text == str(result) == repr(result)
    assert str(result).startswith(f"PASS exercise 01_python: {SOLUTION} gives the right mask on all 34 cases.\n"
                                  "  (random cases from seed ")


# ---- cheats and sloppy solutions: each gets a FAIL that names what is wrong ----------------


def _solution_text(number):
    return _solution(checker.get_exercise(number)).read_text()


def _with_prefix(text, prefix):
    """The 01 solution with `prefix` put at the top of mask() (after its docstring)."""
    marker = '    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""\n'
    assert marker in text
    return text.replace(marker, marker + textwrap.indent(textwrap.dedent(prefix), "    "))


def test_raising_only_at_timing_size_fails_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), 'if shape[0] == 80:\n    raise MemoryError("too big for me")\n')
    result = checker.check("01", _learner_file(tmp_path, text), time_size=80, repeats=1)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "failed during timing" in str(result) and "MemoryError: too big for me" in str(result)


def test_a_segfault_only_at_timing_size_fails_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), "if shape[0] == 80:\n    import ctypes; ctypes.string_at(0)\n")
    result = checker.check("01", _learner_file(tmp_path, text), time_size=80, repeats=1)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "crashed the Python process (signal SIGSEGV) during timing" in str(result)


def test_an_endless_loop_only_at_timing_size_is_stopped_in_the_timing_phase(tmp_path):
    text = _with_prefix(SOLUTION.read_text(), "while shape[0] == 80:\n    pass\n")
    lines = []
    result = checker.check("01", _learner_file(tmp_path, text), time_size=80, repeats=1, timing_timeout=1.5,
                           progress=lines.append)
    assert result.status == "wrong" and result.phase == "timing", str(result)
    assert "did not finish timing within 1.5 s, its time limit" in str(result)
    assert "timing 1.5 s per repeat" in lines[0] and "  timing ..." in lines


def test_replacing_the_reference_is_refused_before_running(tmp_path):
    path = _learner_file(tmp_path, """\
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
    path = _learner_file(tmp_path, """\
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
        path = _learner_file(tmp_path, f"""\
            import json, os, sys
            print('{fake}')
            print(json.dumps({{"event": "cases", "count": 24, "failures": []}}), flush=True)
            {exit_call}
            """)
        result = checker.check("01", path)
        assert result.status == "wrong" and result.phase == "loading your file", str(result)
        assert expected in str(result)


def test_calling_polymask_is_refused_with_the_reason(tmp_path):
    path = _learner_file(tmp_path, """\
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
    hidden = _learner_file(tmp_path, """\
        import importlib
        def point_inside(polygon, px, py):
            return False
        def mask(vertices, shape):
            return getattr(importlib.import_module("poly" + "mask"), "ma" + "sk")(vertices, shape)
        """, name="hidden.py")
    result = checker.check("01", hidden, timing=False)
    assert result.status == "wrong" and "used polymask's own code" in str(result)
    through_stages = _learner_file(tmp_path, hidden.read_text().replace(
        'getattr(importlib.import_module("poly" + "mask"), "ma" + "sk")',
        'importlib.import_module("poly" + "mask").stages.get("scanline").load()'), name="stages.py")
    result = checker.check("01", through_stages, timing=False)
    assert result.status == "wrong" and "used polymask's own code" in str(result)


def test_get_include_stays_allowed():
    assert checker.source.borrowed_answer("import polymask\nprint(polymask.get_include())\n", "py") is None
    assert checker.source.borrowed_answer("from polymask import get_include, get_library_dirs\n", "py") is None
    assert checker.source.borrowed_answer("from polymask.core cimport Polygon\n", "pyx") is None


def test_untyped_loops_fail_exercise_03_naming_the_yellow_lines(tmp_path):
    untyped = _solution_text("03").replace(
        "    cdef Py_ssize_t rows = shape[0], cols = shape[1]\n    cdef Py_ssize_t row, col\n",
        "    rows, cols = shape\n")
    assert untyped != _solution_text("03")
    result = checker.check("03", _learner_file(tmp_path, untyped, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the annotation check", str(result)
    report = str(result)
    assert "its loops still call into Python" in report
    assert "for row in range(rows):" in report and "out[row, col] = point_inside(vertices, col, row)" in report


def test_a_prange_only_in_a_comment_fails_exercise_06(tmp_path):
    text_only = _solution_text("06").replace(
        'for row in prange(rows, nogil=True, num_threads=team, schedule="static"):',
        "for row in range(rows):  # omp parallel for: prange(rows, nogil=True)")
    result = checker.check("06", _learner_file(tmp_path, text_only, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and "it ran on 1 thread" in str(result), str(result)


def test_num_threads_1_fails_exercise_06(tmp_path):
    one = _solution_text("06").replace("num_threads=team", "num_threads=1")
    result = checker.check("06", _learner_file(tmp_path, one, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and "it ran on 1 thread" in str(result), str(result)


def test_a_leaking_polygon_fails_exercise_05(tmp_path):
    leaking = _solution_text("05").replace("        del self.polygon\n", "        pass\n")
    result = checker.check("05", _learner_file(tmp_path, leaking, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the memory check", str(result)
    assert "Polygon leaks its C++ polygon" in str(result) and "del self.polygon" in str(result)


def test_a_file_of_another_exercise_fails(tmp_path):
    result = checker.check("05", _solution(checker.get_exercise("03")))
    assert result.status == "wrong"
    assert "it has no `cdef class Polygon` (it looks like exercise 03's file" in str(result)
    result = checker.check("06", _solution(checker.get_exercise("05")), timing=False)
    assert result.status == "wrong" and "mask(vertices, shape, threads) is expected" in str(result)
    result = checker.check("01", _solution(checker.get_exercise("08")), timing=False)
    assert result.status == "wrong" and "no function point_inside(polygon, px, py)" in str(result)


def test_the_08_test_set_reaches_1e300(tmp_path):
    overflowing = _solution_text("08").replace(
        "np.clip(np.sort(np.ceil(x_cross)), 0, cols).astype(np.int64)",
        "np.clip(np.sort(np.ceil(x_cross)).astype(np.int64), 0, cols)")
    result = checker.check("08", _learner_file(tmp_path, overflowing), timing=False)
    assert result.status == "wrong", str(result)
    assert "case 'extreme_x_1e300'" in str(result)
    assert max(abs(case.vertices).max() for case in checker.exercises.checker_cases() if case.vertices.size) == 1e300


# ---- hygiene: process groups, arguments, progress ------------------------------------------------


def _alive(pid):
    """True while process `pid` runs (a zombie does not count)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# A grandchild that leaves the process group and session (setsid), started through libc
# (the worker refuses Python's own ways of starting a process), records its pid and sleeps.
_SPAWNER = """\
    import ctypes, os, time
    libc = ctypes.CDLL(None)
    child = libc.fork()
    if child == 0:
        libc.setsid()
        if libc.fork() == 0:
            open({record!r}, "w").write(str(os.getpid()))
            libc.sleep(600)
        libc._exit(0)
    os.waitpid(child, 0)
    while not os.path.exists({record!r}):
        time.sleep(0.01)
    def mask(vertices, shape):
        while True:
            pass
    """


def _recorded_pid(record):
    import time

    for _ in range(200):
        if record.exists() and record.read_text():
            return int(record.read_text())
        time.sleep(0.01)
    raise AssertionError("the learner's grandchild never recorded its pid")


def test_nothing_survives_a_timeout(tmp_path):
    record = tmp_path / "pgid"
    path = _learner_file(tmp_path, _SPAWNER.format(record=str(record)))
    result = checker.check("08", path, case_timeout=1)
    assert "did not finish case 'square' within 1 s" in str(result)
    assert not _alive(_recorded_pid(record))


def test_nothing_survives_a_passing_check(tmp_path):
    record = tmp_path / "pgid"
    spawner = textwrap.dedent(_SPAWNER.format(record=str(record))).split("def mask")[0]
    path = _learner_file(tmp_path, spawner + _solution_text("08"))
    result = checker.check("08", path, timing=False)
    assert result.passed, str(result)
    assert not _alive(_recorded_pid(record))


def test_nothing_survives_an_interrupt(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    record = tmp_path / "pgid"
    path = _learner_file(tmp_path, _SPAWNER.format(record=str(record)))
    command = f"from polymask.course.checker import check; check('08', {str(path)!r})"
    checking = subprocess.Popen([sys.executable, "-c", command],
                                stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not record.exists() or not record.read_text():
        assert time.monotonic() < deadline and checking.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    checking.send_signal(signal.SIGINT)  # what a Jupyter interrupt sends
    checking.wait(timeout=30)
    assert b"KeyboardInterrupt" in checking.stderr.read()
    time.sleep(0.2)
    assert not _alive(_recorded_pid(record))


@pytest.mark.parametrize("arguments", [["--size", "0"], ["--repeats", "0"], ["--time-size", "-3"],
                                       ["--case-timeout", "0"]])
def test_argument_errors_exit_2_before_anything_runs(tmp_path, arguments):
    import subprocess
    import sys

    marker = tmp_path / "ran"
    path = _learner_file(tmp_path, f"open({str(marker)!r}, 'w')\ndef mask(vertices, shape):\n    pass\n")
    command_line = "import sys; from polymask.cli import main; sys.exit(main(sys.argv[1:]))"
    completed = subprocess.run([sys.executable, "-c", command_line, "check", "01", str(path), *arguments],
                               capture_output=True, text=True)
    assert completed.returncode == 2, completed.stderr
    assert "expected a" in completed.stderr and not marker.exists()
    with pytest.raises(ValueError, match="must be a"):
        checker.check("01", path, **{"size": 0} if "--size" in arguments else {"repeats": 0})
    assert not marker.exists()


def test_limits_are_stated_up_front_and_timing_shows_progress(tmp_path):
    lines = []
    result = checker.check("08", _solution(checker.get_exercise("08")), time_size=32, repeats=2,
                           progress=lines.append)
    assert result.passed, str(result)
    assert "time limits: loading 120 s, each case 30 s" in lines[0]
    assert "  timing, repeat 2 of 2 ..." in lines
    assert len(result.repeat_seconds) == 2 and "(min / median / max)" in str(result)


# ---- hints ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_every_readme_has_graded_hints(exercise):
    hints = checker.exercises.readme_hints((EXERCISES_DIR / exercise.folder / "README.md").read_text())
    assert len(hints) >= 2, f"{exercise.folder}/README.md needs a '## Hints' section with '### Hint N' blocks"


def test_hint_prints_the_next_hint_each_time(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POLYMASK_HINT_STATE", str(tmp_path / "hints.json"))
    monkeypatch.chdir(ROOT)
    hints = checker.exercises.readme_hints((EXERCISES_DIR / "04_wrap_cpp" / "README.md").read_text())
    for number in range(1, len(hints) + 2):
        assert cli.main(["check", "04", "--hint"]) == 0
        shown = min(number, len(hints))
        out = capsys.readouterr().out
        assert out.startswith(f"Hint {shown} of {len(hints)} for exercise 04_wrap_cpp") and hints[shown - 1] in out
    assert "the answer is in exercises/solutions/04_wrap_cpp/" in out
    assert cli.main(["check", "04", "--hint", "1"]) == 0 and hints[0] in capsys.readouterr().out


def test_hints_are_remembered_per_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POLYMASK_HINT_STATE", str(tmp_path / "hints.json"))
    readme = EXERCISES_DIR / "04_wrap_cpp" / "README.md"
    clones = []
    for name in ("first", "second"):
        folder = tmp_path / name / "exercises" / "04_wrap_cpp"
        folder.mkdir(parents=True)
        shutil.copyfile(readme, folder / "README.md")
        clones.append(folder / "mask.pyx")
    assert checker.hint("04", near=str(clones[0])).startswith("Hint 1 of")
    assert checker.hint("04", near=str(clones[0])).startswith("Hint 2 of")
    assert checker.hint("04", near=str(clones[1])).startswith("Hint 1 of")  # another checkout starts over


def test_the_04_and_06_readmes_do_not_give_the_code_away():
    for folder, code in (("04_wrap_cpp", "polygon.get().contains(col, row, FillRule.even_odd)"),
                         ("06_prange", 'prange(rows, nogil=True, num_threads=team, schedule="static")')):
        readme = (EXERCISES_DIR / folder / "README.md").read_text()
        before_hints = readme.split("## Hints")[0]
        assert code not in before_hints, f"{folder}/README.md gives the answer before the hints"
