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
from lesson import SIZE, compared, measure, problem, show_source, speedups, spread, time_it, timed, verdict

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
try:
    Polygon(np.zeros((4, 3)))  # __cinit__ raises before it allocates: __dealloc__ deletes NULL
except ValueError as error:
    print("a failing __cinit__:", error)

# %% [markdown]
# ## Methods and attributes: what Python may see
# In a `cdef class`, a `cdef` method is a C call that only Cython code can make; a `cpdef`
# method is callable from both; an attribute is invisible to Python unless declared
# `readonly` (Python may read it) or `public` (read and write). A small class that counts
# the pixels of masks shows each:

# %%
%load_ext Cython

# %%
%%cython
# cython: boundscheck=False, wraparound=False
cdef class PixelCounter:
    cdef readonly long pixels  # Python may read it
    cdef public long masks     # Python may read and write it
    cdef long rows_seen        # C only

    cdef void add_row(self, const unsigned char[::1] row) noexcept:  # a C call: Cython only
        cdef Py_ssize_t col
        for col in range(row.shape[0]):
            self.pixels += row[col]
        self.rows_seen += 1

    cpdef long count(self, const unsigned char[:, ::1] mask):  # from Python and, fast, from Cython
        cdef Py_ssize_t row
        for row in range(mask.shape[0]):
            self.add_row(mask[row])
        self.masks += 1
        return self.pixels

# %%
counter = PixelCounter()
print("count():", counter.count(polygon.mask(shape).view(np.uint8)), "| pixels:", counter.pixels,
      "| masks:", counter.masks)
counter.masks = 0
print("public masks, set from Python:", counter.masks)
for attempt in ("counter.pixels = 0", "counter.rows_seen", "counter.add_row"):
    try:
        exec(attempt)
    except AttributeError as error:
        print(f"{attempt}: AttributeError: {error}")

# %% [markdown]
# ## A leak made and found
# A `cdef class` that holds a C pointer owns what it points to. When the Python object
# dies, Python frees the object's own memory, never the C++ polygon behind the pointer:
# that is `__dealloc__`'s job. The core counts the C++ polygons alive in the process,
# with their vertices and bytes (`polygon_census()`, the counter exercise 05's checker
# reads). Two classes, the same but for `__dealloc__`:

# %%
from lesson import cython_core_flags

flags = cython_core_flags()

# %%
%%cython {flags}
from polymask.core cimport Polygon as CorePolygon, polygon_census


def census():
    """The C++ polygons alive in this process: polygons, vertices, bytes."""
    return polygon_census()


cdef class LeakyPolygon:
    cdef CorePolygon *polygon

    def __cinit__(self, const double[:, ::1] xy):
        self.polygon = new CorePolygon(&xy[0, 0], xy.shape[0])
    # no __dealloc__: the pointer dies with the object, the C++ polygon does not


cdef class FixedPolygon:
    cdef CorePolygon *polygon

    def __cinit__(self, const double[:, ::1] xy):
        self.polygon = new CorePolygon(&xy[0, 0], xy.shape[0])

    def __dealloc__(self):
        del self.polygon

# %%
from polymask.course.problems import random_polygon

ten_thousand = np.ascontiguousarray(random_polygon(10_000, 64, seed=5))


def still_alive(cls, count=100):
    """Make and drop `count` objects of `cls`; what the census gained meanwhile."""
    start = census()
    for _ in range(count):
        polygon = cls(ten_thousand)
        del polygon  # the last reference: the object dies here
    end = census()
    return {key: end[key] - start[key] for key in end}


def report(label, change):
    print(f"{label}: still alive after 100 made and dropped: {change['polygons']} polygons, "
          f"{change['vertices']:,} vertices, {change['bytes']:,} bytes")


leaked = still_alive(LeakyPolygon)
report("LeakyPolygon", leaked)
print(f"  that is {leaked['bytes'] / leaked['vertices']:.0f} bytes per vertex leaked per object")

# %% [markdown]
# Found: every object left its polygon behind, all 10,000 vertices of it. The fix is the
# `__dealloc__` of `FixedPolygon`; the same loop now leaves the count where it was:

# %%
fixed = still_alive(FixedPolygon)
report("FixedPolygon", fixed)
report("the stage's Polygon", still_alive(Polygon))
assert fixed == {"polygons": 0, "vertices": 0, "bytes": 0}
print("the 100 leaked polygons are still counted, and nothing can free them now:", census()["polygons"] >= 100)

# %% [markdown]
# The leaked ones stay for the life of the process: their only pointers died with their
# objects. Over time, the memory the live C++ polygons hold, read from the census after
# each object is made and dropped, 200 of each class:

# %%
from pictures import memory_over_time, show


def held_over_time(cls, count=200):
    """Bytes held by live C++ polygons (beyond those at the start) after each object made and dropped."""
    start = census()["bytes"]
    held = []
    for _ in range(count):
        polygon = cls(ten_thousand)
        del polygon
        held.append(census()["bytes"] - start)
    return held


series = {"LeakyPolygon (no __dealloc__)": held_over_time(LeakyPolygon),
          "FixedPolygon (__dealloc__ deletes it)": held_over_time(FixedPolygon)}
memory_over_time(series, "leak.png")
show("leak.png")
for label, held in series.items():
    print(f"{label}: {held[-1] / 2**20:.2f} MiB held after {len(held)} objects")

# %% [markdown]
# The leaky line climbs by the same step with every object, for as long as the program
# makes them; the fixed one stays flat. Exercise 05's checker makes and drops your `Polygon` at random sizes and reads
# this census around each one, so a class that leaks only sometimes fails too.

# %% [markdown]
# This stage changes two things at once: the polygon is built once and kept, and the pixel
# loop moves into the core's `fill_per_pixel`. The tiles below isolate the first; the
# full-image timings after them show both together.

# %% [markdown]
# ## What keeping the polygon saves
# First the conversion alone: building one C++ polygon from the vertices. Then the same
# 2000 tiles as in lesson 4, once converting per call and once reusing one `Polygon`:

# %%
build = measure(lambda: Polygon(vertices))
print(f"one Polygon(vertices), {len(vertices)} vertices: {spread([value * 1e3 for value in build.wall])[:-3]} µs")

# %%
from lesson import alternated_measured

cython_cpp = polymask.course.stages.get("cython_cpp").load()
tile = (16, 16)
tiles = alternated_measured({"converting every call": lambda: [cython_cpp(vertices, tile) for _ in range(2000)],
                             "one Polygon reused": lambda: [polygon.mask(tile) for _ in range(2000)]}, rounds=9)
for name, value in tiles.items():
    print(f"  2000 tiles, {name:>21}: {spread(value.wall)} (min / median / max of 9, alternated)")
saving_bound = 2000 * build.seconds
saved = tiles["converting every call"].seconds - tiles["one Polygon reused"].seconds
verdict(f"2000 tiles converting every call took {abs(saved) * 1e3:.2f} ms {'more' if saved >= 0 else 'less'} "
        f"than reusing one Polygon; the 2000 conversions cost at most {saving_bound * 1e3:.2f} ms",
        compared("reusing one Polygon", "converting every call",
                 tiles["converting every call"].seconds / tiles["one Polygon reused"].seconds)
        if -0.1 * saving_bound <= saved <= 1.1 * saving_bound
        else "the difference lies outside what the conversions cost: it is not the conversion but the rest of the "
        "two calls' work (a function against a method, each with its own result) or the machine",
        build, *tiles.values())

# %%
time_it("cython_cpp", cython_cpp)
time_it("cython_class (one Polygon per call)", polymask.course.stages.get("cython_class").load())
time_it("cython_class (Polygon reused)", lambda v, s: polygon.mask(s))
speedups()
per_call, kept = timed("cython_cpp"), timed("cython_class (Polygon reused)")
verdict(f"on one {SIZE}x{SIZE} image, the kept Polygon took {kept.seconds * 1e3:.2f} ms, cython_cpp "
        f"{per_call.seconds * 1e3:.2f} ms (2014: 0.270 s to 0.118 s for this step)",
        compared("the kept Polygon", "cython_cpp", per_call.seconds / kept.seconds), per_call, kept)

# %% [markdown]
# Read these numbers against each other. Building the C++ polygon costs the microseconds
# printed first, so converting once can save at most the bound printed in the tiles'
# verdict. A measured difference above that bound, or below zero, is not the conversion:
# the two calls differ in more than it (a module function against a method, each making
# its own result), and on a busy machine the two timings differ by noise of either sign,
# often more than the conversion could explain. A difference that keeps its sign on a
# quiet machine is the rest of the calls' work; one that flips from run to run is noise. On one big image (the table just above)
# the conversion is a far smaller share still. The 2014 notes give 0.270 s → 0.118 s for this step. What
# survives on any machine is the design lesson — keep state next to the work, convert
# once — and the habit of measuring before believing a speed-up.
#
# Exercise 05 has you write `__cinit__`, `__dealloc__` and the loop of `Polygon.mask`:
# `polymask check 05 exercises/05_cdef_class/mask.pyx`.
