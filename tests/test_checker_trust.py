"""The checker is the judge: every dishonest submission in tests/dishonest/ fails.

One test per class of hole: forged replies, reading the answer, borrowed
answers, technique checks met without the technique, memoised timings,
limits the learner would control, processes that outlive the check, and
output that imitates the checker.  After every test, no process started
during it is still running (counted through /proc).
"""
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from polymask.course import checker
from polymask.course.checker import judge, runner, sandbox
from polymask.course.checker.exercises import checker_cases

ROOT = Path(__file__).resolve().parents[1]
DISHONEST = ROOT / "tests" / "dishonest"
SOLUTIONS = ROOT / "exercises" / "solutions"


def _running_descendants():
    return {pid for pid in runner.descendants({os.getpid()}) if _alive(pid)}


def _alive(pid):
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(autouse=True)
def nothing_outlives_the_test():
    before = _running_descendants()
    yield
    time.sleep(0.05)
    assert _running_descendants() - before == set()


def _copy(tmp_path, name, as_name=None):
    target = tmp_path / (as_name or name)
    shutil.copyfile(DISHONEST / name, target)
    return target


def _fails(result, *words):
    report = str(result)
    assert result.status == "wrong" and not result.passed, report
    assert not any(line.startswith("PASS") for line in report.splitlines()), report
    for word in words:
        assert word in report, f"{word!r} missing from:\n{report}"


# ---- forged or suppressed reports -----------------------------------------------------------


def test_a_forged_reply_on_the_private_channel_is_a_protocol_violation(tmp_path):
    _fails(checker.check("01", _copy(tmp_path, "forged_replies.py", "mask.py"), timing=False), "protocol")


def test_a_flood_on_the_private_channel_does_not_grow_the_checker(tmp_path):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    _fails(checker.check("01", _copy(tmp_path, "channel_flood.py", "mask.py"), timing=False), "protocol")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024  # KiB: under 200 MiB


@pytest.mark.wallclock
def test_a_learner_cannot_restart_the_case_clock_by_writing_on_the_channel(tmp_path):
    start = time.monotonic()
    result = checker.check("01", _copy(tmp_path, "slow_with_heartbeats.py", "mask.py"), case_timeout=3,
                           timing=False)
    _fails(result)
    assert "protocol" in str(result) or "within 3 s" in str(result)
    assert time.monotonic() - start < 30


# ---- reading the answer ------------------------------------------------------------------------


def test_a_reference_is_computed_only_after_its_answer_arrived(tmp_path, monkeypatch):
    order = []
    real_request, real_reference = runner.Worker.request, judge.reference

    def request(self, message, limit, phase):
        reply = real_request(self, message, limit, phase)
        order.append(("answer", message.get("op")))
        return reply

    def reference(vertices, shape):
        order.append(("reference", None))
        return real_reference(vertices, shape)

    monkeypatch.setattr(runner.Worker, "request", request)
    monkeypatch.setattr(judge, "reference", reference)
    result = checker.check("08", SOLUTIONS / "08_scanline" / "mask.py", time_size=32, repeats=1)
    assert result.passed, str(result)
    assert order[0] == ("answer", "load") and ("reference", None) in order
    # Every reference follows an answer: none is computed before the learner has answered.
    answers = 0
    for kind, _ in order:
        answers += kind == "answer"
        assert kind == "answer" or answers >= 2


# ---- borrowed answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("name, words", [
    ("stage_by_path.py", ["used polymask's own code (polymask/_core"]),
    ("core_by_ctypes.py", ["used polymask's own code (libpolymask_core"]),
    ("subprocess_polymask.py", ["started a process (subprocess.Popen)"]),
])
def test_borrowed_answers_are_refused_while_running(tmp_path, name, words):
    result = checker.check("01", _copy(tmp_path, name, "mask.py"), timing=False)
    if sandbox.current().hides and name != "subprocess_polymask.py":
        # In the worker's mount namespace the files are not there to be refused: the answer is just wrong.
        _fails(result, "polymask's own files hidden")
    else:
        _fails(result, *words)


def test_the_course_refuses_to_import_in_a_process_the_worker_started_natively(tmp_path):
    _fails(checker.check("01", _copy(tmp_path, "exec_polymask.py", "mask.py"), timing=False), "case 'square'")
    assert not (tmp_path / "polymask-ran").exists()  # the child's `import polymask.course.stages` was refused


def test_the_cores_finished_fill_is_not_handed_to_exercise_06(tmp_path):
    result = checker.check("06", _copy(tmp_path, "core_fill.pyx", "mask.pyx"), timing=False)
    assert result.status == "error" and not result.passed, str(result)
    assert "'polymask/core/fill_per_pixel.pxd' not found" in str(result)


@pytest.mark.parametrize("exercise, name, words", [
    ("07", "crossing_header.cl", 'includes "polymask/crossing.h"'),
    ("04", "absolute_include.pyx", "a file of polymask's that this exercise does not hand out"),
])
def test_polymask_headers_the_exercise_does_not_hand_out_are_refused(tmp_path, exercise, name, words):
    target = "mask.cl" if name.endswith(".cl") else "mask.pyx"
    _fails(checker.check(exercise, _copy(tmp_path, name, target), timing=False), "was not run", words)


def test_answers_pasted_into_the_file_fail_on_the_fresh_cases(tmp_path):
    import polymask

    answers = {case.vertices.tobytes().hex(): polymask.mask(case.vertices, case.shape).tolist()
               for case in checker_cases(24)}
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    result = checker.check("08", _copy(tmp_path, "fixed_answers.py", "mask.py"), timing=False)
    _fails(result, "case 'random_1'", "full_size_")
    assert "case 'square'" not in str(result)


def test_the_seed_replays_the_random_cases():
    first = judge.random_cases(np.random.default_rng(7), 24, 128)
    again = judge.random_cases(np.random.default_rng(7), 24, 128)
    assert all(np.array_equal(a.vertices, b.vertices) for a, b in zip(first, again))
    result = checker.check("08", SOLUTIONS / "08_scanline" / "mask.py", timing=False, seed=12345)
    assert result.passed and "--seed 12345 replays them" in str(result)


# ---- technique checks met without the technique ------------------------------------------------


def test_point_inside_itself_is_checked(tmp_path):
    _fails(checker.check("01", _copy(tmp_path, "wrong_point_inside.py", "mask.py"), timing=False),
           "point_inside(polygon, ")


def test_a_polygon_that_leaks_after_fifty_objects_fails_05(tmp_path):
    _fails(checker.check("05", _copy(tmp_path, "leak_after_50.pyx", "mask.pyx"), timing=False),
           "Polygon leaks its C++ polygon")


def test_per_pixel_python_without_a_loop_keyword_fails_03(tmp_path):
    _fails(checker.check("03", _copy(tmp_path, "frompyfunc.pyx", "mask.pyx"), timing=False), "frompyfunc")


def test_a_second_thread_that_only_burns_cpu_never_passes_06(tmp_path):
    result = checker.check("06", _copy(tmp_path, "busy_twin.pyx", "mask.pyx"), timing=False)
    assert not result.passed, str(result)
    assert result.status in ("wrong", "inconclusive") and result.phase == "the thread check", str(result)
    assert result.exit_code in (1, 3)


@pytest.mark.parametrize("shared_rounds, busy, verdict", [(1, False, "fail"), (1, True, "inconclusive"),
                                                          (4, True, "pass")])
def test_one_thread_doing_the_work_fails_06_only_on_a_quiet_machine(shared_rounds, busy, verdict):
    from polymask.course.checker.technique import Inconclusive, thread_verdict

    try:
        failure, _ = thread_verdict(0.5 if shared_rounds > 3 else 1.0, 0.5 if shared_rounds > 3 else 0.0,
                                    shared_rounds=shared_rounds, total_ratio=1.0, demand=1.9,
                                    baseline="cython_class", busy=busy)
    except Inconclusive:
        assert verdict == "inconclusive"
    else:
        assert ("fail" if failure else "pass") == verdict


@pytest.mark.parametrize("busiest, others, total_ratio, demand, verdict", [
    (0.53, 0.50, 1.0, 1.9, "pass"),          # the solution, rows shared, two cores
    (0.53, 0.50, 1.0, 1.8, "pass"),          # ... the same beside two spinning processes (CPU time, not wall)
    (0.86, 0.20, 1.0, 1.5, "inconclusive"),  # ... its second thread starved, so the first took its rows
    (1.00, 1.00, 2.0, 2.0, "fail"),          # a twin thread that burns CPU beside a serial loop
    (0.96, 0.45, 1.4, 1.9, "fail"),          # ... that got under half a core
    (0.50, 0.50, 1.0, 1.0, "fail"),          # rows shared, but the threads took turns (a lock held in the loop)
    (0.50, 0.50, 1.0, float("nan"), "pass"),  # no runqueue times on this kernel: shares decide
    (0.30, 0.30, 0.1, 1.9, "fail"),          # threads=2 a cheaper route (a serial scanline) than threads=1
    (0.95, 0.90, 1.0, 2.0, "fail"),          # a spinning second thread: CPU burnt beside the work
])
def test_the_06_verdict_comes_from_cpu_time(busiest, others, total_ratio, demand, verdict):
    from polymask.course.checker.technique import Inconclusive, thread_verdict

    def judged():
        try:
            failure, _ = thread_verdict(busiest, others, shared_rounds=4, total_ratio=total_ratio, demand=demand,
                                        baseline="cython_class")
        except Inconclusive:
            return "inconclusive"
        return "fail" if failure else "pass"

    assert judged() == verdict


# ---- timings ---------------------------------------------------------------------------------------


def test_answers_remembered_across_repeats_fail_timing(tmp_path):
    result = checker.check("01", _copy(tmp_path, "memo_by_size.py", "mask.py"), time_size=80, repeats=3)
    _fails(result, "wrong on a 80x80 timing problem")


def test_memoising_by_polygon_reports_an_honest_speed_up(tmp_path):
    result = checker.check("01", _copy(tmp_path, "memo_by_polygon.py", "mask.py"), time_size=48, repeats=3)
    assert result.passed, str(result)
    assert result.speedup < 3, str(result)  # fresh polygons each repeat: nothing to remember


# ---- limits the learner would control ----------------------------------------------------------------


def test_a_flood_of_output_is_kept_bounded_and_quoted_indented(tmp_path):
    result = checker.check("01", _copy(tmp_path, "noisy_crash.py", "mask.py"), timing=False)
    _fails(result, "crashed the Python process (exit 3)", "earlier bytes of output dropped",
           "output of your code (its last lines):", "  | PASS exercise 01_python: everything is right")
    assert len(str(result)) < 20_000


@pytest.mark.wallclock
def test_huge_and_padded_files_get_a_verdict_quickly(tmp_path):
    solution = (SOLUTIONS / "08_scanline" / "mask.py").read_text()
    padded = tmp_path / "mask.py"
    padded.write_text(solution + "\n" * 100_000)
    start = time.monotonic()
    assert checker.check("08", padded, timing=False).passed
    commented = tmp_path / "commented" / "mask.py"
    commented.parent.mkdir()
    commented.write_text(solution + "# a comment\n" * 500_000)
    _fails(checker.check("08", commented, timing=False), "over 256 KiB")
    huge = tmp_path / "huge" / "mask.py"
    huge.parent.mkdir()
    with open(huge, "wb") as handle:
        handle.truncate(2 * 2**30)  # 2 GiB, sparse
    _fails(checker.check("08", huge, timing=False), "over 256 KiB")
    assert time.monotonic() - start < 60


def test_a_symlink_to_a_file_without_py_is_checked(tmp_path):
    target = tmp_path / "solution_text"
    shutil.copyfile(SOLUTIONS / "08_scanline" / "mask.py", target)
    link = tmp_path / "mask.py"
    link.symlink_to(target)
    assert checker.check("08", link, timing=False).passed


def test_no_timing_still_checks_a_full_size_problem(tmp_path):
    text = (SOLUTIONS / "08_scanline" / "mask.py").read_text()
    marker = "def mask(vertices, shape):\n"
    assert marker in text
    small_only = text.replace(marker, marker + "    if shape[0] > 100:\n        return np.zeros(shape, bool)\n", 1)
    path = tmp_path / "mask.py"
    path.write_text(small_only if "import numpy as np" in small_only else "import numpy as np\n" + small_only)
    _fails(checker.check("08", path, timing=False), "full_size_1024x1024")


@pytest.mark.wallclock
def test_the_loop_scan_is_linear_in_a_long_line():
    # `\bfor\b.+\bin\b` backtracked from every `for` to the line's end: one
    # 32 KiB line of `for`s took 1.3 s, about 80 s at the 256 KiB file limit.
    from polymask.course.checker import source

    line = "for " * (250 * 1024 // 4)
    start = time.monotonic()
    assert source.hot_lines(f"def f():\n    {line}\n") == [2]  # it starts like a loop header
    assert time.monotonic() - start < 5
    assert source.hot_lines("y = [a for a in b]\nformat in x\n") == [1]


def test_point_inside_truth_is_computed_after_its_answer(tmp_path, monkeypatch):
    # Exercises 01 and 02 also ask point_inside at pixels chosen at run time;
    # the truth at those pixels came before the question was sent.
    order = []
    real_request, real_reference = runner.Worker.request, judge.reference

    def request(self, message, limit, phase):
        reply = real_request(self, message, limit, phase)
        order.append(message.get("op"))
        return reply

    def reference(vertices, shape):
        order.append("reference")
        return real_reference(vertices, shape)

    monkeypatch.setattr(runner.Worker, "request", request)
    monkeypatch.setattr(judge, "reference", reference)
    result = checker.check("01", SOLUTIONS / "01_python" / "mask.py", timing=False)
    assert "point_inside" in order, order
    after = order[order.index("point_inside") + 1:]
    following = len(after) if all(kind == "reference" for kind in after) else \
        next(k for k, kind in enumerate(after) if kind != "reference")
    assert following >= 6, order
    assert result.passed, str(result)
