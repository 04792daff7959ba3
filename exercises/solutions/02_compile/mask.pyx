# cython: language_level=3
"""Exercise 02, compile it: the same Python code, built by Cython.

A .pyx file is Python.  Write `point_inside` and `mask` below as you wrote
them in exercise 01, unchanged, and let the checker compile them (Cython writes C++, the compiler
builds an extension module).  Nothing is typed yet: the speed-up comes
from compilation alone.  Then run `cython -a` on this file (or
`polymask annotate cython_plain`) and look at how yellow it still is.

Check it:  polymask check 02 exercises/02_compile/mask.pyx
"""
import numpy as np


def point_inside(polygon, px, py):
    """True if (px, py) is inside `polygon`, a tuple of (x, y) float tuples."""
    # TODO: the crossing rule of exercise 01, unchanged: a .pyx file is Python.
    # BEGIN SOLUTION
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
    # ELSE STUB
    # raise NotImplementedError("write point_inside: exercise 01's crossing rule, unchanged")
    # END SOLUTION


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    # TODO: turn the vertices into a tuple of (x, y) float tuples once, then ask
    # point_inside about every pixel (x=col, y=row) and return a bool array of `shape`.
    # BEGIN SOLUTION
    polygon = tuple((float(x), float(y)) for x, y in vertices.tolist())
    rows, cols = shape
    inside = [[point_inside(polygon, float(col), float(row)) for col in range(cols)]
              for row in range(rows)]
    return np.array(inside, dtype=bool).reshape(rows, cols)
    # ELSE STUB
    # raise NotImplementedError("write mask: point_inside for every pixel, as in exercise 01")
    # END SOLUTION
