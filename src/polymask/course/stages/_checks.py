"""The input check every Python-level stage runs at its boundary.

Learners and notebooks call stage functions directly, without
``polymask.mask``'s validation in front, so each stage refuses what it
cannot compute on: anything that is not an (N, 2) array of real numbers.
The typed Cython stages get the same guarantee from their signatures
(``const double[:, ::1]`` refuses other dtypes and layouts with a
ValueError) plus one explicit check of the second dimension, which a
memoryview does not fix.  Non-finite coordinates are the public API's
concern (``polymask._validation``): a stage computes the rule on them.
"""
from __future__ import annotations

import numpy as np


def stage_vertices(vertices) -> np.ndarray:
    """`vertices` as an (N, 2) C-contiguous float64 array; ValueError naming the problem otherwise.

    Free for what ``polymask.mask`` hands a stage (already that array).
    """
    array = np.asarray(vertices)
    if array.size == 0 and array.ndim <= 2 and (array.ndim < 2 or array.shape[1] in (0, 2)):
        return np.zeros((0, 2), dtype=np.float64)  # no vertices: an empty mask, as the contract says
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"vertices must be an (N, 2) array of (x, y) pairs, got shape {array.shape}")
    if array.dtype.kind not in "iuf":
        raise ValueError(f"vertices must hold real numbers (an integer or float dtype), got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float64)
