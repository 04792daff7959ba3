"""Every stage of the ladder returns the contract's mask, bit for bit.

One test body runs every stage (through ``polymask.mask(..., backend=id)``)
on the contract's polygon set and asserts equality with the independent
references of tests/_support.py: the float64 rule for every case, exact
rational arithmetic for the grid-aligned ones.  A stage that cannot run
here fails (it is not skipped): the compiled stages must have been built,
and Numba is installed by the `test` extra.  The `opencl` stage has its own
tests.

The rest checks what the lessons promise: the registry's metadata, that
cython_plain really is the python stage unchanged, the directives of the
typed stage, the cdef class, the threads argument, Numba without fast-math,
and ``polymask annotate``.
"""
import ast
import importlib
import importlib.machinery
import os
import re
from pathlib import Path

import numpy as np
import pytest

import polymask
from polymask import cli
from polymask.course import annotate, stages
from polymask.course.cases import contract_cases
from polymask.course.problems import standard_problem
from tests._support import assert_same_mask, double_mask, exact_mask

PACKAGE_DIR = Path(polymask.__file__).resolve().parent
#: Every stage this file checks; opencl is another suite's (it needs a device).
STAGE_IDS = [stage.id for stage in stages.STAGES if stage.id != "opencl"]
CASES = contract_cases(24)
GRID_CASES = [case for case in CASES if case.grid_aligned]
CYTHON_STAGE_IDS = [stage.id for stage in stages.STAGES if stage.source.endswith(".pyx")]

_double_references = {}
_exact_references = {}


def double_reference(case):
    # Computed once per case, shared by every stage's test.
    if case.name not in _double_references:
        _double_references[case.name] = double_mask(case.vertices, case.shape)
    return _double_references[case.name]


def exact_reference(case):
    if case.name not in _exact_references:
        _exact_references[case.name] = exact_mask(case.vertices, case.shape)
    return _exact_references[case.name]



def docstring_of(stage):
    """The module docstring of a stage's installed source (.py or .pyx)."""
    text = (PACKAGE_DIR / stage.source).read_text()
    if stage.source.endswith(".py"):
        return ast.get_docstring(ast.parse(text)) or ""
    # A .pyx may open with "# cython:" directive comments before the docstring.
    match = re.match(r'\s*(?:#[^\n]*\n\s*)*"""(.*?)"""', text, re.S)
    return match.group(1) if match else ""


# ---- the one body: every stage, every case ------------------------------------

def test_every_stage_is_checked():
    assert set(STAGE_IDS) >= {"python", "python_numpy", "numpy", "cython_plain", "cython_typed",
                              "cython_cpp", "cython_class", "cython_prange", "numba", "scanline"}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@pytest.mark.parametrize("stage_id", STAGE_IDS)
def test_stage_equals_the_double_rule(stage_id, case):
    actual = polymask.mask(case.vertices, case.shape, backend=stage_id)
    assert_same_mask(actual, double_reference(case), f"{stage_id} on {case.name}")


@pytest.mark.parametrize("case", GRID_CASES, ids=lambda case: case.name)
@pytest.mark.parametrize("stage_id", STAGE_IDS)
def test_stage_equals_exact_arithmetic_on_grid_aligned_polygons(stage_id, case):
    actual = polymask.mask(case.vertices, case.shape, backend=stage_id)
    assert_same_mask(actual, exact_reference(case), f"{stage_id} on {case.name}")


@pytest.mark.parametrize("stage_id", STAGE_IDS)
def test_stage_function_returns_a_fresh_bool_mask(stage_id):
    # Called directly, as a learner does: same signature, bool array of `shape`.
    vertices, shape = standard_problem(size=20, n_vertices=9)
    shape = (shape[0], shape[1] + 3)
    actual = stages.get(stage_id).load()(vertices, shape)
    assert_same_mask(actual, double_mask(vertices, shape), stage_id)


# ---- the compiled parts are really there -----------------------------------------

@pytest.mark.parametrize("stage_id", [stage.id for stage in stages.STAGES if stage.compiled])
def test_compiled_stage_is_available(stage_id):
    status = polymask.available_backends()[stage_id]
    assert status.available, f"compiled stage {stage_id!r} did not build or load: {status.reason}"


@pytest.mark.parametrize("stage_id", CYTHON_STAGE_IDS)
def test_cython_stage_is_an_extension_module(stage_id):
    # No silent fallback: the module that runs must be the compiled .pyx.
    assert stages.get(stage_id).compiled
    module = importlib.import_module(f"polymask.course.stages.{stages.get(stage_id).module}")
    assert module.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), module.__file__


def test_numba_stage_is_available():
    # The `test` extra installs Numba, so a missing Numba fails here.
    import numba  # noqa: F401

    status = polymask.available_backends()["numba"]
    assert status.available, status.reason


def test_numba_is_compiled_without_fast_math():
    # Fast-math flags (reassociation, reciprocal division, contraction)
    # would break bit-identity on some pixels; check the generated IR.
    from polymask.course.stages import numba_prange

    numba_prange.mask(np.array([(0.5, 0.5), (7.0, 1.0), (3.0, 6.0)]), (8, 8))
    # One IR per signature compiled so far (read-only inputs add one): check them all.
    llvm_ir = "\n".join(numba_prange.fill.inspect_llvm().values())
    float_ops = re.findall(r"= (?:fadd|fsub|fmul|fdiv)\b[^\n]*", llvm_ir)
    assert any(op.startswith("= fdiv") for op in float_ops), "the loop's division is missing from the IR"
    flagged = [op for op in float_ops if re.search(r"\b(fast|reassoc|arcp|contract|afn)\b", op)]
    assert not flagged, flagged[:3]
    assert not re.search(r"llvm\.fma|fmuladd", llvm_ir)


# ---- threads -------------------------------------------------------------------------

THREADED_IDS = [stage.id for stage in stages.STAGES if stage.threaded and stage.id != "opencl"]


def test_threaded_stages_are_the_expected_ones():
    assert set(THREADED_IDS) == {"cython_prange", "numba", "scanline"}


@pytest.mark.parametrize("threads", [0, 1, 2, 3, 64])
@pytest.mark.parametrize("stage_id", THREADED_IDS)
def test_threads_do_not_change_the_mask(stage_id, threads):
    vertices, shape = standard_problem(size=70, n_vertices=30)
    expected = double_mask(vertices, shape)
    assert_same_mask(polymask.mask(vertices, shape, backend=stage_id, threads=threads), expected,
                     f"{stage_id} through polymask.mask, threads={threads}")
    direct = stages.get(stage_id).load()(vertices, shape, threads=threads)
    assert_same_mask(direct, expected, f"{stage_id} called directly, threads={threads}")


def test_numba_restores_its_thread_count():
    import numba

    from polymask.course.stages import numba_prange

    before = numba.get_num_threads()
    numba_prange.mask(np.array([(0.0, 0.0), (5.0, 0.0), (0.0, 5.0)]), (6, 6), threads=1)
    assert numba.get_num_threads() == before


# ---- the lessons' promises --------------------------------------------------------

def _code_after_docstring(path):
    text = path.read_text()
    docstring = ast.parse(text).body[0] if path.suffix == ".py" else None
    if docstring is not None:
        return "\n".join(text.splitlines()[docstring.end_lineno:])
    end = text.index('"""', text.index('"""') + 3) + 3
    return text[end:].lstrip("\n")


def test_cython_plain_is_the_python_stage_unchanged():
    python_code = _code_after_docstring(PACKAGE_DIR / stages.get("python").source).strip()
    cython_code = _code_after_docstring(PACKAGE_DIR / stages.get("cython_plain").source).strip()
    assert python_code and cython_code == python_code


def test_cython_typed_sets_the_lesson_directives():
    header = (PACKAGE_DIR / stages.get("cython_typed").source).read_text().splitlines()[0]
    for directive in ("boundscheck=False", "wraparound=False", "cdivision=True"):
        assert directive in header, header


def _function_bodies(text):
    """{name: body} of the top-level ``def`` functions of a .pyx source."""
    parts = re.split(r"^def (\w+)", text, flags=re.MULTILINE)
    return {name: body.split("\n\n\n")[0] for name, body in zip(parts[1::2], parts[2::2])}


def test_cython_prange_makes_one_dynamic_region_per_mask():
    # A thread that shares its core with another process must not hold up the mask:
    # the rows are handed out a few at a time, in one parallel region (one barrier).
    from polymask.course.stages import cython_prange

    bodies = _function_bodies((PACKAGE_DIR / stages.get("cython_prange").source).read_text())
    assert bodies["mask"].count("prange(") == 1 and 'schedule="dynamic"' in bodies["mask"]
    assert bodies["mask_static"].count("prange(") == 1 and 'schedule="static"' in bodies["mask_static"]
    assert 1 <= cython_prange.ROWS_PER_CHUNK <= 16
    binary = Path(cython_prange.__file__).read_bytes()
    assert re.search(rb"GOMP_loop_(nonmonotonic_)?dynamic_start", binary), "the built stage has no dynamic loop"


def _allowed_cpus_of_other_threads() -> dict[int, str]:
    """{thread id: its Cpus_allowed_list} for every thread of this process but the caller."""
    import threading

    found = {}
    for task in Path("/proc/self/task").iterdir():
        if int(task.name) == threading.get_native_id():
            continue
        try:
            status = (task / "status").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        found[int(task.name)] = next(line.split(":", 1)[1].strip() for line in status.splitlines()
                                     if line.startswith("Cpus_allowed_list"))
    return found


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement needs two usable cores")
def test_cython_prange_places_its_team_one_thread_per_core_for_the_call():
    # With one of two cores busy, Linux may leave both threads of the team on one core
    # (three threads on two cores cannot be balanced), so the stage binds each thread of
    # the team to its own core while it runs, and gives every core back at the end.
    import threading

    from polymask.course.stages import cython_prange

    before = os.sched_getaffinity(0)
    vertices, shape = standard_problem(size=64, n_vertices=24)
    seen: set[str] = set()
    finished = threading.Event()

    def work():
        try:
            for _ in range(400):  # thousands of short calls: the team is inside a call most of the time
                cython_prange.mask(vertices, (1536, 1536), threads=2)
                if len(seen) >= 2:
                    break
        finally:
            finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not finished.is_set():
        seen.update(cpus for cpus in _allowed_cpus_of_other_threads().values()
                    if cpus.isdigit())  # a single core: a placed thread
    worker.join()
    assert len(seen) >= 2, f"the team's threads were never seen bound to one core each (saw {seen})"
    assert os.sched_getaffinity(0) == before
    # Nothing stays bound after the calls: the caller's thread and OpenMP's pool get every core back.
    assert not any(cpus.isdigit() for cpus in _allowed_cpus_of_other_threads().values())
    assert_same_mask(cython_prange.mask(vertices, shape, threads=2), double_mask(vertices, shape), "placed")
    assert_same_mask(cython_prange.mask(vertices, shape, threads=2, place=False), double_mask(vertices, shape),
                     "place=False")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="placement needs two usable cores")
def test_cython_prange_leaves_placement_to_the_os_when_asked():
    import threading

    from polymask.course.stages import cython_prange

    vertices, _ = standard_problem(size=64, n_vertices=24)
    bound: set[str] = set()
    finished = threading.Event()

    def work():
        try:
            for _ in range(30):
                cython_prange.mask(vertices, (1536, 1536), threads=2, place=False)
        finally:
            finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not finished.is_set():
        bound.update(cpus for cpus in _allowed_cpus_of_other_threads().values() if cpus.isdigit())
    worker.join()
    assert not bound, f"place=False still bound threads to {bound}"


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_cython_prange_static_twin_gives_the_same_mask(threads):
    from polymask.course.stages import cython_prange

    vertices, shape = standard_problem(size=70, n_vertices=30)
    assert_same_mask(cython_prange.mask_static(vertices, shape, threads=threads), double_mask(vertices, shape),
                     f"mask_static, threads={threads}")


def test_cython_class_owns_a_reusable_polygon():
    from polymask.course.stages.cython_class import Polygon

    vertices = np.array([(1.0, 1.0), (9.0, 2.0), (4.0, 8.5)])
    polygon = Polygon(vertices)
    assert polygon.vertex_count == 3
    np.testing.assert_array_equal(polygon.vertices, vertices)
    vertices[0, 0] = 100.0  # the C++ polygon holds its own copy
    for shape in [(10, 10), (10, 10), (4, 13)]:  # repeated masks, one conversion
        assert_same_mask(polygon.mask(shape), double_mask([(1, 1), (9, 2), (4, 8.5)], shape), str(shape))
    with pytest.raises(AttributeError):
        polygon.vertex_count = 5  # read-only: state lives in C space
    with pytest.raises(AttributeError):
        polygon.extra = 1  # no __dict__: no monkey-patching


def test_cython_class_rejects_vertices_of_the_wrong_shape():
    from polymask.course.stages.cython_class import Polygon

    with pytest.raises(ValueError, match=r"vertices must have shape \(N, 2\), got shape \(4, 3\)"):
        Polygon(np.zeros((4, 3)))


# ---- the registry ----------------------------------------------------------------------

#: The 2014 course notes' table, in seconds (tests/test_course_2014.py holds every column to it).
SECONDS_2014 = {"python": 36, "python_numpy": 450, "cython_plain": 9, "cython_typed": 3.6,
                "cython_cpp": 0.270, "cython_class": 0.118, "cython_prange": 0.020,
                "opencl": 0.003}


@pytest.mark.parametrize("stage", stages.STAGES, ids=lambda stage: stage.id)
def test_registry_entry_is_complete(stage):
    assert stage.title and stage.lesson.endswith(".")
    assert stage.seconds_2014 == SECONDS_2014.get(stage.id)
    assert stages.get(stage.id) is stage
    if stage.id == "opencl":
        return  # its module and source belong to the OpenCL suite
    source = PACKAGE_DIR / stage.source
    assert source.is_file(), f"{stage.id}: source {stage.source} is not installed in {PACKAGE_DIR}"
    assert Path(stage.source).stem == stage.module


@pytest.mark.parametrize("stage_id", [i for i in STAGE_IDS if i != "scanline"])
def test_stage_source_says_what_it_teaches_and_what_changed(stage_id):
    docstring = docstring_of(stages.get(stage_id))
    assert "teaches" in docstring, docstring[:200]
    assert re.search(r"changed|first rung", docstring), docstring[:200]


def test_ladder_order_follows_the_2014_table():
    assert stages.ids()[:8] == ["python", "python_numpy", "numpy", "cython_plain", "cython_typed",
                                "cython_cpp", "cython_class", "cython_prange"]
    assert [stage.id for stage in stages.STAGES if stage.side] == ["numpy", "numba"]


def test_unknown_backend_lists_every_stage():
    with pytest.raises(ValueError) as raised:
        polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4), backend="cython_fastest")
    message = str(raised.value)
    assert "'cython_fastest'" in message
    for stage_id in stages.ids():
        assert stage_id in message


def test_unavailable_backend_says_why(monkeypatch):
    missing = stages.Stage("missing_stage", "A stage whose module is absent", "None.",
                           "no_such_module", "course/stages/no_such_module.py")
    monkeypatch.setattr(stages, "STAGES", stages.STAGES + (missing,))
    monkeypatch.setitem(stages._BY_ID, missing.id, missing)
    status = polymask.available_backends()["missing_stage"]
    assert not status.available and "no_such_module" in status.reason
    with pytest.raises(RuntimeError, match="backend 'missing_stage' is not available here: .*no_such_module"):
        polymask.mask([(0, 0), (3, 0), (0, 3)], (4, 4), backend="missing_stage")


# ---- polymask annotate -----------------------------------------------------------------

@pytest.mark.parametrize("stage_id", CYTHON_STAGE_IDS)
def test_annotate_writes_cython_html(stage_id, tmp_path, capsys):
    assert cli.main(["annotate", stage_id, "-o", str(tmp_path / "html")]) == 0
    written = tmp_path / "html" / f"{stages.get(stage_id).module}.html"
    assert capsys.readouterr().out.strip() == str(written)
    html = written.read_text()
    assert "Generated by Cython" in html
    assert f"Cython: {stages.get(stage_id).module}.pyx" in html  # the stage's own source


def test_annotate_refuses_a_stage_that_is_not_cython(tmp_path, capsys):
    assert cli.main(["annotate", "python", "-o", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "stage 'python' is not a Cython stage (its source is course/stages/python_tuples.py)" in error
    assert "cython_typed" in error
    assert not list(tmp_path.iterdir())


def test_annotate_refuses_an_unknown_stage(tmp_path, capsys):
    assert cli.main(["annotate", "cython_fastest", "-o", str(tmp_path)]) == 2
    assert "unknown backend 'cython_fastest'" in capsys.readouterr().err


def test_annotate_says_when_cython_is_missing(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "Cython", None)  # makes `import Cython` fail
    with pytest.raises(RuntimeError, match="needs Cython, which is not installed here; .*pip install cython"):
        annotate.annotate("cython_typed", tmp_path)
