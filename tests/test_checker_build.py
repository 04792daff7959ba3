"""One fixed build, and scans that read what the compiler reads.

A learner's file may not change how it is built (`# distutils:` lines, Cython
directives beyond the harmless ones), and the source scans see through line
splices, comments and string literals.
"""
import shutil
from pathlib import Path

import pytest

from polymask.course import checker
from polymask.course.checker import source, tokens
from tests import _exercise_support

ROOT = Path(__file__).resolve().parents[1]
DISHONEST = ROOT / "tests" / "dishonest"
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test


def _copy(tmp_path, name, as_name):
    target = tmp_path / as_name
    shutil.copyfile(DISHONEST / name, target)
    return target


def _fails_unbuilt(result, *words):
    report = str(result)
    assert result.status == "wrong" and result.phase == "reading your file", report
    for word in words:
        assert word in report, f"{word!r} missing from:\n{report}"


def test_a_distutils_wrapper_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "the-wrapper-ran"
    path = tmp_path / "mask.pyx"
    path.write_text((DISHONEST / "distutils_wrapper.pyx").read_text().replace("MARKER", str(marker)))
    _fails_unbuilt(checker.check("02", path, timing=False), "line 1", "`# distutils:` lines are not allowed")
    assert not marker.exists()


def test_distutils_paths_to_the_core_are_refused(tmp_path):
    _fails_unbuilt(checker.check("03", _copy(tmp_path, "distutils_core.pyx", "mask.pyx"), timing=False),
                   "line 2", "fixed configuration")


@pytest.mark.parametrize("header, refused", [
    ("# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True", None),
    ("#cython: np_pythran=True", "np_pythran"),
    ("  #  Distutils : sources = ['evil.cpp']", "distutils"),
    ("# cython: language_level=3, include_path=/", "include_path"),
])
def test_only_harmless_cython_directives_are_allowed(header, refused):
    why = source.build_refusal(header + "\n\ndef mask(vertices, shape):\n    pass\n", "pyx")
    assert (why is None) if refused is None else (refused in why), why


def test_the_build_ignores_distutils_options_even_if_a_scan_missed_them(tmp_path):
    # Defence in depth: the build's own extension description wins over `# distutils:`.
    from polymask.course.build import build_cython

    marker = tmp_path / "the-wrapper-ran"
    text = (DISHONEST / "distutils_wrapper.pyx").read_text().replace("MARKER", str(marker))
    path = tmp_path / "wrapped.pyx"
    path.write_text(text)
    assert build_cython(path).ok
    assert not marker.exists()


def test_a_line_splice_does_not_hide_an_include(tmp_path):
    _fails_unbuilt(checker.check("07", _copy(tmp_path, "spliced_include.cl", "mask.cl"), timing=False),
                   "includes \"polymask/crossing.h\"", "line 19")


def test_a_declaration_in_a_docstring_declares_nothing(tmp_path):
    _fails_unbuilt(checker.check("05", _copy(tmp_path, "docstring_class.pyx", "mask.pyx"), timing=False),
                   "it has no `cdef class Polygon`")


def test_the_views_keep_line_numbers_and_what_the_compiler_reads():
    assert tokens.c_code("#inc\\\nlude <x.h>\n%:include <y.h>\n/* a\nb */ int z; // c\n").splitlines() == [
        "#include <x.h>", "", "#include <y.h>", " ", " int z; "]
    cython = 'x = "cdef class A"  # cdef class B\ncdef extern from "polymask/core.hpp":\n    pass\n'
    view = tokens.code(cython, "pyx").splitlines()
    assert "cdef class" not in "\n".join(view) and view[1] == 'cdef extern from "polymask/core.hpp":'
    assert tokens.code(cython, "pyx", keep_strings=True).splitlines()[0].rstrip() == 'x = "cdef class A"'


# ---- what the compilers opened, however the name was written ----------------------------------------


@pytest.mark.parametrize("exercise, name, link, target", [
    ("02", "include_stage.pyx", "helpers.pxi", ("course", "stages", "python_tuples.py")),
    ("04", "macro_include.pyx", "inner.h", ("include", "polymask", "crossing.h")),
    ("07", "import_header.cl", "inner.h", ("include", "polymask", "crossing.h")),
])
def test_a_file_of_the_package_the_compiler_opened_is_refused(tmp_path, exercise, name, link, target):
    import polymask

    links = tmp_path / "links"
    links.mkdir()
    (links / link).symlink_to(Path(polymask.__file__).resolve().parent.joinpath(*target))
    path = tmp_path / ("mask" + Path(name).suffix)
    path.write_text((DISHONEST / name).read_text().replace("LINK_FOLDER", str(links)))
    result = checker.check(exercise, path, timing=False, progress=False)
    assert result.status == "wrong" and "was not run: its build opened" in str(result), str(result)
    assert target[-1] in str(result), str(result)
