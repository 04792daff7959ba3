"""Exercise 06d, the build: the learner's setup.py is run on the handed-out mask.pyx in the
sandbox, and the module it made is judged by what it is (C++, OpenMP compiled and linked,
optimised, no fast-math) and by what it does (exercise 06's cases and thread check).

The stub (setuptools' defaults: C, no OpenMP) and the official solution are checked in
test_exercises.py; here each missing piece of the build fails by name, a build that breaks
or makes nothing is an error, and the checker reads the build from the module, not from
what setup.py says.
"""

import pytest

from polymask.course import checker
from polymask.course.checker import learner_build, sandbox
from tests import _exercise_support
from tests._exercise_support import EXERCISES_DIR, learner_file, solution_text

build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

SOLUTION_FLAGS = """\
    extra_compile_args=["-std=c++17", *OPTIMISE, *OPENMP],
    extra_link_args=OPENMP,
"""


def _setup(tmp_path, compile_args, link_args, language='"c++"'):
    """The official setup.py with its extension's language and flags replaced."""
    text = solution_text("06d")
    assert SOLUTION_FLAGS in text and 'language="c++",' in text
    text = text.replace(SOLUTION_FLAGS, f"    extra_compile_args={compile_args},\n    extra_link_args={link_args},\n")
    text = text.replace('language="c++",', f"language={language},")
    folder = tmp_path / "06d_build"
    folder.mkdir()
    return learner_file(folder, text, name="setup.py")


def test_the_handed_out_module_is_the_one_the_checker_builds():
    assert (EXERCISES_DIR / "06d_build" / "mask.pyx").read_text() == learner_build.HANDOUT.read_text()


def test_the_build_report_is_read_from_the_files_bytes(tmp_path):
    module = tmp_path / "mask.so"
    module.write_bytes(b"\x7fELF...\x00polymask-build-report: language=C++ openmp=yes optimized=no fast-math=no\x00")
    assert learner_build.build_report(module) == {
        "language": "C++",
        "openmp": "yes",
        "optimized": "no",
        "fast-math": "no",
    }
    module.write_bytes(b"\x7fELF no report here\x00")
    assert learner_build.build_report(module) is None


@pytest.mark.parametrize(
    ("compile_args", "link_args", "expected"),
    [
        ('["-O2"]', "[]", "compiled mask.pyx without OpenMP (the compiler did not define _OPENMP)"),
        ('["-O2", "-fopenmp"]', "[]", "did not link the OpenMP runtime"),
        ('["-O0", "-fopenmp"]', '["-fopenmp"]', "without optimisation (the compiler did not define __OPTIMIZE__"),
        ('["-O3", "-ffast-math", "-fopenmp"]', '["-fopenmp"]', "compiled mask.pyx with fast-math"),
    ],
    ids=["no-openmp", "openmp-not-linked", "O0", "fast-math"],
)
def test_each_missing_piece_of_the_build_fails_by_name(tmp_path, compile_args, link_args, expected):
    result = checker.check("06d", _setup(tmp_path, compile_args, link_args), timing=False)
    assert result.status == "wrong" and result.exit_code == 1, str(result)
    assert expected in str(result)


def test_the_module_is_judged_by_what_was_built_not_by_what_setup_says(tmp_path):
    # The language named as C++ in a comment and a variable, but never given to the Extension.
    path = _setup(tmp_path, '["-O2", "-fopenmp"]', '["-fopenmp"]', language="None")
    path.write_text('LANGUAGE = "c++"  # language="c++"\n' + path.read_text())
    result = checker.check("06d", path, timing=False)
    assert result.status == "wrong" and "built mask.pyx as C" in str(result), str(result)


def test_a_build_that_breaks_is_an_error_with_the_compilers_words(tmp_path):
    path = _setup(tmp_path, '["-fopenmp", "-fno-such-flag-anywhere"]', '["-fopenmp"]')
    result = checker.check("06d", path, timing=False)
    assert result.status == "error" and result.exit_code == 2, str(result)
    assert "did not build mask.pyx" in str(result) and "-fno-such-flag-anywhere" in str(result)


def test_a_build_that_makes_no_module_is_an_error(tmp_path):
    folder = tmp_path / "06d_build"
    folder.mkdir()
    path = learner_file(folder, 'print("nothing to build")\n', name="setup.py")
    result = checker.check("06d", path, timing=False)
    assert result.status == "error", str(result)
    assert "made no extension module named 'mask'" in str(result)


def test_the_build_runs_without_polymasks_files_where_the_sandbox_hides_them(tmp_path):
    folder = tmp_path / "06d_build"
    folder.mkdir()
    # The name is assembled so that the source check (borrowed answers) lets the file be run.
    path = learner_file(folder, 'import importlib\nimportlib.import_module("poly" + "mask._core")\n', name="setup.py")
    result = checker.check("06d", path, timing=False)
    assert result.status == "error", str(result)
    if sandbox.current().hides:
        assert "polymask is not available to code being checked" in str(result), str(result)
    else:  # no mount namespace here: the import works, and the build makes nothing
        assert "made no extension module named 'mask'" in str(result), str(result)


def test_a_build_that_prints_without_end_fills_no_memory_in_the_checker(tmp_path):
    import resource

    folder = tmp_path / "06d_build"
    folder.mkdir()
    noisy = (
        "import sys\n"
        "chunk = 'x' * (1 << 20) + '\\n'\n"
        "for _ in range(400):\n"
        "    sys.stdout.write(chunk)\n"
        "for line in range(40):\n"
        "    print('short line', line)\n"
        "raise SystemExit('the end of a long build')\n"
    )
    path = learner_file(folder, noisy, name="setup.py")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    result = checker.check("06d", path, timing=False)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert result.status == "error" and "the end of a long build" in str(result), str(result)[-2000:]
    assert grown < 100 * 1024, f"the checker's peak memory grew {grown / 1024:.0f} MiB for 400 MiB of output"
