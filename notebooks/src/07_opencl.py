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
from lesson import SIZE, problem, speedups, time_it

for info in opencl.devices():
    print(info.key, info.name, "|", info.platform, "| compute units:", info.compute_units, "| fp64:", info.fp64)
print("using:", opencl.describe_default_device())

# %%
print(opencl.kernel_source("pixel"))

# %% [markdown]
# ## The host code, step by step
# Written out here; `polymask.opencl.MaskEngine` does the same and keeps buffers on the
# device between calls.

# %%
device = opencl.select_device()
context = cl.Context([device])
queue = cl.CommandQueue(context, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
# Built at run time, for this device: -I finds crossing.h, -DPM_USE_DOUBLE=1 picks double.
program = cl.Program(context, opencl.kernel_source("pixel")).build(
    options=opencl.build_options(use_double=True), devices=[device])

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
# ## Kernel time against transfer time
# `opencl.profile` reads the same events over several runs. For a per-pixel kernel the
# kernel dominates; for the scanline kernel (lesson 8) the copy of the mask back to the
# host can cost more than the computation.

# %%
for kernel in ("pixel", "scanline"):
    report = opencl.profile(vertices, shape, kernel=kernel, repeats=3)
    print(f"{kernel:>8}: kernel {report['kernel_s'] * 1e3:.3f} ms, transfers {report['transfer_s'] * 1e3:.3f} ms")

# %% [markdown]
# ## float or double?
# Many GPUs are much faster in float32, and some have no fp64 at all. In float32 the mask
# may differ on pixels within a tiny distance of an edge; `opencl.SINGLE_PRECISION_NOTE`
# bounds how far and how many.

# %%
single = opencl.mask(vertices, shape, precision="single")
print("pixels differing in float32:", int(np.count_nonzero(single != polymask.mask(vertices, shape))))

# %%
time_it("cython_prange (all cores)", polymask.course.stages.get("cython_prange").load())
time_it("opencl, per pixel (double)", polymask.course.stages.get("opencl").load())
speedups()

# %% [markdown]
# On a CPU runtime (PoCL) expect about the prange time; the 2014 course's GeForce Titan
# took 3 ms. Exercise 07 has you write the kernel: `polymask check 07 exercises/07_opencl/mask.cl`.
