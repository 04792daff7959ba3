"""Exercise 06b (Numba): a fill Numba does not split over threads fails the thread check, as 06's does.

Skipped where Numba is not installed (it is in the test extras).
"""
import pytest

from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import learner_file, solution_text

pytest.importorskip("numba")

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


def test_a_fill_compiled_without_parallel_fails_exercise_06b_on_a_quiet_machine(tmp_path, monkeypatch):
    from polymask.course.checker import technique

    monkeypatch.setattr(technique, "cpu_pressure", lambda: 0.0)  # no task waited for a CPU: a quiet machine
    serial = solution_text("06b").replace("@numba.njit(parallel=True,", "@numba.njit(parallel=False,")
    assert serial != solution_text("06b")
    result = checker.check("06b", learner_file(tmp_path, serial), timing=False)
    assert result.status == "wrong" and "it ran on 1 thread" in str(result), str(result)

