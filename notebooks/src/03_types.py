# %% [markdown]
# # Lesson 3 — Types, memoryviews and directives
#
# Tell Cython the C types and it writes C:
#
# * `cdef` locals: `Py_ssize_t` indices, `double` coordinates, `bint` flags;
# * typed memoryviews, `const double[:, ::1]`: an element access is a pointer offset;
# * a `cdef` function with a C return type, `noexcept nogil`: a plain C call;
# * directives: `boundscheck=False` and `wraparound=False` drop index checks (an index
#   out of range is now undefined behaviour, not an `IndexError`), `cdivision=True` drops
#   the division-by-zero check (safe here: an edge that crosses the row has `y[j] != y[i]`).
#
# The 2014 course measured **10x** over pure Python; the timings below give this machine's
# figure. Run the next cell and click the lines of the annotation: the lines of
# `point_inside` and the pixel loop are white.

# %%
import numpy as np

import polymask
from polymask.course.stages import python_tuples
from lesson import SIZE, SLOW_SIZE, compared, problem, speedups, time_it, timed, verdict

%load_ext Cython

# %%
%%cython -a
# cython: boundscheck=False, wraparound=False, cdivision=True
import numpy as np


cdef bint point_inside(const double[:, ::1] vertices, double px, double py) noexcept nogil:
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    cdef double x_cross
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def typed_mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = point_inside(vertices, col, row)
    return result

# %% [markdown]
# Checked against the contract, then timed. The plain stages run on a smaller image and
# are scaled up; the typed one runs on the full image.

# %%
vertices, shape = problem(SIZE)
assert np.array_equal(typed_mask(vertices, shape), polymask.mask(vertices, shape))

time_it("python (tuples)", python_tuples.mask, slow=True)
time_it("cython_plain", polymask.course.stages.get("cython_plain").load(), slow=True)
time_it("typed (%%cython above)", typed_mask)
time_it("cython_typed stage", polymask.course.stages.get("cython_typed").load())
speedups()
python, typed = timed("python (tuples)"), timed("typed (%%cython above)")
verdict(f"the typed code gave {python.seconds / typed.seconds:.0f}x over pure Python (2014: 10x)",
        compared("the typed code", "pure Python", python.seconds / typed.seconds), python, typed)

# %% [markdown]
# ## What the directives remove
# The `cython_typed` stage as it is, beside the same file with the three directives
# turned back on (`boundscheck=True, wraparound=True, cdivision=False`), each line shaded
# as `cython -a` shades it:

# %%
from lesson import stage_code
from pictures import annotation_pair, show

typed = stage_code("cython_typed")
header = typed.splitlines()[0]
checked = typed.replace(header, "# cython: language_level=3, boundscheck=True, wraparound=True, cdivision=False", 1)
counts = annotation_pair(typed, checked, ("directives off: no checks", "directives on: every index and "
                                          "division checked"), "directives.png")
show("directives.png")
for name, (yellow, code) in zip(("checks off", "checks on"), counts):
    print(f"{name}: {yellow} of {code} code lines call into Python")

# %% [markdown]
# With the checks on, the index and division lines turn yellow: each may now raise
# `IndexError` or `ZeroDivisionError`, and raising takes Python. With
# `boundscheck=False`, reading `vertices[N, 0]` reads whatever memory lies there: buggy
# code stops raising and starts lying.
#
# What do the checks cost correct code? The typed cell again, with the three directives
# turned back on, checked against the same mask and timed beside the fast one:

# %%
%%cython
# cython: boundscheck=True, wraparound=True, cdivision=False
import numpy as np


cdef bint point_inside_checked(const double[:, ::1] vertices, double px, double py) except -1 nogil:
    cdef bint inside = False
    cdef Py_ssize_t i, j = vertices.shape[0] - 1
    cdef double x_cross
    for i in range(vertices.shape[0]):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def checked_mask(const double[:, ::1] vertices not None, shape):
    cdef Py_ssize_t rows = shape[0], cols = shape[1], row, col
    result = np.zeros((rows, cols), dtype=bool)
    cdef unsigned char[:, ::1] out = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = point_inside_checked(vertices, col, row)
    return result

# %%
from lesson import alternated_measured

assert np.array_equal(checked_mask(vertices, shape), typed_mask(vertices, shape))
checks = alternated_measured({"checks off": lambda: typed_mask(vertices, shape),
                              "checks on": lambda: checked_mask(vertices, shape)}, rounds=11)
for name, value in checks.items():
    print(f"  {name}: {value.seconds * 1e3:8.3f} ms (median of 11, alternated)")
cost = checks["checks on"].seconds / checks["checks off"].seconds
verdict(f"the same mask bit for bit; with the checks on the loop took {cost:.2f}x the time",
        f"the checks cost {cost - 1:.0%} here" if cost >= 1.1 else "the checks cost nothing measurable here"
        if cost > 1 / 1.1 else "the checked loop came out faster, which the checks cannot cause: noise or code layout",
        *checks.values())

# %% [markdown]
# The answer is the same either way: on correct code the checks can change the speed (the
# line above says by how much on this run), never the result. Keep them on while developing (or in tests) and turn them off where the loop
# is proven. (`point_inside_checked` is declared `except -1`: with `boundscheck=True` it may
# raise `IndexError`, and a `noexcept` function could not pass that on.)
#
# ## Pure-Python mode and fused types
# The same types can be written as Python annotations and decorators from the `cython`
# module (*pure-Python mode*): the file stays valid Python syntax, so Python's own tools
# (linters, formatters, editors) read it, and it compiles to the same C. A *fused type* lists several C types; Cython writes
# one specialisation per type and picks it from the argument, so one function takes
# float32 and float64 vertices without a copy. Below, the typed loop in that style, its
# arithmetic in double whatever the input's type:

# %%
%%cython
# cython: boundscheck=False, wraparound=False, cdivision=True
import cython
import numpy as np

real = cython.fused_type(cython.float, cython.double)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def inside_pure(vertices: real[:, ::1], px: cython.double, py: cython.double) -> cython.bint:
    inside: cython.bint = False
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t = vertices.shape[0] - 1
    xi: cython.double
    yi: cython.double
    xj: cython.double
    yj: cython.double
    for i in range(vertices.shape[0]):
        xi, yi, xj, yj = vertices[i, 0], vertices[i, 1], vertices[j, 0], vertices[j, 1]
        if (yi > py) != (yj > py):
            if px < (xj - xi) * (py - yi) / (yj - yi) + xi:
                inside = not inside
        j = i
    return inside


def pure_mask(vertices: real[:, ::1], shape):
    rows: cython.Py_ssize_t = shape[0]
    cols: cython.Py_ssize_t = shape[1]
    row: cython.Py_ssize_t
    col: cython.Py_ssize_t
    result = np.zeros((rows, cols), dtype=bool)
    out: cython.uchar[:, ::1] = result.view(np.uint8)
    for row in range(rows):
        for col in range(cols):
            out[row, col] = inside_pure(vertices, col, row)
    return result

# %%
single = vertices.astype(np.float32)
assert np.array_equal(pure_mask(vertices, shape), typed_mask(vertices, shape))
# float32 vertices, widened to double one by one: the contract's mask of those float32 values.
assert np.array_equal(pure_mask(single, shape), polymask.mask(single.astype(np.float64), shape))
print("specialisations:", sorted(pure_mask.__signatures__))
styles = alternated_measured({"cdef syntax": lambda: typed_mask(vertices, shape),
                              "pure-Python mode": lambda: pure_mask(vertices, shape)}, rounds=11)
pure, cdef_syntax = styles["pure-Python mode"], styles["cdef syntax"]
verdict(f"pure-Python mode took {pure.seconds * 1e3:.3f} ms, the cdef syntax {cdef_syntax.seconds * 1e3:.3f} ms",
        compared("pure-Python mode", "the cdef syntax", cdef_syntax.seconds / pure.seconds), pure, cdef_syntax)

# %% [markdown]
# ## What a memoryview is
# A typed memoryview is a C struct, passed by value: a pointer to the data, and the
# shape, strides and suboffsets for up to 8 dimensions. The cell below asks the C compiler
# how big it is.

# %%
%%cython
cdef extern from *:
    ctypedef struct __Pyx_memviewslice:
        pass


def memoryview_bytes():
    cdef const double[:, ::1] view  # makes Cython emit the struct's definition
    return sizeof(__Pyx_memviewslice)

# %%
print(f"a memoryview argument is a struct of {memoryview_bytes()} bytes")

# %% [markdown]
# `point_inside` takes one as its first argument, rows x cols times. Whether each call
# really copies it is up to the C compiler (a call it inlines copies nothing). The C++ core
# of lesson 4 takes a plain pointer and a count instead; lesson 4's table times the two
# side by side.
# Exercise 03: `polymask check 03 exercises/03_types/mask.pyx`.
