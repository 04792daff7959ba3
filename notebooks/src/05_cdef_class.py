# %% [markdown]
# # Lesson 5 — A cdef class: state in C space
#
# A `cdef class` is a Python type whose attributes are C fields. polymask's `Polygon`
# holds one pointer to the C++ polygon:
#
# * `__cinit__` builds it once from the vertices — the only NumPy-to-C++ conversion;
# * `__dealloc__` deletes it when the Python object dies;
# * its fields are invisible to Python: no `__dict__`, no monkey-patching; what Python
#   may see is exposed through properties.
#
# `Polygon.mask` then hands the stored polygon to the core's per-pixel fill: the pixel
# loop is C++ too, and no call converts anything.

# %%

import numpy as np

import polymask
from polymask.course.stages.cython_class import Polygon
from lesson import SIZE, busy_note, problem, repeat_seconds, show_source, speedups, spread, time_it

show_source("cython_class")

# %%
vertices, shape = problem(SIZE)
polygon = Polygon(vertices)
print(polygon, polygon.vertex_count)
assert np.array_equal(polygon.mask(shape), polymask.mask(vertices, shape))
try:
    polygon.colour = "red"
except AttributeError as error:
    print("no monkey-patching:", error)

# %% [markdown]
# ## Where the per-call conversion disappears
# The same 2000 tiles as in lesson 4, once converting per call and once reusing one `Polygon`:

# %%
cython_cpp = polymask.course.stages.get("cython_cpp").load()
tile = (16, 16)
per_call = repeat_seconds(lambda: [cython_cpp(vertices, tile) for _ in range(2000)])
reused = repeat_seconds(lambda: [polygon.mask(tile) for _ in range(2000)])
print("2000 tiles, min / median / max of the repeats:")
print(f"  converting every call: {spread(per_call)}")
print(f"  one Polygon reused:    {spread(reused)}")
print(busy_note(per_call + reused))

# %%
time_it("cython_cpp", cython_cpp)
time_it("cython_class (one Polygon per call)", polymask.course.stages.get("cython_class").load())
time_it("cython_class (Polygon reused)", lambda v, s: polygon.mask(s))
speedups()

# %% [markdown]
# Read these numbers honestly. On today's machines the two are usually within a few
# percent: building the C++ polygon costs about a microsecond, against milliseconds of
# per-pixel work on the standard problem and microseconds of Python call overhead on a
# 16x16 tile. The course's 2.3x for this step came from per-call Python-level overhead
# that Cython 3 no longer pays. What survives is the design lesson — keep state next to
# the work, convert once — and the habit of measuring before believing a speed-up.
#
# The 2014 course measured 0.270 s → 0.118 s for this step. Exercise 05 has you write
# `__cinit__` and `__dealloc__`: `polymask check 05 exercises/05_cdef_class/mask.pyx`.
