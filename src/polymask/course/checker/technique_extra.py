"""Technique checks of the exercises beside the ladder's rungs, measured from outside the worker.

* **01b, bounded memory.**  The learner's ``mask`` fills a large image of a
  polygon with many vertices; the worker's peak resident memory during that
  one request must grow by less than a bound far below the rows x cols x N
  array that vectorising over pixels and edges at once would need.  The
  peak is the kernel's own count (``VmHWM`` in ``/proc/<pid>/status``),
  reset just before the request through ``/proc/<pid>/clear_refs``; since
  the learner's code could reset it too, the checker also samples
  ``VmRSS`` from its own thread during the request and takes the larger.
  Code that cannot be reset (the file is not writable) is judged on its
  lifetime peak: a stricter reading, never a laxer one.
* **06c, an exact count.**  ``count_inside`` is asked, at ``threads=2``, for
  the inside pixels of COUNT_RUNS fresh polygons, several times each; every
  answer must equal the count of the reference mask, computed here after
  the answers arrived.  A shared counter updated by two threads loses
  additions, by a different amount each run.

Each check returns (why it fails or None, the note for the PASS line).
"""
from __future__ import annotations

import threading

from polymask.course.checker import judge
from polymask.course.checker.exercises import BOUNDED_MEMORY, EXACT_COUNT
from polymask.course.checker.runner import Worker, WorkerEnded

#: 01b: the image side and vertex count of the memory check (a full broadcast: side^2 x N bytes and more).
MEMORY_SIDE = 1024
MEMORY_VERTICES = 64
#: 01b: the peak may grow by this many bytes per pixel (the mask, its copy on the way out) ...
MEMORY_BYTES_PER_PIXEL = 6
#: ... plus this much for a band's temporaries and the allocator's slack.
MEMORY_SLACK = 32 * 2**20
#: Seconds between the checker's own readings of the worker's resident memory.
SAMPLE_SECONDS = 0.002


def status_bytes(pid: int, field: str) -> int:
    """A field of /proc/<pid>/status in bytes (0 when the process or the field is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def reset_peak(pid: int) -> bool:
    """Set the process's peak resident memory to its current one (Linux: clear_refs 5)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


class _Sampler:
    """Reads a process's VmRSS every SAMPLE_SECONDS in a thread, keeping the largest."""

    def __init__(self, pid: int):
        self.pid, self.largest = pid, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            self.largest = max(self.largest, status_bytes(self.pid, "VmRSS"))
            self.stop.wait(SAMPLE_SECONDS)

    def __enter__(self) -> _Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def _mib(nbytes: float) -> str:
    return f"{nbytes / 2**20:,.0f} MiB"


def peak_memory_failure(worker: Worker, rng, limit: float) -> tuple[str | None, str]:
    """01b: one large mask, its answer checked; the peak memory it took, measured from here."""
    from polymask.course.problems import random_polygon

    side, n = MEMORY_SIDE, MEMORY_VERTICES
    vertices = random_polygon(n, side, seed=int(rng.integers(2**31)))
    pid = worker.pid
    reset = reset_peak(pid)
    before = status_bytes(pid, "VmRSS")
    with _Sampler(pid) as sampler:
        answers, _ = judge.ask(worker, "masks", [(vertices, (side, side))], limit, "the memory check")
    peak = max(status_bytes(pid, "VmHWM"), sampler.largest)
    answer = answers[0]
    if isinstance(answer, dict):
        return f"its mask failed in the memory check ({side}x{side}, {n} vertices): {answer['message']}", ""
    if not judge.is_right(answer, vertices, (side, side)):
        return f"is wrong on a {side}x{side} problem of {n} vertices (the memory check).", ""
    grew = peak - before
    bound = MEMORY_BYTES_PER_PIXEL * side * side + MEMORY_SLACK
    broadcast = side * side * n
    how = "" if reset else " (its peak could not be reset, so this is the process's lifetime peak)"
    if grew > bound:
        return (f"its memory is not bounded: a {side}x{side} mask of {n} vertices grew the process by {_mib(grew)} "
                f"at its peak{how}, where at most {_mib(bound)} is allowed (a rows x cols x N array of booleans "
                f"alone is {_mib(broadcast)}). Work on a band of rows at a time, with the band's height chosen so "
                "that its temporaries fit a budget of a few MiB."), ""
    return None, f", within {_mib(grew)} of extra memory at its peak on a {side}x{side} image of {n} vertices"


#: 06c: fresh polygons, how often each is counted, and the image side.
COUNT_POLYGONS = 4
COUNT_RUNS = 5
COUNT_SIDE = 512


def count_failure(worker: Worker, rng, limit: float) -> tuple[str | None, str]:
    """06c: count_inside(vertices, shape, threads=2), again and again, against the reference mask's count."""
    from polymask.course.problems import STANDARD_VERTICES

    phase, side = "the count check", COUNT_SIDE
    polygons = [(rng.uniform(0.0, float(side), size=(STANDARD_VERTICES, 2)), (side, side))
                for _ in range(COUNT_POLYGONS)]
    counts: list[list[int]] = [[] for _ in polygons]
    for _ in range(COUNT_RUNS):
        worker.reset_arena()
        items = [dict(worker.put_vertices(vertices), shape=list(shape), out=worker.reserve(8))
                 for vertices, shape in polygons]
        reply, _ = worker.request({"op": "counts", "items": items, "options": {"threads": 2}}, limit, phase)
        if "raised" in reply:
            raise WorkerEnded(f"raised: {reply['raised']}", phase)
        results = reply.get("results")
        if not isinstance(results, list) or len(results) != len(items):
            raise judge.ProtocolError("protocol: a reply with the wrong number of answers", phase)
        for item, result, seen in zip(items, results, counts):
            if result is not None:
                message = result.get("message") if isinstance(result, dict) else None
                if not isinstance(message, str):
                    raise judge.ProtocolError("protocol: an answer that is neither a count nor an error", phase)
                return f"count_inside failed at threads=2: {message[:4000]}", ""
            seen.append(int(worker.take(item["out"], 8).view("<i8")[0]))
    runs = COUNT_POLYGONS * COUNT_RUNS
    wrong = []
    for (vertices, shape), seen in zip(polygons, counts):
        truth = int(judge.reference(vertices, shape).sum())  # computed only now, after the answers
        wrong += [(got, truth) for got in seen if got != truth]
    if not wrong:
        return None, f", and count_inside is exact in all {runs} runs at threads=2"
    got, truth = wrong[0]
    return (f"count_inside is not exact at threads=2: {len(wrong)} of {runs} counts of {side}x{side} polygons were "
            f"wrong (one said {got:,} where the mask has {truth:,} inside pixels). A total that every thread adds "
            "into through shared memory loses additions when two threads update it at once; let each thread keep "
            "its own and combine them at the end."), ""


#: The checks of this module: technique -> (check, the phase its failure names).
CHECKS = {BOUNDED_MEMORY: (peak_memory_failure, "the memory check"),
          EXACT_COUNT: (count_failure, "the count check")}
