"""The speed-up table of ``polymask bench``: every stage and peer on one problem.

Every available stage runs on the course's problem; the rows carry every
timed sample, their median and quartiles, the CPU time beside the wall
time, the speed-up over pure Python in the same run, the 2014 figures, and
how many pixels each result differs from the contract.  All rows are timed
in interleaved rounds (polymask.bench.timing), so their ratios share the
machine's conditions.  Slow stages can be timed on a band of rows and scaled
up (``--quick``).
"""
from __future__ import annotations

import os
import statistics
import time
from typing import Callable

import numpy as np
from numpy.typing import NDArray

import polymask
from polymask.bench import report as reports
from polymask.bench.machine import machine_info, usable_cores
from polymask.bench.progress import Progress
from polymask.bench.records import BenchOptions, Problem, Report, Row
from polymask.bench.state import LoadAverage, finish_state, start_state
from polymask.bench.timing import Contender, CpuClock, interleaved, process_cpu_seconds, quartiles
from polymask.course import peers as peer_registry
from polymask.course import stages as stage_registry
from polymask.course.problems import random_polygon
from polymask.typing import MaskArray

#: An image shape (rows, cols).
Shape = tuple[int, int]


def _band(vertices: NDArray[np.float64], shape: Shape, quick: bool) -> tuple[NDArray[np.float64], Shape, float]:
    """(vertices, shape, scale) of the problem a slow stage is timed on.

    With --quick, a band of rows from the middle of the image: the polygon is
    shifted up so the band's first row becomes row 0.  The band's mask is
    checked against polymask.mask of the same shifted problem.
    """
    if not quick:
        return vertices, shape, 1.0
    rows, cols = shape
    band_rows = min(rows, max(8, rows // 32))
    first_row = (rows - band_rows) // 2
    return vertices - np.array([0.0, first_row]), (band_rows, cols), rows / band_rows


def run_table(args: BenchOptions, *, getloadavg: LoadAverage = os.getloadavg,
              cpu_clock: CpuClock = process_cpu_seconds) -> Report:
    """Time every chosen stage, peer and the memory floor; `getloadavg` and `cpu_clock` are injectable
    (a test fakes a quiet machine with them)."""
    vertices = random_polygon(args.vertices, args.size, args.seed)
    shape = (args.size, args.size)
    expected = polymask.mask(vertices, shape)
    chosen = None if args.stages == "all" else set(args.stages.split(","))
    if chosen is not None:
        unknown = chosen - set(stage_registry.ids())
        if unknown:
            raise SystemExit(f"polymask bench: unknown stages {sorted(unknown)}; choose from {stage_registry.ids()}")
    stage_list = [s for s in stage_registry.STAGES if chosen is None or s.id in chosen]
    peer_list = [] if args.no_peers else list(peer_registry.PEERS)
    state = start_state(usable_cores(), getloadavg)
    progress = Progress(len(stage_list) + len(peer_list) + max(args.repeats, args.slow_repeats),
                        enabled=not args.no_progress)
    timed: list[tuple[Row, Contender | None]] = []
    try:
        for stage in stage_list:
            progress.step(f"checking {stage.id}")
            timed.append(_prepare_stage(stage, vertices, shape, expected, args, cpu_clock))
            if stage.id == "opencl" and timed[-1][1] is not None:
                timed.append(_prepare_opencl_default(vertices, shape, expected, args))
            progress.advance()
        for peer in peer_list:
            progress.step(f"checking {peer.id}")
            timed.append(_prepare_peer(peer, vertices, shape, expected, args))
            progress.advance()
        out = np.empty(shape, bool)
        timed.append(({"kind": "floor", "id": "floor", "title": "memory floor", "seconds": None, "convention": ""},
                      Contender("floor", lambda: out.fill(False), args.repeats)))
        contenders = [contender for _, contender in timed if contender is not None]
        interleaved(contenders, cpu_clock, on_round=lambda number, rounds: _next_round(progress, number, rounds))
        for row, contender in timed:
            if contender is not None:
                _fill_times(row, contender)
        for row, _ in timed:
            if row["id"] == "opencl" and row["seconds"] is not None:
                _add_opencl_split(row, vertices, shape, args.repeats)
    finally:
        progress.close()

    rows = [row for row, _ in timed]
    python_seconds = next((r["seconds"] for r in rows if r["id"] == "python" and r["seconds"]), None)
    floor_seconds = rows[-1]["seconds"]
    for row in rows:
        row.setdefault("extrapolated", False)
        seconds = row["seconds"]
        if seconds is not None:
            row["speedup"] = python_seconds / seconds if python_seconds else None
            row["x_floor"] = seconds / floor_seconds if floor_seconds else 0.0
    shares = [row["cpu_seconds"] / row["seconds"] for row in rows
              if not row.get("threaded", True) and row.get("cpu_seconds") is not None and row["seconds"]]
    finish_state(state, statistics.median(shares) if shares else None, getloadavg)
    problem: Problem = {"rows": args.size, "cols": args.size, "vertices": args.vertices, "seed": args.seed,
                        "repeats": args.repeats, "slow_repeats": args.slow_repeats, "threads": args.threads,
                        "quick": args.quick}
    return {"problem": problem, "machine": machine_info(), "state": state, "rows": rows}


def _next_round(progress: Progress, number: int, rounds: int) -> None:
    if number:
        progress.advance()
    progress.step(f"timing round {number + 1}/{rounds}")


def _fill_times(row: Row, contender: Contender) -> None:
    """The row's samples, median, quartiles and median CPU time, from its contender."""
    first, median, third = quartiles(contender.wall)
    row["seconds"] = median
    row["q1"], row["q3"] = first, third
    row["cpu_seconds"] = statistics.median(contender.cpu)
    row["samples"] = list(contender.wall)
    row["cpu_samples"] = list(contender.cpu)
    row["calls_per_sample"] = contender.calls
    row.setdefault("threaded", False)


def _prepare_stage(stage: stage_registry.Stage, vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
                   args: BenchOptions, cpu_clock: CpuClock) -> tuple[Row, Contender | None]:
    """The stage's row, checked against the contract, and its contender (None when it cannot run here)."""
    row: Row = {"kind": "side" if stage.side else "stage", "id": stage.id, "title": stage.title,
                "seconds_2014": stage.seconds_2014, "speedup_2014": stage.speedup_2014,
                "convention": "contract", "seconds": None, "pixels_differing": None,
                "threaded": stage.threaded or stage.id == "opencl"}
    status = stage_registry.availability(stage.id)
    if not status.available:
        row["note"] = f"not available: {status.reason}"
        return row, None
    threads = args.threads if stage.threaded else None  # None: the default, as for an unthreaded stage
    if stage.slow:
        timed_vertices, timed_shape, scale = _band(vertices, shape, args.quick)
        reference = polymask.mask(timed_vertices, timed_shape) if scale != 1.0 else expected
    else:
        timed_vertices, timed_shape, scale, reference = vertices, shape, 1.0, expected

    def run() -> MaskArray:
        return polymask.mask(timed_vertices, timed_shape, backend=stage.id, threads=threads)

    if not stage.slow:
        result = run()  # the check, which is also the warm-up (Numba compiles here)
        row["pixels_differing"] = int(np.count_nonzero(result != reference))
        row["checked_rows"] = shape[0]
        return row, Contender(stage.id, run, args.repeats)
    # A slow stage's call lasts seconds: on the full image its checked call is
    # also its first sample, one call a sample; on a band the check is a warm-up
    # outside the samples, and a sample averages calls as a fast row's does.
    contender = Contender(stage.id, run, args.slow_repeats, scale=scale, calibrated=scale == 1.0)
    cpu_start, start = cpu_clock(), time.perf_counter()
    result = run()
    if scale == 1.0:
        contender.add(time.perf_counter() - start, cpu_clock() - cpu_start)
    row["pixels_differing"] = int(np.count_nonzero(result != reference))
    row["checked_rows"] = timed_shape[0]
    row["extrapolated"] = scale != 1.0
    return row, contender


def _prepare_opencl_default(vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
                            args: BenchOptions) -> tuple[Row, Contender]:
    """The library's OpenCL call beside the course's rung: polymask.opencl.mask with its default kernel."""
    from polymask import opencl

    kernel = opencl.programs.chosen_kernel("auto", opencl.engine().device_type)

    def run() -> MaskArray:
        mask: MaskArray = opencl.mask(vertices, shape)  # a bool mask, as polymask.mask's
        return mask

    result = run()
    row: Row = {"kind": "library", "id": "opencl_mask",
                "title": f"polymask.opencl.mask, the library's default ({kernel} kernel)",
                "seconds_2014": None, "speedup_2014": None, "convention": "contract", "seconds": None,
                "pixels_differing": int(np.count_nonzero(result != expected)), "checked_rows": shape[0],
                "threaded": True, "note": "a work-group per row on GPUs, a work-item per row on CPU devices"}
    return row, Contender("opencl_mask", run, args.repeats)


def _add_opencl_split(row: Row, vertices: NDArray[np.float64], shape: Shape, repeats: int) -> None:
    """Kernel and transfer time of the OpenCL kernels, from OpenCL events, added to the opencl stage's row."""
    try:
        from polymask import opencl

        timings = {kernel: opencl.profile(vertices, shape, kernel=kernel, repeats=repeats)
                   for kernel in ("pixel", "scanline", "rows")}
    except Exception as error:  # noqa: BLE001 -- the split is extra information, not the measurement
        row["note"] = f"kernel/transfer split unavailable: {error}"
        return
    pixel, scanline = timings["pixel"], timings["scanline"]
    row["kernel_seconds"] = pixel["kernel_s"]
    row["transfer_seconds"] = pixel["transfer_s"]
    row["note"] = (f"per-pixel kernel {reports.format_seconds(pixel['kernel_s'])} + transfers "
                   f"{reports.format_seconds(pixel['transfer_s'])}; scanline kernel "
                   f"{reports.format_seconds(scanline['kernel_s'])} + transfers "
                   f"{reports.format_seconds(scanline['transfer_s'])}; rows kernel "
                   f"{reports.format_seconds(timings['rows']['kernel_s'])} + transfers "
                   f"{reports.format_seconds(timings['rows']['transfer_s'])}")


def _prepare_peer(peer: peer_registry.Peer, vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
                  args: BenchOptions) -> tuple[Row, Contender | None]:
    row: Row = {"kind": "peer", "id": peer.id, "title": peer.title, "convention": peer.convention,
                "seconds": None, "pixels_differing": None, "threaded": False}
    available, reason = peer.availability()
    if not available:
        row["note"] = f"not installed ({reason})"
        return row, None
    function: Callable[[NDArray[np.float64], Shape], object] = peer.function
    result = function(vertices, shape)  # the check, which is also the warm-up
    row["pixels_differing"] = int(np.count_nonzero(np.asarray(result, dtype=bool) != expected))
    row["checked_rows"] = shape[0]
    return row, Contender(peer.id, lambda: function(vertices, shape), args.repeats)
