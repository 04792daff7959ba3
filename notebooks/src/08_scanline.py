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
# Even in Python with NumPy it competes with compiled per-pixel code. The C++ core does
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
# algorithm can beat; the scanline core is within a small factor of it.

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
# More vertices make the gap grow: per-pixel work grows with N, scanline work barely does.

# %%
from polymask.course.problems import random_polygon

side = min(SIZE, 256)
for n_vertices in (24, 240, 2400):
    many = random_polygon(n_vertices, side)
    per_pixel = repeat_seconds(lambda: polymask.mask(many, (side, side), backend="cython_prange"))
    scanline = repeat_seconds(lambda: polymask.mask(many, (side, side)))
    print(f"{n_vertices:5d} vertices on {side}x{side}: per pixel {spread(per_pixel)}, "
          f"scanline {spread(scanline)} (min / median / max), "
          f"{statistics.median(per_pixel) / statistics.median(scanline):7.0f}x")

# %% [markdown]
# Exercise 08: write the fill yourself, `polymask check 08 exercises/08_scanline/mask.py`.
