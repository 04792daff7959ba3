"""Asking the worker and judging its answers, in the checker's own process.

* **The cases.**  The contract's named polygons (their pictures teach),
  fresh random polygons drawn from a seed chosen per run (printed in the
  report; ``--seed N`` replays a run), and one full-size problem -- so a
  file cannot carry its answers, and ``--no-timing`` still sees a real size.
* **An answer is judged after it arrives.**  The reference of a case is
  computed only once the learner's raw answer has been copied out of the
  arena: there is nothing to read in the checker's memory beforehand.
  An answer is right when every byte is exactly 0 or 1 and equals the
  reference.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polymask.course.checker.replies import WorkerEnded, text_field
from polymask.course.checker.runner import Worker

#: How many random polygons join the named cases each run.
RANDOM_CASES = 6


class ProtocolError(WorkerEnded):
    """A reply of the wrong shape: a protocol violation, whoever wrote it."""


def draw_seed() -> int:
    import secrets

    return secrets.randbelow(2**32)


def random_cases(rng: np.random.Generator, size: int, full_side: int) -> list:
    """Fresh polygons for this run: random, grid-aligned, far-out, and one full-size problem."""
    from polymask.course.cases import make_case
    from polymask.course.problems import STANDARD_VERTICES

    cases = []
    for index in range(RANDOM_CASES):
        shape = (size, size + int(rng.integers(0, 6)))
        n = int(rng.integers(3, 40))
        low, high = -0.3 * size, 1.3 * size
        vertices = rng.uniform(low, high, size=(n, 2))
        if index % 3 == 1:  # on pixel centres and half-pixels: the ties the contract settles
            vertices = np.round(vertices * 2) / 2
        cases.append(make_case(f"random_{index + 1}", vertices, shape))
    vertices = rng.uniform(0.0, float(full_side), size=(STANDARD_VERTICES, 2))
    cases.append(make_case(f"full_size_{full_side}x{full_side}", vertices, (full_side, full_side)))
    return cases


def reference(vertices: np.ndarray, shape) -> np.ndarray:
    import polymask

    return polymask.mask(vertices, tuple(shape)).view(np.uint8)


def ask(worker: Worker, op: str, polygons: list, limit: float, phase: str, options: dict | None = None,
        points: list | None = None, reply_out: dict | None = None) -> tuple[list, float]:
    """Send one request of `op` over `polygons` [(vertices, shape)]; (answers, seconds on our clock).

    An answer is a uint8 array copied out of the arena at once, or a dict
    {kind, message} when the learner's code raised or returned a non-mask.
    `reply_out`, when given, receives the whole reply (for the fields an op adds).
    """
    worker.reset_arena()
    items, sizes = [], []
    for index, (vertices, shape) in enumerate(polygons):
        item = worker.put_vertices(vertices)
        if points is not None:
            item["points"] = points[index]
            count = len(points[index])
        else:
            item["shape"] = [int(shape[0]), int(shape[1])]
            count = int(shape[0]) * int(shape[1])
        item["out"] = worker.reserve(count)
        items.append(item)
        sizes.append(count)
    reply, seconds = worker.request({"op": op, "items": items, "options": options or {}}, limit, phase)
    if "raised" in reply:
        raise WorkerEnded(f"raised: {text_field(reply, 'raised', phase)}", phase)
    if reply_out is not None:
        reply_out.update(reply)
    results = reply.get("results")
    if not isinstance(results, list) or len(results) != len(items):
        raise ProtocolError("protocol: a reply with the wrong number of answers", phase)
    answers: list[Any] = []  # a mask (ndarray) or an error (dict) per item
    for item, count, result in zip(items, sizes, results):
        if result is None:
            answers.append(worker.take(item["out"], count))
        elif isinstance(result, dict) and result.get("kind") in ("raised", "output") \
                and isinstance(result.get("message"), str):
            answers.append({"kind": result["kind"], "message": result["message"][:4000]})
        else:
            raise ProtocolError("protocol: an answer that is neither a mask nor an error", phase)
    return answers, seconds


def is_right(answer, vertices, shape) -> bool:
    """True when `answer` (raw bytes) is exactly the reference mask of the polygon."""
    return isinstance(answer, np.ndarray) and np.array_equal(answer, reference(vertices, shape).reshape(-1))


def judge_case(case, answer) -> dict | None:
    """None when right; else the failure record the report shows."""
    from polymask.course.checker import report

    if isinstance(answer, dict):
        return dict(report.case_record(case), kind=answer["kind"], message=answer["message"])
    expected = reference(case.vertices, case.shape).reshape(case.shape)
    got = answer.reshape(case.shape)
    if np.array_equal(got, expected):
        return None
    return report.wrong_mask_failure(case, got != 0, expected.astype(bool))


def point_inside_failure(worker: Worker, cases: list, rng: np.random.Generator, limit: float) -> str | None:
    """Exercises 01 and 02: point_inside itself, at pixels chosen now, against the contract."""
    polygons, points, asked = [], [], []
    for case in cases[:3] + cases[-4:-1]:
        rows, cols = case.shape
        picked = np.stack([rng.integers(0, cols, 48), rng.integers(0, rows, 48)], axis=1)
        polygons.append((case.vertices, case.shape))
        points.append(picked.tolist())
        asked.append((case, picked))
    answers, _ = ask(worker, "point_inside", polygons, limit, "the point_inside check", points=points)
    for answer, (case, picked) in zip(answers, asked):
        if isinstance(answer, dict):
            from polymask.course.checker.report import quoted

            return f"point_inside raised on case {case.name!r}:\n" + quoted(answer["message"])
        # The truth is computed only now, after the answer arrived, as for masks.
        truth = reference(case.vertices, case.shape).reshape(case.shape)[picked[:, 1], picked[:, 0]]
        wrong = np.nonzero(answer != truth)[0]
        if wrong.size:
            col, row = picked[wrong[0]]
            return (f"point_inside(polygon, {col}.0, {row}.0) on case {case.name!r} answered "
                    f"{bool(answer[wrong[0]])}, but the contract says {bool(truth[wrong[0]])} "
                    f"({wrong.size} of {len(truth)} points checked are wrong); mask() must be built on it.")
    return None
