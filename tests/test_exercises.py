"""The exercises: every exercise has a README, a stub and a solution, the stubs are
generated from the solutions, every stub fails with a helpful message, every
solution passes (copied over its stub, Exercism-style), and the READMEs give
graded hints without giving the code away.

How the checker diagnoses wrong answers is test_exercise_diagnosis.py; the
cheats and sloppy solutions it fails, test_exercise_cheats.py; its process
hygiene and arguments, test_exercise_hygiene.py.  Each .pyx is compiled once
per test session (tests/_exercise_support.py).
"""

import importlib.util
import shutil
import textwrap

import pytest

from polymask import cli
from polymask.course import checker
from tests import _exercise_support
from tests._exercise_support import EXERCISES_DIR, ROOT, solution_path, stub_path

# The shared fixtures, bound here so that pytest finds them.
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


#: What each stub's failure must say: the learner's next step is in it.
STUB_DIAGNOSIS = {
    "01": ["NotImplementedError: write mask: point_inside for every pixel", "exercises/01_python/mask.py"],
    "01b": ["case 'square'", "324 missing (-)"],
    "02": ["NotImplementedError: write mask: point_inside for every pixel", "exercises/02_compile/mask.pyx"],
    "03": ["NotImplementedError: write mask: a typed loop over the pixels that calls point_inside"],
    "04": ["case 'square'", "324 missing (-)"],
    "05": ["RuntimeError: Polygon has no C++ polygon: __cinit__ must set self.polygon"],
    "06": ["case 'square'", "324 missing (-)"],
    "06b": ["case 'square'", "324 missing (-)"],
    "06d": ["built mask.pyx as C (the compiler did not define __cplusplus)", "ask the Extension for C++"],
    "06c": ["count_inside is not exact at threads=2: 20 of 20 counts", "wrong (one said 0 where"],
    "07": ["the kernel left 576 of 576 pixels unwritten"],
    "08": ["NotImplementedError: write mask: the scanline fill, a row at a time"],
}


def _skip_without_its_library(exercise):
    """06b needs Numba (in the test extras): without it, its checks are skipped, not failed."""
    if exercise.stage == "numba":
        pytest.importorskip("numba")


def _make_stubs():
    spec = importlib.util.spec_from_file_location("make_stubs", EXERCISES_DIR / "make_stubs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the exercise tree ----------------------------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_every_exercise_has_readme_stub_and_solution(exercise):
    readme = (EXERCISES_DIR / exercise.folder / "README.md").read_text()
    for heading in ("## Goal", "## Procedure", "## Expected output"):
        assert heading in readme, f"{exercise.folder}/README.md lacks {heading!r}"
    assert f"polymask check {exercise.number} exercises/{exercise.folder}/{exercise.filename}" in readme
    assert stub_path(exercise).is_file() and solution_path(exercise).is_file()
    assert "TODO" in stub_path(exercise).read_text()


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
    from polymask.course import stages

    order = stages.ids()
    for exercise in checker.EXERCISES:
        if exercise.previous is not None:
            assert order.index(exercise.previous) < order.index(exercise.stage), exercise.folder


# ---- stubs fail helpfully, solutions pass ----------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_stub_fails_with_a_helpful_message(exercise):
    _skip_without_its_library(exercise)
    result = checker.check(exercise.number, stub_path(exercise), timing=False)
    assert not result.passed
    assert result.status == "wrong", f"the stub must build and run, then be wrong:\n{result}"
    assert result.exit_code == 1
    report = str(result)
    assert report.startswith(f"FAIL exercise {exercise.folder}")
    for expected in STUB_DIAGNOSIS[exercise.number]:
        assert expected in report, f"{expected!r} missing from:\n{report}"


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_solution_copied_over_the_stub_passes(exercise, tmp_path):
    _skip_without_its_library(exercise)
    learner_file = tmp_path / exercise.folder / exercise.filename
    learner_file.parent.mkdir()
    shutil.copyfile(solution_path(exercise), learner_file)
    result = checker.check(exercise.number, learner_file, time_size=64, repeats=1)
    if result.status == "inconclusive":  # 06, 06b on a machine too busy to see two threads go faster
        assert exercise.number in ("06", "06b", "06d") and "too busy to tell" in str(result), str(result)
        return
    assert result.passed, str(result)
    assert result.exit_code == 0 and bool(result)
    assert result.seconds > 0 and result.time_shape == (64, 64)
    compared = exercise.previous or exercise.stage
    assert result.previous_stage == compared
    assert result.previous_seconds > 0, str(result)
    assert f"speed-up over {compared}: " in str(result)
    assert "scaled down from 1024x1024" in str(result)  # 64 is not the standard size: labelled


# ---- hints ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_every_readme_has_graded_hints(exercise):
    hints = checker.exercises.readme_hints((EXERCISES_DIR / exercise.folder / "README.md").read_text())
    assert len(hints) >= 2, f"{exercise.folder}/README.md needs a '## Hints' section with '### Hint N' blocks"


def test_hint_prints_the_next_hint_each_time(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POLYMASK_HINT_STATE", str(tmp_path / "hints.json"))
    monkeypatch.chdir(ROOT)
    hints = checker.exercises.readme_hints((EXERCISES_DIR / "04_wrap_cpp" / "README.md").read_text())
    for number in range(1, len(hints) + 2):
        assert cli.main(["check", "04", "--hint"]) == 0
        shown = min(number, len(hints))
        out = capsys.readouterr().out
        assert out.startswith(f"Hint {shown} of {len(hints)} for exercise 04_wrap_cpp") and hints[shown - 1] in out
    assert "the answer is in exercises/solutions/04_wrap_cpp/" in out
    assert cli.main(["check", "04", "--hint", "1"]) == 0 and hints[0] in capsys.readouterr().out


def test_hints_are_remembered_per_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POLYMASK_HINT_STATE", str(tmp_path / "hints.json"))
    readme = EXERCISES_DIR / "04_wrap_cpp" / "README.md"
    clones = []
    for name in ("first", "second"):
        folder = tmp_path / name / "exercises" / "04_wrap_cpp"
        folder.mkdir(parents=True)
        shutil.copyfile(readme, folder / "README.md")
        clones.append(folder / "mask.pyx")
    assert checker.hint("04", near=str(clones[0])).startswith("Hint 1 of")
    assert checker.hint("04", near=str(clones[0])).startswith("Hint 2 of")
    assert checker.hint("04", near=str(clones[1])).startswith("Hint 1 of")  # another checkout starts over


def test_the_04_and_06_readmes_do_not_give_the_code_away():
    prange_call = next(
        line.split(" in ", 1)[1].rstrip(":").strip()
        for line in solution_path(checker.get_exercise("06")).read_text().splitlines()
        if line.strip().startswith("for row in prange(")
    )
    for folder, code in (
        ("04_wrap_cpp", "polygon.get().contains(col, row, FillRule.even_odd)"),
        ("06_prange", prange_call),
    ):
        readme = (EXERCISES_DIR / folder / "README.md").read_text()
        before_hints = readme.split("## Hints")[0]
        assert code not in before_hints, f"{folder}/README.md gives the answer before the hints"


#: The one line of a solution a README may show: the contract's crossing, which the learner
#: must compute in exactly this order to match the core bit for bit.
CONTRACT_LINES = {"x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi"}


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_no_readme_or_hint_spells_out_a_line_of_the_solution(exercise):
    import re

    def spaced(text):
        return re.sub(r"\s+", " ", text)

    comment = "//" if solution_path(exercise).suffix == ".cl" else "#"
    solution = solution_path(exercise).read_text()
    blocks = re.findall(rf"{comment} BEGIN SOLUTION\n(.*?){comment} (?:ELSE STUB|END SOLUTION)", solution, re.S)
    readme = spaced((EXERCISES_DIR / exercise.folder / "README.md").read_text())
    code_lines = {spaced(line.split(comment)[0].strip()) for block in blocks for line in block.splitlines()}
    given = [line for line in code_lines - CONTRACT_LINES if len(line) >= 12 and line in readme]
    assert blocks and not given, f"{exercise.folder}/README.md gives solution lines away: {given}"


def test_every_exercise_asks_for_a_dozen_lines_of_the_learners_own():
    """The stub leaves the rung's real code to the learner, not a blank in a finished file."""
    for exercise in checker.EXERCISES:
        solution = solution_path(exercise)
        comment = "//" if solution.suffix == ".cl" else "#"
        written, inside = 0, False
        for line in solution.read_text().splitlines():
            marker = line.strip()
            if marker in (f"{comment} BEGIN SOLUTION", f"{comment} ELSE STUB", f"{comment} END SOLUTION"):
                inside = marker == f"{comment} BEGIN SOLUTION"
            elif inside and marker and not marker.startswith(comment):
                written += 1
        assert written >= 12, f"{exercise.folder}: the learner writes only {written} lines"


@pytest.mark.parametrize("exercise", checker.EXERCISES, ids=lambda e: e.folder)
def test_every_readme_says_what_the_checker_runs(exercise):
    import re

    readme = (EXERCISES_DIR / exercise.folder / "README.md").read_text()
    assert re.search(r"^## What the checker (runs|checks)$", readme, re.MULTILINE), exercise.folder


def test_the_readme_sections_a_stub_points_at_exist():
    import re

    pointers = 0
    for exercise in checker.EXERCISES:
        text = stub_path(exercise).read_text()
        readme = (EXERCISES_DIR / exercise.folder / "README.md").read_text()
        for section in re.findall(r'README\.md,\s+section\s+"([^"]+)"', text):
            pointers += 1
            assert re.search(rf"^## {re.escape(section)}[ \t]*$", readme, re.MULTILINE), (exercise.folder, section)
    assert pointers >= 1


def test_the_readmes_show_what_the_checker_prints_now():
    import re

    from polymask.course.checker import judge
    from polymask.course.checker.exercises import checker_cases

    count = len(checker_cases(24)) + judge.RANDOM_CASES + 1  # named, random, one full-size
    readme = (EXERCISES_DIR / "01_python" / "README.md").read_text()
    lines = readme.splitlines()
    for verdict in ("FAIL", "PASS"):
        first = next(k for k, line in enumerate(lines) if line.startswith(f"{verdict} exercise 01_python"))
        assert lines[first + 1].startswith(("  (sandboxed: ", "  (NOT sandboxed: ")), lines[first + 1]
    assert f"wrong on {count} of {count} cases" in readme and f"on all {count} cases." in readme
    for exercise in checker.EXERCISES:
        text = (EXERCISES_DIR / exercise.folder / "README.md").read_text()
        assert all(int(n) == count for n in re.findall(r"gives the right mask on all (\d+) cases", text))
