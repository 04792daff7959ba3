"""Exercise 01b's memory check: a right mask whose peak memory grows with rows x cols x N fails,
measured from outside the worker, even when the learner's code resets its own peak.

The check's image is made smaller here (its bound scales with it) so that the
hungry solutions below stay light on a shared machine.
"""
import pytest

from polymask.course import checker
from polymask.course.checker import technique_extra
from tests import _exercise_support
from tests._exercise_support import learner_file, solution_text

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

#: The whole image at once: every pixel against every edge in one rows x cols x N broadcast.
WHOLE_IMAGE = """\
import numpy as np


def mask(vertices, shape):
    rows, cols = shape
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    if len(vertices) == 0:
        return np.zeros(shape, dtype=bool)
    xi, yi = vertices[:, 0], vertices[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)
    py = np.arange(rows, dtype=np.float64)[:, None]
    px = np.arange(cols, dtype=np.float64)[None, :, None]
    with np.errstate(all="ignore"):
        crosses = (yi > py) != (yj > py)
        x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
        right = crosses[:, None, :] & (px < x_cross[:, None, :])
        inside = np.count_nonzero(right, axis=2) % 2 == 1
    # RESET
    return inside
"""

#: The same, then it sets the kernel's peak of its own process back before answering.
RESETS_ITS_PEAK = WHOLE_IMAGE.replace("    # RESET\n", """\
    del right
    try:  # a sandbox may refuse it; where it does not, the checker's own readings still count
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        pass
""")


@pytest.fixture
def smaller_memory_check(monkeypatch):
    """512x512 and 128 vertices: the whole-image broadcast takes 32 MiB a temporary, the bound 33.5 MiB."""
    monkeypatch.setattr(technique_extra, "MEMORY_SIDE", 512)
    monkeypatch.setattr(technique_extra, "MEMORY_VERTICES", 128)


@pytest.mark.parametrize("text", [WHOLE_IMAGE, RESETS_ITS_PEAK], ids=["whole_image", "resets_its_peak"])
def test_a_right_mask_that_broadcasts_the_whole_image_fails_the_memory_check(text, tmp_path, smaller_memory_check,
                                                                             monkeypatch):
    from polymask.course.checker import sandbox

    if text is RESETS_ITS_PEAK:  # unconfined, its reset works: only the checker's own readings see the peak
        monkeypatch.setattr(sandbox, "current", lambda: sandbox.Sandbox())
    result = checker.check("01b", learner_file(tmp_path, text), timing=False)
    assert result.status == "wrong" and result.phase == "the memory check", str(result)
    report = str(result)
    assert "gives the right mask on all" in report and "its memory is not bounded" in report
    assert "a 512x512 mask of 128 vertices grew the process by" in report
    assert "Work on a band of rows at a time" in report


def test_the_banded_solution_passes_and_reports_its_peak(tmp_path, smaller_memory_check):
    result = checker.check("01b", learner_file(tmp_path, solution_text("01b")), timing=False)
    assert result.passed, str(result)
    assert "MiB of extra memory at its peak on a 512x512 image of 128 vertices" in str(result)


def test_a_peak_that_cannot_be_reset_is_read_as_the_lifetime_peak():
    assert technique_extra.reset_peak(2**22 + 7) is False  # no such process: nothing reset
    assert technique_extra.status_bytes(2**22 + 7, "VmHWM") == 0


def test_exercises_are_found_by_number_with_a_letter():
    assert checker.get_exercise("01b").folder == "01b_numpy"
    assert checker.get_exercise("06b_numba").folder == "06b_numba"
    assert checker.get_exercise("1").folder == "01_python"  # a plain number still means the rung
    with pytest.raises(ValueError, match=r"01b \(01b_numpy\)"):
        checker.get_exercise("99")
