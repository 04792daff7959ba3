"""The worker, seen from the checker: requests out, one reply each, everything measured from here.

The learner's code runs in a worker process (``worker.py``, run as a
script) that the checker treats as hostile:

* **One reply per request.**  The checker sends a request on the worker's
  stdin and waits for exactly one JSON line on a private pipe.  A line that
  arrives when no request is outstanding, a second line, a line that is not
  the reply's shape: each is a protocol violation, a FAIL -- whoever wrote
  it, forging changes nothing but that.
* **The answers are copied out at once.**  Polygons go in and masks come
  back through a shared memory file (the *arena*); the checker copies an
  answer out the moment its reply arrives, so nothing written later counts.
* **The checker's own clock and counters.**  Every request has a limit on
  the checker's clock; time is measured around each request; thread CPU
  is read from ``/proc/<pid>/task/*/stat`` and memory from
  ``/proc/<pid>/status``.  Nothing the worker says about itself is used.
* **Nothing outlives the check.**  The checker makes itself a child
  subreaper (``PR_SET_CHILD_SUBREAPER``) before starting the worker, so a
  process the learner starts -- even one that left with ``setsid()`` --
  stays its descendant; at the end every descendant is killed and reaped.
* **Bounded output.**  The learner's stdout and stderr go to a pipe the
  checker drains: the last few KiB are kept, the rest only counted.
"""
from __future__ import annotations

import ctypes
import json
import mmap
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

import numpy as np

from polymask.course.checker.processes import descendants, process_table, stat_ticks, task_times
from polymask.course.checker.replies import WorkerEnded, decode_reply, text_field
from polymask.course.checker.sandbox import Sandbox

#: Seconds between "still running" progress lines.
HEARTBEAT_SECONDS = 10.0
#: Bytes of the learner's output kept (its end); the rest is counted and dropped.
OUTPUT_KEPT = 8192
#: Longest reply line accepted, and most lines waiting (a protocol that is followed has one).
REPLY_LIMIT = 1 << 20
PENDING_LIMIT = 8
WORKER_FILE = Path(__file__).resolve().with_name("worker.py")
_PR_SET_DUMPABLE, _PR_GET_DUMPABLE = 4, 3
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37


@dataclass(frozen=True)
class Limits:
    """Seconds each kind of request may take, on the checker's clock."""

    loading: float = 120.0
    case: float = 30.0
    technique: float = 120.0
    timing: float = 120.0

    def statement(self) -> str:
        return (f"time limits: loading {self.loading:g} s, each case {self.case:g} s, the technique check "
                f"{self.technique:g} s, timing {self.timing:g} s per repeat")


# ---- the process tree ------------------------------------------------------------------------


def _prctl(option: int, value: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    if option in (_PR_GET_CHILD_SUBREAPER,):
        result = ctypes.c_int(0)
        libc.prctl(option, ctypes.byref(result), 0, 0, 0)
        return result.value
    return libc.prctl(option, value, 0, 0, 0)


class OutputTail:
    """Drains a pipe in a thread; keeps its last OUTPUT_KEPT bytes and counts the rest."""

    def __init__(self, fd: int):
        self.kept, self.dropped = bytearray(), 0
        self.thread = threading.Thread(target=self._drain, args=(fd,), daemon=True)
        self.thread.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                self.kept += chunk
                if len(self.kept) > OUTPUT_KEPT:
                    self.dropped += len(self.kept) - OUTPUT_KEPT
                    del self.kept[:-OUTPUT_KEPT]

    def text(self) -> str:
        self.thread.join(timeout=2.0)
        return bytes(self.kept).decode("utf-8", "replace")


# ---- the worker -------------------------------------------------------------------------------------


class Worker:
    """A worker process with its arena; use as a context manager (the exit kills everything)."""

    def __init__(self, arena_bytes: int, say: Callable[[str], None], learner: bool = True,
                 sandbox: Sandbox | None = None, hide: tuple = (), show: tuple = (), preload: str | None = None):
        self.say, self.phase = say, "starting"
        self.sandbox = sandbox if sandbox is not None and sandbox.enforced else None
        self.private = Path(tempfile.mkdtemp(prefix="polymask-check-")) if self.sandbox else None
        self.own_children_before = descendants({os.getpid()})
        self.subreaper_before = _prctl(_PR_GET_CHILD_SUBREAPER)
        self.dumpable_before = _prctl(_PR_GET_DUMPABLE)
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        _prctl(_PR_SET_DUMPABLE, 0)  # another user's process may not read this one's memory
        self.arena_fd = os.memfd_create("polymask-check-arena", 0)
        os.ftruncate(self.arena_fd, arena_bytes)
        self.arena = mmap.mmap(self.arena_fd, arena_bytes)
        self.cursor = 0
        reply_read, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        # A waiting OpenMP thread sleeps rather than spins: its CPU time is the work it did.
        environment = dict(os.environ, PYTHONUNBUFFERED="1", OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
        if learner:  # polymask refuses to import here and in every process started from here
            environment["POLYMASK_CHECKER_WORKER"] = "1"
        if preload:  # the checker's own library, loaded before anything of the learner's
            environment["LD_PRELOAD"] = preload
        command = [sys.executable, "-I", "-B", str(WORKER_FILE), str(reply_write), str(self.arena_fd)]
        if self.sandbox:
            assert self.private is not None  # made whenever there is a sandbox
            command = self.sandbox.command(command, self.private, hide, (WORKER_FILE, *show))
            environment = self.sandbox.environment(environment, self.private)
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=output_write, stderr=output_write, cwd=self.private,
                pass_fds=(reply_write, self.arena_fd), start_new_session=True, env=environment)
            self.pid = self._worker_pid()
        except BaseException:  # no worker: leave this process as it was
            os.close(reply_read)
            os.close(output_read)
            self.arena.close()
            os.close(self.arena_fd)
            _prctl(_PR_SET_CHILD_SUBREAPER, self.subreaper_before)
            _prctl(_PR_SET_DUMPABLE, self.dumpable_before)
            self._remove_private()
            raise
        finally:
            os.close(reply_write)
            os.close(output_write)
        self.output = OutputTail(output_read)
        self.replies: queue.Queue = queue.Queue()
        threading.Thread(target=self._read_replies, args=(reply_read,), daemon=True).start()

    def _worker_pid(self) -> int:
        """The worker's pid: the started process itself, or, behind unshare, its one child."""
        if not (self.sandbox and self.sandbox.unshare):
            return self.process.pid
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and self.process.poll() is None:
            children = descendants({self.process.pid})
            if children:
                return min(children)  # before the learner's code loads, the worker is the only one
            time.sleep(0.001)
        return self.process.pid  # it ended already: its requests will say how

    def _remove_private(self) -> None:
        if self.private is not None:
            shutil.rmtree(self.private, ignore_errors=True)

    def _read_replies(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            while line := pipe.readline(REPLY_LIMIT):
                if self.replies.qsize() >= PENDING_LIMIT:  # a flood: stop reading, it is a violation anyway
                    self.replies.put(b"flood")
                    return
                self.replies.put(line)
        self.replies.put(None)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- the arena -----------------------------------------------------------------------------

    def reset_arena(self) -> None:
        self.cursor = 0

    def reserve(self, nbytes: int) -> int:
        at = self.cursor
        self.cursor = (at + nbytes + 63) // 64 * 64
        if self.cursor > len(self.arena):
            raise MemoryError(f"the checker's arena holds {len(self.arena)} bytes; this request needs more")
        return at

    def put_vertices(self, vertices: np.ndarray) -> dict:
        data = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 2)
        at = self.reserve(data.nbytes)
        self.arena[at:at + data.nbytes] = data.tobytes()
        return {"at": at, "n_vertices": int(data.shape[0])}

    def take(self, at: int, count: int) -> np.ndarray:
        """A copy of `count` answer bytes at `at` (copied now: later writes do not count)."""
        return np.frombuffer(self.arena, dtype=np.uint8, count=count, offset=at).copy()

    # ---- requests ------------------------------------------------------------------------------------

    def request(self, message: dict, limit: float, phase: str) -> tuple[dict, float]:
        """Send one request; (its reply, seconds on the checker's clock).  WorkerEnded otherwise."""
        self.phase = phase
        if not self.replies.empty():  # the worker's own refusal (see worker.py) says more than "protocol"
            early = decode_reply(self.replies.get_nowait())
            refused = early.get("refused") if early else None
            if isinstance(refused, str) and refused:
                raise self._ended(f"refused: {refused}")
            raise self._ended("protocol: a message arrived that answers no request")
        try:
            stdin = self._stdin()
            stdin.write((json.dumps(message) + "\n").encode())
            stdin.flush()
        except OSError:
            raise self._ended(self._how_it_ended()) from None
        start = time.monotonic()
        heartbeat = start + HEARTBEAT_SECONDS
        while True:
            now = time.monotonic()
            if now - start >= limit:
                raise self._ended("timeout", limit)
            try:
                line = self.replies.get(timeout=min(start + limit - now, heartbeat - now, 0.5))
                break
            except queue.Empty:
                if self.process.poll() is not None and self.replies.empty():
                    raise self._ended(self._how_it_ended()) from None
                if time.monotonic() >= heartbeat:
                    heartbeat += HEARTBEAT_SECONDS
                    self.say(f"  ... still running {phase} ({time.monotonic() - start:.0f} s of at most "
                             f"{limit:g} s)")
        elapsed = time.monotonic() - start
        if line is None:
            raise self._ended(self._how_it_ended())
        reply = decode_reply(line)
        if reply is None:
            raise self._ended("protocol: a reply that is not one JSON object on one line")
        if "refused" in reply:
            raise self._ended(f"refused: {text_field(reply, 'refused', phase)}")
        return reply, elapsed

    def _how_it_ended(self) -> str:
        try:
            code = self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "closed its reply channel"
        if code >= 0:
            return f"exit {code}"
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:  # a real-time signal has no name
            return f"signal {-code}"

    def _ended(self, how: str, limit: float = 0.0) -> WorkerEnded:
        return WorkerEnded(how, self.phase, limit)

    # ---- measured from outside ------------------------------------------------------------------------

    def _stdin(self) -> IO[bytes]:
        """The worker's standard input (always a pipe: Popen(stdin=PIPE))."""
        assert self.process.stdin is not None
        return self.process.stdin

    def cpu_times(self) -> dict[tuple, tuple[float, float]]:
        """{(pid, thread): (CPU seconds, seconds runnable but waiting for a CPU)} of the worker's whole tree.

        Every process below the started one (the PID namespace's, when there is
        one), each of its threads; a process's threads that ended and its reaped
        children count under (pid, "ended") and (pid, "reaped"), so rows computed
        by a forked child or a short-lived thread are not lost.
        """
        table = process_table()
        found: dict[tuple, tuple[float, float]] = {}
        for pid in descendants({self.process.pid}, table) | {self.process.pid}:
            process = stat_ticks(f"/proc/{pid}/stat")
            if process is None:  # it ended meanwhile
                continue
            live = 0
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                tasks = []
            for task in tasks:
                ticks = stat_ticks(f"/proc/{pid}/task/{task}/stat")
                if ticks is None:  # the thread ended meanwhile
                    continue
                live += ticks[0]
                found[(pid, int(task))] = task_times(f"/proc/{pid}/task/{task}", ticks[0])
            clock = os.sysconf("SC_CLK_TCK")
            # Each live thread's ticks are rounded down apart from the total: a tick of slack per thread.
            found[(pid, "ended")] = (max(process[0] - live - len(tasks), 0) / clock, 0.0)
            found[(pid, "reaped")] = (process[1] / clock, 0.0)
        return found

    def thread_cpu(self) -> dict[tuple, float]:
        """CPU seconds used so far by each thread of the worker's process tree (see cpu_times)."""
        return {key: cpu for key, (cpu, _) in self.cpu_times().items()}

    def anonymous_memory(self) -> int:
        """Bytes of the worker's private memory (RssAnon: the arena is shared, so not in it)."""
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        return 0

    # ---- the end ----------------------------------------------------------------------------------------

    def close(self) -> str:
        """Kill the worker and every process below it; reap them; the learner's output (tail)."""
        try:
            if self.process.poll() is None:
                self._stdin().write(b'{"op": "exit"}\n')
                self._stdin().flush()
        except OSError:
            pass
        me = os.getpid()
        for _ in range(200):
            table = process_table()
            ours = {pid for pid, (parent, _) in table.items() if parent == me} - self.own_children_before
            targets = (descendants({self.process.pid}, table) | ours | {self.process.pid}) - {me}
            alive = {pid for pid in targets if pid in table and table[pid][1] != "Z"}
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            for pid in ours - {self.process.pid}:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            if not alive:
                break
            time.sleep(0.005)
        try:
            self._stdin().close()
        except OSError:
            pass
        self.process.wait()
        _prctl(_PR_SET_CHILD_SUBREAPER, self.subreaper_before)
        _prctl(_PR_SET_DUMPABLE, self.dumpable_before)
        self.arena.close()
        os.close(self.arena_fd)
        self._remove_private()
        tail = self.output.text()
        if self.output.dropped:
            tail = f"[{self.output.dropped:,} earlier bytes of output dropped]\n" + tail
        return tail
