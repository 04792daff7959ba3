# %% [markdown]
# # Lesson 4 — Wrap C++
#
# polymask's predicate lives in one C++ core (`csrc/`), shared by every fast stage and
# even by the OpenCL kernels. Cython calls C++ through declarations:
#
# * a `.pxd` file mirrors a C++ header with `cdef extern from "header" namespace "ns" nogil:`;
# * `except +` turns a C++ exception into a Python one (the `Polygon` constructor can throw);
# * `nogil` says the functions never touch Python objects, so they may run without the GIL;
# * `libcpp.vector` and friends map the standard library; the build must say *language C++*.

# %%
import numpy as np

import polymask
from lesson import PACKAGE_DIR, SIZE, cython_core_flags, problem, show_source, speedups, time_it

print((PACKAGE_DIR / "core.pxd").read_text())

# %% [markdown]
# The header it mirrors ships inside the package too, so your own code can include it:

# %%
print(polymask.get_include())
print((PACKAGE_DIR / "include" / "polymask" / "core.hpp").read_text()[:1500])

# %% [markdown]
# ## A `%%cython` cell that links the core
# `cython_core_flags()` spells out what the cell needs: C++, the include folders, the core's
# static library, and `-ffp-contract=off` (no fused multiply-add: the contract is bit-exact).

# %%
flags = cython_core_flags()
print(flags)
%load_ext Cython

# %%
%%cython {flags}
# cython: boundscheck=False, wraparound=False
import numpy as np
from libcpp.memory cimport unique_ptr
from polymask.core cimport FillRule, Polygon


def wrapped_mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    cdef unique_ptr[Polygon] polygon
    # The per-call conversion: NumPy's vertices copied into the C++ polygon.
    polygon.reset(new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0]))
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    with nogil:
        for row in range(rows):
            for col in range(cols):
                out[row, col] = polygon.get().contains(col, row, FillRule.even_odd)
    return result

# %%
vertices, shape = problem(SIZE)
assert np.array_equal(wrapped_mask(vertices, shape), polymask.mask(vertices, shape))

time_it("cython_typed", polymask.stages.get("cython_typed").load())
time_it("wrapped C++ (%%cython above)", wrapped_mask)
time_it("cython_cpp stage", polymask.stages.get("cython_cpp").load())
speedups()

# %% [markdown]
# ## The conversion shows in a profile
# Every call copies the vertices into a new C++ `Polygon`. On one big image that is
# nothing; on many small tiles of the same polygon it is most of the time:

# %%
import time

tile = (16, 16)
start = time.perf_counter()
for _ in range(2000):
    wrapped_mask(vertices, tile)
print(f"2000 masks of a 16x16 tile: {(time.perf_counter() - start) * 1e3:.1f} ms")

# %% [markdown]
# Lesson 5 keeps the C++ polygon alive in a `cdef class`. Exercise 04 has you write the
# `cdef extern` block yourself: `polymask check 04 exercises/04_wrap_cpp/mask.pyx`.
# The stage's full source:

# %%
show_source("cython_cpp")
