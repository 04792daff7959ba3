"""What the exercise and checker test modules share: where the exercises live,
the stub and solution of each, a learner's file, and two autouse fixtures (one
build cache per test session, and no process outliving a test).

Each .pyx is compiled once per test session: every module that binds
build_cache gets the same folder under the session's temp root, so the build
cache lives there, shared.  A test module binds the fixtures by name
(``build_cache = _exercise_support.build_cache``) so that pytest finds them.
"""
import os
import textwrap
from pathlib import Path

import pytest

from polymask.course import checker
from polymask.course.build import CACHE_ENV

ROOT = Path(__file__).resolve().parents[1]
EXERCISES_DIR = ROOT / "exercises"
SOLUTION = EXERCISES_DIR / "solutions" / "01_python" / "mask.py"


@pytest.fixture(scope="session", autouse=True)
def build_cache(tmp_path_factory):
    """A fresh build cache per session: the builds are tested, not remembered from last time."""
    # One folder for every module that binds this fixture, so each .pyx builds once a session.
    folder = tmp_path_factory.getbasetemp() / "build-cache"
    folder.mkdir(exist_ok=True)
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


def stub_path(exercise):
    return EXERCISES_DIR / exercise.folder / exercise.filename


def solution_path(exercise):
    return EXERCISES_DIR / "solutions" / exercise.folder / exercise.filename


def learner_file(tmp_path, text, name="mask.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def solution_text(number):
    return solution_path(checker.get_exercise(number)).read_text()
