# %% [markdown]
# # Lesson 7 — OpenCL: one work-item per pixel
#
# No pixel depends on another, so a device can compute all of them at once: one
# *work-item* per pixel. The host side of OpenCL is always the same sequence:
#
# 1. a **platform** and a **device**; 2. a **context** and a **command queue**;
# 3. a **program** built at run time from a `.cl` file; 4. **buffers**, with explicit
# copies host → device (`h_` names live on the host, `d_` names on the device);
# 5. the **NDRange**: global size (cols, rows), local size (work-group); 6. copy back,
# and **events** that time each step.
#
# The kernel includes the C++ core's own `crossing.h`, so in double precision the device
# computes the very same `x_cross` — and the same mask, bit for bit.

# %%
import numpy as np
import pyopencl as cl

import polymask
from polymask import opencl
from lesson import SIZE, compared, problem, speedups, time_it, timed, verdict

for info in opencl.devices():
    print(info.key, info.name, "|", info.platform, "| compute units:", info.compute_units, "| fp64:", info.fp64)
print("using:", opencl.describe_default_device())

# %% [markdown]
# ## Hello, device: adding two vectors
# Before the mask, the smallest complete OpenCL program: a kernel that adds two vectors,
# one work-item per element. Every step of the list above is here, and each is timed:
# building the program (the device's compiler runs now, at run time), the first launch
# and the launches after it.

# %%
import statistics
import time

vadd_source = """
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
"""
device = opencl.select_device()
context = cl.Context([device])
queue = cl.CommandQueue(context, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
start = time.perf_counter()
vadd_program = cl.Program(context, vadd_source).build(devices=[device])
vadd_build = time.perf_counter() - start

n = 1 << 20
h_a, h_b = np.random.default_rng(1).random((2, n), dtype=np.float32)
h_c = np.empty_like(h_a)
d_a = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=h_a)
d_b = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=h_b)
d_c = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, h_c.nbytes)
vadd = cl.Kernel(vadd_program, "vadd")
launches = []
for _ in range(6):
    start = time.perf_counter()
    vadd(queue, (n,), None, d_a, d_b, d_c, np.int32(n)).wait()
    launches.append(time.perf_counter() - start)
cl.enqueue_copy(queue, h_c, d_c)
assert np.array_equal(h_c, h_a + h_b)
print(f"program built in {vadd_build * 1e3:.1f} ms; launches of {n:,} work-items (wall clock, ms): "
      + ", ".join(f"{value * 1e3:.2f}" for value in launches))
later = statistics.median(launches[1:])
verdict(f"the first launch took {launches[0] * 1e3:.2f} ms, the later ones {later * 1e3:.2f} ms (median)",
        compared("a later launch", "the first", launches[0] / later), threads=None)

# %% [markdown]
# `c` came back equal to `a + b` computed by NumPy. The first launch can cost more than
# the others: some runtimes (PoCL among them) finish compiling a kernel for the
# work-group size only when it is first launched. Time a kernel's later launches, never
# only its first.
#
# ## The mask kernel

# %%
print(opencl.kernel_source("pixel"))

# %% [markdown]
# The kernel finds its pixel from `get_global_id` and calls `pm_ring_parity`, the loop over
# the edges. That loop lives in `crossing.h`, a header written in the common subset of C++
# and OpenCL C, so the C++ core compiles the same lines. It is the loop you write in the
# exercise:

# %%
from pathlib import Path

crossing = (Path(polymask.get_include()) / "polymask" / "crossing.h").read_text()
start = crossing.index("PM_FUNC bool pm_ring_parity")
print(crossing[start:crossing.index("}\n", crossing.index("return inside;", start)) + 1])

# %% [markdown]
# ## The device and its memory
# The host (this Python process) and the device have separate memories on a discrete GPU:
# the vertices must be copied to the device, and the mask back. On a CPU runtime such as
# PoCL, "device memory" is host memory and a copy is a `memcpy`. Global memory holds the
# buffers; each work-group may share fast local memory; each work-item has private
# registers. The work-items run in work-groups of the *local size*.

# %% [markdown]
# ## The host code, step by step
# Written out here; `polymask.opencl.MaskEngine` does the same and keeps buffers on the
# device between calls.

# %%
# Built at run time, for this device: -I finds crossing.h, -DPM_USE_DOUBLE=1 picks double.
start = time.perf_counter()
program = cl.Program(context, opencl.kernel_source("pixel")).build(
    options=opencl.build_options(use_double=True), devices=[device])
print(f"program built in {(time.perf_counter() - start) * 1e3:.1f} ms")

vertices, shape = problem(SIZE)
rows, cols = shape
h_vertices = np.ascontiguousarray(vertices, dtype=np.float64)
h_mask = np.empty(shape, dtype=np.uint8)
d_vertices = cl.Buffer(context, cl.mem_flags.READ_ONLY, h_vertices.nbytes)
d_mask = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, h_mask.nbytes)

upload = cl.enqueue_copy(queue, d_vertices, h_vertices)
local_size = (16, 4)
global_size = tuple(-(-n // l) * l for n, l in zip((cols, rows), local_size))  # rounded up
run = program.pm_mask_pixel(queue, global_size, local_size, d_vertices, np.int32(len(h_vertices)),
                            d_mask, np.int32(rows), np.int32(cols))
download = cl.enqueue_copy(queue, h_mask, d_mask)
queue.finish()

assert np.array_equal(h_mask.view(bool), polymask.mask(vertices, shape))
for name, event in (("upload", upload), ("kernel", run), ("download", download)):
    print(f"{name:>8}: {(event.profile.end - event.profile.start) * 1e-6:.3f} ms")

# %% [markdown]
# ## Work-group size
# The same kernel with a few work-group shapes, timed by its events: each shape's first
# launch apart (it may include the runtime's build for that shape, as with `vadd`), then
# the median of 5 more.

# %%
pixel_kernel = cl.Kernel(program, "pm_mask_pixel")  # retrieved once, launched many times
kernel_seconds, first_launch, spreads = {}, {}, {}
for local in ((16, 4), (64, 1), (8, 8), (32, 8)):
    global_shape = tuple(-(-n // l) * l for n, l in zip((cols, rows), local))
    seconds = []
    for _ in range(6):
        event = pixel_kernel(queue, global_shape, local, d_vertices, np.int32(len(h_vertices)),
                             d_mask, np.int32(rows), np.int32(cols))
        event.wait()
        seconds.append((event.profile.end - event.profile.start) * 1e-9)
    first_launch[local], kernel_seconds[local] = seconds[0], statistics.median(seconds[1:])
    spreads[local] = max(seconds[1:]) / min(seconds[1:])
    print(f"local size {str(local):>8}: first launch {seconds[0] * 1e3:8.3f} ms, "
          f"then {kernel_seconds[local] * 1e3:8.3f} ms (median of 5; slowest / fastest {spreads[local]:.2f})")
fastest, slowest = min(kernel_seconds, key=kernel_seconds.get), max(kernel_seconds, key=kernel_seconds.get)
gap = kernel_seconds[slowest] / kernel_seconds[fastest]
verdict(f"the slowest local size {slowest} took {gap:.2f}x the fastest {fastest}; the repeats of one size "
        f"varied up to {max(spreads.values()):.2f}x",
        "the local size matters on this device" if gap > max(spreads.values())
        else "the differences are within the noise of the repeats", threads=None)

# %% [markdown]
# ## Kernel time against transfer time
# `opencl.profile` reads the same events over several runs: the kernel's time on the
# device, and the transfers (the polygon up, the mask down), for the per-pixel kernel and
# for the scanline kernel of lesson 8.

# %%
from pictures import kernel_against_transfer, show

timings = {kernel: opencl.profile(vertices, shape, kernel=kernel, repeats=3) for kernel in ("pixel", "scanline")}
for kernel, report in timings.items():
    print(f"{kernel:>8}: kernel {report['kernel_s'] * 1e3:.3f} ms, transfers {report['transfer_s'] * 1e3:.3f} ms, "
          f"transfers / kernel = {report['transfer_s'] / report['kernel_s']:.2f}")
kernel_against_transfer(timings, opencl.describe_default_device(), "kernel_transfer.png")
show("kernel_transfer.png")
shares = {kernel: report["transfer_s"] / report["kernel_s"] for kernel, report in timings.items()}
verdict(f"the transfers took {shares['pixel']:.1%} of the per-pixel kernel's time and {shares['scanline']:.1%} "
        "of the scanline kernel's", "the copies weigh more beside the faster kernel" if shares["scanline"]
        > shares["pixel"] else "the copies weigh no more beside the faster kernel", threads=None)

# %% [markdown]
# Read the ratios printed above for this device. On a CPU runtime (PoCL) the "transfers"
# are copies within host memory; the same copies still weigh more beside a kernel that
# takes less time, as the verdict line says for this run. On a discrete GPU they cross
# the PCIe bus, whose bandwidth is a small fraction of the device's own memory: there a
# kernel that writes a mask quickly is soon outrun by the copy of that mask back, and a
# faster kernel, like the scanline one, only makes the copy a larger share. Run this
# cell on a GPU to see it: the chart puts both on the same axis.

# %% [markdown]
# ## Beyond this lesson: the shape a GPU wants
# Both kernels here give a work-item its own pixel or its own row. `polymask.opencl.mask`
# itself runs a third kernel on GPUs, `kernels/rows.cl`: a whole work-group shares one row,
# flips a parity bit per crossing in local memory, and writes the row in aligned 16-byte
# stores, so neighbouring work-items write neighbouring bytes, and it copies the mask back
# into page-locked memory, which the library returns. On a machine with an OpenCL GPU,
# `bash scripts/gpu-check.sh` times the three kernels beside a kernel that only writes
# the mask's bytes (the device's floor) and the copy back.

# %% [markdown]
# ## float or double?
# Some GPUs have far fewer fp64 units than fp32 ones, and some have no fp64 at all. In
# float32 the mask may differ on pixels within a tiny distance of an edge;
# `opencl.SINGLE_PRECISION_NOTE` bounds how far and how many. What each precision costs
# here, kernel time from the events:

# %%
single = opencl.mask(vertices, shape, kernel="pixel", precision="single")
print("pixels differing in float32:", int(np.count_nonzero(single != polymask.mask(vertices, shape))))
precision = {name: opencl.profile(vertices, shape, kernel="pixel", precision=name, repeats=5)["kernel_s"]
             for name in (("single", "double") if opencl.select_device().double_fp_config else ("single",))}
for name, seconds in precision.items():
    print(f"  {name}: kernel {seconds * 1e3:.3f} ms (median of 5)")
if "double" in precision:
    verdict(f"float32 kernel {precision['single'] * 1e3:.3f} ms, float64 {precision['double'] * 1e3:.3f} ms",
            compared("float32", "float64", precision["double"] / precision["single"]), threads=None)

# %%
time_it("cython_prange (all cores)", polymask.course.stages.get("cython_prange").load())
time_it("opencl, per pixel (double)", polymask.course.stages.get("opencl").load())
speedups()
threads, device_run = timed("cython_prange (all cores)"), timed("opencl, per pixel (double)")
verdict(f"OpenCL on {device.name.strip()} took {device_run.seconds * 1e3:.2f} ms, "
        f"cython_prange {threads.seconds * 1e3:.2f} ms",
        compared("the OpenCL stage", "cython_prange", threads.seconds / device_run.seconds), threads=None)

# %% [markdown]
# Note which device ran the kernel (printed at the top): on a CPU device, OpenCL shares
# the CPU cores with prange, so neither can go faster than those cores allow, and the
# ratio between them moves with whatever else runs on the machine (the load under the
# table says how busy it was). The 2014 course's 3 ms was measured on a GPU, a GeForce
# Titan. Exercise 07 has you
# write the kernel: `polymask check 07 exercises/07_opencl/mask.cl`.
