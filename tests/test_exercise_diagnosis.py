"""The checker's diagnosis of wrong answers: wrong pixels shown as a picture,
exceptions, hangs and crashes named with the case and the learner's line, load,
Cython and OpenCL build errors shown as their tools' messages, usage errors,
exit codes, and the report a notebook shows.
"""
from pathlib import Path

import numpy as np
import pytest

from polymask import cli
from polymask.course import checker
from polymask.course.build import get_include, get_library_dirs
from tests import _exercise_support
from tests._exercise_support import SOLUTION, learner_file, stub_path

# The shared fixtures, bound here so that pytest finds them.
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


# ---- wrong answers get the right diagnosis ----------------------------------------------


def test_off_by_one_comparison_is_shown_as_extra_and_missing_pixels_with_a_picture(tmp_path):
    wrong = SOLUTION.read_text().replace("if px < x_cross:", "if px <= x_cross:")
    result = checker.check("01", learner_file(tmp_path, wrong), timing=False)
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
    path = learner_file(tmp_path, """\
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
    path = learner_file(tmp_path, f"import numpy as np\ndef mask(vertices, shape):\n    {body}\n")
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong"
    assert expected in str(result), str(result)


def test_a_hang_is_stopped_and_reported(tmp_path):
    path = learner_file(tmp_path, "def mask(vertices, shape):\n    while True:\n        pass\n")
    result = checker.check("08", path, timing=False, case_timeout=2)
    assert result.status == "wrong"
    assert "did not finish case 'square' within 2 s" in str(result)


def test_a_crash_is_reported_with_the_case(tmp_path):
    path = learner_file(tmp_path, """\
        import ctypes
        def mask(vertices, shape):
            return ctypes.string_at(0)  # reads address 0: a segfault
        """)
    result = checker.check("08", path, timing=False)
    assert result.status == "wrong"
    assert "crashed the Python process (signal SIGSEGV) during case 'square'" in str(result)


def test_a_missing_function_and_an_import_error_are_load_errors(tmp_path):
    result = checker.check("08", learner_file(tmp_path, "def masc(vertices, shape):\n    pass\n"))
    assert result.status == "error" and result.exit_code == 2
    assert "defines no function mask(vertices, shape)" in str(result)
    result = checker.check("01", learner_file(tmp_path, "x = (\n", name="broken.py"))
    assert result.status == "error" and "SyntaxError" in str(result)


def test_a_cython_error_is_shown_as_cythons_message_on_the_learners_file(tmp_path):
    path = learner_file(tmp_path, "def mask(vertices, shape):\n    cdef int = 3\n", name="mask.pyx")
    result = checker.check("02", path)
    assert result.status == "error" and result.exit_code == 2
    report = str(result)
    assert "did not build" in report and "Cython could not compile your file" in report
    assert f"{path}:2:" in report
    assert "Traceback" not in report


def test_an_opencl_build_error_shows_the_build_log(tmp_path):
    path = learner_file(tmp_path, "__kernel void mask_pixel(__global uchar *mask) { oops; }\n", name="mask.cl")
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
    assert cli.main(["check", "01", str(stub_path(checker.get_exercise("01"))), "--no-timing"]) == 1
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
    from polymask.course.checker import sandbox

    assert str(result).startswith(f"PASS exercise 01_python: {SOLUTION} gives the right mask on all 34 cases.\n"
                                  f"  ({sandbox.current().describe()})\n  (random cases from seed ")
