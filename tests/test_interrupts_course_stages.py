"""Ctrl-C during a teaching stage called through ``polymask.mask(..., backend=ID)``.

The course's runner (polymask/course/stages/_running.py) owns what a stage
needs around it: every stage answers Ctrl-C within 0.5 s, the stages whose
loops keep the GIL (cython_plain, cython_typed) as much as the others, and
a stage abandoned by Ctrl-C never writes into the caller's ``out=`` after
the call has raised: it fills a buffer of its own, copied only on success.
Each case runs in a fresh interpreter, as in tests/test_interrupts.py.
"""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

import polymask
from tests._support import run_isolated

pytestmark = pytest.mark.wallclock

AVAILABLE = {name for name, (ok, _) in polymask.available_backends().items() if ok}

#: What both scenarios share.  The SIGINT comes from another process, due at
#: a known time: a timer thread of this process would itself wait for the GIL
#: that a stage holds, send the signal only once the stage was done, and
#: measure a latency of nothing (tests/test_interrupts.py's harness measures
#: from the moment its timer thread ran).
PRELUDE = textwrap.dedent('''
    import json, os, subprocess, sys, time
    import numpy as np
    import polymask

    backend, side = sys.argv[1], int(sys.argv[2])

    def comb(teeth):
        """A comb whose teeth cross every row of the side x side image: 2 * teeth crossings a row."""
        xs = np.linspace(0, side, 2 * teeth + 1)
        ys = np.tile([0.5, side - 0.5], teeth + 1)[: 2 * teeth + 1]
        return np.column_stack([np.concatenate([xs, [side, 0]]), np.concatenate([ys, [side + 1, side + 1]])])

    def sized_comb(seconds):
        """A comb whose fill takes about `seconds` on this CPU, from the time of a 10-tooth one."""
        started = time.perf_counter()
        polymask.mask(comb(10), (side, side), backend=backend)  # also the warm-up: OpenCL builds its program
        probe = time.perf_counter() - started
        return comb(max(10, int(10 * seconds / max(probe, 1e-3))))

    def interrupt_in(seconds):
        """SIGINT to this process `seconds` from now, sent by another process; the time it is due."""
        subprocess.Popen(["sh", "-c", f"sleep {seconds}; kill -INT {os.getpid()}"])
        return time.perf_counter() + seconds
''')

#: A fill of about 3 s, interrupted at 0.3 s: how late after the SIGINT was due
#: the KeyboardInterrupt came.
LATENCY = PRELUDE + textwrap.dedent('''
    polygon = sized_comb(3.0)
    due = interrupt_in(0.3)
    returned = False
    try:
        polymask.mask(polygon, (side, side), backend=backend)
        returned = True
        time.sleep(5)  # an interrupt held back by the call lands here
    except KeyboardInterrupt:
        pass
    print(json.dumps({"returned": returned, "latency": time.perf_counter() - due}))
''')

#: backend -> image side: stages whose loops keep the GIL while they fill.
GIL_HOLDING_FILLS = {"cython_typed": 1000, "cython_plain": 300}


def _require(backend: str) -> None:
    if backend not in AVAILABLE:
        pytest.fail(f"backend {backend} is not available here: {polymask.available_backends()[backend].reason}")


@pytest.mark.parametrize("backend", list(GIL_HOLDING_FILLS))
def test_a_stage_that_holds_the_gil_answers_ctrl_c_within_half_a_second(backend):
    """Once 3-9 s: the stage kept the GIL on the helper thread, so the main thread never ran the signal handler."""
    _require(backend)
    completed = run_isolated([sys.executable, "-c", LATENCY, backend, str(GIL_HOLDING_FILLS[backend])], 120)
    assert completed is not None, f"{backend}: no result within 120 s"
    assert completed.returncode == 0, f"{backend}: the scenario failed:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert not report["returned"], f"{backend}: the fill ran to the end: {report}"
    assert report["latency"] < 0.5, f"{backend}: KeyboardInterrupt came late: {report}"


#: A fill of about 3 s with out=, interrupted at 0.3 s; then out= is watched:
#: a later call on the same backend waits for the abandoned stage on the
#: runner's helper thread, so by its end any late write has landed, and a
#: few seconds more for a stage that runs elsewhere.
OUT_AFTER_CTRL_C = PRELUDE + textwrap.dedent('''
    polygon = sized_comb(3.0)
    out = np.zeros((side, side), dtype=bool)
    due = interrupt_in(0.3)
    interrupted = False
    try:
        polymask.mask(polygon, (side, side), out=out, backend=backend)
        time.sleep(5)
    except KeyboardInterrupt:
        interrupted = True
    square = np.array([(0.0, 0.0), (side, 0.0), (side, side), (0.0, side)])
    later = polymask.mask(square, (side, side), backend=backend)
    written = []
    for _ in range(12):
        written.append(int(np.count_nonzero(out)))
        time.sleep(0.25)
    print(json.dumps({"interrupted": interrupted, "written": max(written),
                      "later_right": bool(later[:side - 1, :side - 1].all())}))
''')

#: backend -> image side.
OUT_FILLS = {"opencl": 2000, "cython_typed": 1000, "cython_cpp": 2000}


@pytest.mark.parametrize("backend", list(OUT_FILLS))
def test_an_abandoned_stage_never_writes_into_the_callers_out(backend):
    """Once opencl's kernel filled the caller's out= 3-5 s after the KeyboardInterrupt: a silent wrong answer."""
    if backend == "opencl" and backend not in AVAILABLE:
        pytest.skip("no OpenCL device here")  # GPU code may skip; CI installs a CPU runtime
    _require(backend)
    completed = run_isolated([sys.executable, "-c", OUT_AFTER_CTRL_C, backend, str(OUT_FILLS[backend])], 180)
    assert completed is not None, f"{backend}: no result within 180 s"
    assert completed.returncode == 0, f"{backend}: the scenario failed:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["interrupted"], f"{backend}: the call was not interrupted: {report}"
    assert report["later_right"], f"{backend}: the next call's mask was wrong: {report}"
    assert report["written"] == 0, f"{backend}: out= was written after the KeyboardInterrupt: {report}"
