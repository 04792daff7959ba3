"""The speed-up table of ``polymask bench``: every stage and peer on one problem.

Every available stage runs on the course's problem; the rows carry this
machine's median time, the speed-up over pure Python in the same run, the
2014 figures, and how many pixels each result differs from the contract.
Slow stages can be timed on a band of rows and scaled up (``--quick``).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import polymask
from polymask.bench import report as reports
from polymask.bench.machine import machine_info
from polymask.bench.progress import Progress
from polymask.bench.records import BenchOptions, Problem, Report, Row
from polymask.bench.timing import median_seconds
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
    band_rows = max(8, rows // 32)
    first_row = (rows - band_rows) // 2
    return vertices - np.array([0.0, first_row]), (band_rows, cols), rows / band_rows


def run_table(args: BenchOptions) -> Report:
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
    progress = Progress(len(stage_list) + len(peer_list) + 1, enabled=not args.no_progress)
    rows: list[Row] = []
    try:
        for stage in stage_list:
            progress.step(stage.id)
            rows.append(_time_stage(stage, vertices, shape, expected, args))
            if stage.id == "opencl" and rows[-1]["seconds"] is not None:
                rows.append(_time_opencl_default(vertices, shape, expected, args))
            progress.advance()
        for peer in peer_list:
            progress.step(peer.id)
            rows.append(_time_peer(peer, vertices, shape, expected, args))
            progress.advance()
        progress.step("memory floor")
        out = np.empty(shape, bool)
        floor_seconds = median_seconds(lambda: out.fill(False), args.repeats)
        rows.append({"kind": "floor", "id": "floor", "title": "memory floor", "seconds": floor_seconds,
                     "convention": ""})
        progress.advance()
    finally:
        progress.close()

    python_seconds = next((r["seconds"] for r in rows if r["id"] == "python" and r["seconds"]), None)
    for row in rows:
        row.setdefault("extrapolated", False)
        seconds = row["seconds"]
        if seconds is not None:
            row["speedup"] = python_seconds / seconds if python_seconds else None
            row["x_floor"] = seconds / floor_seconds
    problem: Problem = {"rows": args.size, "cols": args.size, "vertices": args.vertices, "seed": args.seed,
                        "repeats": args.repeats, "slow_repeats": args.slow_repeats, "threads": args.threads,
                        "quick": args.quick}
    return {"problem": problem, "machine": machine_info(), "rows": rows}


def _time_stage(stage: stage_registry.Stage, vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
                args: BenchOptions) -> Row:
    row: Row = {"kind": "side" if stage.side else "stage", "id": stage.id, "title": stage.title,
                "seconds_2014": stage.seconds_2014, "speedup_2014": stage.speedup_2014,
                "convention": "contract", "seconds": None, "pixels_differing": None}
    status = stage_registry.availability(stage.id)
    if not status.available:
        row["note"] = f"not available: {status.reason}"
        return row
    threads = args.threads if stage.threaded else None  # None: the default, as for an unthreaded stage
    if stage.slow:
        timed_vertices, timed_shape, scale = _band(vertices, shape, args.quick)
        reference = polymask.mask(timed_vertices, timed_shape) if scale != 1.0 else expected
    else:
        timed_vertices, timed_shape, scale, reference = vertices, shape, 1.0, expected

    def run() -> MaskArray:
        return polymask.mask(timed_vertices, timed_shape, backend=stage.id, threads=threads)

    result = run()
    if stage.slow:
        row["seconds"] = median_seconds(run, args.slow_repeats) * scale
        row["extrapolated"] = scale != 1.0
    else:
        row["seconds"] = median_seconds(run, args.repeats)
    row["pixels_differing"] = int(np.count_nonzero(result != reference))
    if stage.id == "opencl":
        _add_opencl_split(row, vertices, shape, args.repeats)
    return row


def _time_opencl_default(vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
                         args: BenchOptions) -> Row:
    """The library's OpenCL call beside the course's rung: polymask.opencl.mask with its default kernel."""
    from polymask import opencl

    kernel = opencl.programs.chosen_kernel("auto", opencl.engine().device_type)

    def run() -> MaskArray:
        mask: MaskArray = opencl.mask(vertices, shape)  # a bool mask, as polymask.mask's
        return mask

    result = run()
    return {"kind": "library", "id": "opencl_mask",
            "title": f"polymask.opencl.mask, the library's default ({kernel} kernel)",
            "seconds_2014": None, "speedup_2014": None, "convention": "contract",
            "seconds": median_seconds(run, args.repeats),
            "pixels_differing": int(np.count_nonzero(result != expected)),
            "note": "a work-group per row on GPUs, a work-item per row on CPU devices"}


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


def _time_peer(peer: peer_registry.Peer, vertices: NDArray[np.float64], shape: Shape, expected: MaskArray,
               args: BenchOptions) -> Row:
    row: Row = {"kind": "peer", "id": peer.id, "title": peer.title, "convention": peer.convention,
                "seconds": None, "pixels_differing": None}
    available, reason = peer.availability()
    if not available:
        row["note"] = f"not installed ({reason})"
        return row
    result = peer.function(vertices, shape)
    row["pixels_differing"] = int(np.count_nonzero(np.asarray(result, dtype=bool) != expected))
    row["seconds"] = median_seconds(lambda: peer.function(vertices, shape), args.repeats)
    return row
