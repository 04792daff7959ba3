"""Every lesson notebook runs top to bottom on a fresh kernel, and matches its source.

The notebooks are executed as notebooks/run_all.py executes them (nbclient,
a kernel spec for THIS interpreter, so they test the polymask installed
here), at a small image size (POLYMASK_NOTEBOOK_SIZE=64).  Any error in
any cell fails the test and names the cell.
"""

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
#: The pictures each lesson draws (files it writes to $POLYMASK_PICTURES_DIR and displays).
PICTURES = {
    "01_profile": ["mask.png"],
    "02_compile": ["annotation.png"],
    "03_types": ["directives.png"],
    "04_wrap_cpp": ["wrap_timings.png"],
    "05_cdef_class": ["leak.png"],
    "06_prange": ["scaling.png", "false_sharing.png"],
    "07_opencl": ["kernel_transfer.png"],
    "08_scanline": ["spans.png"],
    "09_table": ["speedups.png"],
}
#: The verdicts each lesson computes from its own timings: lines that open with
#: lesson.VERDICT ("on this run:") or, on a machine too busy to test the claim,
#: lesson.TOO_BUSY, then the numbers, which open as each pattern here says.
VERDICTS = {
    "01_profile": [
        r"NumPy scalars took [\d.]+x the time of tuples",
        r"cProfile slowed tuples",
        r"pyinstrument slowed tuples",
        r"vectorised NumPy took",
    ],
    "02_compile": [r"compiling unchanged gave [\d.]+x"],
    "03_types": [
        r"the typed code gave \d+x over pure Python",
        r"the same mask bit for bit; with the checks on",
        r"pure-Python mode took",
    ],
    "04_wrap_cpp": [r"the wrapped C\+\+ loop took", r"profiled_mask / wrapped_mask = [\d.]+ on 2000 tiles"],
    "05_cdef_class": [r"2000 tiles converting every call took", r"on one \d+x\d+ image, the kept Polygon took"],
    "06_prange": [
        r"two Python threads took [\d.]+x the time of one thread holding the GIL",
        r"\d+ threads \(dynamic\) ran [\d.]+x the 1-thread speed",
        r"at \d+ threads, static took",
        r"\d+ threads used [\d.]+ ms of CPU time in all",
        r"with one core busy, dynamic took",
        r"placed [\d.]+x, unplaced",
        r"with one core busy, Numba on 2 threads took",
        r"with one core busy, Numba in chunks of 8 rows took",
        r"compiling took [\d.]+ s, loading the cached code",
        r"\d of 5 racy tries lost updates",
        r"counters 1 slot apart took",
    ],
    "07_opencl": [
        r"the first launch took",
        r"the slowest local size",
        r"the transfers took [\d.]+% of the per-pixel kernel's time",
        r"float32 kernel [\d.]+ ms, float64",
        r"OpenCL on .* took",
    ],
    "08_scanline": [
        r"the scanline in NumPy took",
        r"the scanline core took [\d.]+x the floor",
        r"for 100x the vertices, per-pixel CPU time grew",
    ],
    "09_table": [r"the two timings of a stage were at most", r"cython_prange ran [\d.]+x the speed of cython_class"],
}
#: Lessons the DESIGN names, in order; each needs its notebook.
LESSONS = [
    "01_profile",
    "02_compile",
    "03_types",
    "04_wrap_cpp",
    "05_cdef_class",
    "06_prange",
    "07_opencl",
    "08_scanline",
    "09_table",
]


def _notebooks_module(name):
    """A module of notebooks/ (the lessons' helpers, the builder, the runner), imported from its folder."""
    import importlib

    sys.path.insert(0, str(NOTEBOOKS_DIR))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(NOTEBOOKS_DIR))


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """A kernel spec for this interpreter on JUPYTER_PATH, and the small image size."""
    saved = {name: os.environ.get(name) for name in ("JUPYTER_PATH", "POLYMASK_NOTEBOOK_SIZE")}
    _notebooks_module("run_all").install_kernel_spec(tmp_path_factory.mktemp("jupyter"))
    os.environ["POLYMASK_NOTEBOOK_SIZE"] = "64"
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def test_there_is_one_notebook_per_lesson():
    assert [path.stem for path in NOTEBOOKS] == LESSONS


def test_notebooks_match_their_sources():
    assert _notebooks_module("build").main(["--check"]) == 0, "run: python notebooks/build.py"


def test_committed_notebooks_carry_no_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs_top_to_bottom(path, kernel_env, tmp_path):
    run_all = _notebooks_module("run_all")
    notebook = nbformat.read(path, as_version=4)
    # Run in a copy of notebooks/ and exercises/ (lessons point at ../exercises), so files
    # a lesson writes stay out of the tree.
    run_dir = run_all.copy_checkout(tmp_path)
    try:
        run_all.execute(notebook, run_dir, tmp_path / "pictures", timeout=300)
    except nbclient.exceptions.CellExecutionError as error:
        pytest.fail(f"{path.name} failed:\n{error}")
    text = run_all.printed_text(notebook)
    assert "Traceback" not in text
    _assert_pictures(notebook, tmp_path / "pictures", PICTURES[path.stem])
    assert not list((tmp_path / "notebooks").glob("*.png")), "a lesson wrote a picture beside the notebooks"
    _assert_verdicts(text, VERDICTS[path.stem])
    if path.stem == "09_table":
        _assert_numba_row(notebook)
        _assert_2014_columns(notebook)
    if path.stem == "01_profile":
        assert "Line #      Hits" in text, "lesson 1 must print the line profile it discusses"
    if path.stem == "05_cdef_class":
        # The leak section: found by the census, then fixed, on the page.
        assert "LeakyPolygon: still alive after 100 made and dropped: 100 polygons, 1,000,000 vertices" in text
        assert "FixedPolygon: still alive after 100 made and dropped: 0 polygons, 0 vertices, 0 bytes" in text
    if path.stem == "04_wrap_cpp":
        assert "(convert)" in text and "(fill_pixels)" in text, "lesson 4 must print the profile it discusses"
        # A throw without except + ends a child process; a .pxd of one's own is cimported.
        assert "the child process ended with signal SIGABRT" in text
        assert "through my_core.pxd, the C++ polygon has 24 vertices" in text
        assert "crossings, a list:" in text, "a libcpp vector returned to Python becomes a list"
    if path.stem == "06_prange":
        # OMP_NUM_THREADS is run, not asserted: a child process reads it back.
        assert "OMP_NUM_THREADS=1: default team of 1 thread(s)" in text
        assert "OMP_NUM_THREADS=3: default team of 3 thread(s)" in text


def _lesson_module():
    """notebooks/lesson.py, the lessons' shared helpers."""
    return _notebooks_module("lesson")


def _verdict_openings():
    lesson = _lesson_module()
    return lesson.VERDICT, lesson.TOO_BUSY


def _assert_verdicts(text, expected):
    """The page printed each of its computed verdicts (`expected`: how their numbers open),
    each with its numbers, and no other kind of verdict line."""
    import re

    openings = _verdict_openings()
    lines = [line for line in text.splitlines() if line.startswith(openings)]
    numbers = [line.split(":", 1)[1].strip() for line in lines]
    for pattern in expected:
        assert any(re.match(pattern, value) for value in numbers), f"no verdict {pattern!r} in:\n" + "\n".join(lines)
    assert len(lines) == len(expected), "verdicts the test does not know:\n" + "\n".join(lines)
    for line in lines:
        assert any(character.isdigit() for character in line), f"a verdict without its numbers: {line}"


def _assert_pictures(notebook, folder, names):
    """Each picture was written as a PNG and shown on the page."""
    shown = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    assert len(shown) >= len(names), f"{len(shown)} pictures shown, expected {names}"
    for name in names:
        picture = folder / name
        assert picture.is_file() and picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{name} was not drawn"


def _assert_2014_columns(notebook):
    """Lesson 9's table carries the 2014 notes' figures and nothing else (at the course's problem only)."""
    from tests.test_course_2014 import NOTES_2014

    tables = "\n".join(
        output.get("data", {}).get("text/markdown", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    header = next(line for line in tables.splitlines() if line.startswith("| stage |"))
    names = [cell.strip() for cell in header.split("|")]
    if "2014 time" not in names:  # a smaller problem than the course's: the table says why the columns are out
        assert "The 2014 columns are left out" in tables, tables
        return
    time_2014, speedup_2014 = names.index("2014 time"), names.index("2014 speed-up")
    seen = 0
    for line in tables.splitlines():
        for stage_id in (
            "python",
            "python_numpy",
            "numpy",
            "cython_plain",
            "cython_typed",
            "cython_cpp",
            "cython_class",
            "cython_prange",
            "numba",
            "opencl",
            "scanline",
        ):
            if f"(`{stage_id}`) |" in line:
                columns = [cell.strip() for cell in line.split("|")]
                assert (columns[time_2014], columns[speedup_2014]) == NOTES_2014.get(stage_id, ("—", "—")), line
                seen += 1
    assert seen >= 8, tables


def _assert_numba_row(notebook):
    """Lesson 9's table has a timed Numba row (the notebooks extra brings Numba)."""
    tables = "\n".join(
        output.get("data", {}).get("text/markdown", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    rows = [line for line in tables.splitlines() if line.startswith("| Numba")]
    assert rows, f"lesson 9's table has no Numba row:\n{tables}"
    time_cell = rows[0].split("|")[2].strip()
    assert "No module named" not in rows[0] and time_cell not in ("", "—"), rows[0]


def test_the_ladder_story_is_read_from_the_measured_table():
    lesson = _lesson_module()
    rows = [
        {"kind": "stage", "id": "a", "seconds": 1.0},
        {"kind": "stage", "id": "b", "seconds": 0.5},
        {"kind": "stage", "id": "c", "seconds": 0.52},
        {"kind": "stage", "id": "d", "seconds": 0.8},
        {"kind": "peer", "id": "p", "seconds": 0.01},
        {"kind": "stage", "id": "e", "seconds": None},
    ]
    story = lesson.ladder_story({"rows": rows})
    assert "`b` is **2.0x faster** than `a`" in story
    assert "`c` is about as fast as (0.96x) `b`" in story
    assert "`d` is **slower** (0.65x) than `c`" in story
    assert "Fastest here: `b`, 2x the speed of `a`" in story
    assert "`p`" not in story and "`e`" not in story  # peers and stages that did not run are left out


def test_the_ladder_story_compares_each_rung_with_the_code_it_builds_on():
    lesson = _lesson_module()
    rows = [
        {"kind": "stage", "id": "python", "seconds": 1.0},
        {"kind": "stage", "id": "python_numpy", "seconds": 10.0},
        {"kind": "stage", "id": "cython_plain", "seconds": 0.5},
        {"kind": "stage", "id": "cython_typed", "seconds": 0.05},
    ]
    story = lesson.ladder_story({"rows": rows})
    assert "`python_numpy` is **slower** (0.10x) than `python`" in story
    assert "`cython_plain` is **2.0x faster** than `python`" in story  # it compiles the pure-Python code
    assert "`cython_typed` is **10.0x faster** than `cython_plain`" in story


def test_the_chart_names_peer_libraries_only_when_it_shows_them(tmp_path):
    pytest.importorskip("matplotlib")
    from unittest import mock

    from polymask.bench import report

    rows = [
        {"kind": "stage", "id": "python", "speedup": 1.0, "speedup_2014": 1.0},
        {"kind": "stage", "id": "cython_typed", "speedup": 50.0, "speedup_2014": 40.0},
    ]
    labels = []
    real_bar = __import__("matplotlib.axes", fromlist=["Axes"]).Axes.bar

    def bar(self, *args, **kwargs):
        labels.append(kwargs.get("label"))
        return real_bar(self, *args, **kwargs)

    with mock.patch("matplotlib.axes.Axes.bar", bar):
        problem = {"rows": 64, "cols": 64, "vertices": 24}
        report.plot_speedups({"rows": rows, "problem": problem}, str(tmp_path / "chart.png"))
        report.plot_speedups(
            {"rows": rows + [{"kind": "peer", "id": "rasterio", "speedup": 90.0}], "problem": problem},
            str(tmp_path / "peers.png"),
        )
    assert labels[1] == "this machine" and labels[3] == "this machine (orange: peer libraries)"


def test_the_runner_collects_every_verdict_line_and_nothing_else():
    run_all, lesson = _notebooks_module("run_all"), _lesson_module()
    text = "\n".join(
        [
            f"{lesson.VERDICT} 3.0x: faster",
            "  speed-up 3.0x",
            f"{lesson.TOO_BUSY} 1.2x (load average 9.0 on 2 usable cores)",
            "a line that mentions on this run: later",
        ]
    )
    assert run_all.verdict_lines(text) == [
        f"{lesson.VERDICT} 3.0x: faster",
        f"{lesson.TOO_BUSY} 1.2x (load average 9.0 on 2 usable cores)",
    ]


def test_a_verdict_is_judged_only_on_a_machine_quiet_enough_to_test_it(monkeypatch, capsys):
    lesson = _lesson_module()
    monkeypatch.setattr(lesson, "usable_cores", lambda: 2)
    ran = lesson.Measured(wall=[1.0, 1.0], cpu=[0.95, 0.97])  # had a core to itself
    waited = lesson.Measured(wall=[1.0, 1.0], cpu=[0.30, 0.40])  # waited for a core most of the time
    monkeypatch.setattr(lesson, "load_average", lambda: 1.5)

    def printed(*arguments, **options):
        lesson.verdict(*arguments, **options)
        return capsys.readouterr().out

    assert printed("3.0x", "faster", ran) == "on this run: 3.0x: faster\n"
    assert printed("3.0x", "faster", waited).startswith("too busy to judge on this run: 3.0x (the timed code")
    # Two threads that each ran half the time had one core between them.
    assert printed("1.0x", "no gain", ran, threads=2).startswith(lesson.TOO_BUSY)
    assert printed("a device", "fine", waited, threads=None).startswith(lesson.VERDICT)
    monkeypatch.setattr(lesson, "load_average", lambda: 6.2)
    line = printed("3.0x", "faster", ran)
    assert line == "too busy to judge on this run: 3.0x (load average 6.2 on 2 usable cores)\n"
    assert "faster" not in line  # the claim is not judged, only the numbers printed
    assert lesson.compared("a", "b", 2.0) == "a is 2.00x faster than b"
    assert lesson.compared("a", "b", 1.05).startswith("a is about as fast as b")
    assert lesson.compared("a", "b", 0.5) == "a is slower than b (2.00x the time)"


def test_the_lessons_cpu_clock_counts_a_call_that_ran_in_a_child_process():
    """Some stages run a long call in a forked child: its CPU time is the call's."""
    import subprocess

    lesson = _lesson_module()
    spin = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.2:\n    pass\n"
    measured = lesson.measure(lambda: subprocess.run([sys.executable, "-c", spin], check=True), repeats=1)
    assert measured.cpu_seconds >= 0.15, measured.cpu
