"""``polymask check NN FILE``: is a learner's exercise right, and how fast is it?

The checker a learner can trust.  It

1. builds the learner's file the way the exercise needs: a .py is imported,
   a .pyx is compiled by Cython as C++ (linked with the C++ core, and with
   OpenMP for the prange exercise; see polymask._build), a .cl kernel is
   built by PyOpenCL and run one work-item per pixel;
2. runs its ``mask(vertices, shape)`` on THE polygon set of the tests,
   ``polymask.cases.contract_cases()``, degenerate polygons included, and
   compares every mask with ``polymask.mask`` for equality;
3. says exactly what is wrong when it is wrong: which polygon, how many
   pixels are extra or missing, and a small picture of the difference
   ('+' a pixel you set that should be clear, '-' one you missed);
4. when right, times it on the course's standard problem (smaller for the
   slow stages, and labelled so) beside the previous stage of the ladder,
   timed in the same run, and prints the speed-up.

The learner's code runs in a child process: a crash (say, a segfault from
a NULL pointer in C++) or a hang is reported as such, with the polygon it
happened on, instead of taking the notebook or the terminal down.

From a notebook cell::

    from polymask.checker import check
    check("01", "exercises/01_python/mask.py")      # shows the report; .passed is a bool

Exit codes of ``polymask check``: 0 right, 1 wrong, 2 the file could not be
built or loaded (or the command was used wrongly).
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


# ---- the exercises -----------------------------------------------------------------------


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
    #: The generated C++ must contain an OpenMP parallel region (prange was used).
    needs_prange: bool = False
    #: Keyword arguments the checker passes to mask() (threads for the prange exercise).
    call_options: tuple = ()

    @property
    def kind(self) -> str:
        return Path(self.filename).suffix.lstrip(".")


EXERCISES: tuple[Exercise, ...] = (
    Exercise("01", "01_python", "mask.py", "python", None),
    Exercise("02", "02_compile", "mask.pyx", "cython_plain", "python"),
    Exercise("03", "03_types", "mask.pyx", "cython_typed", "cython_plain"),
    Exercise("04", "04_wrap_cpp", "mask.pyx", "cython_cpp", "cython_typed", link_core=True),
    Exercise("05", "05_cdef_class", "mask.pyx", "cython_class", "cython_cpp", link_core=True),
    Exercise("06", "06_prange", "mask.pyx", "cython_prange", "cython_class", openmp=True, link_core=True,
             needs_prange=True, call_options=(("threads", 2),)),
    Exercise("07", "07_opencl", "mask.cl", "opencl", "cython_prange"),
    Exercise("08", "08_scanline", "mask.py", "scanline", "opencl"),
)

#: Image side of the standard problem when timing; slow stages are timed smaller.
FAST_TIME_SIZE = 1024
SLOW_TIME_SIZE = 128
#: Name of the kernel a .cl exercise must define.
OPENCL_KERNEL = "mask_pixel"


def get_exercise(name: str) -> Exercise:
    """The exercise called "NN", "N" or "NN_topic"; ValueError listing the choices otherwise."""
    text = str(name).strip().rstrip("/").split("/")[-1]
    for exercise in EXERCISES:
        if text in (exercise.number, exercise.folder) or (text.isdigit() and int(text) == int(exercise.number)):
            return exercise
    choices = ", ".join(f"{e.number} ({e.folder})" for e in EXERCISES)
    raise ValueError(f"unknown exercise {name!r}; choose one of: {choices}")


def default_time_size(exercise: Exercise) -> int:
    from polymask import stages

    slow = any(stages.get(stage_id).slow for stage_id in (exercise.stage, exercise.previous) if stage_id)
    return SLOW_TIME_SIZE if slow else FAST_TIME_SIZE


# ---- the result --------------------------------------------------------------------------


@dataclass
class CheckResult:
    """The checker's verdict.  ``passed`` is the bool; str()/repr() is the report for humans."""

    exercise: str
    path: str
    #: "pass", "wrong" (ran, but a mask differs or the code failed on a case) or "error" (not built/loaded).
    status: str
    #: The report, as printed.
    report: str
    #: One dict per failing case: case, kind, message, and for wrong masks extra/missing/picture.
    failures: list = field(default_factory=list)
    #: Seconds per mask on the timing problem (when passed and timed).
    seconds: float | None = None
    previous_stage: str | None = None
    previous_seconds: float | None = None
    time_shape: tuple | None = None

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def exit_code(self) -> int:
        return {"pass": 0, "wrong": 1}.get(self.status, 2)

    @property
    def speedup(self) -> float | None:
        if self.seconds and self.previous_seconds:
            return self.previous_seconds / self.seconds
        return None

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.report

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython shows the report, not a dataclass dump
        printer.text(self.report)


# ---- pictures of a difference ------------------------------------------------------------

LEGEND = "'#' inside in both, '.' outside in both, '+' you set it but it is outside, '-' you missed it"


def difference_picture(got: np.ndarray, expected: np.ndarray, max_rows: int = 24, max_cols: int = 60) -> str:
    """A small text picture of where two bool masks differ, cropped around the differences."""
    differ = got != expected
    rows, cols = np.nonzero(differ)
    if rows.size == 0:
        return "(no difference)"
    margin = 2
    top, bottom = max(0, rows.min() - margin), min(got.shape[0], rows.max() + margin + 1)
    left, right = max(0, cols.min() - margin), min(got.shape[1], cols.max() + margin + 1)
    note = ""
    if bottom - top > max_rows or right - left > max_cols:
        # Too big to show whole: centre the window on the first difference.
        first_row, first_col = rows[0], cols[0]
        top = max(0, min(first_row - max_rows // 2, got.shape[0] - max_rows))
        left = max(0, min(first_col - max_cols // 2, got.shape[1] - max_cols))
        bottom, right = min(got.shape[0], top + max_rows), min(got.shape[1], left + max_cols)
        note = " (part of it, around the first difference)"
    symbols = np.full(got.shape, ".", dtype="<U1")
    symbols[got & expected] = "#"
    symbols[got & ~expected] = "+"
    symbols[~got & expected] = "-"
    lines = [f"rows {top}..{bottom - 1}, columns {left}..{right - 1}{note}:"]
    for row in range(top, bottom):
        lines.append(f"  {row:4d} " + "".join(symbols[row, left:right]))
    return "\n".join(lines)


# ---- the child process that runs the learner's code --------------------------------------


def _emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _describe_exception(error: BaseException) -> str:
    """The exception and the innermost frames, so the learner sees the line that raised."""
    # The checker's own frames say nothing to the learner: keep theirs only.
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if Path(frame.filename).name != "checker.py"][-3:]
    where = "".join(traceback.format_list(frames))
    return f"{type(error).__name__}: {error}\n{where}".rstrip()


def _load_python(path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"learner_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_extension(module_path: Path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _opencl_mask_function(path: Path):
    """Build the learner's kernel and return a host function mask(vertices, shape) that runs it."""
    import pyopencl as cl

    from polymask import opencl

    device = opencl.select_device()
    if not opencl._has_fp64(device):
        raise RuntimeError(f"the OpenCL device {device.name.strip()!r} has no double precision (fp64), "
                           "which this exercise needs to match the contract bit for bit")
    program = opencl.build_program(path.read_text(encoding="utf-8"), device,
                                   options=["-cl-fp32-correctly-rounded-divide-sqrt"], label=str(path))
    names = program.get_info(cl.program_info.KERNEL_NAMES).split(";")
    if OPENCL_KERNEL not in names:
        raise LookupError(f"{path} defines no kernel named {OPENCL_KERNEL!r}; it defines: "
                          f"{', '.join(n for n in names if n) or 'no kernel at all'}")
    context = program.get_info(cl.program_info.CONTEXT)
    command_queue = cl.CommandQueue(context, device)
    kernel = getattr(program, OPENCL_KERNEL)
    unwritten = np.uint8(2)  # the mask buffer starts as 2s: a pixel the kernel never wrote shows up

    def mask(vertices, shape):
        rows, cols = shape
        h_xy = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1)
        n_vertices = h_xy.size // 2
        if h_xy.size == 0:
            h_xy = np.zeros(2)  # an OpenCL buffer cannot be empty; n_vertices = 0 says there are none
        d_xy = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=h_xy)
        h_mask = np.empty((rows, cols), dtype=np.uint8)
        d_mask = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, h_mask.nbytes)
        cl.enqueue_fill_buffer(command_queue, d_mask, unwritten, 0, h_mask.nbytes)
        kernel(command_queue, (cols, rows), None, d_xy, np.int32(n_vertices), d_mask,
               np.int32(rows), np.int32(cols))
        cl.enqueue_copy(command_queue, h_mask, d_mask)
        command_queue.finish()
        bad = np.count_nonzero(h_mask > 1)
        if bad:
            raise ValueError(f"the kernel left {bad} of {h_mask.size} pixels unwritten (or wrote values "
                             "other than 0 and 1): every work-item must write mask[row * cols + col] = 0 or 1")
        return h_mask.view(bool)

    return mask


def _check_output(got, shape) -> str | None:
    """Why `got` is not a mask of `shape`, or None when it is one."""
    if not isinstance(got, np.ndarray):
        return f"mask() returned {type(got).__name__} {got!r:.60}; expected a NumPy array of shape {shape} and dtype bool"
    if got.shape != tuple(shape):
        return (f"mask() returned an array of shape {got.shape}; expected shape {tuple(shape)} "
                "(rows, cols): rows come from y, columns from x")
    if got.dtype != np.bool_:
        return (f"mask() returned dtype {got.dtype}; expected dtype bool "
                "(a uint8 buffer of 0s and 1s can be returned as result.view(bool))")
    return None


def _worker(job: dict) -> int:
    """Run in the child: load the learner's code, check every case, time it; events on stdout."""
    import polymask
    from polymask.bench.timing import median_seconds
    from polymask.cases import contract_cases
    from polymask.problems import standard_problem

    exercise = get_exercise(job["exercise"])
    options = dict(exercise.call_options)
    path = Path(job["path"])
    _emit({"event": "phase", "name": "loading your file"})
    try:
        if exercise.kind == "cl":
            learner_mask = _opencl_mask_function(path)
        else:
            module = (_load_extension(Path(job["module_path"]), job["module_name"]) if job.get("module_path")
                      else _load_python(path))
            learner_mask = getattr(module, "mask", None)
            if not callable(learner_mask):
                raise LookupError(f"{path} defines no function mask(vertices, shape); the exercise's "
                                  "README says what it must define")
    except Exception as error:  # noqa: BLE001 -- any failure to load is the learner's to read
        _emit({"event": "load_error", "message": _describe_exception(error)})
        return 0

    failures = []
    cases = contract_cases(job["size"])
    for case in cases:
        _emit({"event": "phase", "name": f"case {case.name!r}"})
        expected = polymask.mask(case.vertices, case.shape)
        record = {"case": case.name, "shape": list(case.shape), "n_vertices": len(case.vertices),
                  "vertices": np.round(case.vertices, 3).tolist()[:8]}
        try:
            with np.errstate(all="ignore"):  # far-out vertices overflow on purpose
                got = learner_mask(case.vertices.copy(), case.shape, **options)
        except Exception as error:  # noqa: BLE001
            failures.append(dict(record, kind="raised", message=_describe_exception(error)))
            continue
        problem = _check_output(got, case.shape)
        if problem:
            failures.append(dict(record, kind="output", message=problem))
            continue
        if not np.array_equal(got, expected):
            extra = int(np.count_nonzero(got & ~expected))
            missing = int(np.count_nonzero(~got & expected))
            failures.append(dict(record, kind="wrong", extra=extra, missing=missing,
                                 inside=int(np.count_nonzero(expected)), pixels=int(expected.size),
                                 picture=difference_picture(got, expected)))
    _emit({"event": "cases", "count": len(cases), "failures": failures})
    if failures or not job["timing"]:
        return 0

    _emit({"event": "phase", "name": "timing"})
    size = job["time_size"]
    vertices, shape = standard_problem(size)
    got = learner_mask(vertices.copy(), shape, **options)
    if _check_output(got, shape) or not np.array_equal(got, polymask.mask(vertices, shape)):
        _emit({"event": "timing_wrong", "size": size})
        return 0
    timing = {"event": "timing", "size": size,
              "seconds": median_seconds(lambda: learner_mask(vertices, shape, **options), job["repeats"])}
    compare_with = exercise.previous or exercise.stage
    stage_options = {"threads": options["threads"]} if "threads" in options and polymask.stages.get(compare_with).threaded else {}
    try:
        previous = polymask.stages.get(compare_with).load()
        timing["previous_seconds"] = median_seconds(lambda: previous(vertices, shape, **stage_options), job["repeats"])
    except ImportError as error:
        timing["previous_note"] = f"stage {compare_with!r} is not available here: {error}"
    _emit(timing)
    return 0


# ---- the parent: build, run the child, write the report ----------------------------------


def _run_child(job: dict, case_timeout: float, timing_timeout: float) -> tuple[list, str, str]:
    """Run the worker; (events, how it ended, stderr).  Each phase must finish within its time limit."""
    process = subprocess.Popen([sys.executable, "-m", "polymask.checker", "--worker", json.dumps(job)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    stderr_chunks: list[str] = []
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout] + [lines.put(None)],
                     daemon=True).start()
    threading.Thread(target=lambda: stderr_chunks.append(process.stderr.read()), daemon=True).start()
    events: list[dict] = []
    limit = case_timeout
    while True:
        try:
            line = lines.get(timeout=limit)
        except queue.Empty:
            process.kill()
            process.wait()
            return events, "timeout", "".join(stderr_chunks)
        if line is None:
            break
        try:
            event = json.loads(line)
        except json.JSONDecodeError:  # the learner's own print(): not ours to parse
            continue
        events.append(event)
        if event.get("event") == "phase":
            limit = timing_timeout if event["name"] == "timing" else case_timeout
    process.wait()
    time.sleep(0.05)  # let the stderr reader finish
    ended = "ok" if process.returncode == 0 else f"exit {process.returncode}"
    if process.returncode and process.returncode < 0:
        ended = f"signal {signal.Signals(-process.returncode).name}"
    return events, ended, "".join(stderr_chunks)


def _format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def _failure_text(failure: dict) -> str:
    rows, cols = failure["shape"]
    head = f"case {failure['case']!r} ({failure['n_vertices']} vertices on a {rows}x{cols} image)"
    if failure["kind"] == "wrong":
        total = failure["extra"] + failure["missing"]
        return (f"{head}: {total} pixels differ from polymask.mask -- {failure['extra']} extra (+), "
                f"{failure['missing']} missing (-); the right mask has {failure['inside']} of "
                f"{failure['pixels']} pixels inside.\n  first vertices (x, y): {failure['vertices']}\n"
                + failure["picture"])
    if failure["kind"] == "raised":
        return f"{head}: your mask() raised\n  " + failure["message"].replace("\n", "\n  ")
    return f"{head}: {failure['message']}"


def check(exercise: str, path: str | os.PathLike, *, size: int = 24, time_size: int | None = None,
          repeats: int = 3, timing: bool = True, case_timeout: float = 30.0,
          timing_timeout: float = 300.0) -> CheckResult:
    """Build the learner's file for `exercise`, check it on the contract's cases, and time it.

    `size` is the side of the test images (the tests use 24); `time_size`
    the side of the timing problem (default 1024, or 128 when this stage or
    the one before is a slow one); `repeats` timings per row, the median
    shown.  Returns a CheckResult: ``.passed``, and the report as its str.
    """
    spec = get_exercise(exercise)
    source = Path(path)
    label = f"exercise {spec.folder}"
    if not source.is_file():
        return CheckResult(spec.folder, str(source), "error",
                           f"ERROR {label}: there is no file {str(source)!r}; expected the "
                           f"{spec.filename} you edited, e.g. exercises/{spec.folder}/{spec.filename}")
    if source.suffix != Path(spec.filename).suffix:
        return CheckResult(spec.folder, str(source), "error",
                           f"ERROR {label}: {source.name} is a {source.suffix or 'suffix-less'} file; this "
                           f"exercise expects a {Path(spec.filename).suffix} file ({spec.filename})")
    job = {"exercise": spec.number, "path": str(source.resolve()), "size": int(size), "timing": bool(timing),
           "repeats": int(repeats), "time_size": int(time_size or default_time_size(spec))}
    if spec.kind == "pyx":
        from polymask._build import build_cython

        built = build_cython(source, openmp=spec.openmp, link_core=spec.link_core)
        if not built.ok:
            return CheckResult(spec.folder, str(source), "error",
                               f"ERROR {label}: {source} did not build.\n{built.error}")
        job.update(module_path=str(built.module_path), module_name=built.module_name)

    events, ended, stderr = _run_child(job, case_timeout, timing_timeout)
    by_kind = {event["event"]: event for event in events}
    phases = [event["name"] for event in events if event["event"] == "phase"]
    last_phase = phases[-1] if phases else "starting"

    def result(status, text, **extra):
        if job.get("module_name"):  # the cached module's name means nothing to the learner: name their file
            text = text.replace(f"{job['module_name']}.pyx", str(source)).replace(job["module_name"], source.stem)
        return CheckResult(spec.folder, str(source), status, text, **extra)

    if "load_error" in by_kind:
        return result("error", f"ERROR {label}: {source} could not be loaded:\n  "
                      + by_kind["load_error"]["message"].replace("\n", "\n  "))
    if ended == "timeout":
        limit = timing_timeout if last_phase == "timing" else case_timeout
        return result("wrong", f"FAIL {label}: {source} did not finish {last_phase} within {limit:.0f} s "
                      "(an endless loop? a loop index that never advances?); it was stopped.")
    if "cases" not in by_kind:
        tail = "\n".join(stderr.strip().splitlines()[-8:])
        return result("wrong", f"FAIL {label}: {source} crashed the Python process ({ended}) during "
                      f"{last_phase}: in compiled code this is usually a NULL or out-of-range pointer."
                      + (f"\n{tail}" if tail else ""))

    failures = by_kind["cases"]["failures"]
    count = by_kind["cases"]["count"]
    if failures:
        lines = [f"FAIL {label}: {source} is wrong on {len(failures)} of {count} cases "
                 f"(the polygon set of the tests, {size}x{size} images).", ""]
        first = failures[0]
        if first["kind"] == "wrong":
            lines.append(f"legend: {LEGEND}")
        lines.append(_failure_text(first) + "\n")
        # The first failure in full; a line for the next few, names for the rest.
        for failure in failures[1:5]:
            lines.append(_failure_text(failure).split("\n")[0])
        if len(failures) > 5:
            lines.append("also wrong: " + ", ".join(f["case"] for f in failures[5:]))
        return result("wrong", "\n".join(lines).rstrip(), failures=failures)
    if spec.needs_prange and "omp parallel" not in built.generated_cpp:
        return result("wrong", f"FAIL {label}: {source} gives the right mask on all {count} cases, but it "
                      "runs on one thread: no prange loop was compiled (Cython wrote no OpenMP parallel "
                      "region). Split the rows over threads with cython.parallel.prange(..., nogil=True).")

    lines = [f"PASS {label}: {source} gives the right mask on all {count} cases."]
    if "timing_wrong" in by_kind:
        return result("wrong", f"FAIL {label}: {source} passed the {count} cases but is wrong on the "
                      f"{by_kind['timing_wrong']['size']}-pixel standard problem.")
    timed = by_kind.get("timing")
    extra = {}
    if timed:
        side = timed["size"]
        why = "a slow stage" if side == default_time_size(spec) else "as asked"
        scaled = "" if side == FAST_TIME_SIZE else f" (scaled down from {FAST_TIME_SIZE}x{FAST_TIME_SIZE}: {why})"
        compare_with = spec.previous or spec.stage
        lines.append(f"time on the standard problem, {side}x{side}, 24 vertices{scaled}:")
        lines.append(f"  {'yours':<48} {_format_seconds(timed['seconds']):>10}")
        extra = {"seconds": timed["seconds"], "previous_stage": compare_with, "time_shape": (side, side)}
        if "previous_seconds" in timed:
            ratio = timed["previous_seconds"] / timed["seconds"]
            role = "the previous stage" if spec.previous else "polymask's own version of this stage"
            lines.append(f"  {compare_with + ' (' + role + ')':<48} {_format_seconds(timed['previous_seconds']):>10}")
            lines.append(f"  speed-up over {compare_with}: {ratio:.1f}x")
            extra["previous_seconds"] = timed["previous_seconds"]
        else:
            lines.append(f"  ({timed['previous_note']})")
    return result("pass", "\n".join(lines), **extra)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `polymask check` subcommand's arguments (see polymask/cli.py)."""
    parser.add_argument("exercise", help="exercise number, e.g. 01 (or its folder name, 01_python)")
    parser.add_argument("file", help="the file you edited, e.g. exercises/01_python/mask.py")
    parser.add_argument("--size", type=int, default=24, help="side of the test images (default 24)")
    parser.add_argument("--time-size", type=int, default=None,
                        help="side of the timing problem (default 1024; 128 for slow stages)")
    parser.add_argument("--repeats", type=int, default=3, help="timings per row; the median is shown")
    parser.add_argument("--no-timing", action="store_true", help="only check, do not time")
    parser.set_defaults(run=main_from_args)


def main_from_args(args: argparse.Namespace) -> int:
    try:
        outcome = check(args.exercise, args.file, size=args.size, time_size=args.time_size,
                        repeats=args.repeats, timing=not args.no_timing)
    except ValueError as error:
        print(f"polymask check: {error}", file=sys.stderr)
        return 2
    print(outcome)
    return outcome.exit_code


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.exit(_worker(json.loads(sys.argv[2])))
    command_line = argparse.ArgumentParser(prog="python -m polymask.checker", description=__doc__.splitlines()[0])
    add_arguments(command_line)
    sys.exit(main_from_args(command_line.parse_args()))
