"""The exercises and their checker: every stub fails with a helpful message,
every solution passes (copied over its stub, Exercism-style), the stubs are
generated from the solutions, and wrong answers get the right diagnosis.

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

from polymask import checker, cli
from polymask._build import CACHE_ENV, get_include, get_library_dirs

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
    from polymask import stages

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
    result = checker.check("01", path, timing=False)
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
    result = checker.check("01", path, timing=False)
    assert result.status == "wrong"
    assert expected in str(result), str(result)


def test_a_hang_is_stopped_and_reported(tmp_path):
    path = _learner_file(tmp_path, "def mask(vertices, shape):\n    while True:\n        pass\n")
    result = checker.check("01", path, timing=False, case_timeout=2)
    assert result.status == "wrong"
    assert "did not finish case 'square' within 2 s" in str(result)


def test_a_crash_is_reported_with_the_case(tmp_path):
    path = _learner_file(tmp_path, """\
        import ctypes
        def mask(vertices, shape):
            return ctypes.string_at(0)  # reads address 0: a segfault
        """)
    result = checker.check("01", path, timing=False)
    assert result.status == "wrong"
    assert "crashed the Python process (signal SIGSEGV) during case 'square'" in str(result)


def test_a_missing_function_and_an_import_error_are_load_errors(tmp_path):
    result = checker.check("01", _learner_file(tmp_path, "def masc(vertices, shape):\n    pass\n"))
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
    assert result.status == "wrong"
    assert "right mask on all 24 cases, but it runs on one thread" in str(result)


def test_an_opencl_build_error_shows_the_build_log(tmp_path):
    path = _learner_file(tmp_path, "__kernel void mask_pixel(__global uchar *mask) { oops; }\n", name="mask.cl")
    result = checker.check("07", path)
    assert result.status == "error"
    assert "could not be loaded" in str(result) and "oops" in str(result)


def test_files_of_the_wrong_kind_or_missing_are_usage_errors(tmp_path):
    assert "expects a .pyx file" in str(checker.check("02", SOLUTION))
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
    assert str(result) == f"PASS exercise 01_python: {SOLUTION} gives the right mask on all 24 cases."
