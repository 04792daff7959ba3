"""``check(exercise, path)``: the order of the checks, and the verdict.

1. The arguments are validated before anything of the learner's runs.
2. The source is read: a borrowed answer (polymask's own mask functions)
   or a file of the wrong kind fails here, before it is built.
3. A .pyx is built (polymask._build); a build error is an error (exit 2).
4. The reference masks are computed HERE, before the worker starts: the
   test set, and the timing problem.
5. The worker runs the learner's code in its own process group and sends
   back masks and measurements; the verdict compares them with the
   references.  A failure in any phase -- loading, a case, the technique
   check, timing -- is a FAIL that names the phase.
6. Only then is the previous stage of the ladder timed, in this process,
   and the timings shown as min / median / max.
"""
from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from polymask.checker import report, runner, source
from polymask.checker.exercises import (
    EXERCISES,
    FAST_TIME_SIZE,
    FREES_POLYGON,
    MANY_THREADS,
    WHITE_LOOPS,
    checker_cases,
    default_time_size,
    get_exercise,
)
from polymask.checker.report import CheckResult

#: Bounds on the arguments: beyond them a check takes hours or memory it cannot have.
MAX_SIZE = 4096
MAX_TIME_SIZE = 16384
MAX_REPEATS = 1000


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _whole_number(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return int(value)


def validate_arguments(size, time_size, repeats, limits: runner.Limits) -> None:
    """ValueError naming the first bad argument: raised before any learner code runs."""
    _whole_number("size", size, 1, MAX_SIZE)
    if time_size is not None:
        _whole_number("time_size", time_size, 1, MAX_TIME_SIZE)
    _whole_number("repeats", repeats, 1, MAX_REPEATS)
    for name, seconds in vars(limits).items():
        if not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
            raise ValueError(f"the {name} time limit must be a positive number of seconds, got {seconds!r}")


def _unpack(bits: str, shape) -> np.ndarray:
    flat = np.unpackbits(np.frombuffer(base64.b64decode(bits), dtype=np.uint8), count=shape[0] * shape[1])
    return flat.reshape(shape).astype(bool)


def _looks_like(text: str, exercise) -> str:
    """", which looks like exercise NN's file" when another exercise's declarations all match."""
    for other in EXERCISES:
        if other is not exercise and other.kind == exercise.kind and other.declarations \
                and not source.missing_declarations(text, other):
            return f" (it looks like exercise {other.number}'s file, {other.folder}/{other.filename})"
    return ""


def check(exercise: str, path: str | os.PathLike, *, size: int = 24, time_size: int | None = None,
          repeats: int = 3, timing: bool = True, case_timeout: float = 30.0, timing_timeout: float = 120.0,
          load_timeout: float = 120.0, technique_timeout: float = 120.0,
          progress: Callable[[str], None] | bool = True) -> CheckResult:
    """Build the learner's file for `exercise`, check it on the test set, check its technique, time it.

    `size` is the side of the test images (the tests use 24); `time_size`
    the side of the timing problem (default 1024, or 128 when this stage or
    the one before is a slow one); `repeats` timings per row, shown as
    min / median / max.  The limits are seconds per phase, stated in the
    first progress line.  `progress` receives progress lines (True, the
    default: printed to stderr; False: none).  Returns a CheckResult:
    ``.passed``, and the report as its str.  Bad arguments raise ValueError
    before anything runs.
    """
    spec = get_exercise(exercise)
    limits = runner.Limits(loading=load_timeout, case=case_timeout, technique=technique_timeout,
                           timing=timing_timeout)
    validate_arguments(size, time_size, repeats, limits)
    if progress is True:
        progress = _to_stderr  # so the report alone is on stdout
    say = progress or (lambda line: None)
    learner_path = Path(path)
    label = f"exercise {spec.folder}"

    def result(status, text, **extra):
        if module_name:  # the cached module's name means nothing to the learner: name their file
            text = text.replace(f"{module_name}.pyx", str(learner_path)).replace(module_name, learner_path.stem)
        return CheckResult(spec.folder, str(learner_path), status, text, **extra)

    module_name = None
    if not learner_path.is_file():
        return result("error", f"ERROR {label}: there is no file {str(learner_path)!r}; expected the "
                      f"{spec.filename} you edited, e.g. exercises/{spec.folder}/{spec.filename}")
    if learner_path.suffix != Path(spec.filename).suffix:
        return result("error", f"ERROR {label}: {learner_path.name} is a {learner_path.suffix or 'suffix-less'} "
                      f"file; this exercise expects a {Path(spec.filename).suffix} file ({spec.filename})")
    text = learner_path.read_text(encoding="utf-8", errors="replace")
    borrowed = source.borrowed_answer(text, spec.kind)
    if borrowed:
        return result("wrong", f"FAIL {label}: {learner_path} was not run: {borrowed}", phase="reading your file")
    missing = source.missing_declarations(text, spec)
    if missing:
        return result("wrong", f"FAIL {label}: {learner_path} is not the file this exercise asks for: it has "
                      f"no {' and no '.join(missing)}{_looks_like(text, spec)}. Start from "
                      f"exercises/{spec.folder}/{spec.filename}.", phase="reading your file")

    say(f"checking {learner_path} for {label}; {limits.statement()}")
    job = {"exercise": spec.number, "path": str(learner_path.resolve())}
    if spec.kind == "pyx":
        from polymask._build import build_cython

        say("  building it with Cython and the C++ compiler ...")
        built = build_cython(learner_path, openmp=spec.openmp, link_core=spec.link_core)
        if not built.ok:
            return result("error", f"ERROR {label}: {learner_path} did not build.\n{built.error}", phase="building")
        module_name = built.module_name
        job.update(module_path=str(built.module_path), module_name=built.module_name)

    # The references, before any learner code runs.
    import polymask
    from polymask.problems import standard_problem

    cases = checker_cases(size)
    expected = [polymask.mask(case.vertices, case.shape) for case in cases]
    job["cases"] = [{"name": case.name, "vertices": case.vertices.tolist(), "shape": list(case.shape)}
                    for case in cases]
    side = int(time_size or default_time_size(spec))
    time_vertices, time_shape = standard_problem(side)
    time_expected = polymask.mask(time_vertices, time_shape) if timing else None
    if timing:
        job["timing"] = {"vertices": time_vertices.tolist(), "shape": list(time_shape), "repeats": int(repeats)}

    failures: list = []

    def judge_case(event) -> bool:
        """Compare one case as it arrives; True (stop the worker) once the cases are known wrong."""
        if event.get("event") == "case" and isinstance(event.get("index"), int) and 0 <= event["index"] < len(cases):
            case = cases[event["index"]]
            if event.get("kind") == "mask":
                got = _unpack(event["bits"], case.shape)
                if not np.array_equal(got, expected[event["index"]]):
                    failures.append(report.wrong_mask_failure(case, got, expected[event["index"]]))
            else:
                failures.append(dict(report.case_record(case), kind=event.get("kind", "raised"),
                                     message=str(event.get("message", ""))))
        return (event.get("event") == "cases_done" and bool(failures)) or event.get("event") == "borrowed"

    run = runner.run_worker(job, limits, say, stop=judge_case)
    crashed_tail = "\n".join(run.output.strip().splitlines()[-8:])

    def phase_fail(what: str, phase: str) -> CheckResult:
        return result("wrong", f"FAIL {label}: {learner_path} {what}", phase=phase)

    load_error = run.first("load_error")
    if load_error:
        return result("error", f"ERROR {label}: {learner_path} could not be loaded:\n  "
                      + load_error["message"].replace("\n", "\n  "), phase="loading")
    borrowed = run.first("borrowed")
    if borrowed:
        return phase_fail(f"called polymask's own {borrowed['what']} while running ({run.phase}); this exercise "
                          "asks you to compute the mask yourself.", run.phase)
    entry = run.first("entry_points")
    if entry:
        return phase_fail(f"is not the file this exercise asks for: it has {'; '.join(entry['problems'])}. "
                          f"Start from exercises/{spec.folder}/{spec.filename}.", "loading")
    if run.ended == "timeout":
        return phase_fail(f"did not finish {run.phase} within {run.limit:g} s, its time limit (an endless "
                          "loop? a loop index that never advances?); it was stopped, with everything it started.",
                          run.phase)
    if not run.first("cases_done"):
        return _crash(phase_fail, run, crashed_tail)
    count = len(cases)
    if failures:
        return result("wrong", report.cases_report(label, learner_path, failures, count, size),
                      failures=failures, phase="cases")
    if run.ended not in ("finished",) or run.first("raised"):
        return _crash(phase_fail, run, crashed_tail)

    # The technique.
    technique = _technique_failure(spec, run, learner_path, count)
    if technique:
        return phase_fail(technique[0], technique[1])

    lines = [f"PASS {label}: {learner_path} gives the right mask on all {count} cases"
             + _technique_note(spec, run) + "."]
    if not timing:
        return result("pass", lines[0])
    timing_mask = run.first("timing_mask")
    if timing_mask is None or "bits" not in timing_mask \
            or not np.array_equal(_unpack(timing_mask["bits"], time_shape), time_expected):
        why = timing_mask.get("message") if timing_mask else None
        return phase_fail(f"passed the {count} cases but is wrong on the {side}x{side} standard problem (timing "
                          f"phase){': ' + why if why else ''}.", "timing")
    yours = [event["seconds"] for event in run.of_kind("repeat")]
    clock_problem = _clock_mismatch(run)
    if clock_problem:
        return phase_fail(clock_problem, "timing")
    compare_with = spec.previous or spec.stage
    role = "the previous stage" if spec.previous else "polymask's own version of this stage"
    previous, note = _time_stage(compare_with, time_vertices, time_shape, repeats, dict(spec.call_options), say)
    why = "a slow stage" if side == default_time_size(spec) else "as asked"
    scaled = "" if side == FAST_TIME_SIZE else f" (scaled down from {FAST_TIME_SIZE}x{FAST_TIME_SIZE}: {why})"
    lines += report.timing_lines(side, scaled, yours, previous, compare_with, role, _busy_note(yours + previous))
    if note:
        lines.append(f"  ({note})")
    extra = {"seconds": float(np.median(yours)), "repeat_seconds": yours, "previous_stage": compare_with,
             "time_shape": (side, side)}
    if previous:
        extra["previous_seconds"] = float(np.median(previous))
    return result("pass", "\n".join(lines), **extra)


def _crash(phase_fail, run, tail) -> CheckResult:
    raised = run.first("raised")
    if raised:
        return phase_fail(f"failed during {run.phase}: your code raised\n  " + raised["message"].replace("\n", "\n  "),
                          run.phase)
    return phase_fail(f"crashed the Python process ({run.ended}) during {run.phase}: in compiled code this is "
                      "usually a NULL or out-of-range pointer; in Python, an exit or a kill."
                      + (f"\nlast output:\n{tail}" if tail else ""), run.phase)


def _technique_failure(spec, run, learner_path, count) -> tuple[str, str] | None:
    """(what is wrong, phase) when the exercise's technique check fails."""
    head = f"gives the right mask on all {count} cases, but"
    if spec.technique == MANY_THREADS:
        threads = run.first("threads")
        if threads is None:
            return f"{head} the thread check did not report.", "the thread check"
        if threads["threads"] < 2:
            return (f"{head} it ran on {threads['threads']} thread: over {threads['calls']} calls with threads=2, "
                    f"one thread did all {threads['cpu_seconds']:.2f} s of CPU work. Split the rows over threads "
                    "with cython.parallel.prange(..., nogil=True), and let num_threads follow the `threads` "
                    "argument.", "the thread check")
    if spec.technique == FREES_POLYGON:
        memory = run.first("memory")
        if memory is None:
            return f"{head} the memory check did not report.", "the memory check"
        polygon_bytes = memory["vertex_bytes"]
        if memory["grew_bytes"] > 0.5 * memory["constructions"] * polygon_bytes:
            return (f"{head} Polygon leaks its C++ polygon: building and dropping Polygon({memory['n_vertices']:,} "
                    f"vertices) {memory['constructions']} times grew the process by "
                    f"{memory['grew_bytes'] / 2**20:.0f} MiB. __dealloc__ must delete what __cinit__ made "
                    "(del self.polygon).", "the memory check")
    if spec.technique == WHITE_LOOPS:
        from polymask._build import cython_include_path

        yellow = source.yellow_loop_lines(learner_path, cython_include_path())
        if yellow:
            shown = "\n".join(f"  line {line.number} (score {line.score}): {line.text}" for line in yellow[:8])
            return (f"{head} its loops still call into Python: Cython's annotation (cython -a) shows yellow "
                    f"on {len(yellow)} loop line{'s' if len(yellow) > 1 else ''}:\n{shown}\nType the loop "
                    "variables and everything the loop touches with cdef (and read the vertices through the "
                    "typed memoryview).", "the annotation check")
    return None


def _technique_note(spec, run) -> str:
    if spec.technique == MANY_THREADS and run.first("threads"):
        return f", on {run.first('threads')['threads']} threads"
    if spec.technique == FREES_POLYGON:
        return ", and Polygon frees its C++ polygon"
    if spec.technique == WHITE_LOOPS:
        return ", with no Python in its loops"
    return ""


def _clock_mismatch(run) -> str | None:
    """The worker's timings must fit inside the time the checker saw pass (a faked clock does not)."""
    stamps = {event.get("event"): at for at, event in run.events
              if event.get("event") in ("timing_mask", "timing_done")}
    if "timing_mask" not in stamps or "timing_done" not in stamps:
        return "stopped reporting during timing."
    reported = sum(event["seconds"] * event["calls"] for event in run.of_kind("repeat"))
    seen = stamps["timing_done"] - stamps["timing_mask"]
    if reported > seen * 1.05 + 0.05 or any(event["seconds"] <= 0 for event in run.of_kind("repeat")):
        return (f"reported {reported:.3f} s of timing, but the checker's clock saw {seen:.3f} s pass: "
                "the timings do not add up (was the clock replaced?).")
    return None


def _time_stage(stage_id, vertices, shape, repeats, options, say) -> tuple[list, str]:
    """Seconds per mask of polymask's own stage, per repeat (here, in the checker's process)."""
    import time

    from polymask import stages
    from polymask.bench.timing import calibrate

    stage = stages.get(stage_id)
    stage_options = {"threads": options["threads"]} if "threads" in options and stage.threaded else {}
    try:
        function = stage.load()
    except ImportError as error:
        return [], f"stage {stage_id!r} is not available here: {error}"
    say(f"  timing {stage_id} ...")
    calls, _ = calibrate(lambda: function(vertices, shape, **stage_options), 0.02)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            function(vertices, shape, **stage_options)
        seconds.append((time.perf_counter() - start) / calls)
    return seconds, ""


def _busy_note(seconds: list) -> str:
    """A warning when the timings cannot be trusted much: a loaded machine or a wide spread."""
    notes = []
    try:
        load = os.getloadavg()[0]
        cores = os.cpu_count() or 1
        if load > 0.8 * cores:
            notes.append(f"the machine looks busy (load average {load:.1f} on {cores} cores)")
    except OSError:  # no load average on this platform
        pass
    if len(seconds) >= 2 and min(seconds) > 0 and max(seconds) / min(seconds) > 1.5:
        notes.append(f"the repeats vary {max(seconds) / min(seconds):.1f}x")
    return "; ".join(notes) + ("; compare medians, and re-run when it is quiet" if notes else "")
