"""Lesson 1, Python with tuples: the algorithm itself, and where to profile.

What it teaches: the mask contract's even-odd crossing rule (PNPOLY) written
as plainly as Python allows.  The polygon is a tuple of (x, y) tuples of
Python floats; `point_inside` walks its edges for one pixel and `mask`
calls it once per pixel.  Run it under cProfile: nearly all the time is in
`point_inside`, and inside it, in creating and unpacking Python objects for
a few floating-point operations each.

This is the first rung, so nothing changed before it.  The next compiled
stage, cython_plain, is this very code (below the docstring) compiled by
Cython unchanged; tests/test_stages.py checks that the two stay identical.
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
