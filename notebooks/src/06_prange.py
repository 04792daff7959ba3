# %% [markdown]
# # Lesson 6 — The GIL and OpenMP
#
# Only one thread at a time may run Python code: the *global interpreter lock*. Compiled
# code that touches no Python object can release it (`nogil`), and then threads really
# run at the same time.
#
# * `def` functions are called from Python; `cdef` functions only from Cython (a plain C
#   call); `cpdef` makes both. A `cdef ... noexcept nogil` function may run without the GIL.
# * `prange` (from `cython.parallel`) turns a loop into an OpenMP parallel for. It needs
#   `nogil=True`. `num_threads` sets the team (0, or leaving it out: `OMP_NUM_THREADS`, or
#   every core).
# * `schedule` says which thread computes which rows: `"static"` gives each thread one
#   contiguous band, fixed in advance; `"dynamic"` with a `chunksize` lets each thread take
#   the next few rows whenever it is free.
# * The build must compile *and link* with OpenMP (`-fopenmp` with GCC).

# %%
import os

import numpy as np

import polymask
from polymask.course.stages import cython_prange
from lesson import SIZE, alternated, busy_core, problem, show_source

show_source("cython_prange")

# %%
prange_mask = polymask.course.stages.get("cython_prange").load()
vertices, shape = problem(SIZE)
expected = polymask.mask(vertices, shape)
assert np.array_equal(prange_mask(vertices, shape, threads=2), expected)
assert np.array_equal(cython_prange.mask_static(vertices, shape, threads=2), expected)
print("OpenMP in this build:", polymask.build_info()["openmp"], "| cores here:", os.cpu_count(),
      f"| load average: {os.getloadavg()[0]:.1f}")

# %% [markdown]
# ## Scaling with threads
# Each schedule at 1, 2, 4, ... threads up to twice the cores, timed alternately, as a
# speed-up over its own 1-thread time. More threads than cores (*oversubscription*) do not
# make the cores compute faster: the extra threads take turns on the same cores. On a
# machine shared with other processes they may still come out ahead, by taking a larger
# share of the cores from those processes; that is why `OMP_NUM_THREADS` (below) matters
# to everyone on a shared machine.

# %%
from IPython.display import Image, display

from pictures import thread_scaling

cores = os.cpu_count() or 1
counts = [1]
while counts[-1] < 2 * cores:
    counts.append(counts[-1] * 2)
calls = {}
for threads in counts:
    calls[f"dynamic {threads}"] = lambda threads=threads: prange_mask(vertices, shape, threads=threads)
    calls[f"static {threads}"] = lambda threads=threads: cython_prange.mask_static(vertices, shape, threads=threads)
quiet = alternated(calls)
for name, seconds in quiet.items():
    print(f"  {name:>10} threads: {seconds * 1e3:8.2f} ms")
thread_scaling(counts, {schedule: [quiet[f"{schedule} {threads}"] for threads in counts]
                        for schedule in ("dynamic", "static")}, "scaling.png")
display(Image("scaling.png"))

# %% [markdown]
# Compare each line with the dotted ideal. Each line is drawn over its own 1-thread time,
# so on a busy machine, where the two 1-thread times can differ by a third from run to
# run, read the printed times beside the chart. Every row costs about the same, so on cores
# that nothing else uses, static bands finish together and the two schedules should
# climb alike up to the core count; what separates them here, and from the ideal, is
# the other work on this machine (the load average printed at the top) and, for big
# images, the memory bandwidth.
#
# ## A busy core: static against dynamic, and where the threads run
# Most machines are shared. Below, one process spins on a core while the stage runs at
# 2 threads, beside its 1-thread time, alternated call by call: the dynamic schedule with
# the team placed one thread per core (`mask`'s default), the same without placement
# (`place=False`: the operating system decides), and the static schedule.

# %%
with busy_core():
    busy = alternated({
        "dynamic, 1 thread": lambda: prange_mask(vertices, shape, threads=1),
        "dynamic, 2 placed": lambda: prange_mask(vertices, shape, threads=2),
        "dynamic, 2 unplaced": lambda: prange_mask(vertices, shape, threads=2, place=False),
        "static, 2 threads": lambda: cython_prange.mask_static(vertices, shape, threads=2),
    }, rounds=21)
for name, seconds in busy.items():
    print(f"  {name:>20}: {seconds * 1e3:8.2f} ms, {seconds / busy['dynamic, 1 thread']:.2f}x the 1-thread time")
print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

# %% [markdown]
# Two things decide what a second thread buys when exactly one of two cores is busy.
#
# * **The schedule.** The thread that shares its core with the spinning process runs at
#   about half speed. Under `static` its band of rows is fixed, so the mask waits for the
#   slow band; under `dynamic` the slowed thread just takes fewer chunks. At best the team
#   then has one and a half cores: about 0.67x the 1-thread time.
# * **Placement.** Three busy threads on two cores cannot be balanced, and Linux does not
#   try to move a thread when moving it would leave the cores just as unequal. If both of
#   the team's threads land on one core (the thread that wakes the other often hands it
#   its own core), they share that core for the rest of the call and the spinning process
#   keeps the other to itself: no schedule helps. `mask` therefore binds each thread of its
#   team to its own core for the call, and the spinning process, which is not bound, ends
#   up sharing a core with one of them. This is what `OMP_PROC_BIND=spread
#   OMP_PLACES=cores` asks of OpenMP for a whole program.
#
# Compare the rows above: the placed dynamic row is the one to expect below the 1-thread
# time; whether the unplaced row does too depends on where the threads happened to
# land in this run. With more idle cores than threads, placement and schedule matter
# little; with every core shared by several processes (a load average well above the core
# count), both threads slow alike and the rows come out close. The benchmark
# `python -m benchmarks.prange_busy` times the same contenders with more rounds.
#
# ## The same loop in Numba
# Numba compiles the typed loop from plain Python syntax when it is first called;
# `@njit(parallel=True)` with `numba.prange` splits the rows over threads like Cython's
# `prange`. Its rows are divided evenly between the threads in advance, like
# `schedule="static"`. The same busy core, alternated:

# %%
show_source("numba")
numba_mask = polymask.course.stages.get("numba").load()
assert np.array_equal(numba_mask(vertices, shape, threads=2), expected)
with busy_core():
    numba_busy = alternated({
        "numba, 1 thread": lambda: numba_mask(vertices, shape, threads=1),
        "numba, 2 threads": lambda: numba_mask(vertices, shape, threads=2),
        "cython_prange, 2 threads": lambda: prange_mask(vertices, shape, threads=2),
    }, rounds=21)
for name, seconds in numba_busy.items():
    print(f"  {name:>24}: {seconds * 1e3:8.2f} ms, {seconds / numba_busy['numba, 1 thread']:.2f}x Numba's 1-thread time")
print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

# %% [markdown]
# ## Races and reductions
# Inside a `prange` loop Cython decides for each variable: one only assigned is
# *lastprivate* (each thread has its own copy; after the loop it holds the last
# iteration's value), one updated with `+=` is a *reduction* (each thread sums into its
# own copy, and the copies are added at the end). Writing through a pointer is neither:
# every thread touches the same memory, and two read-add-write sequences that overlap lose
# one update. That is a *race*. The cell is built with `-O0`, so that every update really
# reads and writes memory: with optimisation GCC may keep the sum in a register for a whole
# row and write it once per row, which makes the race rarer, not gone.

# %%
%load_ext Cython

# %%
%%cython --compile-args=-fopenmp --compile-args=-O0 --link-args=-fopenmp
# cython: boundscheck=False, wraparound=False
from cython.parallel cimport prange


def count_reduction(const unsigned char[:, ::1] mask, int threads):
    cdef Py_ssize_t row, col
    cdef long total = 0
    for row in prange(mask.shape[0], nogil=True, num_threads=threads):
        for col in range(mask.shape[1]):
            total += mask[row, col]  # a reduction: one private sum per thread
    return total


def count_race(const unsigned char[:, ::1] mask, int threads):
    cdef Py_ssize_t row, col
    cdef long total = 0
    cdef long *shared = &total  # every thread adds into the same long
    for row in prange(mask.shape[0], nogil=True, num_threads=threads):
        for col in range(mask.shape[1]):
            shared[0] = shared[0] + mask[row, col]  # read, add, write: another thread may write in between
    return total

# %%
pixels = expected.view(np.uint8)
print("pixels inside (NumPy):      ", int(pixels.sum()))
print("reduction, 2 threads:       ", count_reduction(pixels, 2))
racy = [count_race(pixels, 2) for _ in range(5)]
print("race, 2 threads, five tries:", racy)
print(f"tries that lost updates: {sum(count != int(pixels.sum()) for count in racy)} of 5 "
      f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")

# %% [markdown]
# The reduction always agrees. The racy count is right only when the two threads happened
# not to overlap: when both run at once on two cores, updates are lost and the count comes
# out lower, and differently each time. On a machine so busy that the two threads mostly
# take turns on one core, some or all tries may come out right: the race is still there,
# and it shows as soon as the cores are free. The mask stages have no such variable: each
# thread writes its own rows, and nothing else.
#
# ## False sharing
# Give each thread its own counter, in one array, and there is no race. But memory moves
# between cores in cache lines (64 bytes on x86-64 and most ARM CPUs): counters next to
# each other share a line, and every write by one core takes the line away from the other.
# The same count, with the two threads' counters 1 slot (8 bytes) apart and 8 slots (64
# bytes) apart. The cell is built with `-O0`, so that every `+=` really goes to memory: at
# `-O2` GCC checks once per row that the counter does not overlap the mask, then keeps it
# in a register (and vectorises the row) and writes it once, and almost no line moves.

# %%
%%cython --compile-args=-fopenmp --compile-args=-O0 --link-args=-fopenmp
# cython: boundscheck=False, wraparound=False
from cython.parallel cimport prange, threadid


def count_per_thread(const unsigned char[:, ::1] mask, long[::1] counters, int spacing):
    cdef Py_ssize_t row, col
    cdef int me
    for row in prange(mask.shape[0], nogil=True, num_threads=2, schedule="static"):
        me = threadid()
        for col in range(mask.shape[1]):
            counters[me * spacing] += mask[row, col]  # thread 0 writes slot 0, thread 1 slot `spacing`
    return counters[0] + counters[spacing]

# %%
sharing = alternated({f"{spacing} slot(s) apart": lambda spacing=spacing: count_per_thread(
    pixels, np.zeros(16, dtype=np.int64), spacing) for spacing in (1, 8)})
assert count_per_thread(pixels, np.zeros(16, dtype=np.int64), 8) == int(pixels.sum())
for name, seconds in sharing.items():
    print(f"  counters {name:>16}: {seconds * 1e3:8.2f} ms")
print(f"1 slot apart / 8 slots apart: {sharing['1 slot(s) apart'] / sharing['8 slot(s) apart']:.2f}x; "
      f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

# %% [markdown]
# Same work, same answer. The line moves only while both threads run at once on two
# cores: then the neighbouring counters take longer than the spaced ones (on a
# 2-core Intel Xeon virtual machine, 6.0 ms against 3.3 ms); on a machine so busy (a load
# average well above the core count) that the two threads mostly take turns, the two lines
# come out close. Compare the ratio printed above with the load beside it. A real fix is a
# reduction, as above, or a per-thread variable that lives in the thread's own stack.
#
# ## OMP_NUM_THREADS
# `num_threads=0` here means OpenMP's default: the environment variable `OMP_NUM_THREADS`
# when it is set (read when the process starts), else every core. Set it before
# starting Python (`OMP_NUM_THREADS=2 jupyter lab`) to keep a program from starting more
# threads than the cores it should use.
#
# The 2014 course went from 0.118 s to 0.020 s on two quad-core Xeons (8 cores, 16
# threads). Exercise 06: `polymask check 06 exercises/06_prange/mask.pyx` — the checker
# compiles your file with `-fopenmp`, then times your `mask` at `threads=1` and
# `threads=2`, and the serial stage before it, on the same fresh polygons, reading each
# thread's CPU time from `/proc`. Two threads must share the rows (the busiest may use at
# most 0.8 of the serial stage's CPU time per mask) and `threads=2` must be at least 1.3x
# faster than both; when the machine is too busy to tell, the verdict is INCONCLUSIVE.
