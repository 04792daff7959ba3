"""The Ctrl-C harness the interrupt tests share: a scenario script and its judge.

A scenario is a Python script run in a fresh interpreter (a KeyboardInterrupt
that escaped would otherwise end the pytest session).  It ends with
``interrupt_during(make_run)``, which prints one JSON line; the judge,
``assert_interrupted_promptly``, reads it.
"""
from __future__ import annotations

import json
import sys
import textwrap

from tests._support import run_isolated

#: What every scenario shares: the comb polygon, and a call run with a
#: SIGINT due 0.3 s in, reporting as JSON whether the call returned and how
#: long after the signal the KeyboardInterrupt arrived.  Each scenario builds
#: its call for a work `scale`, and the harness grows the scale until the call
#: outlasts three times the delay: a fixed size finished before the signal on
#: a faster CPU, and the test then said the call "returned a result".
HARNESS = textwrap.dedent('''
    import json, os, signal, sys, threading, time
    import numpy as np
    import polymask, polymask.coco

    def tall_comb(width, rows, teeth):
        """A comb whose teeth cross every row: every row has 2 * teeth crossings."""
        xs = np.linspace(0, width, 2 * teeth + 1)
        ys = np.tile([0.5, rows - 0.5], teeth + 1)[: 2 * teeth + 1]
        return np.column_stack([np.concatenate([xs, [width, 0]]), np.concatenate([ys, [rows + 1, rows + 1]])])

    def comb(side, spikes):
        return tall_comb(side, side, spikes)

    def outlasts(run, seconds):
        """Whether run() is still running `seconds` after it starts (it is interrupted then)."""
        timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            run()
        except KeyboardInterrupt:
            return True
        try:  # a SIGINT sent just as the call returned lands here: too close to count
            timer.cancel()
            timer.join()
            time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        return False

    def later(function, *arguments, **options):
        """function(*arguments, **options) as a call to make later, its arguments built now."""
        return lambda: function(*arguments, **options)

    def outlasts_twice(run, seconds, settle):
        """Whether run() outlasts `seconds` twice running: a first call can be slower than the
        next (memory touched first, the pool's first start), and the measured call comes later."""
        for _ in range(2):
            if not outlasts(run, seconds):
                return False
            settle()
        return True

    def interrupt_during(make_run, delay=0.3, settle=lambda: None, share=None):
        """SIGINT `delay` s into make_run(scale)(), the work first sized for this CPU.

        make_run(scale) builds a call whose work grows with `scale`.  Two probes
        interrupt it at 3 x delay; while either call ends before that, the scale
        doubles, so on any CPU the call is still running when the signal comes.
        settle() runs after each probe: work an interrupt cannot stop (an
        OpenCL kernel) must end before the measured call starts.

        `share` aims at a phase of the call instead (past an uninterruptible
        copy, inside what follows): the call runs once uninterrupted, its work
        grown until more than a second is left after that share of it, and the
        SIGINT comes at that share, as the phases grow with the work together.
        """
        scale = 1
        if share is not None:
            while True:
                started = time.perf_counter()
                make_run(scale)()
                whole = time.perf_counter() - started
                if (1 - share) * whole > 1.0 or scale >= 512:
                    break
                scale *= 2
            delay = share * whole
        while share is None and not outlasts_twice(make_run(scale), 3 * delay, settle):
            settle()
            if scale >= 512:
                raise SystemExit(f"the call still ends within {3 * delay} s at scale {scale}")
            scale *= 2
        settle()
        run = make_run(scale)
        sent = {}
        def interrupt():
            sent["at"] = time.perf_counter()
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(delay, interrupt)
        started = time.perf_counter()
        timer.start()
        returned = False
        try:
            run()
            returned = True
            time.sleep(5)  # an interrupt held back by the call lands here
        except KeyboardInterrupt:
            pass
        caught = time.perf_counter()
        print(json.dumps({"returned": returned, "latency": caught - sent.get("at", caught),
                          "elapsed": caught - started, "scale": scale}))
''')


def assert_interrupted_promptly(scenario: str, what: str, *arguments) -> None:
    """Run `scenario` with `arguments` in a fresh interpreter: the call must end in KeyboardInterrupt within 0.5 s."""
    completed = run_isolated([sys.executable, "-c", scenario, *map(str, arguments)], 120)
    assert completed is not None, f"{what}: no result within 120 s"
    assert completed.returncode == 0, f"{what}: the scenario failed:\n{completed.stderr[-3000:]}"
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert not report["returned"], f"{what}: the call returned a result: {report}"
    assert report["latency"] < 0.5, f"{what}: KeyboardInterrupt came late: {report}"
