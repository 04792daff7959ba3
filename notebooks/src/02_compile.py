# %% [markdown]
# # Lesson 2 — Compile it
#
# A `.pyx` file is Python. Cython translates it to C (or C++), the compiler builds an
# extension module, and Python imports it like any other. Without a single type
# declaration every value is still a Python object, but the interpreter's bytecode
# dispatch is gone. The 2014 course measured **4x** for this alone; the timings below
# give this machine's figure.
#
# In a notebook, `%%cython` does the whole build for a cell.

# %%
import numpy as np

import polymask
from polymask.course.stages import python_tuples
from lesson import SLOW_SIZE, compared, problem, speedups, time_it, timed, verdict

%load_ext Cython

# %% [markdown]
# ## The Python code, compiled unchanged
# This cell is the pure-Python stage, character for character:

# %%
%%cython
import numpy as np


def point_inside(polygon, px, py):
    inside = False
    j = len(polygon) - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > py) != (yj > py):
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def compiled_mask(vertices, shape):
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[point_inside(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)

# %% [markdown]
# Same mask, bit for bit (the arithmetic is still Python's float arithmetic):

# %%
vertices, shape = problem(SLOW_SIZE)
assert np.array_equal(compiled_mask(vertices, shape), polymask.mask(vertices, shape))

# %%
time_it("python (tuples)", python_tuples.mask, slow=True)
time_it("cython, compiled unchanged (%%cython)", compiled_mask, slow=True)
time_it("cython_plain stage (built by CMake)", polymask.course.stages.get("cython_plain").load(), slow=True)
speedups()
python, compiled = timed("python (tuples)"), timed("cython, compiled unchanged (%%cython)")
ratio = python.seconds / compiled.seconds
verdict(f"compiling unchanged gave {ratio:.1f}x (2014: 4x)",
        compared("the compiled code", "pure Python", ratio), python, compiled)

# %% [markdown]
# ## Reading `cython -a`
# `%%cython -a` (or `cython -a file.pyx`, or `polymask annotate cython_plain`) shows the
# C Cython wrote: the yellower a line, the more Python C-API calls it makes. Below, the
# `cython_plain` stage (this lesson's code) beside the typed stage of lesson 3, shaded
# the way `cython -a` shades them, with the count of yellow lines printed on each side.

# %%
from lesson import stage_code
from pictures import annotation_pair, annotation_scores, show

counts = annotation_pair(stage_code("cython_plain"), stage_code("cython_typed"),
                         ("cython_plain: Python compiled unchanged", "cython_typed (lesson 3)"), "annotation.png")
show("annotation.png")
for name, (yellow, code) in zip(("cython_plain", "cython_typed"), counts):
    print(f"{name}: {yellow} of {code} code lines call into Python")

# %% [markdown]
# In the compiled-unchanged code most lines are yellow (the counts are printed under the
# picture): unpacking tuples, comparing and computing `x_cross` still go through Python
# objects, a new Python float per result. The shade counts the Python C-API calls Cython
# wrote for a line, not how often the line runs: a line run once per call can be as
# yellow as one run once per pixel. The most yellow lines of `cython_plain`:

# %%
scored = [(score, line.strip()) for line, score in annotation_scores(stage_code("cython_plain")) if score]
for score, line in sorted(scored, reverse=True)[:5]:
    print(f"{score:4d} C-API calls: {line[:70]}")

# %% [markdown]
# So `cython -a` says *which* lines still use Python; lesson 1's profile says *where the
# time goes*. Read the two together: the lines to type first are yellow **and** inside
# the pixel loop. Lesson 3 removes that yellow with types; the lines left yellow there run
# once per call, not once per pixel.
#
# ## Outside a notebook
# A `.pyx` is built with `cythonize` (setuptools) or, in this project, CMake
# (`cython_transpile` + `python_add_library`, see `cmake/PolymaskCython.cmake`).
# In exercise 02 you write the module and the checker builds it:
# `polymask check 02 exercises/02_compile/mask.pyx` runs `Cython.Build.cythonize` and
# setuptools on your file, then checks and times it. Exercise 06d has you write such a
# build yourself: a `setup.py` that asks for C++, OpenMP and optimisation.
