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
# shared library `libpolymask_core` (the very library polymask's own modules link, with the
# run-time path to find it), and `-ffp-contract=off` (no fused multiply-add: the contract is
# bit-exact).

# %%
flags = cython_core_flags()
print(flags)
%load_ext Cython

# %%
%%cython {flags}
# cython: boundscheck=False, wraparound=False
cimport cython
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


# The same work split in two, visible to cProfile (see "The conversion shows in a profile").
@cython.profile(True)
cdef Polygon *convert(const double[:, ::1] vertices) except NULL:
    # The per-call conversion: NumPy's vertices copied into a new C++ polygon.
    return new Polygon(&vertices[0, 0] if vertices.shape[0] > 0 else NULL, vertices.shape[0])


@cython.profile(True)
cdef void fill_pixels(Polygon *polygon, unsigned char[:, ::1] out):
    cdef Py_ssize_t row, col
    for row in range(out.shape[0]):
        for col in range(out.shape[1]):
            out[row, col] = polygon.contains(col, row, FillRule.even_odd)


@cython.profile(True)
def profiled_mask(const double[:, ::1] vertices not None, shape):
    result = np.zeros(shape, dtype=bool)
    cdef Polygon *polygon = convert(vertices)
    try:
        fill_pixels(polygon, result.view(np.uint8))
    finally:
        del polygon
    return result

# %%
vertices, shape = problem(SIZE)
assert np.array_equal(wrapped_mask(vertices, shape), polymask.mask(vertices, shape))

time_it("cython_typed", polymask.course.stages.get("cython_typed").load())
time_it("wrapped C++ (%%cython above)", wrapped_mask)
time_it("cython_cpp stage", polymask.course.stages.get("cython_cpp").load())
speedups()

# %% [markdown]
# ## The conversion shows in a profile
# Every call copies the vertices into a new C++ `Polygon`. To see that in a profile, the
# cell below splits the same code into two `cdef` functions -- `convert` (NumPy's
# vertices into a C++ polygon) and `fill_pixels` (the pixel loop). They were compiled in
# the `%%cython` cell above with `@cython.profile(True)`, which makes a Cython function
# visible to `cProfile` (without it, a compiled function is one opaque call). Profiling
# keeps the GIL, so `profiled_mask` has no `nogil`: it is for reading, not for speed.

# %%
import cProfile
import pstats

assert np.array_equal(profiled_mask(vertices, shape), polymask.mask(vertices, shape))
tile = (16, 16)


def many_tiles():
    for _ in range(2000):
        profiled_mask(vertices, tile)


profiler = cProfile.Profile()
profiler.runcall(many_tiles)
pstats.Stats(profiler).sort_stats("tottime").print_stats(5);

# %% [markdown]
# Read the `convert` row against `fill_pixels`: on a 16x16 tile the conversion is a
# visible share of every call (and the `np.zeros` of the result another), and it is
# repeated for every tile although the polygon never changes. On one big image the
# `fill_pixels` row swamps it. The same 2000 tiles through the fast `wrapped_mask`
# (min / median / max of the repeats):

# %%
from lesson import busy_note, repeat_seconds, spread

tiles = repeat_seconds(lambda: [wrapped_mask(vertices, tile) for _ in range(2000)])
print(f"2000 masks of a 16x16 tile: {spread(tiles)}")
print(busy_note(tiles))

# %% [markdown]
# Lesson 5 keeps the C++ polygon alive in a `cdef class`. Exercise 04 has you write the
# `cdef extern` block yourself: `polymask check 04 exercises/04_wrap_cpp/mask.pyx`.
# The stage's full source:

# %%
show_source("cython_cpp")
