"""The checks of the arguments beside the polygon: image shape, window, fill rule, all_touched, thread counts.

Each turns what a caller passed into what the compiled core expects, or
raises TypeError / ValueError naming what was received and what was
expected.  The polygon itself is read by the input funnel
(polymask/_inputs.py, polymask/_validation.py).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from polymask import _core
from polymask._describe import describe as _describe
from polymask._describe import short_repr
from polymask._one_step import MAX_SIDE, shape_is_plain

# MAX_SIDE, the largest accepted image side (2**31 - 1; kept in _one_step): row and column
# numbers must stay exact in float64 and the window arithmetic in int64; this keeps both
# with plenty of margin while allowing masks far beyond any single machine.

#: Largest accepted thread count (1024, also kept in _core).  Counts up to
#: it are upper bounds that the core caps at a few threads per CPU
#: (build_info()["thread_cap"]); larger ones are taken for mistakes.
MAX_THREADS = _core.MAX_THREADS


def as_integer(value: Any, what: str) -> int:
    """`value` as a Python int (NumPy integers too); TypeError naming `what` otherwise.

    Booleans are refused although Python counts them as integers: a True
    where a size belongs is a bug, not a 1.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {short_repr(value)}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {_describe(value)}") from None


def as_shape(shape: Any, name: str = "shape") -> tuple[int, int]:
    """Return `shape` as (rows, cols), both integers in [1, MAX_SIDE]."""
    if shape_is_plain(shape):  # the common case, checked in one step
        return shape  # type: ignore[no-any-return]  # a tuple of two ints, as the test says
    dimensions = getattr(shape, "ndim", None)
    if isinstance(dimensions, int) and dimensions >= 2:  # the image itself, not its shape
        raise TypeError(f"{name} must be a (rows, cols) pair of integers, got an image (an array of shape "
                        f"{tuple(shape.shape)}); pass image.shape (image.shape[:2] for a color image)")
    try:
        sides = tuple(shape)
    except TypeError:
        raise TypeError(f"{name} must be a (rows, cols) pair of integers, got {_describe(shape)}") from None
    if len(sides) != 2:
        raise ValueError(f"{name} must be a (rows, cols) pair, got {len(sides)} values: {short_repr(sides)}")
    checked = []
    for label, side in zip(("rows", "cols"), sides):
        side = as_integer(side, f"{name} {label}")
        if side < 1:
            raise ValueError(f"{name} {label} must be at least 1, got {side}")
        if side > MAX_SIDE:
            raise ValueError(f"{name} {label} must be at most {MAX_SIDE}, got {side}")
        checked.append(side)
    return checked[0], checked[1]


def checked_thread_count(threads: Any, name: str) -> int:
    """`threads` as an int in [0, MAX_THREADS] (None: 0), or TypeError / ValueError naming it."""
    if threads is None:
        return 0
    if isinstance(threads, (bool, np.bool_)):
        raise TypeError(f"{name} must be None or an integer, got {short_repr(threads)}")
    try:
        count = operator.index(threads)
    except TypeError:
        raise TypeError(f"{name} must be None or an integer, got {_describe(threads)}") from None
    if not 0 <= count <= MAX_THREADS:
        raise ValueError(f"{name} must be between 0 (the default) and {MAX_THREADS}, got {count}")
    return count


#: The fill rules the core knows, by their SVG / canvas names.
FILL_RULES = {"evenodd": _core.EVEN_ODD, "nonzero": _core.NONZERO}


def as_fill_rule(fill_rule: Any) -> int:
    """Return the core's code for `fill_rule`: "evenodd" (the contract) or "nonzero"."""
    try:
        return FILL_RULES[fill_rule]
    except (KeyError, TypeError):
        raise ValueError(f"fill_rule must be one of {', '.join(map(repr, FILL_RULES))}, "
                         f"got {_describe(fill_rule)}") from None


#: all_touched's codes for the compiled layer: off, with the side tolerance, exact
#: (polymask/coverage.pxd: side_tolerance turns them into the core's side_tolerance).
ALL_TOUCHED_CODES = {False: 0, True: 1, "exact": 2}


def as_all_touched(all_touched: Any) -> int:
    """Return the compiled layer's code for `all_touched`: False, True or "exact"."""
    if isinstance(all_touched, (bool, np.bool_)):
        return ALL_TOUCHED_CODES[bool(all_touched)]
    if isinstance(all_touched, str) and all_touched == "exact":
        return ALL_TOUCHED_CODES["exact"]
    raise ValueError(f"all_touched must be True, False or 'exact', got {_describe(all_touched)}")


def as_window(window: Any, shape: tuple[int, int], name: str = "window") -> tuple[int, int, int, int]:
    """Return `window` as (row0, col0, height, width), checked to lie inside `shape`.

    The window is the slice ``[row0:row0 + height, col0:col0 + width]`` of
    the full image; height or width 0 is an empty slice, as in NumPy.
    """
    try:
        parts = tuple(window)
    except TypeError:
        raise TypeError(f"{name} must be a (row0, col0, height, width) tuple of integers, "
                        f"got {_describe(window)}") from None
    if len(parts) != 4:
        raise ValueError(f"{name} must be (row0, col0, height, width), got {len(parts)} values: {short_repr(parts)}")
    checked = []
    for label, value in zip(("row0", "col0", "height", "width"), parts):
        value = as_integer(value, f"{name} {label}")
        if value < 0:
            raise ValueError(f"{name} {label} must be at least 0, got {value}")
        checked.append(value)
    row0, col0, height, width = checked
    rows, cols = shape
    if row0 + height > rows or col0 + width > cols:
        raise ValueError(f"{name} (row0={row0}, col0={col0}, height={height}, width={width}) must lie inside "
                         f"the image of shape {shape}: it reaches row {row0 + height} and column {col0 + width}")
    return row0, col0, height, width


def window_origin(window: Any, shape: tuple[int, int]) -> tuple[int, int, tuple[int, int]]:
    """(row0, col0, result shape) of an optional window of an image of `shape`."""
    if window is None:
        return 0, 0, shape
    row0, col0, height, width = as_window(window, shape)
    return row0, col0, (height, width)
