"""The one allocator: every array a public function returns, new or the caller's ``out=``.

A guarantee written once holds everywhere: a result that cannot be
allocated raises MemoryError naming its size and the way out; an ``out=``
is checked whole (type, dtype, shape, layout, writable) before the first
byte is written, so a refused call leaves it exactly as it was.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from polymask._describe import describe
from polymask._one_step import mask_out_ready

#: The way out named when a whole mask does not fit in memory.
MASK_HINT = "fill it in windows, or use polymask.dask for masks larger than memory"

_MASK_DTYPES = (np.dtype(bool), np.dtype(np.uint8))


def cannot_allocate(shape: tuple[int, ...], itemsize: int, what: str, hint: str) -> MemoryError:
    """The MemoryError for an array of `shape` that could not be allocated: its size, and `hint`."""
    gigabytes = float(np.prod(shape, dtype=np.float64)) * itemsize / 1e9
    sides = "x".join(str(side) for side in shape)
    return MemoryError(f"cannot allocate a {sides} {what} ({gigabytes:.1f} GB); {hint}")


#: Bytes the core holds per polygon edge while it fills (its Edge record: six doubles and a winding).
EDGE_BYTES = 56


def fill_memory_error(shape: tuple[int, ...], vertex_count: int, what: str, hint: str) -> MemoryError:
    """The MemoryError of a fill that ran out of memory: the result's or the edges' share, whichever is larger."""
    result_bytes = int(np.prod(shape, dtype=np.float64))
    edge_bytes = vertex_count * EDGE_BYTES
    if result_bytes >= edge_bytes:
        return cannot_allocate(shape, 1, what, hint)
    sides = "x".join(str(side) for side in shape)
    return MemoryError(f"cannot fill a {sides} {what}: the polygon's {vertex_count:,} edges need about "
                       f"{edge_bytes / 1e9:.1f} GB of working memory ({EDGE_BYTES} bytes each), more than is free; "
                       "simplify the polygon (fewer vertices) or free memory")


def result_array(out: Any, shape: tuple[int, ...], dtype: DTypeLike = bool, *, zeroed: bool = False, what: str = "mask",
                 hint: str = MASK_HINT, out_kinds: str = "", axes: str = "", fill_value: Any = None) -> np.ndarray:
    """A new `dtype` array of `shape` (zeros if `zeroed`, else `fill_value` if given), or `out` checked.

    `what` names the array and `hint` the way out in the MemoryError
    ("cannot allocate a 5x5 float64 coverage raster (...); `hint`").  For
    bool results `out` may be bool or uint8 (a mask's bytes); for other
    dtypes the caller has checked `out`'s dtype (output_dtype) and
    `out_kinds` completes "out must be a NumPy array" in the TypeError.
    `axes` names the dimensions in a shape error, e.g. " (polygons, rows, cols)".
    """
    if dtype is bool and out is not None and mask_out_ready(out, shape):
        return out  # type: ignore[no-any-return]  # a mask's out= that passes every check below, in one step
    dtype = np.dtype(dtype)
    if out is None:
        new = new_array(shape, dtype, zeroed, what, hint)
        if fill_value is not None:
            new.fill(fill_value)
        return new
    if dtype == np.dtype(bool):
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a NumPy array of bool or uint8, got {describe(out)}")
        if out.dtype not in _MASK_DTYPES:
            raise TypeError(f"out must have dtype bool or uint8, got {out.dtype}")
    elif not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a NumPy array{out_kinds}, got {describe(out)}")
    check_out_layout(out, shape, axes)
    return out


def new_array(shape: tuple[int, ...], dtype: np.dtype[Any], zeroed: bool, what: str, hint: str) -> np.ndarray:
    """result_array's new array, for a caller that has its NumPy dtype already (the bindings' fast path)."""
    try:
        return (_zeros if zeroed else _empty)(shape, dtype=dtype)
    except (MemoryError, ValueError, OverflowError):  # NumPy: "array is too big", or a size past int64
        label = what if dtype == _BOOL else f"{dtype} {what}"
        raise cannot_allocate(shape, dtype.itemsize, label, hint) from None


_zeros, _empty, _BOOL = np.zeros, np.empty, np.dtype(bool)


def check_out_layout(out: np.ndarray, shape: tuple[int, ...], axes: str = "") -> None:
    """`out` has exactly `shape`, is C-contiguous and writable, or ValueError says which not."""
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape}{axes}, got {out.shape}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous (row-major, no strides); got a non-contiguous array")
    if not out.flags.writeable:
        raise ValueError("out must be writable; got a read-only array")


def output_dtype(dtype: Any, out: Any, allowed: tuple[np.dtype[Any], ...], dtype_rule: str,
                 out_rule: str) -> np.dtype[Any] | None:
    """The dtype asked for by `dtype` or by `out` (which must agree), one of `allowed`; None if neither says.

    dtype_rule and out_rule complete the messages "dtype must be ..." and
    "out must have ...", e.g. "float64, float32 or uint8" and "dtype float64,
    float32 or uint8".
    """
    if dtype is not None:
        try:
            chosen: np.dtype[Any] = np.dtype(dtype)
        except (TypeError, ValueError, RecursionError):
            raise TypeError(f"dtype must be a NumPy dtype, got {describe(dtype)}") from None
        if chosen not in allowed:
            raise TypeError(f"dtype must be {dtype_rule}, got {chosen}")
        if isinstance(out, np.ndarray) and out.dtype != chosen:
            raise TypeError(f"dtype {chosen} disagrees with out's dtype {out.dtype}; pass one or make them equal")
        return np.dtype(chosen)
    if isinstance(out, np.ndarray):
        if out.dtype not in allowed:
            raise TypeError(f"out must have {out_rule}, got {out.dtype}")
        return np.dtype(out.dtype)
    return None
