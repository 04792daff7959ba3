"""Fork after threads: every backend, in a fork-start pool and a bare os.fork() child.

A process that ran threaded fills and then forks (multiprocessing's "fork"
start method, PyTorch DataLoader and joblib workers, a bare ``os.fork()``)
must get, in the child, the same mask as a single-threaded fill, or a clear
Python error for a backend that cannot run there; never a hang, never a
killed child.  GNU OpenMP used to hang such a child in its next parallel
region (scanline, cython_prange) or abort it (numba).

Each case runs in a fresh interpreter (tests must not fork pytest itself,
whose own threads could be anywhere) under a timeout, so a hang fails the
test instead of stalling the suite.
"""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

import polymask
from polymask.course import stages
from tests._support import run_isolated

BACKENDS = [name for name, (ok, _) in polymask.available_backends().items() if ok]
#: Seconds a whole scenario may take, child included, before it counts as a hang.
TIMEOUT = 120

#: The end of every scenario: `fill(_)` (the mask's bytes, or an error
#: message) in a fork-start pool and in a bare os.fork() child, compared with
#: `expected`; printed as JSON.
FORKED_CHILDREN = textwrap.dedent('''
    def outcome(result):
        return result if isinstance(result, str) else result == expected

    report = {}
    with multiprocessing.get_context("fork").Pool(2) as pool:
        report["pool"] = [outcome(r) for r in pool.map(fill, range(4))]

    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.write(write, json.dumps(outcome(fill(0))).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        answer = pipe.read()
    _, status = os.waitpid(child, 0)
    report["fork"] = json.loads(answer) if answer else f"no answer, wait status {status}"
    report["fork_status"] = status
    print(json.dumps(report))
''')

SCENARIO = textwrap.dedent('''
    import json, multiprocessing, os, sys
    import numpy as np
    import polymask
    from polymask import _core
    from polymask.course import stages

    backend, side = sys.argv[1], int(sys.argv[2])
    stage = stages.get(backend)
    rng = np.random.default_rng(24)
    vertices = rng.uniform(0, side, (24, 2))
    shape = (side, side)
    options = {"threads": 2} if stage.threaded else {}
    # The core's pool runs helpers in the parent and in every child, whatever
    # the backend: a zigzag crossing each of 300 rows 2,000 times is work
    # worth them, and learning is off, so a busy machine cannot veto them.
    _core._reset_pool_learning(adaptive=False)
    comb = np.column_stack([np.linspace(1, 298, 2000), np.where(np.arange(2000) % 2 == 0, 1.0, 298.0)])
    comb_mask = polymask.mask(comb, (300, 300), threads=1).tobytes()

    def fill(_):
        try:
            if polymask.mask(comb, (300, 300), threads=2).tobytes() != comb_mask:
                return "the core's threaded mask is wrong"
            return polymask.mask(vertices, shape, backend=backend, **options).tobytes()
        except Exception as error:  # a clear RuntimeError is allowed: report it
            kind = "RuntimeError" if isinstance(error, RuntimeError) else "other error"
            return f"{kind} ({type(error).__name__}): {error}"

    expected = polymask.mask(vertices, shape, backend="scanline", threads=1).tobytes()
    for _ in range(3):  # threaded fills in the parent first
        assert fill(0) == expected, "the parent's mask is wrong"
    assert _core.pool_statistics()["threaded_calls"] > 0, "no helper thread ran in the parent"

''') + FORKED_CHILDREN


def _clear_error(outcome) -> bool:
    """A result that is an error message naming what to do, not a wrong mask."""
    return isinstance(outcome, str) and outcome.startswith("RuntimeError") and "fork" in outcome


@pytest.mark.parametrize("backend", BACKENDS)
def test_fork_after_threaded_fills(backend):
    side = 12 if stages.get(backend).slow else 96
    completed = run_isolated([sys.executable, "-c", SCENARIO, backend, str(side)], TIMEOUT)
    if completed is None:
        pytest.fail(f"{backend}: a forked child hung (no result within {TIMEOUT} s)")
    assert completed.returncode == 0, f"{backend}: the scenario died:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["fork_status"] == 0, f"{backend}: the os.fork() child ended with status {report['fork_status']}"
    for outcome in report["pool"] + [report["fork"]]:
        assert outcome is True or _clear_error(outcome), f"{backend}: a forked child got {outcome!r}"


# ---- the learner's prange exercise ---------------------------------------------------
# exercises/06_prange links GNU OpenMP itself; its given scaffold (openmp_team)
# runs a forked child on one thread.  Checked on the solution, built as the
# checker builds it.

EXERCISE_SCENARIO = textwrap.dedent('''
    import json, multiprocessing, os, sys
    import numpy as np
    from polymask.course.build import build_cython
    from polymask.course.checker.worker import load_module

    built = build_cython(sys.argv[1], openmp=True, link_core=True)
    assert built.ok, built.error
    module = load_module(built.module_path, built.module_name)
    vertices = np.random.default_rng(24).uniform(0, 96, (24, 2))

    def fill(_):
        return module.mask(vertices, (96, 96), 2).tobytes()

    expected = fill(0)
    for _ in range(3):  # OpenMP teams of two in the parent first
        assert fill(0) == expected

''') + FORKED_CHILDREN


@pytest.mark.parametrize("source", ["exercises/solutions/06_prange/mask.pyx", "exercises/06d_build/mask.pyx"])
def test_fork_after_the_prange_exercise_runs_the_child_on_one_thread(source):
    from pathlib import Path
    solution = Path(__file__).resolve().parents[1] / source
    completed = run_isolated([sys.executable, "-c", EXERCISE_SCENARIO, str(solution)], 600)
    if completed is None:
        pytest.fail(f"{source}: a forked child hung")
    assert completed.returncode == 0, f"{source}: the scenario died:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report == {"pool": [True] * 4, "fork": True, "fork_status": 0}, report
