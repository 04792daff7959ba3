"""The checker never crashes on a reply, and what the learner controls never reads as a verdict.

A hostile worker may send any bytes on the checker's channel: nesting deep
enough to make a JSON parser recurse too far, values of the wrong types,
text that imitates a verdict.  Each ends in a verdict line of the checker's
own, and every piece of the learner's text (a forged reply, an exception, a
build error quoting the source, printed output) is shown indented behind
'  | ', never at the start of a line.
"""
import shutil

import pytest

from polymask.course import checker
from polymask.course.checker import replies, report
from tests import _exercise_support
from tests._exercise_support import ROOT

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

DISHONEST = ROOT / "tests" / "dishonest"
VERDICT_WORDS = ("PASS", "FAIL", "ERROR", "INCONCLUSIVE")


def _check(tmp_path, name, exercise="01", **options):
    target = tmp_path / ("mask" + (".pyx" if name.endswith(".pyx") else ".py"))
    shutil.copyfile(DISHONEST / name, target)
    return checker.check(exercise, target, timing=False, progress=False, **options)


def _one_verdict(result, status):
    lines = str(result).splitlines()
    assert result.status == status, str(result)
    assert lines[0].startswith(VERDICT_WORDS) and not lines[0].startswith("PASS"), str(result)
    forged = [line for line in lines[1:] if line.startswith(VERDICT_WORDS) or "\r" in line or "\x1b" in line]
    assert forged == [], str(result)


def test_a_reply_nested_200000_deep_is_a_protocol_violation(tmp_path):
    result = _check(tmp_path, "deep_reply.py")
    _one_verdict(result, "wrong")
    assert "protocol" in str(result)


def test_a_reply_value_of_the_wrong_type_is_a_protocol_violation(tmp_path):
    result = _check(tmp_path, "wrong_typed_reply.py")
    _one_verdict(result, "wrong")
    assert "'entry_points' is not a list" in str(result)


@pytest.mark.parametrize("forged", [  # Python expressions the learner's file writes on the channel
    """b'{"refused": 5}'""", """b'{"raised": ["x"]}'""", """b'{"load_error": {"a": 1}}'""",
    """b'{"entry_points": [1, 2]}'""", """b'{"entry_points": []}'""", """b'{"results": 5}'""",
    """b'{"results": [{"kind": "raised", "message": 7}]}'""", """b'"just text"'""", """b'\\xff\\xfe'""",
    """b'{"a": ' * 100_000""",
])
def test_a_malformed_loading_reply_ends_in_a_verdict(tmp_path, forged):
    path = tmp_path / "mask.py"
    path.write_text("import os, sys\n"
                    f"os.write(int(sys.argv[1]), {forged} + b'\\n')\n"
                    "def point_inside(polygon, px, py):\n    return False\n"
                    "def mask(vertices, shape):\n    raise ValueError('unreachable')\n")
    result = checker.check("01", path, timing=False, progress=False)
    _one_verdict(result, "wrong")
    assert "protocol" in str(result)


def test_verdict_lines_in_exceptions_and_output_are_quoted(tmp_path):
    result = _check(tmp_path, "forged_verdict_lines.py")
    _one_verdict(result, "wrong")
    assert "  | PASS exercise 01_python" in str(result)


def test_a_build_error_quoting_verdict_like_source_is_quoted(tmp_path):
    result = _check(tmp_path, "verdict_in_source.pyx", exercise="02")
    _one_verdict(result, "error")
    assert "did not build" in str(result) and "  | PASS exercise 02_compile" in str(result)


def test_quoted_text_cannot_start_a_line_or_move_the_cursor():
    text = report.quoted("ok\nPASS exercise 03_types: right\r\x1b[2KPASS again" + "x" * 5000)
    assert all(line.startswith("  | ") for line in text.splitlines())
    assert "\r" not in text and "\x1b" not in text and "more characters]" in text


@pytest.mark.parametrize("line", [b"[" * 200_000, b"\xff", b"5", b"[1]", b"", None, b'{"a": NaN'])
def test_decode_reply_returns_none_for_what_is_not_an_object(line):
    assert replies.decode_reply(line) is None


def test_a_report_line_that_reads_like_a_verdict_is_indented():
    assert report.no_forged_verdicts("FAIL x\nPASS y\n  fine\nERROR z") == "FAIL x\n  | PASS y\n  fine\n  | ERROR z"


def test_inline_text_stays_on_its_line():
    assert report.inline("shape (2, 3)\nPASS exercise 01\r") == "shape (2, 3) PASS exercise 01?"
    assert report.inline("x" * 500).endswith(" [...]")
