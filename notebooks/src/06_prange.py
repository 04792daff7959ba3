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
from lesson import (SIZE, alternated_measured, busy_core, busy_reason, compared, load_average, machine_load, problem,
                    show_source, usable_cores, verdict)

show_source("cython_prange")

# %%
prange_mask = polymask.course.stages.get("cython_prange").load()
vertices, shape = problem(SIZE)
expected = polymask.mask(vertices, shape)
assert np.array_equal(prange_mask(vertices, shape, threads=2), expected)
assert np.array_equal(cython_prange.mask_static(vertices, shape, threads=2), expected)
cores = usable_cores()
print("OpenMP in this build:", polymask.build_info()["openmp"], "|", machine_load())

# %% [markdown]
# ## The GIL, measured
# Lesson 3's typed loop, twice: once as it was, holding the GIL, and once inside
# `with nogil:`, which a loop that touches no Python object may use. Two ordinary Python
# threads (`concurrent.futures`) each compute one mask, against one thread computing
# both: holding the GIL, the two threads take turns; releasing it, they can run at once.

# %%
%load_ext Cython

# %%
%%cython
# cython: boundscheck=False, wraparound=False, cdivision=True
import numpy as np


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            if px < ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                     / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0]):
                inside = not inside
        j = i
    return inside


cdef void fill(const double[:, ::1] vertices, unsigned char[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t row, col
    for row in range(out.shape[0]):
        for col in range(out.shape[1]):
            out[row, col] = point_inside(vertices, col, row)


def mask_holding_gil(const double[:, ::1] vertices, shape):
    result = np.zeros(shape, dtype=bool)
    fill(vertices, result.view(np.uint8))  # a nogil function, called with the GIL held
    return result


def mask_releasing_gil(const double[:, ::1] vertices, shape):
    result = np.zeros(shape, dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    with nogil:
        fill(vertices, out)
    return result

# %%
from concurrent.futures import ThreadPoolExecutor

assert np.array_equal(mask_releasing_gil(vertices, shape), expected)
pool = ThreadPoolExecutor(2)
gil = alternated_measured({
    f"{how}, {where}": (lambda function=function: [function(vertices, shape) for _ in range(2)]) if where == "one thread"
    else (lambda function=function: list(pool.map(lambda _: function(vertices, shape), range(2))))
    for how, function in (("holding the GIL", mask_holding_gil), ("releasing it", mask_releasing_gil))
    for where in ("one thread", "two threads")}, rounds=9)
pool.shutdown()
for name, value in gil.items():
    print(f"  two masks, {name:>30}: {value.seconds * 1e3:8.2f} ms, CPU {value.cpu_seconds / value.seconds:4.0%} "
          "of the wall time")
held = gil["holding the GIL, two threads"].seconds / gil["holding the GIL, one thread"].seconds
released = gil["releasing it, two threads"].seconds / gil["releasing it, one thread"].seconds
verdict(f"two Python threads took {held:.2f}x the time of one thread holding the GIL, {released:.2f}x releasing it",
        "only the loop that released the GIL ran on two cores at once" if held > 0.9 and released < 0.75
        else "the threads did not divide the time as the GIL predicts", gil["releasing it, two threads"],
        threads=min(2, cores))

# %% [markdown]
# Holding the GIL, the second thread waits for the first: two threads take as long as one,
# and the CPU column never shows much more than one core's worth. Releasing it, the two
# threads can run at once, when the machine gives this process two cores: the verdict
# says whether it did on this run (on a shared machine, the CPU column tells). `prange` below needs `nogil=True` for this
# reason: OpenMP's threads are C threads, and only code without the GIL can run on them.
#
# ## Scaling with threads
# Each schedule at 1, 2, 4, ... threads up to twice the cores, timed alternately. Every
# line is drawn over one baseline, the dynamic schedule's 1-thread time, so the lines can
# be compared with each other as well as with the ideal: one core per thread, which stops
# rising at the number of cores this process may use (the dashed line). More threads than
# cores (*oversubscription*) do not make the cores compute faster: the extra threads take
# turns on the same cores. Beside each time, the CPU time the process got per thread, as a
# share of the wall time: near 100% when every thread had a core of its own.

# %%
from pictures import show, thread_scaling

counts = [1]
while counts[-1] < 2 * cores:
    counts.append(counts[-1] * 2)
calls = {}
for threads in counts:
    calls[f"dynamic {threads}"] = lambda threads=threads: prange_mask(vertices, shape, threads=threads)
    calls[f"static {threads}"] = lambda threads=threads: cython_prange.mask_static(vertices, shape, threads=threads)
scaling = alternated_measured(calls)
load = load_average()
for name, value in scaling.items():
    threads = int(name.split()[1])
    print(f"  {name:>10} threads: {value.seconds * 1e3:8.2f} ms, CPU per thread "
          f"{value.cpu_share(min(threads, cores)):4.0%} of the wall time")
baseline = scaling["dynamic 1"].seconds
thread_scaling(counts, {schedule: [scaling[f"{schedule} {threads}"].seconds for threads in counts]
                        for schedule in ("dynamic", "static")}, baseline, cores, load, "scaling.png")
show("scaling.png")
team = max(count for count in counts if count <= cores)  # the largest team with a core per thread
at_cores = scaling[f"dynamic {team}"]
verdict(f"{team} threads (dynamic) ran {baseline / at_cores.seconds:.2f}x the 1-thread speed, the ideal {team}x",
        f"{baseline / at_cores.seconds / team:.0%} of the ideal",
        reason="; ".join(filter(None, [busy_reason(scaling["dynamic 1"]), busy_reason(at_cores, threads=team)])))
static_team = scaling[f"static {team}"]
verdict(f"at {team} threads, static took {static_team.seconds * 1e3:.2f} ms and dynamic {at_cores.seconds * 1e3:.2f} ms",
        compared("dynamic", "static", static_team.seconds / at_cores.seconds), at_cores, static_team, threads=team)

# %% [markdown]
# Wall time needs idle cores to say anything about scaling. CPU time does not: it counts
# only the time the threads computed, so it shows what splitting the rows *cost*, even on a
# busy machine. If the team's threads together used no more CPU time than one thread did,
# the rows split without overhead, and with a core per thread the wall time would fall by
# the team's size; every extra CPU-second (starting the team, threads waiting at the end
# of the loop, two threads sharing one core's caches or the memory bus) lowers that bound.
# The bound is against one thread that has a core to itself: on a busy machine the
# measured 1-thread wall time above also waited for a core, so the wall-clock speed-up
# can come out above it.

# %%
one_cpu, team_cpu = scaling["dynamic 1"].cpu_seconds, at_cores.cpu_seconds
overhead = team_cpu / one_cpu
verdict(f"{team} threads used {team_cpu * 1e3:.2f} ms of CPU time in all, one thread {one_cpu * 1e3:.2f} ms "
        f"({overhead:.2f}x); so with a core per thread, {team} threads can be at most {team / overhead:.2f}x "
        "as fast as one thread that has a core to itself",
        "the rows split with little overhead (within 15% of one thread's CPU time)" if overhead < 1.15
        else "splitting the rows cost extra CPU time", reason="")

# %% [markdown]
# Every row costs about the same, so on cores that nothing else uses, static bands finish
# together and the two schedules climb alike up to the core count; what separates them
# here, and from the ideal, is the other work on this machine (the load average in the
# chart's title) and, for big images, the memory bandwidth. On a machine shared with other
# processes, more threads than cores may still come out ahead by taking a larger share
# of the cores from those processes: that is why `OMP_NUM_THREADS` (below) matters to
# everyone on a shared machine.
#
# ## A busy core: static against dynamic, and where the threads run
# Most machines are shared. Below, one process spins on a core while the stage runs at
# 2 threads, beside its 1-thread time, alternated call by call: the dynamic schedule with
# the team placed one thread per core (`mask`'s default), the same without placement
# (`place=False`: the operating system decides), and the static schedule.

# %%
with busy_core():
    busy = alternated_measured({
        "dynamic, 1 thread": lambda: prange_mask(vertices, shape, threads=1),
        "dynamic, 2 placed": lambda: prange_mask(vertices, shape, threads=2),
        "dynamic, 2 unplaced": lambda: prange_mask(vertices, shape, threads=2, place=False),
        "static, 2 threads": lambda: cython_prange.mask_static(vertices, shape, threads=2),
    }, rounds=21)
one = busy["dynamic, 1 thread"].seconds
for name, value in busy.items():
    print(f"  {name:>20}: {value.seconds * 1e3:8.2f} ms, {value.seconds / one:.2f}x the 1-thread time")
print(f"{machine_load()} (one core spun on purpose)")
pair = [busy["dynamic, 2 placed"], busy["static, 2 threads"]]
verdict(f"with one core busy, dynamic took {busy['dynamic, 2 placed'].seconds / one:.2f}x and static "
        f"{busy['static, 2 threads'].seconds / one:.2f}x the 1-thread time",
        compared("dynamic", "static", busy["static, 2 threads"].seconds / busy["dynamic, 2 placed"].seconds),
        *pair, threads=None)
verdict(f"placed {busy['dynamic, 2 placed'].seconds / one:.2f}x, unplaced "
        f"{busy['dynamic, 2 unplaced'].seconds / one:.2f}x the 1-thread time",
        compared("the placed team", "the unplaced one",
                 busy["dynamic, 2 unplaced"].seconds / busy["dynamic, 2 placed"].seconds), threads=None)

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
# The two verdict lines above say what schedule and placement did on this run. Whether
# the unplaced team lands on one core is chance: in one run it does, in another it does
# not, so placement can come out equal in any single run. With more idle cores than
# threads, placement and schedule matter little; with every core shared by several
# processes (a load average well above the core count), both threads slow alike and the
# rows come out close. The benchmark
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
import numba


def numba_in_chunks(rows=8):
    """Numba's prange handing out chunks of `rows` rows, like a dynamic schedule."""
    with numba.parallel_chunksize(rows):
        return numba_mask(vertices, shape, threads=2)


assert np.array_equal(numba_in_chunks(), expected)
with busy_core():
    numba_busy = alternated_measured({
        "numba, 1 thread": lambda: numba_mask(vertices, shape, threads=1),
        "numba, 2 threads": lambda: numba_mask(vertices, shape, threads=2),
        "numba, 2 threads, chunks of 8": numba_in_chunks,
        "cython_prange, 2 threads": lambda: prange_mask(vertices, shape, threads=2),
    }, rounds=21)
for name, value in numba_busy.items():
    print(f"  {name:>30}: {value.seconds * 1e3:8.2f} ms, "
          f"{value.seconds / numba_busy['numba, 1 thread'].seconds:.2f}x Numba's 1-thread time")
verdict(f"with one core busy, Numba on 2 threads took {numba_busy['numba, 2 threads'].seconds * 1e3:.2f} ms, "
        f"cython_prange (dynamic) {numba_busy['cython_prange, 2 threads'].seconds * 1e3:.2f} ms",
        compared("Numba", "cython_prange", numba_busy["cython_prange, 2 threads"].seconds
                 / numba_busy["numba, 2 threads"].seconds), threads=None)
chunked = numba_busy["numba, 2 threads, chunks of 8"]
verdict(f"with one core busy, Numba in chunks of 8 rows took {chunked.seconds * 1e3:.2f} ms, "
        f"in equal bands {numba_busy['numba, 2 threads'].seconds * 1e3:.2f} ms",
        compared("chunks of 8 rows", "equal bands", numba_busy["numba, 2 threads"].seconds / chunked.seconds),
        threads=None)

# %% [markdown]
# `numba.parallel_chunksize(n)` (or `numba.set_parallel_chunksize(n)`) makes the
# following `prange` loops hand out chunks of `n` iterations to whichever thread is free:
# Numba's nearest thing to a dynamic schedule. Equal bands are not the whole story,
# though: Numba's compiler and Cython's C compiler make different machine code from the
# same loop, so the two can differ even on idle cores.
#
# What did Numba make of the loop? A `parallel=True` function reports which loops it ran
# in parallel and which it fused (the first lines of the report):

# %%
import contextlib
import io

from polymask.course.stages.numba_prange import fill

report = io.StringIO()
with contextlib.redirect_stdout(report):
    fill.parallel_diagnostics(level=1)
print("\n".join(line for line in report.getvalue().splitlines() if line.strip())[:1500])

# %% [markdown]
# ### What the first call costs, and `cache=True`
# Numba compiles when a function is first called with new argument types. `cache=True`
# writes the machine code to disk, so the next *process* loads it instead of compiling.
# Two fresh processes below each call the stage's loop, recompiled with `cache=True` and
# a cache folder of their own: the first compiles and saves, the second loads.

# %%
import subprocess
import sys
import tempfile

probe = """
import time
import numba
import numpy as np
from polymask.course.problems import standard_problem
from polymask.course.stages.numba_prange import fill
serial = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")(fill.py_func)
vertices, shape = standard_problem(64)
out = np.zeros(shape, dtype=np.uint8)
calls = []
for _ in range(2):
    start = time.perf_counter()
    serial(vertices, out, 0)
    calls.append(time.perf_counter() - start)
print(calls[0], calls[1])
"""
with tempfile.TemporaryDirectory() as cache_dir:
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, NUMBA_CACHE_DIR=cache_dir))
        runs.append([float(value) for value in done.stdout.split()] if done.returncode == 0 else None)
        if done.returncode:
            print(done.stderr[-500:])
if all(runs):
    (compiled, again), (cached, _) = runs
    print(f"first process, first call: {compiled * 1e3:9.1f} ms (compiling); its second call {again * 1e3:.3f} ms")
    print(f"second process, first call: {cached * 1e3:9.1f} ms (machine code loaded from the cache)")
    verdict(f"compiling took {compiled:.2f} s, loading the cached code {cached * 1e3:.0f} ms",
            compared("the cached first call", "the compiling one", compiled / cached), threads=None)

# %% [markdown]
# Without `cache=True` every process pays for compilation; with it, later processes load
# the machine code instead (until the source or Numba changes). Loading is not free
# either: the second line above is the first call of a process that compiled nothing,
# and the verdict compares it with compiling on this run.

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
%%cython --compile-args=-fopenmp --compile-args=-O0 --link-args=-fopenmp
# cython: boundscheck=False, wraparound=False
cimport openmp
from cython.parallel cimport prange


def default_team():
    """The team a parallel region gets without num_threads: OMP_NUM_THREADS, or every core."""
    return openmp.omp_get_max_threads()


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
assert all(count_reduction(pixels, 2) == int(pixels.sum()) for _ in range(5)), "a reduction is exact every time"
racy = [count_race(pixels, 2) for _ in range(5)]
print("race, 2 threads, five tries:", racy)
lost = sum(count != int(pixels.sum()) for count in racy)
verdict(f"{lost} of 5 racy tries lost updates", "the race showed" if lost else
        "no try lost an update this time: the race is in the code all the same", threads=None)

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
from pictures import timing_bars

sharing = alternated_measured({f"{spacing} slot(s) apart": lambda spacing=spacing: count_per_thread(
    pixels, np.zeros(16, dtype=np.int64), spacing) for spacing in (1, 8)}, rounds=21)
assert count_per_thread(pixels, np.zeros(16, dtype=np.int64), 8) == int(pixels.sum())
for name, value in sharing.items():
    print(f"  counters {name:>16}: {value.seconds * 1e3:8.2f} ms (median of 21), "
          f"fastest {min(value.wall) * 1e3:.2f}, slowest {max(value.wall) * 1e3:.2f}")
timing_bars({f"counters {name}": value for name, value in sharing.items()},
            "two threads counting: neighbouring counters against spaced ones", "false_sharing.png")
show("false_sharing.png")
near, apart = sharing["1 slot(s) apart"], sharing["8 slot(s) apart"]
verdict(f"counters 1 slot apart took {near.seconds / apart.seconds:.2f}x the time of counters 8 slots apart",
        "sharing a cache line cost time" if near.seconds > 1.1 * apart.seconds and min(near.wall) > max(apart.wall)
        else "no difference beyond the spread of the repeats", near, apart, threads=2)

# %% [markdown]
# A cache line's moves can also be counted, not only timed: `perf stat` reads the CPU's
# hardware counters around a process. Where `perf` is installed and the machine exposes
# the counters (many virtual machines do not), the cell below counts the cache misses of a
# child process that does the same counting 200 times, at each spacing:

# %%
import shutil

counting = sys.modules[count_per_thread.__module__]
child = (f"import sys; import numpy as np; import polymask\n"
         f"sys.path.insert(0, {os.path.dirname(counting.__file__)!r})\n"
         f"from polymask.course.problems import standard_problem\nimport {counting.__name__} as built\n"
         f"pixels = polymask.mask(*standard_problem({SIZE})).view(np.uint8)\n"
         "for _ in range(200): built.count_per_thread(pixels, np.zeros(16, dtype=np.int64), int(sys.argv[1]))\n")
if shutil.which("perf") is None:
    print("perf is not installed here: the spread of the timings above is the evidence")
else:
    for spacing in (1, 8):
        done = subprocess.run(["perf", "stat", "-x,", "-e", "cache-misses", sys.executable, "-c", child, str(spacing)],
                              capture_output=True, text=True, timeout=300)
        fields = next((line.split(",") for line in done.stderr.splitlines() if "cache-misses" in line), ["?"])
        if fields[0].isdigit():
            print(f"  counters {spacing} slot(s) apart: {int(fields[0]):,} cache misses")
        else:
            print(f"  counters {spacing} slot(s) apart: perf could not count ({fields[0]}): this machine exposes "
                  "no hardware counters, so the spread of the timings above is the evidence")

# %% [markdown]
# Same work, same answer. The line moves only while both threads run at once on two
# cores: then the neighbouring counters take longer than the spaced ones; on a machine so
# busy that the two threads mostly take turns, the two come out close, and the verdict
# says it could not tell. The bars show each one's spread: a difference smaller than the
# spread is no difference. Where the machine gave cache-miss counts, they show the same
# from the hardware's side. A real fix is a reduction, as above, or a per-thread variable
# that lives in the thread's own stack.
#
# ## OMP_NUM_THREADS
# `num_threads=0` here means OpenMP's default: the environment variable `OMP_NUM_THREADS`
# when it is set (read when the process starts), else every core. Since OpenMP reads it
# once, at start-up, it is set for a child process: the module built for the race above
# asks OpenMP for its default team, with the variable unset and set.

# %%
built = sys.modules[default_team.__module__]
ask = (f"import sys; sys.path.insert(0, {os.path.dirname(built.__file__)!r}); "
       f"import {built.__name__} as built; print(built.default_team())")
quiet_env = {name: value for name, value in os.environ.items() if name != "OMP_NUM_THREADS"}
for setting in (None, "1", "3"):
    env = dict(quiet_env, **({"OMP_NUM_THREADS": setting} if setting else {}))
    done = subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True, timeout=120, env=env)
    label = f"OMP_NUM_THREADS={setting}" if setting else "OMP_NUM_THREADS unset"
    print(f"  {label:>22}: default team of {done.stdout.strip() or done.stderr.strip()[-200:]} thread(s)")

# %% [markdown]
# Set it before starting Python (`OMP_NUM_THREADS=2 jupyter lab`) to keep a program from
# starting more threads than the cores it should use.
#
# The 2014 course went from 0.118 s to 0.020 s on two quad-core Xeons. Exercise 06:
# `polymask check 06 exercises/06_prange/mask.pyx` — the checker
# compiles your file with `-fopenmp`, then times your `mask` at `threads=1` and
# `threads=2`, and the serial stage before it, on the same fresh polygons, reading each
# thread's CPU time from `/proc`. Two threads must share the rows (the busiest may use at
# most 0.8 of the serial stage's CPU time per mask) and want a CPU at the same time (on
# average at least 1.3 of them running or waiting for a core, not taking turns); when the
# machine is too busy to tell, the verdict is INCONCLUSIVE. Exercise 06d hands you a
# `prange` module and has you write its build, `polymask check 06d
# exercises/06d_build/setup.py`: compiled as C++, with OpenMP when compiling and when
# linking, optimised; without the OpenMP flag the same file builds and runs, on one thread.
