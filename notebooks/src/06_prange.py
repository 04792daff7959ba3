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
#   `nogil=True`. `num_threads` sets the team; `schedule="static"` gives each thread one
#   contiguous band of rows — right when every row costs about the same.
# * The build must compile *and link* with OpenMP (`-fopenmp` with GCC).

# %%
import os

import numpy as np

import polymask
from lesson import SIZE, problem, show_source, speedups, time_it

show_source("cython_prange")

# %%
prange_mask = polymask.course.stages.get("cython_prange").load()
vertices, shape = problem(SIZE)
assert np.array_equal(prange_mask(vertices, shape, threads=2), polymask.mask(vertices, shape))
print("OpenMP in this build:", polymask.build_info()["openmp"], "| cores here:", os.cpu_count())

# %% [markdown]
# ## Scaling with threads
# The speed-up stops at the number of cores (and, for big images, at memory bandwidth).

# %%
time_it("cython_class (one thread)", polymask.course.stages.get("cython_class").load())
threads = 1
while threads <= (os.cpu_count() or 1):
    time_it(f"cython_prange, {threads} thread(s)", prange_mask, threads=threads)
    threads *= 2
speedups()

# %% [markdown]
# The 2014 course went from 0.118 s to 0.020 s on two quad-core Xeons (8 cores, 16
# threads). Exercise 06: `polymask check 06 exercises/06_prange/mask.pyx` — the checker
# compiles your file with `-fopenmp`, then times your `mask` at `threads=1` and
# `threads=2`, and the serial stage before it, on the same fresh polygons, reading each
# thread's CPU time from `/proc`. Two threads must share the rows (the busiest may use at
# most 0.8 of the serial stage's CPU time per mask) and `threads=2` must be at least 1.3x
# faster than both; when the machine is too busy to tell, the verdict is INCONCLUSIVE.
