# cython: language_level=3
"""Lesson 2, Cython with Python code compiled unchanged: compilation alone.

What it teaches: a .pyx file is Python.  Below this docstring is the
python stage's code (stages/python_tuples.py), character for character;
Cython translates it to C++ and the compiler builds an extension module.
Nothing is typed, so every variable is still a Python object and every
operation still goes through the Python C API, but the interpreter's
bytecode dispatch is gone: a few times faster, for free.  Run
``polymask annotate cython_plain``: almost every line is yellow, which
is where the next stage starts.

What changed from the stage before (python): only the build.
tests/test_stages.py checks that the code below still equals the python
stage's.
"""
import numpy as np

from polymask.course.stages._checks import stage_vertices


def point_inside(polygon, px, py):
    """True if (px, py) is inside `polygon`, a tuple of (x, y) float tuples."""
    inside = False
    j = len(polygon) - 1  # edge (i, j) runs from the previous vertex j = i - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > py) != (yj > py):
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[point_inside(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)
