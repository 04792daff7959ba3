"""The sweeps of ``polymask bench --sweep``: fast backends over sizes, vertex counts or threads.

At each value every backend is first called once untimed (its answer checked
against polymask.mask, and any warm-up cost such as Numba's compilation
paid), then timed; the pixels it differs by are kept beside its time.
"""
from __future__ import annotations

import functools
import os
from typing import Callable

import numpy as np

import polymask
from polymask.bench.machine import machine_info, usable_cores
from polymask.bench.progress import Progress
from polymask.bench.records import BenchOptions, Sweep
from polymask.bench.state import LoadAverage, finish_state, start_state
from polymask.bench.timing import median_seconds
from polymask.course import peers as peer_registry
from polymask.course import stages as stage_registry
from polymask.course.problems import random_polygon

#: Stages fast enough for sweeps over large sizes and vertex counts.
SWEEP_BACKENDS = ("scanline", "cython_prange", "numba", "opencl")
#: A backend slower than this at one sweep value is not run at the larger ones.
SWEEP_BUDGET_SECONDS = 0.25
SWEEP_VALUES: dict[str, list[int] | None] = {
    "size": [256, 512, 1024, 2048, 4096, 8192],
    "vertices": [3, 10, 30, 100, 300, 1000, 3000, 10_000, 100_000],
    "threads": None,  # 1, 2, 4, ... up to the usable cores
}


def sweep_backends(args: BenchOptions) -> list[str]:
    """The backends a sweep times: the fast stages (those of --stages only) and, for sizes and vertices, two peers."""
    chosen = None if args.stages == "all" else set(args.stages.split(","))
    backends = [s for s in SWEEP_BACKENDS
                if (chosen is None or s in chosen) and stage_registry.availability(s).available]
    if chosen is not None and not backends:
        raise SystemExit(f"polymask bench: --sweep times only {', '.join(SWEEP_BACKENDS)}; "
                         f"--stages {args.stages} names none of them")
    if args.sweep != "threads" and not args.no_peers:
        backends += [p.id for p in peer_registry.PEERS if p.availability()[0] and p.id in ("opencv", "pillow")]
    return backends


def run_sweep(args: BenchOptions, *, getloadavg: LoadAverage = os.getloadavg) -> Sweep:
    """Median time of each fast backend and peer over one parameter."""
    parameter = args.sweep
    if parameter is None:
        raise ValueError(f"run_sweep needs args.sweep, one of {sorted(SWEEP_VALUES)}; got None")
    values = SWEEP_VALUES[parameter]
    if parameter == "threads":
        cores = machine_info()["cores"]
        values = sorted({1, *[2**k for k in range(1, 8) if 2**k <= cores], cores})
    backends = sweep_backends(args)
    assert values is not None  # only "threads" has no fixed list, and it was made above
    series: dict[str, list[tuple[int, float]]] = {backend: [] for backend in backends}
    differing: dict[str, list[tuple[int, int]]] = {backend: [] for backend in backends}
    stopped: dict[str, str] = {}  # a backend past the budget at one value is not run at larger ones
    state = start_state(usable_cores(), getloadavg)
    progress = Progress(len(values) * len(backends), enabled=not args.no_progress)
    try:
        for value in values:
            size = value if parameter == "size" else args.size
            n_vertices = value if parameter == "vertices" else args.vertices
            threads = value if parameter == "threads" else args.threads
            vertices = random_polygon(n_vertices, size, args.seed)
            shape = (size, size)
            expected = polymask.mask(vertices, shape)
            for backend in backends:
                progress.step(f"{backend} {parameter}={value}")
                progress.advance()
                if backend in stopped:
                    continue
                run: Callable[[], object]
                if backend in stage_registry.ids():
                    # None: the default, as for an unthreaded stage.
                    stage_threads = threads if stage_registry.get(backend).threaded else None
                    run = functools.partial(polymask.mask, vertices, shape, backend=backend, threads=stage_threads)
                else:
                    run = functools.partial(peer_registry.get(backend).function, vertices, shape)
                result = run()  # the check, and the warm-up: never one of the timings
                differing[backend].append((value, int(np.count_nonzero(np.asarray(result, dtype=bool) != expected))))
                seconds = median_seconds(run, args.repeats)
                series[backend].append((value, seconds))
                # Values grow several-fold per step and some peers grow
                # faster than linearly (cv2.fillPoly with many vertices).
                if seconds > SWEEP_BUDGET_SECONDS:
                    stopped[backend] = (f"over {SWEEP_BUDGET_SECONDS} s per mask at {parameter}={value}, "
                                        "so the larger values were skipped")
    finally:
        progress.close()
    # CPU time is not sampled in a sweep, so only the load judges it.
    return {"parameter": parameter, "size": args.size, "vertices": args.vertices, "seed": args.seed,
            "series": series, "differing": differing, "stopped": stopped, "machine": machine_info(),
            "state": finish_state(state, None, getloadavg)}
