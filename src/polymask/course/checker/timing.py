"""Timing a learner's mask and polymask's stage before it, through the same protocol on the same polygons.

Every timed answer is checked, each repeat on fresh polygons, so a mask
remembered from an earlier call is wrong, not fast.  The stage before runs
in a worker of its own (polymask's code, outside the learner's sandbox).
"""
from __future__ import annotations

import math

from polymask.course.checker import judge, report, runner


def time_learner(worker, side, repeats, rng, limits, options, say):
    """Seconds per mask per repeat, each repeat on fresh polygons, every answer checked."""
    from polymask.course.problems import STANDARD_VERTICES

    say("  timing ...")

    def polygons(count):
        return [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side)) for _ in range(count)]

    def wrong(batch, answers):
        for answer, (vertices, shape) in zip(answers, batch):
            if isinstance(answer, dict):
                return answer
            if not judge.is_right(answer, vertices, shape):
                return {"kind": "wrong", "message": ""}
        return None

    first = polygons(1)
    answers, seconds = judge.ask(worker, "masks", first, limits.timing, "timing", options=options)
    problem = wrong(first, answers)
    per_batch = max(1, min(32, (48 * 2**20) // (side * side), math.ceil(0.05 / max(seconds, 1e-6))))
    timed, result = [], []
    for repeat in range(repeats):
        if problem:
            break
        batch = polygons(per_batch)
        answers, seconds = judge.ask(worker, "masks", batch, limits.timing,
                                     f"timing, repeat {repeat + 1} of {repeats}", options=options)
        say(f"  timing, repeat {repeat + 1} of {repeats} ...")
        problem = wrong(batch, answers)
        timed.append(batch)
        result.append(seconds / len(batch))
    if problem:
        if problem["kind"] == "raised":
            return ("failed during timing: your code raised\n" + report.quoted(problem["message"]),
                    None)
        why = ":\n" + report.quoted(problem["message"]) + "\n " if problem["message"] else ""
        return (f"passed the cases but is wrong on a {side}x{side} timing problem{why} (every timed answer "
                "is checked, each on a fresh polygon).", None)
    return result, timed


def stage_worker(stage_id, limits, say, arena):
    worker = runner.Worker(arena, say, learner=False)
    try:
        reply, _ = worker.request({"op": "load", "kind": "py", "stage": stage_id}, limits.loading, "loading")
    except BaseException:
        worker.close()
        raise
    if reply != {"ok": True}:
        worker.close()
        raise ImportError(str(reply.get("load_error", reply)))
    return Closing(worker)


class Closing:
    def __init__(self, worker):
        self.worker = worker

    def __enter__(self):
        return self.worker

    def __exit__(self, *exc):
        self.worker.close()


def time_stage(stage_id, timed, limits, say, arena, options) -> tuple[list, str]:
    """Seconds per mask of polymask's own stage on the very polygons the learner was timed on."""
    from polymask.course import stages

    stage = stages.get(stage_id)
    stage_options = {"threads": options["threads"]} if "threads" in options and stage.threaded else {}
    try:
        with stage_worker(stage_id, limits, say, arena) as worker:
            seconds = []
            for batch in timed:
                _, elapsed = judge.ask(worker, "masks", batch, limits.timing, f"timing {stage_id}",
                                       options=stage_options)
                seconds.append(elapsed / len(batch))
    except (ImportError, runner.WorkerEnded) as error:
        return [], f"stage {stage_id!r} is not available here: {error}"
    return seconds, ""
