"""``polymask bench``: reproduce the 2014 speed-up table on this machine.

    polymask bench                      the table on the standard problem
    polymask bench --quick              slow stages timed on a band of rows, scaled up
    polymask bench --json r.json --csv r.csv --plot r.png
    polymask bench --sweep size --plot sweep.png
    polymask bench --from-json .benchmarks/.../0001_run.json   (a pytest-benchmark file)

Every available stage runs on the course's problem (1024x1024, 24 random
vertices, fixed seed); the table shows this machine's median time, its
speed-up over pure Python measured in the same run, and the 2014 course's
time and speed-up beside them.  Below come today's peer libraries, each with
how many pixels it disagrees with the mask contract, and the memory floor.
Speed claims are ratios taken in one run, never absolute times.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import polymask
from polymask import peers as peer_registry
from polymask import stages as stage_registry
from polymask.bench import report as reports
from polymask.bench.machine import machine_info
from polymask.bench.timing import median_seconds
from polymask.problems import STANDARD_SEED, STANDARD_SIZE, STANDARD_VERTICES, random_polygon

#: Stages fast enough for sweeps over large sizes and vertex counts.
SWEEP_BACKENDS = ("scanline", "cython_prange", "numba", "opencl")
#: A backend slower than this at one sweep value is not run at the larger ones.
SWEEP_BUDGET_SECONDS = 0.25
SWEEP_VALUES = {
    "size": [256, 512, 1024, 2048, 4096, 8192],
    "vertices": [3, 10, 30, 100, 300, 1000, 3000, 10_000, 100_000],
    "threads": None,  # 1, 2, 4, ... up to the usable cores
}


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="polymask bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=STANDARD_SIZE, help="image side in pixels (default 1024)")
    parser.add_argument("--vertices", type=int, default=STANDARD_VERTICES, help="polygon vertex count (default 24)")
    parser.add_argument("--seed", type=int, default=STANDARD_SEED, help="random polygon seed (default 2014)")
    parser.add_argument("--repeats", type=int, default=7, help="timings per fast row; the median is shown")
    parser.add_argument("--slow-repeats", type=int, default=1,
                        help="timings per slow stage (pure Python, NumPy scalars, plain Cython)")
    parser.add_argument("--threads", type=int, default=0, help="threads for threaded backends (0: all cores)")
    parser.add_argument("--stages", default="all",
                        help="comma-separated stage ids to run (default all available)")
    parser.add_argument("--no-peers", action="store_true", help="skip the peer libraries")
    parser.add_argument("--quick", action="store_true",
                        help="time slow stages on a band of rows and scale up (marked extrapolated)")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--csv", metavar="FILE", help="also write the rows as CSV")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the speed-ups (or the sweep) as a PNG")
    parser.add_argument("--sweep", choices=sorted(SWEEP_VALUES),
                        help="time the fast backends and peers over sizes, vertex counts or threads")
    parser.add_argument("--from-json", metavar="FILE", help="print the table from a pytest-benchmark JSON file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    for name in ("size", "vertices", "repeats", "slow_repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.threads < 0:
        parser.error(f"--threads must be >= 0, got {args.threads}")
    return args


class Progress:
    """A rich progress bar on stderr (stdout stays clean markdown), or plain lines without rich."""

    def __init__(self, total: int, enabled: bool):
        self._bar = None
        self._enabled = enabled
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
        except ImportError:
            return
        self._bar = RichProgress(TextColumn("{task.description:<28}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("polymask bench", total=total)
        self._bar.start()

    def step(self, label: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=label)
        elif self._enabled:
            print(f"  timing {label} ...", file=sys.stderr, flush=True)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def _band(vertices, shape, quick: bool):
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


def run_table(args) -> dict:
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
    rows = []
    try:
        for stage in stage_list:
            progress.step(stage.id)
            rows.append(_time_stage(stage, vertices, shape, expected, args))
            progress.advance()
        for peer in peer_list:
            progress.step(peer.id)
            rows.append(_time_peer(peer, vertices, shape, expected, args))
            progress.advance()
        progress.step("memory floor")
        out = np.empty(shape, bool)
        rows.append({"kind": "floor", "id": "floor", "title": "memory floor",
                     "seconds": median_seconds(lambda: out.fill(False), args.repeats), "convention": ""})
        progress.advance()
    finally:
        progress.close()

    python_seconds = next((r["seconds"] for r in rows if r["id"] == "python" and r["seconds"]), None)
    floor_seconds = rows[-1]["seconds"]
    for row in rows:
        row.setdefault("extrapolated", False)
        if row["seconds"] is not None:
            row["speedup"] = python_seconds / row["seconds"] if python_seconds else None
            row["x_floor"] = row["seconds"] / floor_seconds
    problem = {"rows": args.size, "cols": args.size, "vertices": args.vertices, "seed": args.seed,
               "repeats": args.repeats, "slow_repeats": args.slow_repeats, "threads": args.threads,
               "quick": args.quick}
    return {"problem": problem, "machine": machine_info(), "rows": rows}


def _time_stage(stage, vertices, shape, expected, args) -> dict:
    row = {"kind": "side" if stage.side else "stage", "id": stage.id, "title": stage.title,
           "seconds_2014": stage.seconds_2014, "speedup_2014": stage.speedup_2014,
           "convention": "contract", "seconds": None, "pixels_differing": None}
    status = stage_registry.availability(stage.id)
    if not status.available:
        row["note"] = f"not available: {status.reason}"
        return row
    options = {"threads": args.threads} if stage.threaded else {}
    if stage.slow:
        band_vertices, band_shape, scale = _band(vertices, shape, args.quick)
        reference = polymask.mask(band_vertices, band_shape) if scale != 1.0 else expected
        run = lambda: polymask.mask(band_vertices, band_shape, backend=stage.id, **options)  # noqa: E731
        result = run()
        row["seconds"] = median_seconds(run, args.slow_repeats) * scale
        row["extrapolated"] = scale != 1.0
    else:
        reference = expected
        run = lambda: polymask.mask(vertices, shape, backend=stage.id, **options)  # noqa: E731
        result = run()
        row["seconds"] = median_seconds(run, args.repeats)
    row["pixels_differing"] = int(np.count_nonzero(result != reference))
    if stage.id == "opencl":
        row.update(_opencl_split(vertices, shape, args.repeats))
    return row


def _opencl_split(vertices, shape, repeats) -> dict:
    """Kernel and transfer time of the OpenCL kernels, from OpenCL events."""
    try:
        from polymask import opencl

        timings = {kernel: opencl.profile(vertices, shape, kernel=kernel, repeats=repeats)
                   for kernel in ("pixel", "scanline")}
    except Exception as error:  # noqa: BLE001 -- the split is extra information, not the measurement
        return {"note": f"kernel/transfer split unavailable: {error}"}
    pixel, scanline = timings["pixel"], timings["scanline"]
    return {"kernel_seconds": pixel["kernel_s"], "transfer_seconds": pixel["transfer_s"],
            "note": (f"per-pixel kernel {reports.format_seconds(pixel['kernel_s'])} + transfers "
                     f"{reports.format_seconds(pixel['transfer_s'])}; scanline kernel "
                     f"{reports.format_seconds(scanline['kernel_s'])} + transfers "
                     f"{reports.format_seconds(scanline['transfer_s'])}")}


def _time_peer(peer, vertices, shape, expected, args) -> dict:
    row = {"kind": "peer", "id": peer.id, "title": peer.title, "convention": peer.convention,
           "seconds": None, "pixels_differing": None}
    available, reason = peer.availability()
    if not available:
        row["note"] = f"not installed ({reason})"
        return row
    result = peer.function(vertices, shape)
    row["pixels_differing"] = int(np.count_nonzero(np.asarray(result, dtype=bool) != expected))
    row["seconds"] = median_seconds(lambda: peer.function(vertices, shape), args.repeats)
    return row


def run_sweep(args) -> dict:
    """Median time of each fast backend and peer over one parameter."""
    parameter = args.sweep
    values = SWEEP_VALUES[parameter]
    if parameter == "threads":
        cores = machine_info()["cores"]
        values = sorted({1, *[2**k for k in range(1, 8) if 2**k <= cores], cores})
    backends = [s for s in SWEEP_BACKENDS if stage_registry.availability(s).available]
    if parameter != "threads" and not args.no_peers:
        backends += [p.id for p in peer_registry.PEERS if p.availability()[0] and p.id in ("opencv", "pillow")]
    series = {backend: [] for backend in backends}
    too_slow = set()  # a backend past the budget at one value is not run at larger ones
    progress = Progress(len(values) * len(backends), enabled=not args.no_progress)
    try:
        for value in values:
            size = value if parameter == "size" else args.size
            n_vertices = value if parameter == "vertices" else args.vertices
            threads = value if parameter == "threads" else args.threads
            vertices = random_polygon(n_vertices, size, args.seed)
            shape = (size, size)
            for backend in backends:
                progress.step(f"{backend} {parameter}={value}")
                progress.advance()
                if backend in too_slow:
                    continue
                if backend in stage_registry.ids():
                    options = {"threads": threads} if stage_registry.get(backend).threaded else {}
                    run = lambda: polymask.mask(vertices, shape, backend=backend, **options)  # noqa: E731
                else:
                    function = peer_registry.get(backend).function
                    run = lambda: function(vertices, shape)  # noqa: E731
                seconds = median_seconds(run, args.repeats)
                series[backend].append((value, seconds))
                # Values grow several-fold per step and some peers grow
                # faster than linearly (cv2.fillPoly with many vertices).
                if seconds > SWEEP_BUDGET_SECONDS:
                    too_slow.add(backend)
    finally:
        progress.close()
    return {"parameter": parameter, "size": args.size, "vertices": args.vertices, "series": series,
            "machine": machine_info()}


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.from_json:
        from polymask.bench.from_json import table_from_pytest_benchmark

        print(table_from_pytest_benchmark(args.from_json))
        return 0
    if args.sweep:
        sweep = run_sweep(args)
        print(reports.sweep_markdown(sweep))
        if args.json:
            reports.write_json(sweep, args.json)
        if args.plot:
            reports.plot_sweep(sweep, args.plot)
        return 0
    report = run_table(args)
    print(reports.markdown(report))
    if args.json:
        reports.write_json(report, args.json)
    if args.csv:
        reports.write_csv(report, args.csv)
    if args.plot:
        reports.plot_speedups(report, args.plot)
    return 0
