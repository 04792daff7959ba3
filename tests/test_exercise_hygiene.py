"""The checker's hygiene: no process it starts outlives a timeout, a pass or an
interrupt; bad arguments exit 2 before anything runs; limits are stated up
front and timing shows progress.
"""
import textwrap
from pathlib import Path

import pytest

from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import learner_file, solution_path, solution_text

# The shared fixtures, bound here so that pytest finds them.
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


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
    path = learner_file(tmp_path, _SPAWNER.format(record=str(record)))
    result = checker.check("08", path, case_timeout=1)
    assert "did not finish case 'square' within 1 s" in str(result)
    assert not _alive(_recorded_pid(record))


def test_nothing_survives_a_passing_check(tmp_path):
    record = tmp_path / "pgid"
    spawner = textwrap.dedent(_SPAWNER.format(record=str(record))).split("def mask")[0]
    path = learner_file(tmp_path, spawner + solution_text("08"))
    result = checker.check("08", path, timing=False)
    assert result.passed, str(result)
    assert not _alive(_recorded_pid(record))


def test_nothing_survives_an_interrupt(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    record = tmp_path / "pgid"
    path = learner_file(tmp_path, _SPAWNER.format(record=str(record)))
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
    path = learner_file(tmp_path, f"open({str(marker)!r}, 'w')\ndef mask(vertices, shape):\n    pass\n")
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
    result = checker.check("08", solution_path(checker.get_exercise("08")), time_size=32, repeats=2,
                           progress=lines.append)
    assert result.passed, str(result)
    assert "time limits: loading 120 s, each case 30 s" in lines[0]
    assert "  timing, repeat 2 of 2 ..." in lines
    assert len(result.repeat_seconds) == 2 and "(min / median / max)" in str(result)
