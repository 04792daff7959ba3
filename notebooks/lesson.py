"""Small helpers the lesson notebooks share: image sizes, timing, the speed-up table.

Kept here so each notebook shows the idea, not the bookkeeping.  The image
size comes from $POLYMASK_NOTEBOOK_SIZE (default 1024, the course's size;
the tests run every notebook at 64).  Slow stages run on an image 8 times
smaller on each side, and their times are scaled up by the pixel count --
every per-pixel stage's work grows with the number of pixels -- and marked so.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

import polymask
from polymask.bench.timing import median_seconds
from polymask.problems import standard_problem

#: Side of the image the fast stages are timed on.
SIZE = int(os.environ.get("POLYMASK_NOTEBOOK_SIZE", "1024"))
#: Side of the image the slow (pure Python) stages are timed on.
SLOW_SIZE = max(16, SIZE // 8)
#: Timings per measurement; the median is kept.
REPEATS = 3 if SIZE >= 512 else 1

PACKAGE_DIR = Path(polymask.__file__).resolve().parent
EXERCISES_DIR = Path(__file__).resolve().parent.parent / "exercises"

_times: dict[str, tuple[float, bool]] = {}


def problem(size: int = SIZE):
    """The course's standard problem (24 random vertices) on a size x size image."""
    return standard_problem(size)


def show_source(stage_id: str, skip_docstring: bool = True) -> None:
    """Print the source a stage is built from (the file under polymask/stages/)."""
    text = (PACKAGE_DIR / polymask.stages.get(stage_id).source).read_text()
    if skip_docstring and '"""' in text:
        head, _, rest = text.partition('"""')
        text = head + rest.partition('"""')[2].lstrip("\n")
    print(text)


def time_it(label: str, mask_function, *, slow: bool = False, **options) -> float:
    """Time mask_function on the standard problem, check it against polymask.mask, remember it.

    Returns seconds for a SIZE x SIZE image (scaled from SLOW_SIZE when slow).
    """
    size = SLOW_SIZE if slow else SIZE
    vertices, shape = problem(size)
    result = mask_function(vertices, shape, **options)
    assert np.array_equal(result, polymask.mask(vertices, shape)), f"{label}: not the contract's mask!"
    seconds = median_seconds(lambda: mask_function(vertices, shape, **options), REPEATS)
    scale = (SIZE / size) ** 2
    _times[label] = (seconds * scale, slow)
    return seconds * scale


def speedups() -> None:
    """Print every time measured so far in this notebook and its speed-up over the first one."""
    if not _times:
        print("nothing timed yet")
        return
    first_label, (first, _) = next(iter(_times.items()))
    print(f"{SIZE}x{SIZE}, 24 vertices; speed-up over {first_label!r}")
    for label, (seconds, scaled) in _times.items():
        note = f"  (timed on {SLOW_SIZE}x{SLOW_SIZE}, scaled up)" if scaled else ""
        print(f"  {label:<36} {seconds * 1e3:10.2f} ms {first / seconds:10.1f}x{note}")


def cython_core_flags() -> str:
    """The %%cython options that let a cell cimport polymask.core and link the C++ core."""
    from polymask._build import compile_flags, cython_include_path

    compile_args, link_args = compile_flags(link_core=True)
    parts = ["--cplus", f"-I {polymask.get_include()}", f"-I {cython_include_path()[0]}"]
    parts += [f"-L {folder}" for folder in polymask.get_library_dirs()] + ["-l polymask_core"]
    parts += [f"--compile-args={arg}" for arg in compile_args] + [f"--link-args={arg}" for arg in link_args]
    return " ".join(parts)
