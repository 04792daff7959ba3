# %% [markdown]
# # Lesson 9 — The whole ladder: the table and the chart
#
# Every stage on the course's problem in one run, beside the 2014 course's times
# (dual quad-core Xeon 5520, GeForce Titan). Speed claims are ratios taken in one run;
# absolute times belong to this machine. `polymask bench` does the same from a terminal.
#
# The slow stages (pure Python, NumPy scalars, plain Cython) are timed on a band of rows
# and scaled up (`--quick`): the table marks them with `*`, the chart with hatched bars.
# The 2014 columns are the course notes' own figures; a row the course did not time
# (vectorised NumPy, Numba, the library's OpenCL default, the scanline fill) has none.

# %%
from IPython.display import Image, Markdown, display

from polymask import bench
from polymask.bench import report
from lesson import SIZE

args = bench.parse_args(["--size", str(SIZE), "--quick", "--no-peers", "--no-progress", "--repeats", "3"])
results = bench.run_table(args)
display(Markdown(report.markdown(results)))

# %% [markdown]
# ## The spread behind the medians
# The table shows medians. On a busy machine one timing can move a lot from run to run,
# so here are the fast stages again, each timed a few times: min / median / max, and a
# note when the machine looks busy or the repeats disagree. The speed-ups are over
# `cython_typed`, the first compiled stage with types.

# %%
from polymask.course import stages
from lesson import speedups, time_it

for stage in stages.STAGES:
    if stage.slow:
        continue
    try:
        function = stage.load()
    except ImportError as error:  # OpenCL without a device, say: the table above says why
        print(f"{stage.id}: not available here ({str(error)[:80]})")
        continue
    time_it(stage.id, function)
speedups(baseline="cython_typed")

# %% [markdown]
# Every stage's mask was compared with `polymask.mask`: the *pixels differing* column must
# be 0 for every stage of the ladder.

# %%
for row in results["rows"]:
    if row["kind"] in ("stage", "side") and row["seconds"] is not None:
        assert row["pixels_differing"] == 0, row

report.plot_speedups(results, "speedups.png")
display(Image("speedups.png"))
print("OpenCL ran on:", results["machine"]["opencl_device"])

# %% [markdown]
# The 2014 `opencl` bar was a GPU (a GeForce Titan); this run's is the device printed just
# above, which may be a CPU (PoCL), sharing the cores that the prange rung uses. Compare
# the two `opencl` bars only with that in mind.

# %% [markdown]
# ## What this run's table says
# Read from the table above, not written in advance: each stage of the ladder against the
# rung it builds on (`python_numpy` and `cython_plain` against pure Python, every later
# rung against the one before it). Every rung returned the same mask, bit for bit (checked
# above), so each comparison is a fair one.

# %%
from lesson import ladder_story

display(Markdown(ladder_story(results)))

# %% [markdown]
# Why some rungs are about as fast as the one before: `cython_cpp` and `cython_class` run
# the same per-pixel loop as `cython_typed` (the C++ core's instead of Cython's), so the
# step they teach — wrapping a C++ library, keeping its state in a `cdef class` — changes
# where the code lives more than what the CPU does; lessons 4 and 5 measure it. The threaded
# rungs (`cython_prange`, `opencl` on a CPU) gain only as much as this machine has idle
# cores; the load average below says how busy it was during this run.

# %%
import os

print(f"load average over the last minute: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
