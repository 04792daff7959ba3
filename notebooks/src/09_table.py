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
# so here are the fast stages again, each timed a few times: min / median / max, and the
# share of the wall time the stage spent on the CPU. The speed-ups are over
# `cython_typed`, the first compiled stage with types.

# %%
from polymask.course import stages
from lesson import speedups, time_it, timed, verdict

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
# Each of these stages has now been timed twice, a little apart, on the same machine: how far apart are the
# table's median and this one?

# %%
table_seconds = {row["id"]: row["seconds"] for row in results["rows"] if row["kind"] in ("stage", "side")
                 and row.get("seconds")}
apart = {}
for stage_id, seconds in table_seconds.items():
    try:
        again = timed(stage_id).seconds
    except KeyError:  # a slow stage: timed only in the table
        continue
    apart[stage_id] = max(seconds, again) / min(seconds, again)
    print(f"  {stage_id:>14}: table {seconds * 1e3:9.3f} ms, again {again * 1e3:9.3f} ms, {apart[stage_id]:.2f}x apart")
worst = max(apart, key=apart.get)
verdict(f"the two timings of a stage were at most {apart[worst]:.2f}x apart (`{worst}`)",
        "the table's medians held within 20% from one timing to the next" if apart[worst] < 1.2
        else "a single table is not a precise measurement here: compare ratios within one run only",
        *[timed(stage_id) for stage_id in apart])

# %% [markdown]
# Every stage's mask was compared with `polymask.mask`: the *pixels differing* column must
# be 0 for every stage of the ladder.

# %%
for row in results["rows"]:
    if row["kind"] in ("stage", "side") and row["seconds"] is not None:
        assert row["pixels_differing"] == 0, row

from pictures import where

report.plot_speedups(results, str(where("speedups.png")))
display(Image(filename=str(where("speedups.png"))))
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
from lesson import usable_cores

cores = usable_cores()
if "cython_prange" in table_seconds and "cython_class" in table_seconds:
    gain = table_seconds["cython_class"] / table_seconds["cython_prange"]
    verdict(f"cython_prange ran {gain:.2f}x the speed of cython_class on {cores} usable cores",
            f"{gain / cores:.0%} of one core's worth per core", threads=None)
