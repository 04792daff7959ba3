"""The OpenCL check: each kernel against the floor the hardware sets, and against the CPU.

    python -m polymask.bench.gpu                 # the best OpenCL device here
    python -m polymask.bench.gpu --device cpu --sizes 1024 4096
    bash scripts/gpu-check.sh                    # the same, from a checkout

For each image size and polygon (24 random vertices; a 1,000-vertex star)
it prints, in milliseconds (medians):

* kernel -- each kernel's time on the device (OpenCL events): ``rows``
  (a work-group per row, the default on GPUs), ``scanline`` (a work-item
  per row) and ``pixel`` (a work-item per pixel, lesson 7);
* write floor -- a kernel that only writes the mask's bytes, 16 at a time:
  no mask kernel can beat it;
* download -- the host path's copy back, beside the page-locked floor (a
  bare copy of the same bytes into page-locked memory) and a copy into
  ordinary, pageable memory;
* wall -- ``polymask.opencl.mask(polygon, shape)`` as a user calls it (host
  vertices, a NumPy result; the same polygon each time, so it is sent
  once), what it costs beyond its kernel and download, the same call with
  the other way of polling in a large call's wait (without sleeping on a
  GPU, in short sleeps on a CPU device; small calls block in the runtime
  either way), and the same call from
  device-resident vertices (a ``pyopencl.array.Array``, the result left
  on the device);
* cpu -- ``polymask.mask(polygon, shape)`` on this machine's cores;
* off -- pixels differing from ``polymask.mask``, over every kernel and path.

Then the cost of a warm call: a 32x32 ``polymask.opencl.mask`` beside a bare
PyOpenCL kernel launch and blocking copy of the same bytes, alternated.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable, Literal, TypedDict, Union

import numpy as np
from numpy.typing import NDArray

import polymask
from polymask import opencl
from polymask.bench.machine import machine_info, usable_cores
from polymask.bench.records import MachineInfo
from polymask.bench.state import RunState, finish_state, start_state
from polymask.opencl.pinned import page_locked

if TYPE_CHECKING:
    import pyopencl as cl

#: The kernels timed, and the key of each one's time in a case.  (Unions of
#: Literals, so that they are Unions at run time too, as type checkers see them.)
Kernel = Union[Literal["rows"], Literal["scanline"], Literal["pixel"]]
KernelKey = Union[Literal["rows_kernel_ms"], Literal["scanline_kernel_ms"], Literal["pixel_kernel_ms"]]
KERNEL_KEYS: dict[str, KernelKey] = {"rows": "rows_kernel_ms", "scanline": "scanline_kernel_ms",
                                     "pixel": "pixel_kernel_ms"}


class GpuOptions(argparse.Namespace):
    """The options of ``python -m polymask.bench.gpu``, as parse_args returns them."""

    device: str | None
    sizes: list[int]
    repeats: int
    overhead_repeats: int
    pixel_limit: float
    seed: int
    json: str | None


class FloorTimes(TypedDict):
    """The hardware's floor for a mask's bytes, in milliseconds (Floors.measure)."""

    write_floor_ms: float
    pinned_download_ms: float
    pageable_download_ms: float


class Case(TypedDict, total=False):
    """One size and polygon: milliseconds (medians), pixels off, in the order check_case and run fill it in."""

    cpu_ms: float
    rows_kernel_ms: float
    #: The scanline and per-pixel kernels' times, where they ran (``--pixel-limit``).
    scanline_kernel_ms: float
    pixel_kernel_ms: float
    upload_ms: float
    download_ms: float
    packed_kernel_ms: float
    wall_ms: float
    wall_other_wait_ms: float
    packed_wall_ms: float
    device_wall_ms: float
    write_floor_ms: float
    pinned_download_ms: float
    pageable_download_ms: float
    pixels_off: int
    pinned_blocks_mapped: int
    size: int
    polygon: str
    default_kernel: str


class _GpuReportFields(TypedDict):
    device: str
    platform: str
    precision: str
    cpu_threads: int | None
    cases: list[Case]


class GpuReport(_GpuReportFields, total=False):
    """What ``--json`` writes: the device, every case, the warm 32x32 call's cost, and where it ran."""

    #: Microseconds per call, by what was called.
    warm_32x32_us: dict[str, float]
    #: The host and the run's date, commit and load: a published GPU figure names them.
    machine: MachineInfo
    state: RunState

FLOOR_SOURCE = """
__kernel void pm_write_floor(__global uint4 *out, const ulong chunks)
{
    const size_t i = get_global_id(0);
    if (i < chunks) {
        out[i] = (uint4)(0);
    }
}
__kernel void pm_touch(__global uchar *out)
{
    out[get_global_id(0)] = 1;
}
"""


def star(vertices: int, side: int) -> NDArray[np.float64]:
    """A star of `vertices` points filling most of a `side` x `side` image."""
    angle = np.linspace(0.0, 2.0 * np.pi, vertices, endpoint=False)
    radius = np.where(np.arange(vertices) % 2, 0.2 * side, 0.48 * side)
    points: NDArray[np.float64] = np.c_[side / 2 + radius * np.cos(angle), side / 2 + radius * np.sin(angle)]
    return points


def polygons(side: int, seed: int) -> dict[str, NDArray[np.float64]]:
    rng = np.random.default_rng(seed)
    return {"24 random vertices": rng.uniform(0.0, side, (24, 2)), "1,000-vertex star": star(1000, side)}


def median_ms(function: Callable[[], object], repeats: int) -> float:
    samples: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def event_ms(make_event: Callable[[], cl.Event], repeats: int) -> float:
    """Median device time of the events `make_event()` returns (each is waited for)."""
    samples: list[float] = []
    for _ in range(repeats):
        event = make_event()
        event.wait()
        samples.append((event.profile.end - event.profile.start) * 1e-6)
    return statistics.median(samples)


class Floors:
    """The hardware's floor for a mask of n bytes: writing them once, and copying them to the host."""

    def __init__(self, engine: opencl.MaskEngine) -> None:
        import pyopencl as cl

        self.cl = cl
        self.engine = engine
        self.program = cl.Program(engine.context, FLOOR_SOURCE).build(devices=[engine.device])
        self.write = cl.Kernel(self.program, "pm_write_floor")
        self.touch = cl.Kernel(self.program, "pm_touch")

    def measure(self, nbytes: int, repeats: int) -> FloorTimes:
        cl, queue = self.cl, self.engine.queue
        device_buffer = cl.Buffer(self.engine.context, cl.mem_flags.READ_WRITE, nbytes)
        chunks = -(-nbytes // 16)
        self.write.set_args(device_buffer, np.uint64(nbytes // 16))
        local = 256
        write_ms = event_ms(lambda: cl.enqueue_nd_range_kernel(queue, self.write, (-(-chunks // local) * local,),
                                                               (local,)), repeats)
        _, pinned = page_locked(self.engine.context, queue, nbytes)
        pinned_ms = event_ms(lambda: cl.enqueue_copy(queue, pinned, device_buffer, is_blocking=False), repeats)
        pageable_ms = event_ms(lambda: cl.enqueue_copy(queue, np.empty(nbytes, np.uint8), device_buffer,
                                                       is_blocking=False), max(3, repeats // 2))
        return {"write_floor_ms": write_ms, "pinned_download_ms": pinned_ms, "pageable_download_ms": pageable_ms}

    def bare_call_us(self, nbytes: int, repeats: int, calls: dict[str, Callable[[], object]]) -> dict[str, float]:
        """Microseconds of a bare launch + blocking copy and of each of `calls`, medians of alternated runs."""
        cl, queue = self.cl, self.engine.queue
        device_buffer = cl.Buffer(self.engine.context, cl.mem_flags.READ_WRITE, nbytes)
        host = np.empty(nbytes, np.uint8)
        self.touch.set_args(device_buffer)

        def bare() -> None:
            cl.enqueue_nd_range_kernel(queue, self.touch, (nbytes,), None)
            cl.enqueue_copy(queue, host, device_buffer, is_blocking=True)

        contenders = {"bare launch + blocking copy": bare, **calls}
        samples: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(repeats):
            for name, function in contenders.items():
                start = time.perf_counter()
                function()
                samples[name].append(time.perf_counter() - start)
        return {name: statistics.median(times) * 1e6 for name, times in samples.items()}


def off(result: NDArray[np.bool_], expected: NDArray[np.bool_]) -> int:
    return int(np.count_nonzero(np.asarray(result) != expected))


def check_case(engine: opencl.MaskEngine, shared: opencl.MaskEngine, floors: Floors, vertices: NDArray[np.float64],
               side: int, repeats: int, kernels: list[Kernel]) -> Case:
    import pyopencl.array as cl_array

    shape = (side, side)
    expected = polymask.mask(vertices, shape)
    row: Case = {"cpu_ms": median_ms(lambda: polymask.mask(vertices, shape), repeats)}
    differing = 0
    for kernel in kernels:
        differing += off(engine.mask(vertices, shape, kernel=kernel), expected)
        samples = []
        for _ in range(repeats):
            engine.mask(vertices, shape, kernel=kernel)
            samples.append(engine.timings())
        row[KERNEL_KEYS[kernel]] = statistics.median(sample["kernel_s"] for sample in samples) * 1e3
        if kernel == "rows":
            row["upload_ms"] = statistics.median(sample["upload_s"] for sample in samples) * 1e3
            row["download_ms"] = statistics.median(sample["download_s"] for sample in samples) * 1e3
    packed = engine.mask(vertices, shape, kernel="rows", packed=True)
    differing += off(opencl.unpack(packed, shape), expected)
    del packed
    row["packed_kernel_ms"] = event_ms(lambda: (engine.mask(vertices, shape, packed=True),
                                                engine._events["kernel"])[1], repeats)
    # The call users make: default arguments, host vertices, a NumPy result (dropped each time).
    differing += off(shared.mask(vertices, shape), expected)
    row["wall_ms"] = median_ms(lambda: shared.mask(vertices, shape), repeats)
    spin, shared.spin_wait = shared.spin_wait, not shared.spin_wait  # the other way to wait, for comparison
    row["wall_other_wait_ms"] = median_ms(lambda: shared.mask(vertices, shape), repeats)
    shared.spin_wait = spin
    row["packed_wall_ms"] = median_ms(lambda: shared.mask(vertices, shape, packed=True), repeats)
    # Device-resident vertices: the result stays on the device.
    d_vertices = cl_array.to_device(shared.queue, np.ascontiguousarray(vertices, dtype=shared.dtype))
    differing += off(shared.mask(d_vertices, shape).get(), expected)

    def on_device() -> None:
        shared.mask(d_vertices, shape)
        shared.queue.finish()

    row["device_wall_ms"] = median_ms(on_device, repeats)
    floor = floors.measure(side * side, repeats)
    row["write_floor_ms"] = floor["write_floor_ms"]
    row["pinned_download_ms"] = floor["pinned_download_ms"]
    row["pageable_download_ms"] = floor["pageable_download_ms"]
    row["pixels_off"] = differing
    row["pinned_blocks_mapped"] = shared.pinned.allocations  # stays small when results are recycled
    return row


def run(args: GpuOptions) -> GpuReport:
    device = opencl.select_device(args.device)
    engine = opencl.MaskEngine(device, precision="double", profiling=True, keep_bytes=2**31)
    shared = opencl.engine(device, precision="auto")
    floors = Floors(engine)
    report: GpuReport = {"device": device.name.strip(),
              "platform": device.platform.name.strip(), "precision": engine.precision,
              "cpu_threads": polymask.build_info().get("threads"), "cases": []}
    for side in args.sizes:
        for name, vertices in polygons(side, args.seed).items():
            everything: tuple[Kernel, ...] = ("rows", "scanline", "pixel")
            kernels = [k for k in everything if k != "pixel" or side * side * len(vertices) <= args.pixel_limit]
            row = check_case(engine, shared, floors, vertices, side, args.repeats, kernels)
            row["size"] = side
            row["polygon"] = name
            row["default_kernel"] = opencl.programs.chosen_kernel("auto", device.type)
            report["cases"].append(row)
            print(line(row), flush=True)
    triangle = [(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)]
    as_array = np.array(triangle)
    shared.mask(triangle, (32, 32))
    report["warm_32x32_us"] = floors.bare_call_us(32 * 32, args.overhead_repeats, {
        "polymask.opencl.mask, a list of pairs": lambda: opencl.mask(triangle, (32, 32)),
        "polymask.opencl.mask, an (N, 2) array": lambda: opencl.mask(as_array, (32, 32))})
    return report


HEADER = ("| size | polygon | rows | scanline | pixel | write floor | rows/floor | packed | upload | download "
          "| pinned floor | pageable | wall | wall/(rows+pinned) | wall-(kernel+download), us | other polling | "
          "device wall | cpu | off |")


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"


def line(row: Case) -> str:
    rows_ms = row["rows_kernel_ms"]
    return (f"| {row['size']}² | {row['polygon']} | {_ms(rows_ms)} | {_ms(row.get('scanline_kernel_ms'))} | "
            f"{_ms(row.get('pixel_kernel_ms'))} | {_ms(row['write_floor_ms'])} | "
            f"{rows_ms / row['write_floor_ms']:.1f}x | {_ms(row['packed_kernel_ms'])} | {_ms(row['upload_ms'])} | "
            f"{_ms(row['download_ms'])} | {_ms(row['pinned_download_ms'])} | {_ms(row['pageable_download_ms'])} | "
            f"{_ms(row['wall_ms'])} | {row['wall_ms'] / (rows_ms + row['pinned_download_ms']):.2f}x | "
            f"{(row['wall_ms'] - row[KERNEL_KEYS[row['default_kernel']]] - row['download_ms']) * 1e3:.0f} | "
            f"{_ms(row['wall_other_wait_ms'])} | "
            f"{_ms(row['device_wall_ms'])} | {_ms(row['cpu_ms'])} | {row['pixels_off']} |")


def parse_args(argv: Sequence[str] | None) -> GpuOptions:
    description = (__doc__ or "").partition("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m polymask.bench.gpu", description=description)
    parser.add_argument("--device", default=None, help="an OpenCL device as polymask.opencl.select_device takes "
                        "it ('gpu', 'cpu', '0:1'); the best device here by default")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096, 16384], help="image sides")
    parser.add_argument("--repeats", type=int, default=7, help="timings per figure (their median is shown)")
    parser.add_argument("--overhead-repeats", type=int, default=400, help="alternated calls for the warm 32x32 cost")
    parser.add_argument("--pixel-limit", type=float, default=3e11,
                        help="skip the per-pixel kernel above this many edge tests (rows*cols*vertices)")
    parser.add_argument("--seed", type=int, default=2014)
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv, namespace=GpuOptions())
    if args.repeats < 1 or args.overhead_repeats < 1 or any(side < 1 for side in args.sizes):
        parser.error("--repeats, --overhead-repeats and --sizes must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not opencl.available():
        print(f"no OpenCL device: {opencl.unavailable_reason()}", file=sys.stderr)
        return 2
    print(f"OpenCL device: {opencl.select_device(args.device).name.strip()}; milliseconds, medians of "
          f"{args.repeats}", flush=True)
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    state = start_state(usable_cores())
    report = run(args)
    report["machine"] = machine_info()
    report["state"] = finish_state(state, cpu_share=None)
    warm = report["warm_32x32_us"]
    bare = warm.pop("bare launch + blocking copy")
    print(f"\nwarm 32x32 call, us (medians of {args.overhead_repeats}, alternated): bare PyOpenCL launch + "
          f"blocking copy {bare:.1f}; " + "; ".join(f"{name} {us:.1f} ({us / bare:.2f}x)" for name, us in warm.items()))
    warm["bare launch + blocking copy"] = bare
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=1)
    return 1 if any(row["pixels_off"] for row in report["cases"]) else 0


if __name__ == "__main__":
    sys.exit(main())
