"""The exercise registry: what each exercise asks for, and how the checker knows it got it.

One row per rung of the ladder (exercises/NN_topic/).  A row says which
file the learner edits, which stage it rebuilds and which stage it is timed
against, how the file is built, what it must define (its entry points, so a
file written for another exercise is refused), and which technique check
proves the lesson was learnt rather than the mask merely computed.

The test set is the contract's polygon set (``polymask.course.cases``) plus the
coordinate extremes the contract allows (|x|, |y| up to 1e300), so a
solution that only works on "reasonable" numbers is caught here, not in a
learner's pipeline.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Image side of the standard problem when timing; slow stages are timed smaller.
FAST_TIME_SIZE = 1024
SLOW_TIME_SIZE = 128
#: Name of the kernel a .cl exercise must define.
OPENCL_KERNEL = "mask_pixel"

#: Technique checks (see Exercise.technique).
WHITE_LOOPS = "white_loops"          # Cython's annotation shows no Python in any loop
FREES_POLYGON = "frees_polygon"      # constructing Polygon repeatedly does not grow memory
MANY_THREADS = "many_threads"        # the loop ran on more than one thread, seen at run time
ROW_SCALING = "row_scaling"          # the cost grows far less with the vertex count than per-pixel code
WORK_ITEMS = "work_items"            # each OpenCL work-item writes its own pixel, and only it
BOUNDED_MEMORY = "bounded_memory"    # peak memory far below a rows x cols x N broadcast, from /proc
EXACT_COUNT = "exact_count"          # count_inside at threads=2 is exact, run after run


@dataclass(frozen=True)
class Exercise:
    """What the checker needs to know about one exercise folder."""

    number: str
    folder: str
    #: The file the learner edits (inside exercises/<folder>/).
    filename: str
    #: The ladder stage the exercise rebuilds.
    stage: str
    #: The stage it is timed against (None: the first rung; compared with its own stage).
    previous: str | None
    #: Compile and link the .pyx with OpenMP.
    openmp: bool = False
    #: Link the .pyx with the C++ core (include dirs, -lpolymask_core).
    link_core: bool = False
    #: Keyword arguments the checker passes to mask() (threads for the prange exercise).
    call_options: tuple = ()
    #: Python-visible functions the module must define: "name(first, second, ...)";
    #: "Class.method(...)" for a method.  Parameter names are compared, in order.
    entry_points: tuple = ("mask(vertices, shape)",)
    #: (regular expression on the comment-free source, what it stands for): declarations
    #: Python cannot see (cdef functions, cdef classes, extern blocks).
    declarations: tuple = ()
    #: The technique check, one of WHITE_LOOPS, FREES_POLYGON, MANY_THREADS, ROW_SCALING, WORK_ITEMS,
    #: BOUNDED_MEMORY, EXACT_COUNT, or None.
    technique: str | None = None

    @property
    def kind(self) -> str:
        return Path(self.filename).suffix.lstrip(".")

    @property
    def command(self) -> str:
        return f"polymask check {self.number} exercises/{self.folder}/{self.filename}"


_PYTHON_ENTRY_POINTS = ("point_inside(polygon, px, py)", "mask(vertices, shape)")

EXERCISES: tuple[Exercise, ...] = (
    Exercise("01", "01_python", "mask.py", "python", None, entry_points=_PYTHON_ENTRY_POINTS),
    Exercise("01b", "01b_numpy", "mask.py", "numpy", "python", technique=BOUNDED_MEMORY),
    Exercise("02", "02_compile", "mask.pyx", "cython_plain", "python", entry_points=_PYTHON_ENTRY_POINTS),
    Exercise("03", "03_types", "mask.pyx", "cython_typed", "cython_plain",
             declarations=((r"\bcdef\s+(?:inline\s+)?bint\s+point_inside\s*\(",
                            "`cdef bint point_inside(...)` function"),),
             technique=WHITE_LOOPS),
    Exercise("04", "04_wrap_cpp", "mask.pyx", "cython_cpp", "cython_typed", link_core=True,
             declarations=((r'\bcdef\s+extern\s+from\s+"polymask/core\.hpp"',
                            '`cdef extern from "polymask/core.hpp"` block'),)),
    Exercise("05", "05_cdef_class", "mask.pyx", "cython_class", "cython_cpp", link_core=True,
             entry_points=("Polygon.mask(self, shape)", "mask(vertices, shape)"),
             declarations=((r"\bcdef\s+class\s+Polygon\b", "`cdef class Polygon`"),),
             technique=FREES_POLYGON),
    Exercise("06", "06_prange", "mask.pyx", "cython_prange", "cython_class", openmp=True, link_core=True,
             call_options=(("threads", 2),), entry_points=("mask(vertices, shape, threads)",),
             technique=MANY_THREADS),
    Exercise("06b", "06b_numba", "mask.py", "numba", "cython_prange", call_options=(("threads", 2),),
             entry_points=("mask(vertices, shape, threads)",), technique=MANY_THREADS),
    Exercise("06c", "06c_reduction", "mask.pyx", "cython_prange", "cython_class", openmp=True, link_core=True,
             call_options=(("threads", 2),),
             entry_points=("mask(vertices, shape, threads)", "count_inside(vertices, shape, threads)"),
             technique=EXACT_COUNT),
    Exercise("06d", "06d_build", "setup.py", "cython_prange", "cython_class", openmp=True,
             call_options=(("threads", 2),), entry_points=("mask(vertices, shape, threads)",),
             technique=MANY_THREADS),
    Exercise("07", "07_opencl", "mask.cl", "opencl", "cython_prange", entry_points=(), technique=WORK_ITEMS),
    Exercise("08", "08_scanline", "mask.py", "scanline", "opencl", technique=ROW_SCALING),
)


def get_exercise(name: str) -> Exercise:
    """The exercise called "NN", "N" or "NN_topic"; ValueError listing the choices otherwise."""
    text = str(name).strip().rstrip("/").split("/")[-1]
    for exercise in EXERCISES:
        if text in (exercise.number, exercise.folder) or (
                text.isdigit() and exercise.number.isdigit() and int(text) == int(exercise.number)):
            return exercise
    choices = ", ".join(f"{e.number} ({e.folder})" for e in EXERCISES)
    raise ValueError(f"unknown exercise {name!r}; choose one of: {choices}")


def default_time_size(exercise: Exercise) -> int:
    from polymask.course import stages

    slow = any(stages.get(stage_id).slow for stage_id in (exercise.stage, exercise.previous) if stage_id)
    return SLOW_TIME_SIZE if slow else FAST_TIME_SIZE


# ---- the test set ---------------------------------------------------------------------------


def checker_cases(size: int = 24) -> list:
    """The contract's polygon set at `size`, then the coordinate extremes the contract allows.

    The extremes put x_cross near +-1e300 inside the image's rows (where an
    integer conversion before clipping overflows) and rows near 1e300 (where
    a span computed from y overflows); both must still give the exact mask.
    """
    from polymask.course.cases import contract_cases, make_case

    s = float(size)
    shape = (size, size)
    return contract_cases(size) + [
        make_case("extreme_x_1e300", [(1e300, 1.0), (2.0, s / 2), (1e300, s - 2), (-1e300, s / 3)], shape),
        make_case("extreme_y_1e300", [(1.0, -1e300), (s - 2, -1e300), (s / 2, 1e300)], shape),
        make_case("extreme_tiny_and_huge", [(-1e300, -1e300), (1e300, -1e300), (1e300, 5e-324), (s / 2, s - 1)],
              shape),
    ]


# ---- hints between the goal and the answer ---------------------------------------------------


def readme_hints(readme_text: str) -> list[str]:
    """The graded hints of an exercise README: the ``### Hint N`` blocks under ``## Hints``."""
    section = re.split(r"^## Hints[ \t]*$", readme_text, maxsplit=1, flags=re.MULTILINE)
    if len(section) < 2:
        return []
    body = re.split(r"^## ", section[1], maxsplit=1, flags=re.MULTILINE)[0]
    blocks = re.split(r"^### Hint \d+[^\n]*\n", body, flags=re.MULTILINE)[1:]
    return [block.strip() for block in blocks if block.strip()]


def random_vertices(n_vertices: int, seed: int = 5) -> np.ndarray:
    """Many vertices, for probes that need a big polygon (memory, threads)."""
    from polymask.course.problems import random_polygon

    return np.ascontiguousarray(random_polygon(n_vertices, 256, seed=seed), dtype=np.float64)
