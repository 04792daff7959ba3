# %% [markdown]
# # Lesson 8 — The algorithm beats the hardware
#
# Every stage so far tests all N edges at all rows x cols pixels: O(rows · cols · N).
# The **scanline fill** works a row at a time: compute where each edge crosses the row
# (the contract's `x_cross`, once per edge and row), sort the crossings, and fill the
# spans between them: O(rows · N log N + rows · cols), and the rows · cols part is
# just writing memory.
#
# Why it is *identical*, not an approximation: pixel `col` is inside when an odd number
# of crossings satisfy `col < x_cross`; for an integer `col` that is `col < ceil(x_cross)`.
# So with the crossings rounded up and sorted, a1 ≤ a2 ≤ …, the inside spans are
# [a1, a2), [a3, a4), …

# %%
import numpy as np

import polymask
from lesson import SIZE, compared, problem, speedups, time_it, timed, verdict


def scanline_mask(vertices, shape):
    """The scanline fill in NumPy: one vectorized x_cross per row."""
    rows, cols = shape
    result = np.zeros(shape, dtype=bool)
    xi, yi = vertices[:, 0], vertices[:, 1]
    xj, yj = np.roll(xi, 1), np.roll(yi, 1)  # edge (i, j = i - 1)
    for row in range(rows):
        py = float(row)
        crosses = (yi > py) != (yj > py)
        x_cross = (xj[crosses] - xi[crosses]) * (py - yi[crosses]) / (yj[crosses] - yi[crosses]) + xi[crosses]
        starts = np.clip(np.sort(np.ceil(x_cross)), 0, cols).astype(np.int64)
        for first, end in zip(starts[0::2], starts[1::2]):
            result[row, first:end] = True
    return result


vertices, shape = problem(SIZE)
assert np.array_equal(scanline_mask(vertices, shape), polymask.mask(vertices, shape))

# %% [markdown]
# One row, drawn: the edges that cross it give the red crossings; rounded up and sorted,
# they pair into the green spans, and every pixel of a span is inside.

# %%
from pictures import show, spans_on_a_row

row = shape[0] // 2
xi, yi = vertices[:, 0], vertices[:, 1]
xj, yj = np.roll(xi, 1), np.roll(yi, 1)
crosses = (yi > row) != (yj > row)
x_cross = (xj[crosses] - xi[crosses]) * (row - yi[crosses]) / (yj[crosses] - yi[crosses]) + xi[crosses]
spans_on_a_row(vertices, polymask.mask(vertices, shape), row, x_cross, "spans.png")
show("spans.png")
print(f"row {row}: crossings at {np.round(np.sort(x_cross), 2)}")

# %% [markdown]
# Even in Python with NumPy it is worth timing beside compiled per-pixel code (its row
# below). The C++ core does
# the same in `csrc/src/scanline.hpp`, threaded over bands of rows, and that
# is what `polymask.mask` runs.

# %%
time_it("cython_prange (per pixel, all cores)", polymask.course.stages.get("cython_prange").load())
time_it("opencl (per pixel)", polymask.course.stages.get("opencl").load())
time_it("scanline in NumPy (above)", scanline_mask)
time_it("scanline, C++ core (polymask.mask)", polymask.mask)
speedups()
in_numpy, on_device = timed("scanline in NumPy (above)"), timed("opencl (per pixel)")
verdict(f"the scanline in NumPy took {in_numpy.seconds * 1e3:.2f} ms, the per-pixel OpenCL kernel "
        f"{on_device.seconds * 1e3:.2f} ms", compared("the NumPy scanline", "per-pixel OpenCL",
                                                      on_device.seconds / in_numpy.seconds), threads=None)

# %% [markdown]
# ## The memory floor
# A mask must at least be written once. Filling a preallocated array is the floor no
# algorithm can beat; the last line says how close the scanline core comes to it.

# %%

from lesson import measure, spread

out = np.empty(shape, dtype=bool)
floor = measure(lambda: out.fill(False))
core = measure(lambda: polymask.mask(vertices, shape, out=out, threads=1))
print("min / median / max of the repeats:")
print(f"  floor (fill the array once):                  {spread(floor.wall)}")
print(f"  scanline core into the same array, 1 thread:  {spread(core.wall)}")
verdict(f"the scanline core took {core.seconds / floor.seconds:.1f}x the floor (medians, one thread)",
        "within 2x of the floor" if core.seconds < 2 * floor.seconds else "a small multiple of the floor"
        if core.seconds < 10 * floor.seconds else "well above the floor", floor, core)

# %% [markdown]
# ## More vertices
# Per-pixel work grows as rows · cols · N. The scanline's grows too: each row sorts the
# crossings of the edges that meet it, and on a random polygon a row meets a share of all
# N edges, so its crossings and spans grow with N as well. Both are timed on one thread
# here (the serial `cython_typed` per-pixel stage, and the scanline core at `threads=1`),
# and compared by CPU time: time spent waiting for a core is not CPU time, so the growth is
# measured, and judged, even on a busy machine.

# %%
from polymask.course.problems import random_polygon

side = min(SIZE, 256)
grown = {}
for n_vertices in (24, 240, 2400):
    many = random_polygon(n_vertices, side)
    per_pixel = measure(lambda: polymask.mask(many, (side, side), backend="cython_typed"))
    scanline = measure(lambda: polymask.mask(many, (side, side), threads=1))
    grown[n_vertices] = per_pixel, scanline
    print(f"{n_vertices:5d} vertices on {side}x{side}: CPU time per pixel {per_pixel.cpu_seconds * 1e3:9.3f} ms, "
          f"scanline {scanline.cpu_seconds * 1e3:8.3f} ms, {per_pixel.cpu_seconds / scanline.cpu_seconds:7.0f}x")
(pixel_24, scan_24), (pixel_2400, scan_2400) = grown[24], grown[2400]
pixel_growth = pixel_2400.cpu_seconds / pixel_24.cpu_seconds
scan_growth = scan_2400.cpu_seconds / scan_24.cpu_seconds
verdict(f"for 100x the vertices, per-pixel CPU time grew {pixel_growth:.0f}x and the scanline's {scan_growth:.0f}x",
        ("per pixel grew about as N (within 2x of 100x)" if 50 <= pixel_growth <= 200
         else "per pixel did not grow as N here")
        + ("; the scanline stayed faster at every N" if all(p.cpu_seconds > s.cpu_seconds for p, s in grown.values())
           else "; the scanline was not faster at every N"), reason="")

# %% [markdown]
# Both grow. Per-pixel work tests every edge at every pixel, so its time follows N; the
# scanline's time holds a fixed part (writing the mask, the memory floor above) and a part
# that grows with N (each row's crossings, their sort and their spans). With few vertices
# the fixed part dominates, so the ratio to per-pixel work is largest there; with
# thousands of random vertices the ratio shrinks. The growing part grows faster than N:
# a row meets more edges, and sorting k crossings costs about k log k, so the scanline's
# own time can grow by more than 100x for 100x the vertices while staying far below the
# per-pixel time. What decides is the ratio at each N, printed on the right of each line;
# the verdict says whether the scanline stayed faster at every N on this run.
#
# Exercise 08: write the fill yourself, `polymask check 08 exercises/08_scanline/mask.py`.
