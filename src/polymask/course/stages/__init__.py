"""The stage registry: every implementation of the mask, from the ladder's
first rung (pure Python) to the scanline core, in one table.

Each stage is a module in this package with a function
``mask(vertices, shape)`` (plus ``threads=`` where it runs threads) that
returns the same bool mask as ``polymask.mask``, bit for bit.  The registry
knows what each stage teaches and what the 2014 course measured for it, and
imports stage modules only when asked, so a stage that cannot run here (an
optional dependency missing) is reported with the reason instead of
breaking ``import polymask``.

The registry serves comparisons, never the library's default call:
``polymask.mask(..., backend=ID)`` finds it through the entry point group
``polymask.backends`` (``backends`` below), validates its arguments once
and calls ``Stage.fill``.  A stage whose module defines ``fill`` (scanline,
opencl) fills the caller's validated ``out=`` buffer itself, or allocates
one; any other stage's ``mask`` returns its own array, which is handed back
as is (and copied only into a caller's ``out=``).  The hardening a stage
needs when the library calls it (a check that it returned what it should, a
mask that cannot be allocated refused before a slow stage starts) is applied
here, once, in ``_running.fill_one_ring``; the stage files show their technique and
nothing else.

    >>> from polymask.course import stages
    >>> stages.get("scanline").title
    'Scanline fill (C++ core, threaded)'
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import Callable

import numpy as np

from polymask._backends import Availability
from polymask.course.stages import _running


@dataclass(frozen=True)
class Stage:
    """One rung of the ladder."""

    id: str
    title: str
    #: One sentence: the idea this stage teaches.
    lesson: str
    #: Module (under polymask.course.stages) whose ``mask`` implements the stage.
    module: str
    #: The source file a learner reads, relative to the polymask package.
    source: str
    #: Seconds the 2014 course notes give for 1024x1024, 24 vertices (None: the notes
    #: did not time this stage, so the 2014 columns stay empty).
    seconds_2014: float | None = None
    #: True for stages that are compiled extensions: CI fails if one is missing.
    compiled: bool = False
    #: True for compiled stages whose loops keep the GIL (they touch no Python
    #: object, but never say ``nogil``): the registry runs a long call of one in a
    #: child process, where Ctrl-C can stop it.
    holds_gil: bool = False
    #: True when ``mask`` takes a ``threads=`` keyword.
    threaded: bool = False
    #: True for stages that call the shared C++ core.
    uses_core: bool = False
    #: True for stages meant for small images only (seconds on the standard problem).
    slow: bool = False
    #: True for rows compared beside the ladder rather than climbed (NumPy, Numba).
    side: bool = False
    #: The lesson that teaches it (``lesson(number)``: its notebook and exercise);
    #: lesson 9's table compares every stage, side stages included.
    number: int = 0
    #: True when the module defines ``fill(coordinates, shape, out, ...)`` for input
    #: ``polymask.mask`` has validated: it fills `out` (None: a new array) and returns it.
    fills: bool = False
    #: True for the stage that fills any polygon: several rings, both fill rules,
    #: windows and all_touched (its ``fill`` takes them).  The others fill one ring of
    #: the whole image under even-odd.
    general: bool = False

    @property
    def speedup_2014(self) -> float | None:
        """The 2014 speed-up over pure Python with tuples (36 s)."""
        return None if self.seconds_2014 is None else PYTHON_SECONDS_2014 / self.seconds_2014

    def load(self) -> Callable:
        """The stage's mask function; raises ImportError if it cannot run here."""
        return _load(self.module)

    @property
    def reason(self) -> str:
        """Why the stage cannot run here ("" when it can)."""
        return availability(self.id).reason

    @cached_property
    def fill(self) -> Callable[..., np.ndarray]:
        """``polymask.mask``'s entry into this stage, for arguments it has validated.

        ``fill(coordinates, shape, out, *, threads, rule, window, ring_ends,
        all_touched)``: `coordinates` a C-contiguous (N, 2) float64 array of
        finite numbers, `shape` the image's (rows, cols), `out` None or a
        checked bool / uint8 array of the result's shape, `window` None or a
        checked (row0, col0, height, width).  Returns the mask (`out` when
        given).  Looked up once per stage: the per-call cost is one call.
        """
        if self.general:
            return importlib.import_module(f"polymask.course.stages.{self.module}").fill
        return partial(_running.fill_one_ring, self)


#: The 2014 course's pure-Python time, the denominator of its speed-ups.
PYTHON_SECONDS_2014 = 36.0

#: The ladder, in the order of the 2014 table.  `side` rows (vectorized
#: NumPy, Numba) are compared beside the ladder, not climbed: they are other
#: roads to speed, not steps of the Cython one.
STAGES: tuple[Stage, ...] = (
    Stage("python", "Python with tuples",
          "The algorithm in plain Python; profile first to see where the time goes.",
          "python_tuples", "course/stages/python_tuples.py", 36.0, slow=True, number=1),
    Stage("python_numpy", "Python with NumPy scalars",
          "Indexing NumPy arrays element by element from Python is slower than tuples.",
          "python_numpy", "course/stages/python_numpy.py", 450.0, slow=True, number=1),
    Stage("numpy", "Vectorized NumPy",
          "Whole-array operations over all pixels, a loop over edges: fast, but memory-hungry.",
          "numpy_vectorized", "course/stages/numpy_vectorized.py", None, side=True, number=1),
    Stage("cython_plain", "Cython, Python code compiled unchanged",
          "Compilation alone: the same Python source through Cython.",
          "cython_plain", "course/stages/cython_plain.pyx", 9.0, compiled=True, holds_gil=True, slow=True,
          number=2),
    Stage("cython_typed", "Cython with types, memoryviews and directives",
          "cdef locals, typed memoryviews and boundscheck/wraparound/cdivision remove the yellow.",
          "cython_typed", "course/stages/cython_typed.pyx", 3.6, compiled=True, holds_gil=True, number=3),
    Stage("cython_cpp", "Cython wrapping the C++ core",
          "cdef extern from a C++ header, except +, nogil: calling a C++ library.",
          "cython_cpp", "course/stages/cython_cpp.pyx", 0.270, compiled=True, uses_core=True, number=4),
    Stage("cython_class", "Cython cdef class owning the C++ polygon",
          "State lives in C space: no per-call conversion, __cinit__/__dealloc__.",
          "cython_class", "course/stages/cython_class.pyx", 0.118, compiled=True, uses_core=True, number=5),
    Stage("cython_prange", "Cython with OpenMP (prange)",
          "Release the GIL and split rows over threads with prange.",
          "cython_prange", "course/stages/cython_prange.pyx", 0.020, compiled=True, threaded=True, uses_core=True,
          number=6),
    Stage("numba", "Numba @njit(parallel=True)",
          "The other road to compiled speed: a JIT compiler and prange in plain Python.",
          "numba_prange", "course/stages/numba_prange.py", None, threaded=True, side=True, number=6),
    Stage("opencl", "PyOpenCL kernel, one work-item per pixel",
          "Data-parallel kernels: context, queue, buffers, NDRange; the predicate header shared with C++.",
          "opencl", "course/stages/opencl.py", 0.003, uses_core=True, fills=True, number=7),
    Stage("scanline", "Scanline fill (C++ core, threaded)",
          "The algorithm beats the hardware: one x_cross per edge and row, spans filled with memset.",
          "scanline", "course/stages/scanline.py", None, compiled=True, threaded=True, uses_core=True, fills=True,
          general=True, number=8),
)

_BY_ID = {stage.id: stage for stage in STAGES}


@dataclass(frozen=True)
class Lesson:
    """One step of the course, found by its number: its notebook, its exercise, its stages."""

    number: int
    #: The notebook's heading (after "Lesson N — ").
    title: str
    #: notebooks/NN_<notebook>.ipynb, built from notebooks/src/NN_<notebook>.py.
    notebook: str
    #: exercises/NN_<exercise>/ (solution in exercises/solutions/); None: no exercise.
    exercise: str | None

    @property
    def notebook_path(self) -> str:
        """The lesson's notebook, relative to the repository root."""
        return f"notebooks/{self.number:02d}_{self.notebook}.ipynb"

    @property
    def exercise_path(self) -> str | None:
        """The lesson's exercise folder, relative to the repository root (None: no exercise)."""
        return None if self.exercise is None else f"exercises/{self.number:02d}_{self.exercise}/"

    @property
    def stages(self) -> tuple[Stage, ...]:
        """The stages this lesson teaches (lesson 9 teaches none of its own: its table compares them all)."""
        return tuple(stage for stage in STAGES if stage.number == self.number)


#: The course: one number names a lesson, its notebook, its exercise and its
#: stages (``Stage.number``); the stage modules' docstrings start with it.
LESSONS: tuple[Lesson, ...] = (
    Lesson(1, "Profile first", "profile", "python"),
    Lesson(2, "Compile it", "compile", "compile"),
    Lesson(3, "Types, memoryviews and directives", "types", "types"),
    Lesson(4, "Wrap C++", "wrap_cpp", "wrap_cpp"),
    Lesson(5, "A cdef class: state in C space", "cdef_class", "cdef_class"),
    Lesson(6, "The GIL and OpenMP", "prange", "prange"),
    Lesson(7, "OpenCL: one work-item per pixel", "opencl", "opencl"),
    Lesson(8, "The algorithm beats the hardware", "scanline", "scanline"),
    Lesson(9, "The whole ladder: the table and the chart", "table", None),
)


def lesson(number: int | str) -> Lesson:
    """The lesson numbered `number` (4, "4" or "04"); ValueError listing the choices otherwise.

        >>> from polymask.course import stages
        >>> found = stages.lesson(4)
        >>> found.notebook_path, found.exercise_path, [stage.source for stage in found.stages]
        ('notebooks/04_wrap_cpp.ipynb', 'exercises/04_wrap_cpp/', ['course/stages/cython_cpp.pyx'])
    """
    text = str(number).strip()
    for candidate in LESSONS:
        if text.isdigit() and int(text) == candidate.number:
            return candidate
    raise ValueError(f"unknown lesson {number!r}; choose one of: {', '.join(str(x.number) for x in LESSONS)}")


def lesson_table() -> str:
    """The lessons as a Markdown table (``polymask lessons``; the README carries it, checked by the tests)."""
    lines = ["| # | lesson | notebook | exercise | stages (module under src/polymask/) |",
             "|---|---|---|---|---|"]
    for entry in LESSONS:
        exercise = f"`{entry.exercise_path}`" if entry.exercise_path else "—"
        stage_list = ", ".join(f"`{stage.id}` ({stage.source})" for stage in entry.stages) or "every stage above"
        lines.append(f"| {entry.number} | {entry.title} | `{entry.notebook_path}` | {exercise} | {stage_list} |")
    return "\n".join(lines)


@lru_cache(maxsize=None)
def _load(module: str) -> Callable:
    return importlib.import_module(f"polymask.course.stages.{module}").mask


def ids() -> list[str]:
    """Every stage id, in ladder order."""
    return [stage.id for stage in STAGES]


def get(stage_id: str) -> Stage:
    """The stage called `stage_id`; ValueError listing the choices if there is none."""
    try:
        return _BY_ID[stage_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown backend {stage_id!r}; choose one of: auto, {', '.join(ids())}") from None


@lru_cache(maxsize=None)
def availability(stage_id: str) -> Availability:
    """Whether the stage can run here, and if not, why."""
    stage = get(stage_id)
    try:
        stage.load()
    except ImportError as error:
        return Availability(False, f"{type(error).__name__}: {error}")
    return Availability(True, "")


def available_backends() -> dict[str, Availability]:
    """Every stage id mapped to whether it can run here and, if not, why."""
    return {stage.id: availability(stage.id) for stage in STAGES}


def backends() -> dict[str, Stage]:
    """Every stage by id: the ``polymask.backends`` entry point (pyproject.toml) that
    ``polymask.mask(..., backend=ID)`` reads."""
    return _BY_ID
