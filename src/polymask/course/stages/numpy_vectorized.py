"""Side stage (lesson 1, beside the ladder in lesson 9's table), vectorized NumPy: the NumPy way and its memory.

What it teaches: move the loops over pixels out of Python and into NumPy's
whole-array operations; keep a Python loop only over the N edges.  For
each edge, the crossing test and x_cross depend only on the row, so they
are computed once per row (a column vector); comparing every pixel's x
with them broadcasts to a full rows x cols array.  Each edge therefore
allocates and walks several full-image temporaries: fast compared with
Python, but memory-bound, and the memory grows with the image.

What changed from the stages before (python, python_numpy): no per-pixel
Python code at all.  It sits beside the Cython ladder rather than on it
(the 2014 course did not time it): another road to speed.  The
arithmetic is the contract's, one ufunc per operation, so the mask is the
same bit for bit.
"""
import numpy as np

from polymask.course.stages._checks import stage_vertices


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    vertices = stage_vertices(vertices)  # ValueError unless (N, 2) real numbers
    rows, cols = shape
    py = np.arange(rows, dtype=np.float64)[:, None]  # one y per row: a column
    px = np.arange(cols, dtype=np.float64)[None, :]  # one x per column: a row
    inside = np.zeros((rows, cols), dtype=bool)
    # Horizontal edges divide by zero and far-out vertices overflow; the
    # crossing test masks those rows out, so the warnings are noise.
    with np.errstate(all="ignore"):
        for i in range(len(vertices)):
            xi, yi = vertices[i]
            xj, yj = vertices[i - 1]  # j = i - 1; index -1 is the last vertex
            crosses = (yi > py) != (yj > py)
            x_cross = (xj - xi) * (py - yi) / (yj - yi) + xi
            inside ^= crosses & (px < x_cross)  # two rows x cols temporaries per edge
    return inside
