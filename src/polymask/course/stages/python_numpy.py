"""Lesson 1, Python with NumPy scalars: the course's cautionary example.

What it teaches: NumPy is fast on whole arrays, not on single elements.
This is the pure-Python stage with one change: instead of converting the
vertices to tuples of floats once, `point_inside` indexes the NumPy array
element by element (``vertices[i, 1]``) and writes the result pixel by
pixel into a NumPy array.  Every index creates a NumPy scalar object, and
each operation on NumPy scalars (dtype checks, casting rules, error-state
handling) costs several times what it costs on a Python float, so this
stage is *slower* than Python with tuples (the 2014 course measured 450 s
against 36 s).  Profile both and compare.

What changed from the stage before (python): tuples of floats became a
NumPy array read one element at a time.
"""
import numpy as np

from polymask.course.stages._checks import stage_vertices


def point_inside(vertices, px, py):
    """True if (px, py) is inside the polygon of `vertices`, an (N, 2) array."""
    inside = False
    n = vertices.shape[0]
    j = n - 1  # edge (i, j) runs from the previous vertex j = i - 1
    for i in range(n):
        if (vertices[i, 1] > py) != (vertices[j, 1] > py):
            x_cross = ((vertices[j, 0] - vertices[i, 0]) * (py - vertices[i, 1])
                       / (vertices[j, 1] - vertices[i, 1]) + vertices[i, 0])
            if px < x_cross:
                inside = not inside
        j = i
    return inside


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers
    rows, cols = shape
    result = np.zeros((rows, cols), dtype=bool)
    # Far-out vertices overflow to inf, as the contract allows; NumPy would warn.
    with np.errstate(all="ignore"):
        for row in range(rows):
            for col in range(cols):
                result[row, col] = point_inside(vertices, float(col), float(row))
    return result
