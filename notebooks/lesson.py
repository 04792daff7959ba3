"""Small helpers the lesson notebooks share: image sizes, timing, the speed-up table.

Kept here so each notebook shows the idea, not the bookkeeping.  The image
size comes from $POLYMASK_NOTEBOOK_SIZE (default 1024, the course's size;
the tests run every notebook at 64).  Slow stages run on an image 8 times
smaller on each side, and their times are scaled up by the pixel count --
every per-pixel stage's work grows with the number of pixels -- and marked so.

Every timing claim a page makes is printed by `verdict` from that page's own
numbers: a line that opens with VERDICT ("on this run:") when the machine was
quiet enough to test the claim, or with TOO_BUSY when it was not (the load
average above the cores this process may use, or the measured code got far
less CPU time than wall time).  The tests look for these lines on every page.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from dataclasses import dataclass
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

_times: dict[str, tuple[Measured, bool]] = {}


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


#: How a computed verdict line opens when the machine was quiet enough to test the claim.
VERDICT = "on this run:"
#: How it opens when it was not: the numbers are printed, the claim is not judged.
TOO_BUSY = "too busy to judge on this run:"
#: Below this share of its wall time on the CPU (per thread), a timed call was waiting
#: for a core, not computing: its time says more about the machine than about the code.
MIN_CPU_SHARE = 0.7


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def load_average() -> float | None:
    """The load average over the last minute (None where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def machine_load() -> str:
    """'load average L on N usable cores', as this machine reports it now."""
    load = load_average()
    measured = f"load average {load:.1f}" if load is not None else "no load average"
    return f"{measured} on {usable_cores()} usable cores"


@dataclass
class Measured:
    """Seconds per call of one piece of code, once per repeat: wall time and this process's CPU time."""

    wall: list[float]
    cpu: list[float]

    @property
    def seconds(self) -> float:
        """The median wall time per call."""
        return statistics.median(self.wall)

    @property
    def cpu_seconds(self) -> float:
        """The median CPU time per call (every thread of this process, and of the children it waited for)."""
        return statistics.median(self.cpu)

    def cpu_share(self, threads: int = 1) -> float:
        """CPU time over wall time, per thread: about 1 when every thread had a core to itself."""
        return sum(self.cpu) / max(sum(self.wall), 1e-12) / threads


def cpu_clock() -> float:
    """CPU seconds of this process and of the children it has waited for.

    Some stages run a long call in a forked child (so Ctrl-C can stop code that
    holds the GIL); the child's CPU time is the call's, and Linux adds it to the
    parent's children's time once the child is reaped.
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(function, repeats: int = REPEATS, min_seconds: float = 0.02) -> Measured:
    """Time `function` `repeats` times (each repeat averages enough calls to last
    `min_seconds`), by the wall clock and by this process's CPU time."""
    calls, _ = calibrate(function, min_seconds)
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), cpu_clock()
        for _ in range(calls):
            function()
        cpu.append((cpu_clock() - start_cpu) / calls)
        wall.append((time.perf_counter() - start) / calls)
    return Measured(wall, cpu)


def busy_reason(*measured: Measured, threads: int | None = 1) -> str:
    """Why this machine was too busy to test a claim about `measured` ('' when it was not):
    a load average above the usable cores, or code that got far less CPU than wall time
    (`threads` threads each; None: the work ran elsewhere, on a device, say)."""
    reasons = []
    load, cores = load_average(), usable_cores()
    if load is not None and load > cores:
        reasons.append(f"load average {load:.1f} on {cores} usable cores")
    if threads:
        shares = [value.cpu_share(threads) for value in measured]
        if shares and min(shares) < MIN_CPU_SHARE:
            reasons.append(
                f"the timed code ran {min(shares):.0%} of its wall time"
                + (f" per thread ({threads} threads)" if threads > 1 else "")
            )
    return "; ".join(reasons)


def verdict(
    numbers: str, finding: str, *measured: Measured, threads: int | None = 1, reason: str | None = None
) -> None:
    """Print one computed verdict: `numbers`, what this run measured, then `finding`, what
    they say, when the machine was quiet enough to test it; when it was not, the numbers
    and why they cannot decide (`reason` overrides the judgement)."""
    why = busy_reason(*measured, threads=threads) if reason is None else reason
    print(f"{TOO_BUSY} {numbers} ({why})" if why else f"{VERDICT} {numbers}: {finding}")


def compared(name: str, other: str, ratio: float, within: float = 0.1) -> str:
    """Words for `ratio` = other's time / name's time: faster, about as fast (within `within`), slower."""
    if ratio >= 1 + within:
        return f"{name} is {ratio:.2f}x faster than {other}"
    if ratio > 1 / (1 + within):
        return f"{name} is about as fast as {other} ({ratio:.2f}x, within {within:.0%})"
    return f"{name} is slower than {other} ({1 / ratio:.2f}x the time)"


def repeat_seconds(function, repeats: int = REPEATS, min_seconds: float = 0.02) -> list[float]:
    """Seconds per call of `function`, once per repeat (each repeat averages enough calls
    to last `min_seconds`): the spread of these is what a busy machine does to a timing."""
    return measure(function, repeats, min_seconds).wall


def spread(seconds: list[float]) -> str:
    """'min / median / max' of a list of timings, in ms."""
    return f"{min(seconds) * 1e3:9.3f} {statistics.median(seconds) * 1e3:9.3f} {max(seconds) * 1e3:9.3f} ms"


def time_it(label: str, mask_function, *, slow: bool = False, **options) -> float:
    """Time mask_function on the standard problem, check it against polymask.mask, remember it.

    Returns the median seconds for a SIZE x SIZE image (scaled from SLOW_SIZE when slow).
    """
    size = SLOW_SIZE if slow else SIZE
    vertices, shape = problem(size)
    result = mask_function(vertices, shape, **options)
    assert np.array_equal(result, polymask.mask(vertices, shape)), f"{label}: not the contract's mask!"
    scale = (SIZE / size) ** 2
    measured = measure(lambda: mask_function(vertices, shape, **options))
    measured = Measured([value * scale for value in measured.wall], [value * scale for value in measured.cpu])
    _times[label] = (measured, slow)
    return measured.seconds


def timed(label: str) -> Measured:
    """What `time_it` measured for `label` (per SIZE x SIZE image)."""
    return _times[label][0]


def speedups(baseline: str | None = None) -> None:
    """Print every time measured so far in this notebook (min / median / max of the repeats,
    and the CPU time's share of the wall time) and the speed-up of the medians over
    `baseline` (default: the first one timed)."""
    if not _times:
        print("nothing timed yet")
        return
    first_label = baseline if baseline in _times else next(iter(_times))
    first = _times[first_label][0]
    print(f"{SIZE}x{SIZE}, 24 vertices, {REPEATS} repeats; speed-up of the median over {first_label!r}")
    print(f"  {'':<36} {'min':>9} {'median':>9} {'max':>9}    {'speed-up':>8} {'CPU/wall':>8}")
    for label, (measured, scaled) in _times.items():
        note = f"  (timed on {SLOW_SIZE}x{SLOW_SIZE}, scaled up)" if scaled else ""
        ratio = first.seconds / measured.seconds
        print(f"  {label:<36} {spread(measured.wall)} {ratio:8.1f}x {measured.cpu_share():8.0%}{note}")
    load = load_average()
    if load is not None:
        print(f"  load average {load:.1f} on {usable_cores()} usable cores")


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
    lines.append(
        f"* Fastest here: `{fastest['id']}`, {rungs[0]['seconds'] / fastest['seconds']:,.0f}x the speed "
        f"of `{rungs[0]['id']}`."
    )
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


def alternated_measured(calls: dict, rounds: int = 15) -> dict[str, Measured]:
    """Each call timed once per round for `rounds` rounds (wall and CPU time), the order
    rotating each round so all see the same load."""
    names = list(calls)
    measured = {name: Measured([], []) for name in names}
    for name in names:
        calls[name]()  # warm: thread pools, compilation
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            start, start_cpu = time.perf_counter(), cpu_clock()
            calls[name]()
            measured[name].cpu.append(cpu_clock() - start_cpu)
            measured[name].wall.append(time.perf_counter() - start)
    return measured


def alternated(calls: dict, rounds: int = 15) -> dict[str, float]:
    """Median seconds of each call over `rounds` rounds, the order rotating each round so all
    see the same load."""
    return {name: value.seconds for name, value in alternated_measured(calls, rounds).items()}
