# %% [markdown]
# # Lesson 1 — Profile first
#
# Which pixels of an image lie inside a polygon? This lesson starts the ladder with the
# plainest answer, pure Python, and **measures before changing anything**: `cProfile`
# says which functions take the time, a line profiler says which lines.
#
# The rule every stage follows (the *mask contract*): pixel `(row, col)` is inside when
# the point `(x=col, y=row)` is inside under the even-odd crossing rule. Walk the edges;
# each edge that crosses the pixel's row to the right of the pixel flips `inside`.
#
# Set `POLYMASK_NOTEBOOK_SIZE` to change the image size (default 1024, the course's).

# %%
import cProfile
import pstats

import numpy as np

import polymask
from polymask.course.stages import python_numpy, python_tuples
from lesson import SIZE, SLOW_SIZE, compared, problem, show_source, speedups, time_it, timed, verdict

print(f"image {SIZE}x{SIZE}; slow stages on {SLOW_SIZE}x{SLOW_SIZE}")

# %% [markdown]
# ## The pure-Python stage
# The polygon becomes a tuple of `(x, y)` float tuples; `point_inside` is called once per pixel.

# %%
show_source("python")

# %% [markdown]
# It must give exactly the mask of `polymask.mask` (the fast C++ core), bit for bit:

# %%
vertices, shape = problem(SLOW_SIZE)
assert np.array_equal(python_tuples.mask(vertices, shape), polymask.mask(vertices, shape))
print("same mask:", polymask.mask(vertices, shape).sum(), "pixels inside")

# %% [markdown]
# What the mask looks like: the polygon (24 random vertices, so it crosses itself) over the
# pixels the rule puts inside. Where the outline crosses itself, the even-odd rule leaves
# the overlap out.

# %%
from pictures import draw_mask, show

draw_mask(vertices, polymask.mask(vertices, shape), "mask.png")
show("mask.png")

# %% [markdown]
# ## cProfile: which functions?
# `cProfile` counts every call. Sorted by *total time* (time inside the function itself):

# %%
profiler = cProfile.Profile()
profiler.runcall(python_tuples.mask, vertices, shape)
stats = pstats.Stats(profiler).sort_stats("tottime")
stats.print_stats(5);

# %% [markdown]
# Nearly all the time is in `point_inside`, called rows x cols times. Each call unpacks
# tuples and creates Python floats for a handful of arithmetic operations: the work is
# tiny, the overhead of the interpreter is not.
#
# ## A line profiler: which lines?
# `line_profiler` times each line of the functions you name. In IPython,
# `%load_ext line_profiler` then `%lprun -f python_tuples.point_inside python_tuples.mask(vertices, shape)`
# does it (its report opens in a pager); here we call its API so the report is printed
# in the notebook. Line profiling is slow, so it runs on a quarter of the image.

# %%
from line_profiler import LineProfiler

line_profiler = LineProfiler(python_tuples.point_inside)
small_vertices, small_shape = problem(max(8, SLOW_SIZE // 2))
line_profiler.runcall(python_tuples.mask, small_vertices, small_shape)
line_profiler.print_stats(stripzeros=True)

import inspect
import linecache

source_file = inspect.getsourcefile(python_tuples.point_inside)
line_times = [(time_spent, number) for entries in line_profiler.get_stats().timings.values()
              for number, _, time_spent in entries]
total = sum(time_spent for time_spent, _ in line_times)
print("the three costliest lines:")
for time_spent, number in sorted(line_times, reverse=True)[:3]:
    print(f"  {time_spent / total:5.1%}  {linecache.getline(source_file, number).strip()}")

# %% [markdown]
# Each of the costliest lines (printed last) does a few floating-point operations at most;
# the rest of its time is the interpreter's: unpacking tuples, making a new float object
# per result, dispatching bytecode. Compiling (lesson 2) and typing (lesson 3) attack
# exactly that.
#
# ## Why NumPy scalars are slower still
# The course's second stage indexes the NumPy array element by element. Each
# `vertices[i, 1]` creates a NumPy scalar, and arithmetic on NumPy scalars is much
# dearer than on Python floats (the 2014 course measured 450 s against 36 s).
# The profile first, then the timings: do they agree?

# %%
numpy_profiler = cProfile.Profile()
numpy_profiler.runcall(python_numpy.mask, vertices, shape)
pstats.Stats(numpy_profiler).sort_stats("tottime").print_stats(3);

# %% [markdown]
# ## Timing and the speed-up so far
# Both are timed on a smaller image and scaled up by the pixel count (the work per pixel
# is the same everywhere). The table shows each timing's CPU time as a share of its wall
# time: about 100% when nothing else took the core.

# %%
time_it("python (tuples)", python_tuples.mask, slow=True)
time_it("python (NumPy scalars)", python_numpy.mask, slow=True)
speedups()
tuples, scalars = timed("python (tuples)"), timed("python (NumPy scalars)")
timing_ratio = scalars.seconds / tuples.seconds
profile_ratio = pstats.Stats(numpy_profiler).total_tt / stats.total_tt
verdict(f"NumPy scalars took {timing_ratio:.1f}x the time of tuples (2014: 450 s against 36 s); "
        f"the two profiles above gave {profile_ratio:.1f}x",
        "scalars are slower, as in 2014" if timing_ratio > 1.1 else "scalars are not slower here, unlike 2014",
        tuples, scalars)

# %% [markdown]
# ## What the profiler costs
# A profile is a measurement, and measuring costs time. `cProfile` is *deterministic*: it
# runs its own code at every call and every return, so a function that makes many small
# calls is slowed more than one that does its work in few calls, and the profile's
# proportions are not the program's. A *sampling* profiler such as `pyinstrument`
# records the stack only every millisecond, so its report is smaller and coarser; but
# Python still calls its hook at every call and return, to check the clock, so
# call-heavy code pays for it too. (`py-spy` samples from another process and costs the
# program nothing, where the system lets it read another process's memory.) Each stage
# below, plain, under `cProfile` and under `pyinstrument`, on the same image:

# %%
import time

from lesson import Measured, measure


def under(profiler_run, function, repeats=3):
    """Wall and CPU seconds of `function(vertices, shape)` run by `profiler_run`, once per repeat."""
    measured = Measured([], [])
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        profiler_run(function)
        measured.cpu.append(time.process_time() - start_cpu)
        measured.wall.append(time.perf_counter() - start)
    return measured


def with_cprofile(function):
    cProfile.Profile().runcall(function, vertices, shape)


try:
    from pyinstrument import Profiler
except ImportError:
    Profiler = None
    print("pyinstrument is not installed here (pip install pyinstrument): only cProfile is compared")


def with_sampling(function):
    sampler = Profiler(interval=0.001)
    sampler.start()
    function(vertices, shape)
    sampler.stop()


costs = {}
for name, function in (("tuples", python_tuples.mask), ("NumPy scalars", python_numpy.mask)):
    plain = measure(lambda function=function: function(vertices, shape))
    costs[name] = {"plain": plain, "cProfile": under(with_cprofile, function)}
    if Profiler is not None:
        costs[name]["pyinstrument"] = under(with_sampling, function)
    print(f"{name:>14}: " + ", ".join(f"{how} {value.seconds * 1e3:8.1f} ms" for how, value in costs[name].items()))
for how in [how for how in costs["tuples"] if how != "plain"]:
    slowed = {name: costs[name][how].seconds / costs[name]["plain"].seconds for name in costs}
    under_ratio = costs["NumPy scalars"][how].seconds / costs["tuples"][how].seconds
    plain_ratio = costs["NumPy scalars"]["plain"].seconds / costs["tuples"]["plain"].seconds
    verdict(f"{how} slowed tuples {slowed['tuples']:.2f}x and NumPy scalars {slowed['NumPy scalars']:.2f}x, so "
            f"under it scalars took {under_ratio:.1f}x the time of tuples against {plain_ratio:.1f}x plain",
            "it " + ("understates" if under_ratio < plain_ratio / 1.1 else "overstates" if under_ratio > plain_ratio
                     * 1.1 else "keeps (within 10%)") + " the scalars' penalty",
            *[value for name in costs for value in costs[name].values()])

# %% [markdown]
# The tuples stage makes a call per pixel and little else, so a profiler's cost per call
# weighs on it most; the NumPy-scalar stage spends its time inside NumPy's own C code
# (every `vertices[i, 1]` is a C method, not a Python call), which neither profiler is
# called for. The verdicts above say how far that moved the ratio between the two stages
# on this run. Read a profile for *where* the time goes, and the clock for *how much*;
# the 2014 course gave the same warning.

# ## Before compiling: vectorise
# The NumPy way moves the loops over pixels into whole-array operations and keeps a
# Python loop only over the 24 edges. For one edge, the crossing test and `x_cross` depend
# only on the row (a column of `rows` values); comparing every pixel's x with them
# broadcasts to a full rows x cols array. Same arithmetic, one ufunc per operation, so
# the same mask bit for bit:

# %%
import tracemalloc

from polymask.course.stages import numpy_vectorized

show_source("numpy")
assert np.array_equal(numpy_vectorized.mask(*problem(SIZE)), polymask.mask(*problem(SIZE)))
time_it("numpy (vectorized, full image)", numpy_vectorized.mask)
speedups(baseline="python (tuples)")
vectorised = timed("numpy (vectorized, full image)")
verdict(f"vectorised NumPy took {vectorised.seconds * 1e3:.1f} ms, pure Python {tuples.seconds * 1e3:.0f} ms "
        "(scaled to the full image)", compared("vectorised NumPy", "pure Python", tuples.seconds / vectorised.seconds),
        tuples, vectorised)

# %% [markdown]
# What it costs in memory: the temporaries of each edge are full images. `tracemalloc`
# sees NumPy's allocations; the peak of one call, against the mask it returns:

# %%
full_vertices, full_shape = problem(SIZE)
tracemalloc.start()
numpy_vectorized.mask(full_vertices, full_shape)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
mask_bytes = full_shape[0] * full_shape[1]
print(f"peak {peak / 2**20:.1f} MiB for a {mask_bytes / 2**20:.1f} MiB mask: {peak / mask_bytes:.0f}x its size")

# %% [markdown]
# The image's size sets that memory: at 4096x4096 each temporary is 16 MiB. Lesson 9's
# table times this stage beside the compiled ones.
#
# ## Your turn
# Exercise 01 has you write `point_inside` yourself. The checker runs it on the same
# polygons the tests use. Here it checks the reference solution; point it at
# `../exercises/01_python/mask.py` once you filled in the TODO.

# %%
from polymask.course.checker import check

check("01", "../exercises/solutions/01_python/mask.py", time_size=SLOW_SIZE, repeats=1)
