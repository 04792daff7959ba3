"""Running the worker: its own process group, a private channel, a time limit per phase.

* The worker starts in a new session, so it and everything the learner's
  code starts share one process group, and the terminal's Ctrl-C reaches
  only the checker.  When the check ends -- finished, timed out, stopped
  early, interrupted (SIGINT, a Jupyter interrupt) or unwound by an
  exception -- the whole group is killed.  The worker's stdin is a
  lifeline as well: if the checker dies, the worker kills its own group.
* Events come through a pipe whose write end is handed to the worker
  alone (``pass_fds``); the learner's stdout and stderr go to a file
  that is only quoted when something crashed.
* Each phase the worker announces has its own limit; while waiting, a
  progress line every few seconds says what is running and for how long.
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

#: Seconds between "still running" progress lines.
HEARTBEAT_SECONDS = 10.0


@dataclass(frozen=True)
class Limits:
    """Seconds each phase may take; a phase ends when the worker announces the next."""

    loading: float = 120.0
    case: float = 30.0
    technique: float = 120.0
    timing: float = 120.0

    def for_phase(self, name: str) -> float:
        if name.startswith("case"):
            return self.case
        if name.startswith("timing"):
            return self.timing
        if name.startswith("the "):
            return self.technique
        return self.loading

    def statement(self) -> str:
        return (f"time limits: loading {self.loading:g} s, each case {self.case:g} s, the technique check "
                f"{self.technique:g} s, timing {self.timing:g} s per repeat")


@dataclass
class WorkerRun:
    """What one worker run gave: its events (with the checker's clock), how it ended, its output."""

    #: (seconds since start on the checker's clock, event) in arrival order.
    events: list = field(default_factory=list)
    #: "finished", "stopped" (the checker had seen enough), "timeout", "exit N" or "signal NAME".
    ended: str = ""
    #: The phase running when it ended.
    phase: str = "starting"
    #: The limit of that phase, in seconds.
    limit: float = 0.0
    #: The tail of the learner's stdout and stderr.
    output: str = ""

    def of_kind(self, kind: str) -> list[dict]:
        return [event for _, event in self.events if event.get("event") == kind]

    def first(self, kind: str) -> dict | None:
        found = self.of_kind(kind)
        return found[0] if found else None


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # already gone
        pass


def run_worker(job: dict, limits: Limits, progress: Callable[[str], None] | None = None,
               stop: Callable[[dict], bool] | None = None) -> WorkerRun:
    """Run ``polymask.checker.worker`` on `job`; `stop(event)` True ends it early (the verdict is known)."""
    say = progress or (lambda line: None)
    read_end, write_end = os.pipe()
    environment = dict(os.environ, PYTHONUNBUFFERED="1", OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryFile(mode="w+b") as output:
        try:
            process = subprocess.Popen([sys.executable, "-m", "polymask.checker.worker", str(write_end)],
                                       stdin=subprocess.PIPE, stdout=output, stderr=subprocess.STDOUT,
                                       pass_fds=(write_end,), start_new_session=True, env=environment)
        finally:
            os.close(write_end)
        run = WorkerRun()
        try:
            _follow(process, read_end, job, limits, say, stop, run)
        finally:
            # Everything the learner started is in this group: nothing outlives the check.
            kill_group(process.pid)
            try:
                process.stdin.close()
            except OSError:
                pass
            process.wait()
        if not run.ended:
            code = process.returncode
            run.ended = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        output.seek(0)
        run.output = output.read()[-4000:].decode("utf-8", "replace")
    return run


def _follow(process, read_end, job, limits, say, stop, run: WorkerRun) -> None:
    lines: queue.Queue = queue.Queue()

    def reader():
        with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as channel:
            for line in channel:
                lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    process.stdin.write((json.dumps(job) + "\n").encode())
    process.stdin.flush()
    start = time.monotonic()
    run.limit = limits.loading
    phase_start = start
    while True:
        now = time.monotonic()
        remaining = phase_start + run.limit - now
        if remaining <= 0:
            run.ended = "timeout"
            return
        try:
            line = lines.get(timeout=min(remaining, HEARTBEAT_SECONDS))
        except queue.Empty:
            if time.monotonic() - phase_start >= HEARTBEAT_SECONDS * 0.99:
                say(f"  ... still running {run.phase} ({time.monotonic() - phase_start:.0f} s of at most "
                    f"{run.limit:.0f} s)")
            continue
        if line is None:
            return  # the worker closed its channel: it finished or died
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        run.events.append((time.monotonic() - start, event))
        kind = event.get("event")
        if kind == "phase":
            run.phase, run.limit, phase_start = event["name"], limits.for_phase(event["name"]), time.monotonic()
            if not event["name"].startswith("case"):
                say(f"  {event['name']} ...")
        elif kind == "repeat":
            say(f"    {event['seconds'] * 1e3:.3f} ms per mask ({event['calls']} calls)")
        elif kind == "finished":
            run.ended = "finished"
            return
        if stop is not None and stop(event):
            run.ended = "stopped"
            return
