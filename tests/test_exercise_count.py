"""Exercise 06c's count check: count_inside at threads=2 must be exact, run after run.

A total shared through a pointer loses additions when two threads update it
at once; a count of another type is refused with what was returned.
"""
from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import learner_file, solution_text

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

REDUCTION = """\
    cdef long long total = 0  # updated only with += in the loop: a reduction, one copy per thread
    for row in prange(rows, nogil=True, num_threads=team, schedule="dynamic"):
        for col in range(cols):
            if shared.contains(col, row, FillRule.even_odd):
                total += 1
    return total
"""


def _with(body):
    text = solution_text("06c")
    assert REDUCTION in text
    return text.replace(REDUCTION, body)


def test_a_total_shared_through_a_pointer_fails_the_count_check(tmp_path):
    # Each thread reads the shared total, tests its pixel, writes the total back: another thread's
    # additions in between are lost.
    racy = _with("""\
    cdef long long total = 0
    cdef long long *shared_total = &total  # every thread adds into the same memory
    cdef long long before
    for row in prange(rows, nogil=True, num_threads=team, schedule="static", chunksize=1):
        for col in range(cols):
            before = shared_total[0]
            shared_total[0] = before + shared.contains(col, row, FillRule.even_odd)
    return total
""")
    result = checker.check("06c", learner_file(tmp_path, racy, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the count check", str(result)
    assert "count_inside is not exact at threads=2" in str(result)
    assert "let each thread keep its own and combine them at the end" in str(result)


def test_a_count_that_is_not_an_int_is_refused_with_what_it_was(tmp_path):
    as_float = _with(REDUCTION.replace("    return total\n", "    return float(total)\n"))
    result = checker.check("06c", learner_file(tmp_path, as_float, name="mask.pyx"), timing=False)
    assert result.status == "wrong" and result.phase == "the count check", str(result)
    assert "count_inside failed at threads=2: TypeError: count_inside returned float" in str(result)


def test_the_reduction_passes_and_says_how_often_it_was_counted(tmp_path):
    path = learner_file(tmp_path, solution_text("06c"), name="mask.pyx")
    result = checker.check("06c", path, timing=False)
    assert result.passed, str(result)
    assert "and count_inside is exact in all 20 runs at threads=2" in str(result)
