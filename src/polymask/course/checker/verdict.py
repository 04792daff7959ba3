"""``check(exercise, path)``: the order of the checks, and the verdict.

1. The arguments are validated before anything of the learner's runs.
2. The source is read (at most MAX_SOURCE_BYTES, scanned in linear time):
   a borrowed answer or a file of the wrong kind fails here, unbuilt.
3. A .pyx is built (polymask.course.build); a build error is an error (exit 2).
4. The worker (runner.Worker) loads the learner's code; the checker sends
   every case -- the named ones, fresh random ones from this run's seed,
   one full-size problem -- and judges each raw answer when it arrives
   (judge.py), then checks the technique (technique.py) and times the
   learner on fresh polygons, checking every timed answer.
5. The stage before is timed through the same protocol on the same
   polygons, so the speed-up compares like with like.

Every verdict comes from this process: a worker that stops answering as
the protocol says -- a timeout, a crash, a refused action, a message it
was not asked for -- fails in the phase it was in.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from polymask.course.checker import (
    artifact,
    counting,
    integrity,
    judge,
    learner_build,
    opened,
    probe,
    replies,
    report,
    runner,
    scaling,
    source,
    technique,
    technique_extra,
)
from polymask.course.checker import sandbox as sandboxes
from polymask.course.checker import timing as timings
from polymask.course.checker.exercises import (
    EXERCISES,
    FAST_TIME_SIZE,
    FREES_POLYGON,
    MANY_THREADS,
    ROW_SCALING,
    WHITE_LOOPS,
    WORK_ITEMS,
    checker_cases,
    default_time_size,
    get_exercise,
)
from polymask.course.checker.report import CheckResult

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


def _looks_like(text: str, exercise) -> str:
    """", which looks like exercise NN's file" when another exercise's declarations all match."""
    for other in EXERCISES:
        if other is not exercise and other.kind == exercise.kind and other.declarations \
                and not source.missing_declarations(text, other):
            return f" (it looks like exercise {other.number}'s file, {other.folder}/{other.filename})"
    return ""


def check(exercise: str, path: str | os.PathLike, *, size: int = 24, time_size: int | None = None,
          repeats: int = 3, timing: bool = True, case_timeout: float = 30.0, timing_timeout: float = 120.0,
          load_timeout: float = 120.0, technique_timeout: float = 120.0, seed: int | None = None,
          progress: Callable[[str], None] | bool = True) -> CheckResult:
    """Build the learner's file for `exercise`, check it on the test set, check its technique, time it.

    `size` is the side of the test images (the tests use 24); `time_size`
    the side of the timing problem (default 1024, or 128 when this stage or
    the one before is a slow one); `repeats` timings per row, shown as
    min / median / max.  `seed` replays the random cases of an earlier run
    (default: a fresh one, printed in the report).  The limits are seconds
    per request, stated in the first progress line.  `progress` receives
    progress lines (True, the default: printed to stderr; False: none).
    Returns a CheckResult: ``.passed``, and the report as its str.  Bad
    arguments raise ValueError before anything runs.
    """
    spec = get_exercise(exercise)
    limits = runner.Limits(loading=load_timeout, case=case_timeout, technique=technique_timeout,
                           timing=timing_timeout)
    validate_arguments(size, time_size, repeats, limits)
    if seed is not None:
        seed = _whole_number("seed", seed, 0, 2**32 - 1)
    if progress is True:
        progress = _to_stderr  # so the report alone is on stdout
    say = progress or (lambda line: None)
    learner_path = Path(path)
    label = f"exercise {spec.folder}"
    module_name, box, built = None, None, None

    def result(status, text, **extra):
        if module_name:  # the cached module's name means nothing to the learner: name their file
            text = text.replace(f"{module_name}.pyx", str(learner_path)).replace(module_name, learner_path.stem)
        if box is not None:  # the header: the verdict, then what confined the learner's build and run
            first, _, rest = text.partition("\n")
            text = f"{first}\n  ({box.describe(hide=spec.kind != 'cl')})" + (f"\n{rest}" if rest else "")
        return CheckResult(spec.folder, str(learner_path), status, report.no_forged_verdicts(text), **extra)

    modified = integrity.refusal()
    if modified:
        return result("error", f"ERROR {label}: {modified}", phase="checking polymask's installation")

    if not learner_path.is_file():
        return result("error", f"ERROR {label}: there is no file {str(learner_path)!r}; expected the "
                      f"{spec.filename} you edited, e.g. exercises/{spec.folder}/{spec.filename}")
    if learner_path.suffix != Path(spec.filename).suffix:
        return result("error", f"ERROR {label}: {learner_path.name} is a {learner_path.suffix or 'suffix-less'} "
                      f"file; this exercise expects a {Path(spec.filename).suffix} file ({spec.filename})")
    with open(learner_path, "rb") as handle:
        raw = handle.read(source.MAX_SOURCE_BYTES + 1)
    if len(raw) > source.MAX_SOURCE_BYTES:
        return result("wrong", f"FAIL {label}: {learner_path} is over {source.MAX_SOURCE_BYTES // 1024} KiB; "
                      "a solution is a few KiB, and the checker reads no more.", phase="reading your file")
    text = raw.decode("utf-8", errors="replace")
    borrowed = source.build_refusal(text, spec.kind) or source.borrowed_answer(text, spec.kind) \
        or source.foreign_include(text, spec.kind)
    if borrowed:
        return result("wrong", f"FAIL {label}: {learner_path} was not run: {borrowed}", phase="reading your file")
    missing = source.missing_declarations(text, spec)
    if missing:
        return result("wrong", f"FAIL {label}: {learner_path} is not the file this exercise asks for: it has "
                      f"no {' and no '.join(missing)}{_looks_like(text, spec)}. Start from "
                      f"exercises/{spec.folder}/{spec.filename}.", phase="reading your file")

    say(f"checking {learner_path} for {label}; {limits.statement()}; files up to "
        f"{source.MAX_SOURCE_BYTES // 1024} KiB, output kept up to {runner.OUTPUT_KEPT // 1024} KiB")
    box = sandboxes.current()
    load: dict = {"op": "load", "kind": spec.kind, "path": str(learner_path), "entry_points": list(spec.entry_points),
            "module_path": str(learner_path.absolute()), "module_name": f"learner_{learner_path.stem}"}
    if spec.kind == "pyx":
        from polymask.course.build import build_cython

        say("  building it with Cython and the C++ compiler ...")
        built = build_cython(learner_path, openmp=spec.openmp, link_core=spec.link_core, confine=box.confine)
        if not built.ok:
            return result("error", f"ERROR {label}: {learner_path} did not build; what the build said:\n"
                      + report.quoted(built.error, limit=12000), phase="building")
        module_name = built.module_name
        problem = opened.refusal(list(built.opened), learner_path)
        if problem:
            return result("wrong", f"FAIL {label}: {learner_path} was not run: {problem}", phase="building")
        load.update(module_path=str(built.module_path), module_name=built.module_name)
        if spec.technique == FREES_POLYGON:
            load["census"] = technique.core_library()
        if spec.link_core and not spec.openmp:  # 04, 05: count the core's per-pixel calls
            load["count_calls"] = True

    if learner_build.is_build_exercise(spec):  # 06d: the learner's file is the build, run here
        say("  running your build (python setup.py build_ext --inplace) on the handed-out mask.pyx ...")
        hidden_roots = tuple(root for root in opened.polymask_roots(learner_path) if root.is_dir())
        built = learner_build.build(learner_path, box, hide=hidden_roots)
        if not built.ok:
            return result("error", f"ERROR {label}: {learner_path} did not build mask.pyx; what the build said:\n"
                          + report.quoted(built.error, limit=12000), phase="building")
        problem = learner_build.module_failure(built.module_path, box.confine)
        if problem:
            return result("wrong", f"FAIL {label}: {learner_path} {problem}", phase="the built module")
        load.update(module_path=str(built.module_path), module_name=built.module_name)

    if spec.kind == "cl":
        problem = opened.refusal(opened.opencl_opened(learner_path.absolute(), _kernel_includes(), box.confine)
                                 or [], learner_path)
        if problem:
            return result("wrong", f"FAIL {label}: {learner_path} was not run: {problem}", phase="reading your file")
    seed = judge.draw_seed() if seed is None else seed
    rng = np.random.default_rng(seed)
    side = int(time_size or default_time_size(spec))
    cases = checker_cases(size) + judge.random_cases(rng, size, default_time_size(spec))
    seed_note = f"random cases from seed {seed}; --seed {seed} replays them"
    arena = 32 * 2**20 + max(64 * 2**20, 2 * side * side)

    def fail(what, phase):
        return result("wrong", f"FAIL {label}: {learner_path} {what}\n  ({seed_note})", phase=phase)

    # 07's host code is polymask.opencl, so no audit hook there; its kernel is the learner's: sandboxed.
    # The worker sees none of polymask's files but the core library 04-06 link (07's host is polymask's).
    hidden = tuple(root for root in opened.polymask_roots(learner_path) if root.is_dir()) if spec.kind != "cl" else ()
    shown = tuple(Path(folder).resolve() for folder in _library_dirs()) if spec.link_core else ()
    preload = str(counting.counter_library()) if load.get("count_calls") else None

    def start_worker():
        """Another worker confined like the learner's (03's watched build runs in one)."""
        return runner.Worker(2**24, say, learner=True, sandbox=box, hide=hidden, show=shown)

    worker = runner.Worker(arena, say, learner=spec.kind != "cl", sandbox=box, hide=hidden, show=shown,
                           preload=preload)
    tail, outcome = "", None
    try:
        outcome = _run_learner(worker, spec, load, cases, rng, side, repeats, timing, limits, say, label,
                               learner_path, fail, result, seed_note, built, start_worker)
    except runner.WorkerEnded as ended:
        outcome = ended
    finally:
        tail = worker.close()
    if isinstance(outcome, runner.WorkerEnded):
        return report.ended_report(outcome, fail, tail, result, label, learner_path)
    if not isinstance(outcome, dict):
        return outcome
    # Passed the cases, the technique and the timing: the stage before, through the same protocol.
    compare_with = spec.previous or spec.stage
    role = "the previous stage" if spec.previous else "polymask's own version of this stage"
    lines = [outcome["line"]]
    if not timing:
        return result("pass", "\n".join(lines + [f"  ({seed_note})"]))
    say(f"  timing {compare_with} ...")
    previous, note = timings.time_stage(compare_with, outcome["timed"], limits, say, arena, dict(spec.call_options))
    yours = outcome["seconds"]
    why = "a slow stage" if side == default_time_size(spec) else "as asked"
    scaled = "" if side == FAST_TIME_SIZE else f" (scaled down from {FAST_TIME_SIZE}x{FAST_TIME_SIZE}: {why})"
    lines += report.timing_lines(side, scaled, yours, previous, compare_with, role, report.busy_note(yours))
    if note:
        lines.append(f"  ({note})")
    lines.append(f"  ({seed_note})")
    extra = {"seconds": float(np.median(yours)), "repeat_seconds": yours, "previous_stage": compare_with,
             "time_shape": (side, side)}
    if previous:
        extra["previous_seconds"] = float(np.median(previous))
    return result("pass", "\n".join(lines), **extra)


def _run_learner(worker, spec, load, cases, rng, side, repeats, timing, limits, say, label, learner_path,
                 fail, result, seed_note, built, start_worker):
    """Load, cases, technique, timing -- a CheckResult when it failed, else what the PASS needs."""
    phase = "loading your file"
    reply, _ = worker.request(load, limits.loading, phase)
    if "raised" in reply:
        raise runner.WorkerEnded(f"raised: {replies.text_field(reply, 'raised', phase)}", phase)
    if "load_error" in reply:
        return result("error", f"ERROR {label}: {learner_path} could not be loaded:\n"
                      + report.quoted(replies.text_field(reply, "load_error", phase)), phase="loading")
    if "entry_points" in reply:
        problems = replies.text_list_field(reply, "entry_points", phase)
        return fail("is not the file this exercise asks for; what it lacks or spells differently:\n"
                    + report.quoted("\n".join(problems))
                    + f"\n  Start from exercises/{spec.folder}/{spec.filename}.", "loading")
    if reply != {"ok": True}:
        raise judge.ProtocolError("protocol: an unexpected reply to loading", "loading your file")
    options = dict(spec.call_options)
    failures = []
    for case in cases:
        answers, _ = judge.ask(worker, "masks", [(case.vertices, case.shape)], limits.case,
                               f"case {case.name!r}", options=options)
        failure = judge.judge_case(case, answers[0])
        if failure:
            failures.append(failure)
    if failures:
        return result("wrong", report.cases_report(label, learner_path, failures, len(cases), cases[0].shape[0])
                      + f"\n  ({seed_note})", failures=failures, phase="cases")
    if "point_inside(polygon, px, py)" in spec.entry_points:
        problem = judge.point_inside_failure(worker, cases, rng, limits.case)
        if problem:
            return fail(f"gives the right masks, but {problem}", "the point_inside check")
    head = f"gives the right mask on all {len(cases)} cases, but"
    note = ""
    problem = _artifact_failure(spec, built)
    if problem:
        return fail(f"{head} {problem}", "the built module")
    if load.get("count_calls"):
        problem = counting.call_count_failure(worker, rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", "the call count")
    if spec.technique in technique_extra.CHECKS:
        extra_check, phase = technique_extra.CHECKS[spec.technique]
        problem, note = extra_check(worker, rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", phase)
    elif spec.technique == MANY_THREADS:
        try:
            problem, note = technique.thread_failure(
                worker, lambda stage: timings.stage_worker(stage, limits, say, 2**26), spec.previous, rng,
                limits.technique)
        except technique.Inconclusive as why:
            return result("inconclusive", f"INCONCLUSIVE {label}: {learner_path} gives the right mask on all "
                          f"{len(cases)} cases, but the thread check could not decide: {why}. Re-run when the "
                          f"machine is quieter.\n  ({seed_note})", phase="the thread check")
        if problem:
            return fail(f"{head} {problem}", "the thread check")
    elif spec.technique == FREES_POLYGON:
        problem = technique.memory_failure(worker, rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", "the memory check")
        note = ", and Polygon frees its C++ polygon"
    elif spec.technique == WHITE_LOOPS:
        yellow = _yellow_report(learner_path, sandboxes.current())
        if yellow:
            return fail(f"{head} {yellow}", "the annotation check")
        say("  building a watched copy of it: point_inside counted and shown a moved polygon ...")
        problem = probe.point_inside_failure(built, start_worker, rng, limits.technique,
                                             sandboxes.current().confine)
        if problem:
            return fail(f"{head} {problem}", "the point_inside probe")
        problem = technique.typed_speed_failure(
            worker, lambda stage: timings.stage_worker(stage, limits, say, 2**24), rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", "the speed check")
        note = ", with no Python in its per-pixel code and every pixel from a call of point_inside (seen at run time)"
    elif spec.technique == WORK_ITEMS:
        problem = technique.work_item_failure(worker, rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", "the work-item check")
        note = ", one work-item per pixel"
    elif spec.technique == ROW_SCALING:
        problem, note = scaling.scaling_failure(
            worker, lambda stage: timings.stage_worker(stage, limits, say, 2**26), rng, limits.technique)
        if problem:
            return fail(f"{head} {problem}", "the scaling check")
    line = f"PASS {label}: {learner_path} gives the right mask on all {len(cases)} cases{note}."
    if not timing:
        return {"line": line}
    seconds, timed = timings.time_learner(worker, side, repeats, rng, limits, options, say)
    if isinstance(seconds, str):
        return fail(seconds, "timing")
    return {"line": line, "seconds": seconds, "timed": timed}


def _artifact_failure(spec, built) -> str | None:
    """04-06: what the built module's symbols say it does not do (see artifact.py), or None."""
    if built is None or not spec.link_core:
        return None
    confine = sandboxes.current().confine
    undefined = artifact.symbols(built.module_path, confine, undefined=True)
    problem = artifact.core_call_failure(undefined)
    if problem is None and spec.technique == FREES_POLYGON:
        problem = artifact.extension_type_failure(artifact.symbols(built.module_path, confine), built.module_name)
    if problem is None and spec.openmp:
        problem = artifact.openmp_failure(undefined)
    return problem


def _library_dirs() -> list[str]:
    from polymask._install_dirs import get_library_dirs

    return get_library_dirs()


def _kernel_includes() -> list[str]:
    """The include folder an exercise 07 kernel is built with (precision.h alone), or none without OpenCL."""
    try:
        from polymask import opencl
        from polymask.course.checker.opencl_host import precision_folder

        return [str(precision_folder(opencl.kernel_dir()))]
    except (ImportError, OSError):
        return []


def _yellow_report(learner_path, box) -> str | None:
    from polymask.course.build import cython_include_path

    yellow = source.yellow_hot_lines(learner_path, cython_include_path(), box.confine)
    if not yellow:
        return None
    shown = "\n".join(f"  line {line.number} (score {line.score}):\n" + report.quoted(line.text) for line in yellow[:8])
    return (f"its loops still call into Python: Cython's annotation (cython -a) shows yellow on {len(yellow)} "
            f"line{'s' if len(yellow) > 1 else ''} of its per-pixel code:\n{shown}\nType the loop variables and "
            "everything the loop touches with cdef (and read the vertices through the typed memoryview).")
