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
from lesson import (PACKAGE_DIR, SIZE, compared, cython_core_flags, problem, show_source, speedups, time_it, timed,
                    verdict)

# The C++ class the stages use, from the header the package ships (polymask.get_include()):
header = (PACKAGE_DIR / "include" / "polymask" / "core.hpp").read_text()
start = header.index("class POLYMASK_API Polygon")
print(header[start:start + 900])

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

# %% [markdown]
# ## The smallest wrapper
# Declare only what you call. Four lines describe the C++ class to Cython; `except +`
# says the constructor may throw, and Cython turns the C++ exception into a Python one.

# %%
%%cython {flags}
from libc.stdint cimport int64_t

cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    cdef cppclass Polygon:
        Polygon(const double *xy, int64_t n_vertices) except +
        int64_t vertex_count()


def count_vertices(const double[:, ::1] vertices, bint lose_the_pointer=False):
    cdef const double *xy = &vertices[0, 0] if not lose_the_pointer else NULL
    cdef Polygon *polygon = new Polygon(xy, vertices.shape[0])
    try:
        return polygon.vertex_count()
    finally:
        del polygon

# %%
vertices, shape = problem(SIZE)
print("the C++ polygon has", count_vertices(vertices), "vertices")
try:
    count_vertices(vertices, lose_the_pointer=True)  # the constructor throws std::invalid_argument
except ValueError as error:
    print("C++ threw, Python caught:", type(error).__name__, "-", error)

# %% [markdown]
# `std::invalid_argument` arrived as `ValueError`, with the C++ message. Without `except +`
# Cython does not catch it: the C++ exception unwinds into Python's own C code, which
# cannot handle it, and the C++ runtime ends the process. The same four lines without
# `except +`:

# %%
%%cython {flags}
from libc.stdint cimport int64_t

cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    cdef cppclass Polygon:
        Polygon(const double *xy, int64_t n_vertices)  # no except +: a throw is not caught
        int64_t vertex_count()


def count_vertices_unchecked(const double[:, ::1] vertices, bint lose_the_pointer=False):
    cdef const double *xy = &vertices[0, 0] if not lose_the_pointer else NULL
    cdef Polygon *polygon = new Polygon(xy, vertices.shape[0])
    try:
        return polygon.vertex_count()
    finally:
        del polygon

# %% [markdown]
# Calling it here would end this notebook's kernel, so a child process imports the module
# the cell just built and calls it:

# %%
import signal
import subprocess
import sys
from pathlib import Path

built = sys.modules[count_vertices_unchecked.__module__]
child = (f"import sys; import numpy as np; sys.path.insert(0, {str(Path(built.__file__).parent)!r})\n"
         f"import {built.__name__} as built\n"
         "print('fine with a pointer:', built.count_vertices_unchecked(np.zeros((3, 2))), flush=True)\n"
         "built.count_vertices_unchecked(np.zeros((3, 2)), lose_the_pointer=True)\n"
         "print('never printed: the process is gone')\n")
done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
print(done.stdout.strip())
print("stderr:", done.stderr.strip()[-300:])
ending = f"signal {signal.Signals(-done.returncode).name}" if done.returncode < 0 else f"exit code {done.returncode}"
print(f"the child process ended with {ending}: no Python exception, no traceback, no cleanup")

# %% [markdown]
# ## Declarations in a `.pxd` of your own
# Declarations written once belong in a `.pxd` file, beside the C++ header they mirror;
# every `.pyx` that needs them `cimport`s it. A `.pxd` that only declares extern C++ needs
# no module of its own: Cython reads it at build time, and nothing of it exists at run
# time. The cell below writes one to a folder and builds a `.pyx` that cimports it.
# Cython looks for a cimported `.pxd` on its include path (`cythonize(...,
# include_path=[...])`, `cython -I`) and on `sys.path`; a `%%cython` cell uses the latter:

# %%
import tempfile

pxd_dir = Path(tempfile.mkdtemp(prefix="my_pxd_"))
(pxd_dir / "my_core.pxd").write_text('''from libc.stdint cimport int64_t

cdef extern from "polymask/core.hpp" namespace "polymask" nogil:
    cdef cppclass Polygon:
        Polygon(const double *xy, int64_t n_vertices) except +
        int64_t vertex_count()
''')
print((pxd_dir / "my_core.pxd").read_text())
sys.path.insert(0, str(pxd_dir))

# %%
%%cython {flags}
from my_core cimport Polygon


def vertices_via_my_pxd(const double[:, ::1] vertices):
    cdef Polygon *polygon = new Polygon(&vertices[0, 0], vertices.shape[0])
    try:
        return polygon.vertex_count()
    finally:
        del polygon

# %%
print("through my_core.pxd, the C++ polygon has", vertices_via_my_pxd(vertices), "vertices")

# %% [markdown]
# ## The standard library: `libcpp`
# Cython ships declarations for much of the C++ standard library under `libcpp`:
# `cimport` them, and a `std::vector` is a local variable like any other. A
# `vector[double]` returned to Python becomes a list, converted by Cython. The cell below
# collects where the polygon's edges cross one row (the contract's `x_cross`, which
# lesson 8 builds on) into a vector and sorts it with `std::sort`:

# %%
%%cython --cplus
from libcpp.algorithm cimport sort
from libcpp.vector cimport vector


def row_crossings(const double[:, ::1] vertices, double py):
    cdef vector[double] found
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            found.push_back((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                            / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
        j = i
    sort(found.begin(), found.end())
    return found  # a vector[double] becomes a Python list of floats

# %%
row = shape[0] // 2
crossings = row_crossings(vertices, row)
print(f"row {row}: {len(crossings)} crossings, a {type(crossings).__name__}:", [round(x, 2) for x in crossings])
# The same crossings, computed by NumPy in the same order of operations: equal, not close.
xi, yi = vertices[:, 0], vertices[:, 1]
xj, yj = np.roll(xi, 1), np.roll(yi, 1)
meets = (yi > row) != (yj > row)
assert crossings == sorted((xj[meets] - xi[meets]) * (row - yi[meets]) / (yj[meets] - yi[meets]) + xi[meets])

# %% [markdown]
# polymask's own `polymask/core.pxd` declares the whole header this way (more functions,
# and a custom translator for Ctrl-C); the next cell cimports it.

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


# The same work split in two, visible to cProfile (see "The conversion in a profile").
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
assert np.array_equal(wrapped_mask(vertices, shape), polymask.mask(vertices, shape))

time_it("cython_typed", polymask.course.stages.get("cython_typed").load())
time_it("wrapped C++ (%%cython above)", wrapped_mask)
time_it("cython_cpp stage", polymask.course.stages.get("cython_cpp").load())
speedups()
typed, wrapped = timed("cython_typed"), timed("wrapped C++ (%%cython above)")
verdict(f"the wrapped C++ loop took {wrapped.seconds * 1e3:.2f} ms, cython_typed {typed.seconds * 1e3:.2f} ms "
        "(2014: 3.6 s to 0.270 s for this step)", compared("the wrapped C++ loop", "cython_typed",
                                                          typed.seconds / wrapped.seconds), typed, wrapped)

# %%
from pictures import show, timing_bars

timing_bars({label: timed(label) for label in ("cython_typed", "wrapped C++ (%%cython above)", "cython_cpp stage")},
            f"{SIZE}x{SIZE}, 24 vertices: the typed loop and the wrapped C++ loop", "wrap_timings.png")
show("wrap_timings.png")

# %% [markdown]
# ## The conversion in a profile
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
stats = pstats.Stats(profiler).sort_stats("tottime")
stats.print_stats(5);
own_seconds = {name: values[2] for (_, _, name), values in stats.stats.items()}
share = own_seconds["convert"] / sum(own_seconds.values())
print(f"convert: {share:.1%} of the profiled time, fill_pixels: "
      f"{own_seconds['fill_pixels'] / sum(own_seconds.values()):.1%}")

# %% [markdown]
# The last line gives the conversion's share of every 16x16 tile's time. With 24 vertices
# it is a small share, and it moves from run to run on a busy machine; but it is paid
# again for every tile although the polygon never changes, and on one big image the
# `fill_pixels` row swamps it entirely. The profiler itself costs time too (lesson 1):
# the same 2000 tiles, timed without it, through `wrapped_mask` (which releases the GIL)
# and through `profiled_mask`:

# %%
from lesson import alternated_measured

tiles = alternated_measured({"wrapped_mask": lambda: [wrapped_mask(vertices, tile) for _ in range(2000)],
                             "profiled_mask": lambda: [profiled_mask(vertices, tile) for _ in range(2000)]}, rounds=7)
for name, value in tiles.items():
    print(f"  2000 tiles through {name}: {value.seconds * 1e3:8.2f} ms (median of 7, alternated)")
ratio = tiles["profiled_mask"].seconds / tiles["wrapped_mask"].seconds
verdict(f"profiled_mask / wrapped_mask = {ratio:.2f} on 2000 tiles",
        compared("wrapped_mask", "profiled_mask", ratio), *tiles.values())

# %% [markdown]
# ## What this rung is for
# The timing table above puts the wrapped C++ loop beside `cython_typed`, and the verdict
# under it says how they compared on this run. Our typed stage already compiles to a C
# loop over the same arithmetic (lesson 3's picture shows its inner loop white), so calling
# the C++ core per pixel does the same work. The 2014 notes give 3.6 s → 0.270 s for this
# step. What this rung teaches is how to use a C++ library.
#
# Lesson 5 keeps the C++ polygon alive in a `cdef class`. Exercise 04 has you write the
# `cdef extern` block yourself: `polymask check 04 exercises/04_wrap_cpp/mask.pyx`.
# The stage's full source:

# %%
show_source("cython_cpp")
