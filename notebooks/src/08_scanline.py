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
from lesson import SIZE, problem, speedups, time_it


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
from IPython.display import Image, display

from pictures import spans_on_a_row

row = shape[0] // 2
xi, yi = vertices[:, 0], vertices[:, 1]
xj, yj = np.roll(xi, 1), np.roll(yi, 1)
crosses = (yi > row) != (yj > row)
x_cross = (xj[crosses] - xi[crosses]) * (row - yi[crosses]) / (yj[crosses] - yi[crosses]) + xi[crosses]
spans_on_a_row(vertices, polymask.mask(vertices, shape), row, x_cross, "spans.png")
display(Image("spans.png"))
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

# %% [markdown]
# ## The memory floor
# A mask must at least be written once. Filling a preallocated array is the floor no
# algorithm can beat; the last line says how close the scanline core comes to it.

# %%
import statistics

from lesson import busy_note, repeat_seconds, spread

out = np.empty(shape, dtype=bool)
floor = repeat_seconds(lambda: out.fill(False))
core = repeat_seconds(lambda: polymask.mask(vertices, shape, out=out))
print("min / median / max of the repeats:")
print(f"  floor (fill the array once):        {spread(floor)}")
print(f"  scanline core into the same array:  {spread(core)}")
print(f"  = {statistics.median(core) / statistics.median(floor):.1f}x the floor (medians)")
print(busy_note(floor + core))

# %% [markdown]
# ## More vertices
# Per-pixel work grows as rows · cols · N. The scanline's grows too: each row sorts the
# crossings of the edges that meet it, and on a random polygon a row meets a share of all
# N edges, so its crossings and spans grow with N as well. The timings below say how the
# two grow here, and how the ratio between them moves.

# %%
from polymask.course.problems import random_polygon

side = min(SIZE, 256)
grown = {}
for n_vertices in (24, 240, 2400):
    many = random_polygon(n_vertices, side)
    per_pixel = repeat_seconds(lambda: polymask.mask(many, (side, side), backend="cython_prange"))
    scanline = repeat_seconds(lambda: polymask.mask(many, (side, side)))
    grown[n_vertices] = statistics.median(per_pixel), statistics.median(scanline)
    print(f"{n_vertices:5d} vertices on {side}x{side}: per pixel {spread(per_pixel)}, "
          f"scanline {spread(scanline)} (min / median / max), "
          f"{grown[n_vertices][0] / grown[n_vertices][1]:7.0f}x")
(pixel_24, scan_24), (pixel_2400, scan_2400) = grown[24], grown[2400]
print(f"from 24 to 2400 vertices: per pixel {pixel_2400 / pixel_24:.0f}x slower, "
      f"scanline {scan_2400 / scan_24:.0f}x slower")

# %% [markdown]
# Both grow, and on random polygons the scanline's time grows *faster* than the per-pixel
# time (compare the two factors on the last line): per pixel grows about as N, while
# each row's crossings, their sort and their spans grow with N too. With few vertices
# the scanline's time is a small multiple of the memory floor (the ratio printed
# above, at the full size), so the ratio to per-pixel work is largest there; with
# thousands of random vertices the ratio shrinks, yet the scanline stays many times
# faster at every N above.
#
# Exercise 08: write the fill yourself, `polymask check 08 exercises/08_scanline/mask.py`.
