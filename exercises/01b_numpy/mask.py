"""Exercise 01b, vectorised NumPy in bands of rows: fast without Python loops, and bounded memory.

The NumPy way moves the loops over pixels out of Python: one whole-array
expression tests every pixel at once.  Written for the whole image and
every edge at once, the comparison of each pixel's x with each edge's
x_cross is a rows x cols x N array: 1024 x 1024 pixels and 64 edges make
64 MiB of booleans, and more for each temporary beside it.  Memory, not
arithmetic, then decides whether it runs at all.

So work on a band of rows at a time, with the band's height chosen from a
memory budget: each band's temporaries stay within BAND_BYTES however
large the image, and the only full-image array is the mask itself.  The
arithmetic is the contract's, one ufunc per operation, so the mask is the
same bit for bit.

Check it:  polymask check 01b exercises/01b_numpy/mask.py
"""
import numpy as np

#: The most bytes one band's largest temporary may take (a few MiB: far below a whole image's).
BAND_BYTES = 4 * 2**20


def mask(vertices, shape):
    """The mask of `vertices` ((N, 2) array) on an image of `shape` (rows, cols)."""
    rows, cols = shape
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    inside = np.zeros((rows, cols), dtype=bool)
    if len(vertices) == 0 or cols == 0:
        return inside
    # TODO (see README.md, section "Procedure"): for each band of rows, compute the band's
    # crossings with every edge as arrays, count per pixel how many crossings lie to its
    # right, and write the parity into inside[top:bottom].  Keep each band's temporaries
    # within BAND_BYTES, and use the contract's arithmetic in the contract's order.
    return inside
