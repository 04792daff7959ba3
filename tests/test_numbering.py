"""One number names a lesson, its notebook, its exercise and its stages.

The registry (``polymask.course.stages.LESSONS`` and ``Stage.number``) is the one
source; these tests fail when a notebook, an exercise folder, the checker's
exercise table, a stage module's docstring or the course page's lesson table
says another number.
"""
import importlib
import re
from pathlib import Path

import pytest

from polymask import cli
from polymask.course import stages
from polymask.course.checker.exercises import EXERCISES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "polymask"


def test_every_stage_has_a_lesson_and_every_ladder_lesson_a_stage():
    numbers = {entry.number for entry in stages.LESSONS}
    assert [entry.number for entry in stages.LESSONS] == list(range(1, len(stages.LESSONS) + 1))
    for stage in stages.STAGES:
        assert stage.number in numbers, f"{stage.id} has number {stage.number}, not a lesson"
        assert stage.number != 9, f"{stage.id}: lesson 9 compares the stages the other lessons teach"
    for entry in stages.LESSONS[:-1]:
        assert entry.stages, f"lesson {entry.number} teaches no stage"


@pytest.mark.parametrize("entry", stages.LESSONS, ids=lambda entry: f"lesson-{entry.number}")
def test_the_notebook_has_the_lessons_number_and_title(entry):
    assert (ROOT / entry.notebook_path).is_file()
    source = ROOT / "notebooks" / "src" / Path(entry.notebook_path).with_suffix(".py").name
    heading = next(line for line in source.read_text(encoding="utf-8").splitlines() if line.startswith("# # "))
    assert heading == f"# # Lesson {entry.number} — {entry.title}"


@pytest.mark.parametrize("entry", stages.LESSONS, ids=lambda entry: f"lesson-{entry.number}")
def test_the_exercise_folder_and_the_checker_agree_with_the_registry(entry):
    rows = [exercise for exercise in EXERCISES if exercise.number.isdigit() and int(exercise.number) == entry.number]
    if entry.exercise_path is None:
        assert rows == []
        return
    (row,) = rows
    folder = Path(entry.exercise_path).name
    assert (row.number, row.folder) == (f"{entry.number:02d}", folder)
    assert stages.get(row.stage).number == entry.number, f"exercise {row.number} rebuilds {row.stage}"
    assert (ROOT / "exercises" / folder / row.filename).is_file()
    assert (ROOT / "exercises" / "solutions" / folder / row.filename).is_file()
    assert f"`{folder}`" in (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")


def test_an_exercise_beside_a_rung_sorts_after_its_lesson_and_is_listed():
    """01b, 06b: the lesson's number and a letter, in the lesson's range, listed in exercises/README.md."""
    readme = (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")
    beside = [exercise for exercise in EXERCISES if not exercise.number.isdigit()]
    assert beside
    for row in beside:
        lesson, letter = row.number[:2], row.number[2:]
        assert lesson.isdigit() and letter.isalpha() and row.folder.startswith(row.number + "_")
        assert stages.lesson(int(lesson)).exercise_path is not None, row.folder
        assert f"`{row.folder}`" in readme and row.command in readme
        assert (ROOT / "exercises" / "solutions" / row.folder / row.filename).is_file()


@pytest.mark.parametrize("stage", stages.STAGES, ids=lambda stage: stage.id)
def test_each_stage_module_names_its_lesson_first(stage):
    path = PACKAGE / stage.source
    assert path.is_file() and path.stem == stage.module
    text = path.read_text(encoding="utf-8")
    first_line = re.search(r'"""(.*)', text).group(1)
    expected = f"Side stage (lesson {stage.number}," if stage.side else f"Lesson {stage.number},"
    assert first_line.startswith(expected), f"{stage.source} starts {first_line!r}, expected {expected!r}"
    if path.suffix == ".py":
        assert importlib.import_module(f"polymask.course.stages.{stage.module}").__doc__.startswith(expected)


def test_lookup_by_number_finds_the_notebook_exercise_and_module():
    found = stages.lesson("04")
    assert found is stages.lesson(4)
    assert found.notebook_path == "notebooks/04_wrap_cpp.ipynb"
    assert found.exercise_path == "exercises/04_wrap_cpp/"
    assert [stage.id for stage in found.stages] == ["cython_cpp"]
    # The NumPy way is taught in lesson 1 (vectorise), Numba in lesson 6 (threads).
    assert [stage.id for stage in stages.lesson(1).stages] == ["python", "python_numpy", "numpy"]
    assert "numba" in [stage.id for stage in stages.lesson(6).stages]
    assert stages.lesson(9).stages == ()
    with pytest.raises(ValueError, match="unknown lesson 10; choose one of: 1, 2"):
        stages.lesson(10)


def test_the_course_page_lesson_table_is_the_registrys(capsys):
    assert cli.main(["lessons", "--markdown"]) == 0
    table = capsys.readouterr().out.strip()
    assert table == stages.lesson_table()
    course_page = (ROOT / "docs" / "course" / "index.md").read_text(encoding="utf-8")
    assert table in course_page, "regenerate it with `polymask lessons --markdown`"


def test_the_lesson_table_in_a_terminal_is_plain_text(capsys):
    assert cli.main(["lessons"]) == 0
    text = capsys.readouterr().out
    assert "|" not in text and "`" not in text, "no Markdown in a terminal"
    for entry in stages.LESSONS:
        assert entry.notebook_path in text and entry.title in text
        for stage in entry.stages:
            assert f"{stage.id} (src/polymask/{stage.source})" in text
    assert not [line for line in text.splitlines() if line.rstrip().endswith("stages:")], "a lesson with no stages"


def test_the_command_line_help_is_plain_text_and_python_m_polymask_runs_it():
    import subprocess
    import sys

    subcommands = [[], ["info"], ["lessons"], ["bench"], ["annotate"], ["check"]]
    for command in ([sys.executable, "-m", "polymask", *sub, "--help"] for sub in subcommands):
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "``" not in done.stdout and "usage: polymask" in done.stdout, (command, done.stdout)
    done = subprocess.run([sys.executable, "-m", "polymask.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "usage: polymask" in done.stdout
    done = subprocess.run([sys.executable, "-m", "polymask", "lessons", "7"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "notebooks/07_opencl.ipynb" in done.stdout


def test_one_lesson_from_the_command_line(capsys):
    assert cli.main(["lessons", "7"]) == 0
    text = capsys.readouterr().out
    assert "notebooks/07_opencl.ipynb" in text and "exercises/07_opencl/" in text
    assert "src/polymask/course/stages/opencl.py" in text
    assert cli.main(["lessons", "12"]) == 2
    assert "unknown lesson '12'" in capsys.readouterr().err


def test_one_lesson_lists_the_exercises_beside_its_rung(capsys):
    assert cli.main(["lessons", "6"]) == 0
    text = capsys.readouterr().out
    for folder, number in (("06_prange", "06"), ("06b_numba", "06b"), ("06c_reduction", "06c"), ("06d_build", "06d")):
        assert f"exercises/{folder}" in text and f"(polymask check {number} ...)" in text
    assert cli.main(["lessons", "1"]) == 0
    assert "exercises/01b_numpy/  (polymask check 01b ...)" in capsys.readouterr().out
