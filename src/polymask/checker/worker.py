"""The child process that runs a learner's code: ``python -m polymask.checker.worker FD``.

It knows nothing about right and wrong.  It reads its job (the test
polygons, the timing problem, what to probe) from stdin, loads the
learner's module, calls ``mask`` on every polygon and sends the masks --
as packed bits -- to the checker through the pipe FD, a private channel
the checker opened for it.  The learner's prints go to stdout/stderr,
which the checker only quotes; a line that looks like the checker's own
events proves nothing there.  The checker holds the reference masks,
computed before this process started, and does every comparison itself.

Before the learner's code runs, polymask's mask-computing functions are
replaced in this process by guards: a call through any of them (say, via
``__import__``) is reported as a borrowed answer, not as a mask.

Stdin stays open as a lifeline: when it closes (the checker finished,
was interrupted or died) this process kills its whole process group, so
nothing the learner started outlives the check.
"""
from __future__ import annotations

import base64
import gc
import importlib.abc
import importlib.util
import inspect
import json
import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from time import perf_counter, process_time  # bound now: the learner cannot swap the clock under us

import numpy as np

from polymask.checker.exercises import FREES_POLYGON, MANY_THREADS, get_exercise, random_vertices

_channel = None


def emit(event: dict) -> None:
    _channel.write(json.dumps(event) + "\n")
    _channel.flush()


def pack(mask: np.ndarray) -> str:
    return base64.b64encode(np.packbits(mask.view(np.uint8), axis=None).tobytes()).decode("ascii")


def _lifeline() -> None:
    """Block on stdin; at EOF the checker is gone or done: take the whole group down."""
    try:
        while sys.stdin.buffer.read(65536):
            pass
    finally:
        os.killpg(os.getpgid(0), signal.SIGKILL)


def describe_exception(error: BaseException) -> str:
    """The exception and the innermost frames, so the learner sees the line that raised."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if "polymask/checker" not in Path(frame.filename).as_posix()][-3:]
    where = "".join(traceback.format_list(frames))
    return f"{type(error).__name__}: {error}\n{where}".rstrip()


# ---- borrowed answers, caught at run time ----------------------------------------------------


class BorrowedAnswer(RuntimeError):
    """Raised by a guarded polymask function; the event is sent before it is raised."""


_GUARDED_WORDS = ("mask", "fill", "rasteriz", "coverage", "load")
_ALLOWED = {"get_include", "get_library_dirs", "build_info"}


def _guard(module_name: str, name: str):
    def guarded(*args, **kwargs):
        emit({"event": "borrowed", "what": f"{module_name}.{name}"})
        raise BorrowedAnswer(f"{module_name}.{name} is polymask's own answer; compute the mask yourself")
    return guarded


class _BlockPolymaskImports(importlib.abc.MetaPathFinder):
    """Refuse polymask submodules the worker did not load itself (stages, opencl, ...)."""

    def find_spec(self, fullname, path, target=None):
        if fullname.startswith("polymask.") and not fullname.startswith("polymask.checker"):
            emit({"event": "borrowed", "what": fullname})
            raise ImportError(f"exercise code may not import {fullname}: compute the mask yourself")


def guard_polymask() -> None:
    """Replace every mask-computing function of the loaded polymask modules by a guard."""
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "polymask" or module_name.startswith("polymask.")):
            continue
        if module_name.startswith("polymask.checker"):
            continue
        for name, value in list(vars(module).items()):
            if callable(value) and not isinstance(value, type) and name not in _ALLOWED \
                    and any(word in name.lower() for word in _GUARDED_WORDS):
                setattr(module, name, _guard(module_name, name))
    # The stage registry hands out mask functions too: polymask.stages.get(...).load().
    stages = sys.modules.get("polymask.stages")
    if stages is not None:
        stages.get = _guard("polymask.stages", "get")
        for stage in getattr(stages, "STAGES", ()):
            type(stage).load = _guard("polymask.stages.Stage", "load")
            break
    sys.meta_path.insert(0, _BlockPolymaskImports())


# ---- loading ----------------------------------------------------------------------------------


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def wrong_entry_points(module, exercise) -> list[str]:
    """The entry points `exercise` needs that `module` lacks or spells differently."""
    problems = []
    for entry in exercise.entry_points:
        qualified, _, params = entry.partition("(")
        wanted = [p.strip() for p in params.rstrip(")").split(",") if p.strip()]
        target = module
        for part in qualified.split("."):
            target = getattr(target, part, None)
        if not callable(target):
            problems.append(f"no {'method' if '.' in qualified else 'function'} {entry}")
            continue
        try:
            names = list(inspect.signature(target).parameters)
        except (TypeError, ValueError):  # a signature Python cannot read: trust the name
            continue
        if names[:len(wanted)] != wanted:
            problems.append(f"{qualified}({', '.join(names)}) where {entry} is expected")
    return problems


def opencl_mask_function(path: Path):
    """Build the learner's kernel through polymask.opencl's engine; a host mask(vertices, shape)."""
    import pyopencl as cl

    from polymask import opencl
    from polymask.checker.exercises import OPENCL_KERNEL

    # precision="double" refuses a device without fp64, with a message naming it.
    engine = opencl.MaskEngine(precision="double")
    program = opencl.build_program(path.read_text(encoding="utf-8"), engine.device,
                                   options=opencl.build_options(use_double=True), label=str(path))
    names = program.get_info(cl.program_info.KERNEL_NAMES).split(";")
    if OPENCL_KERNEL not in names:
        raise LookupError(f"{path} defines no kernel named {OPENCL_KERNEL!r}; it defines: "
                          f"{', '.join(n for n in names if n) or 'no kernel at all'}")
    kernel = getattr(program, OPENCL_KERNEL)
    context, command_queue = engine.context, engine.queue
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


def output_problem(got, shape) -> str | None:
    """Why `got` is not a mask of `shape`, or None when it is one."""
    if not isinstance(got, np.ndarray):
        return (f"mask() returned {type(got).__name__} {got!r:.60}; "
                f"expected a NumPy array of shape {shape} and dtype bool")
    if got.shape != tuple(shape):
        return (f"mask() returned an array of shape {got.shape}; expected shape {tuple(shape)} "
                "(rows, cols): rows come from y, columns from x")
    if got.dtype != np.bool_:
        return (f"mask() returned dtype {got.dtype}; expected dtype bool "
                "(a uint8 buffer of 0s and 1s can be returned as result.view(bool))")
    return None


# ---- probes of the technique ------------------------------------------------------------------


def _thread_cpu_seconds() -> dict[int, float]:
    """CPU seconds used so far by each thread of this process."""
    tasks = Path("/proc/self/task")
    if tasks.is_dir():
        ticks = os.sysconf("SC_CLK_TCK")
        found = {}
        for task in tasks.iterdir():
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # the thread ended meanwhile
                continue
            found[int(task.name)] = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
        return found
    import psutil  # elsewhere (macOS): psutil reads the same per-thread times

    return {thread.id: thread.user_time + thread.system_time for thread in psutil.Process().threads()}


def probe_threads(learner_mask, options) -> dict:
    """Run the learner's mask until it has used ~0.4 s of CPU; which threads did the work?"""
    from polymask.problems import standard_problem

    vertices, shape = standard_problem(512)
    before = _thread_cpu_seconds()
    wall_start, cpu_start = perf_counter(), process_time()
    calls = 0
    while calls < 3 or (process_time() - cpu_start < 0.4 and calls < 200):
        learner_mask(vertices, shape, **options)
        calls += 1
    after = _thread_cpu_seconds()
    used = sorted((after[tid] - before.get(tid, 0.0) for tid in after), reverse=True)
    total = sum(used)
    # A thread counts when it did a real share of the work, not a tick of bookkeeping.
    busy = [seconds for seconds in used if seconds >= max(0.02, 0.1 * total)]
    return {"event": "threads", "threads": len(busy), "cpu_seconds": round(total, 3), "calls": calls,
            "wall_seconds": round(perf_counter() - wall_start, 3), "requested": options.get("threads")}


def _memory_bytes() -> int:
    """Resident memory now (Linux), else the peak so far (a leak raises both)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def probe_polygon_memory(module, constructions: int = 20, n_vertices: int = 100_000) -> dict:
    """Build and drop Polygon(vertices) many times: memory that keeps growing was never freed."""
    vertices = random_vertices(n_vertices)
    for _ in range(2):  # warm up: allocator pools, first-use buffers
        module.Polygon(vertices)
        gc.collect()
    before = _memory_bytes()
    for _ in range(constructions):
        polygon = module.Polygon(vertices)
        del polygon
    gc.collect()
    return {"event": "memory", "constructions": constructions, "n_vertices": n_vertices,
            "grew_bytes": _memory_bytes() - before, "vertex_bytes": int(vertices.nbytes)}


# ---- the job ------------------------------------------------------------------------------------


def run(job: dict) -> None:
    exercise = get_exercise(job["exercise"])
    options = dict(exercise.call_options)
    path = Path(job["path"])
    emit({"event": "phase", "name": "loading your file"})
    try:
        if exercise.kind == "cl":
            learner_mask = opencl_mask_function(path)
            module = None
        else:
            guard_polymask()
            module = load_module(Path(job.get("module_path") or path), job.get("module_name") or f"learner_{path.stem}")
            if not callable(getattr(module, "mask", None)):
                raise LookupError(f"{path} defines no function mask(vertices, shape); the exercise's "
                                  "README says what it must define")
            problems = wrong_entry_points(module, exercise)
            if problems:
                emit({"event": "entry_points", "problems": problems})
                return
            learner_mask = module.mask
    except Exception as error:  # noqa: BLE001 -- any failure to load is the learner's to read
        emit({"event": "load_error", "message": describe_exception(error)})
        return

    for index, case in enumerate(job["cases"]):
        emit({"event": "phase", "name": f"case {case['name']!r}"})
        vertices = np.array(case["vertices"], dtype=np.float64).reshape(-1, 2)
        shape = tuple(case["shape"])
        try:
            with np.errstate(all="ignore"):  # far-out vertices overflow on purpose
                got = learner_mask(vertices, shape, **options)
        except Exception as error:  # noqa: BLE001
            emit({"event": "case", "index": index, "kind": "raised", "message": describe_exception(error)})
            continue
        problem = output_problem(got, shape)
        if problem:
            emit({"event": "case", "index": index, "kind": "output", "message": problem})
        else:
            emit({"event": "case", "index": index, "kind": "mask", "bits": pack(got)})
    emit({"event": "cases_done"})

    if exercise.technique == MANY_THREADS:
        emit({"event": "phase", "name": "the thread check"})
        emit(probe_threads(learner_mask, options))
    elif exercise.technique == FREES_POLYGON:
        emit({"event": "phase", "name": "the memory check"})
        emit(probe_polygon_memory(module))

    timing = job.get("timing")
    if not timing:
        return
    emit({"event": "phase", "name": "timing"})
    vertices = np.array(timing["vertices"], dtype=np.float64).reshape(-1, 2)
    shape = tuple(timing["shape"])
    got = learner_mask(vertices, shape, **options)
    problem = output_problem(got, shape)
    emit({"event": "timing_mask", "message": problem} if problem else
         {"event": "timing_mask", "bits": pack(got)})
    # Calibrate: enough calls per repeat to last 20 ms (one call when it is slow).
    calls, start = 0, perf_counter()
    while calls < (1 << 16) and (calls == 0 or perf_counter() - start < 0.02):
        learner_mask(vertices, shape, **options)
        calls += 1
    for repeat in range(timing["repeats"]):
        emit({"event": "phase", "name": f"timing, repeat {repeat + 1} of {timing['repeats']}"})
        start = perf_counter()
        for _ in range(calls):
            learner_mask(vertices, shape, **options)
        emit({"event": "repeat", "calls": calls, "seconds": (perf_counter() - start) / calls})
    emit({"event": "timing_done"})


def main(argv: list[str]) -> int:
    global _channel
    channel_fd = int(argv[0])
    _channel = os.fdopen(channel_fd, "w", encoding="utf-8")
    job = json.loads(sys.stdin.buffer.readline())
    threading.Thread(target=_lifeline, daemon=True).start()
    try:
        run(job)
    except BaseException as error:  # noqa: BLE001 -- a failure in any phase is reported, with the phase
        emit({"event": "raised", "message": describe_exception(error)})
    emit({"event": "finished"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
