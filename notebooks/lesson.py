"""Small helpers the lesson notebooks share: image sizes, timing, the speed-up table.

Kept here so each notebook shows the idea, not the bookkeeping.  The image
size comes from $POLYMASK_NOTEBOOK_SIZE (default 1024, the course's size;
the tests run every notebook at 64).  Slow stages run on an image 8 times
smaller on each side, and their times are scaled up by the pixel count --
every per-pixel stage's work grows with the number of pixels -- and marked so.
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np

import polymask
import polymask.course.stages  # noqa: F401  (the notebooks call polymask.course.stages.get)
from polymask.bench.timing import calibrate
from polymask.course.problems import standard_problem

#: Side of the image the fast stages are timed on.
SIZE = int(os.environ.get("POLYMASK_NOTEBOOK_SIZE", "1024"))
#: Side of the image the slow (pure Python) stages are timed on.
SLOW_SIZE = max(16, SIZE // 8)
#: Timings per measurement: min, median and max are shown, the median is kept.
REPEATS = 3

PACKAGE_DIR = Path(polymask.__file__).resolve().parent
EXERCISES_DIR = Path(__file__).resolve().parent.parent / "exercises"


def _warn_without_compiler() -> None:
    """Say up front, not in a %%cython cell's build log, that this machine cannot compile Cython."""
    from polymask.course.build import missing_compiler

    reason = missing_compiler()
    if reason:
        print(f"Note: the %%cython cells of lessons 2-6 will not build here: {reason}")


_warn_without_compiler()

_times: dict[str, tuple[list, bool]] = {}


def problem(size: int = SIZE):
    """The course's standard problem (24 random vertices) on a size x size image."""
    return standard_problem(size)


def stage_code(stage_id: str, skip_docstring: bool = True) -> str:
    """The source a stage is built from (the file under polymask/course/stages/), without its docstring."""
    text = (PACKAGE_DIR / polymask.course.stages.get(stage_id).source).read_text()
    if skip_docstring and '"""' in text:
        head, _, rest = text.partition('"""')
        text = head + rest.partition('"""')[2].lstrip("\n")
    return text


def show_source(stage_id: str, skip_docstring: bool = True) -> None:
    """Print the source a stage is built from, without its docstring (`skip_docstring`)."""
    print(stage_code(stage_id, skip_docstring))


def repeat_seconds(function, repeats: int = REPEATS, min_seconds: float = 0.02) -> list[float]:
    """Seconds per call of `function`, once per repeat (each repeat averages enough calls
    to last `min_seconds`): the spread of these is what a busy machine does to a timing."""
    calls, _ = calibrate(function, min_seconds)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        seconds.append((time.perf_counter() - start) / calls)
    return seconds


def spread(seconds: list[float]) -> str:
    """'min / median / max' of a list of timings, in ms."""
    return (f"{min(seconds) * 1e3:9.3f} {statistics.median(seconds) * 1e3:9.3f} "
            f"{max(seconds) * 1e3:9.3f} ms")


def busy_note(seconds: list[float] = ()) -> str:
    """A warning when the machine looks busy or the repeats disagree; '' when all looks quiet."""
    notes = []
    try:
        load, cores = os.getloadavg()[0], os.cpu_count() or 1
        if load > 0.8 * cores:
            notes.append(f"the machine looks busy (load average {load:.1f} on {cores} cores)")
    except OSError:  # no load average on this platform
        pass
    if len(seconds) >= 2 and min(seconds) > 0 and max(seconds) / min(seconds) > 1.5:
        notes.append(f"repeats vary up to {max(seconds) / min(seconds):.1f}x")
    if not notes:
        return ""
    return "note: " + "; ".join(notes) + ": compare medians, and re-run when the machine is quiet"


def time_it(label: str, mask_function, *, slow: bool = False, **options) -> float:
    """Time mask_function on the standard problem, check it against polymask.mask, remember it.

    Returns the median seconds for a SIZE x SIZE image (scaled from SLOW_SIZE when slow).
    """
    size = SLOW_SIZE if slow else SIZE
    vertices, shape = problem(size)
    result = mask_function(vertices, shape, **options)
    assert np.array_equal(result, polymask.mask(vertices, shape)), f"{label}: not the contract's mask!"
    scale = (SIZE / size) ** 2
    seconds = [value * scale for value in repeat_seconds(lambda: mask_function(vertices, shape, **options))]
    _times[label] = (seconds, slow)
    return statistics.median(seconds)


def speedups(baseline: str | None = None) -> None:
    """Print every time measured so far in this notebook (min / median / max of the repeats)
    and the speed-up of the medians over `baseline` (default: the first one timed); warn when
    the machine looks busy."""
    if not _times:
        print("nothing timed yet")
        return
    first_label = baseline if baseline in _times else next(iter(_times))
    first = _times[first_label][0]
    print(f"{SIZE}x{SIZE}, 24 vertices, {REPEATS} repeats; speed-up of the median over {first_label!r}")
    print(f"  {'':<36} {'min':>9} {'median':>9} {'max':>9}")
    everything = []
    for label, (seconds, scaled) in _times.items():
        note = f"  (timed on {SLOW_SIZE}x{SLOW_SIZE}, scaled up)" if scaled else ""
        ratio = statistics.median(first) / statistics.median(seconds)
        print(f"  {label:<36} {spread(seconds)} {ratio:10.1f}x{note}")
        spread_ratio = max(seconds) / min(seconds) if min(seconds) > 0 else 1.0
        everything.append(spread_ratio)
    worst = max(everything)
    note = busy_note([1.0, worst])
    if note:
        print(note)


#: Rungs compared with a rung other than the one listed just before them: NumPy scalars
#: and compiling unchanged both start again from the pure-Python code.
BUILDS_ON = {"python_numpy": "python", "cython_plain": "python"}


def ladder_story(results: dict) -> str:
    """What this run's table says, rung by rung, as Markdown: each stage against the rung it
    builds on (the one before it, or BUILDS_ON's): faster, about as fast -- within 10% -- or
    slower, and the fastest stage overall."""
    rungs = [row for row in results["rows"] if row["kind"] == "stage" and row.get("seconds")]
    if len(rungs) < 2:
        return "Too few stages ran here to compare."
    by_id = {row["id"]: row for row in rungs}
    lines = []
    for previous, after in zip(rungs, rungs[1:]):
        before = by_id.get(BUILDS_ON.get(after["id"]), previous)
        ratio = before["seconds"] / after["seconds"]
        if ratio >= 1.1:
            verdict = f"**{ratio:.1f}x faster** than"
        elif ratio > 1 / 1.1:
            verdict = f"about as fast as ({ratio:.2f}x)"
        else:
            verdict = f"**slower** ({ratio:.2f}x) than"
        lines.append(f"* `{after['id']}` is {verdict} `{before['id']}`.")
    fastest = min(rungs, key=lambda row: row["seconds"])
    lines.append(f"* Fastest here: `{fastest['id']}`, {rungs[0]['seconds'] / fastest['seconds']:,.0f}x the speed "
                 f"of `{rungs[0]['id']}`.")
    return "\n".join(lines)


def cython_core_flags() -> str:
    """The %%cython options that let a cell cimport polymask.core and link the C++ core."""
    from polymask.course.build import compile_flags, cython_include_path

    compile_args, link_args = compile_flags(link_core=True)
    parts = ["--cplus", f"-I {polymask.get_include()}", f"-I {cython_include_path()[0]}"]
    parts += [f"-L {folder}" for folder in polymask.get_library_dirs()] + ["-l polymask_core"]
    parts += [f"--compile-args={arg}" for arg in compile_args] + [f"--link-args={arg}" for arg in link_args]
    return " ".join(parts)


class busy_core:
    """``with busy_core():`` one process spins on a core for the block: a shared machine, on purpose."""

    def __enter__(self):
        import subprocess
        import sys

        self.spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.2)  # let it reach its loop
        return self

    def __exit__(self, *exc_info):
        self.spinner.kill()
        self.spinner.wait()


def alternated(calls: dict, rounds: int = 15) -> dict[str, float]:
    """Median seconds of each call over `rounds` rounds, the order rotating each round so all
    see the same load."""
    names = list(calls)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for name in names:
        calls[name]()  # warm: thread pools, compilation
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            calls[name]()
            seconds[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in seconds.items()}
