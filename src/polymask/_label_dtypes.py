"""Label dtypes: which types a label image may have, and labels checked to fit one.

Shared by ``polymask.rasterize``, ``polymask.contains`` and the dask label
images, so a value that does not fit its dtype is refused the same way
everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from polymask._describe import describe as _describe
from polymask._outputs import output_dtype

#: The label types the core is compiled for (csrc/src/rasterize.cpp).
LABEL_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.int32, np.uint32, np.int64, np.float32, np.float64))

#: Default label types, smallest first, when neither dtype nor out says.
_DEFAULT_INTEGER_DTYPES: tuple[np.dtype[np.integer[Any]], ...] = tuple(
    np.dtype(t) for t in (np.uint8, np.uint16, np.int32, np.int64)
)


def label_dtype(dtype: Any, out: Any) -> np.dtype[Any] | None:
    """The dtype asked for by `dtype` or `out`, or None to choose from the values."""
    names = ", ".join(str(t) for t in LABEL_DTYPES)
    return output_dtype(dtype, out, LABEL_DTYPES, f"one of {names}", f"one of the dtypes {names}")


def label_values(values: Any, count: int, dtype: np.dtype[Any] | None) -> NDArray[Any]:
    """The P labels as a contiguous array of the label dtype, checked to fit exactly."""
    if values is None:
        numbers = np.arange(1, count + 1, dtype=np.int64)
    else:
        if isinstance(values, (str, bytes)):
            raise TypeError(f"values must be numbers, got {_describe(values)}")
        try:
            numbers = np.asarray(values)
        except (TypeError, ValueError) as error:
            raise TypeError(f"values must be a number or a sequence of {count} numbers: {error}") from None
        if numbers.dtype.kind == "b" or numbers.dtype.kind not in "iuf":
            raise TypeError(f"values must be real numbers, got dtype {numbers.dtype}")
        if numbers.ndim == 0:
            numbers = np.full(count, numbers)
        elif numbers.ndim != 1 or len(numbers) != count:
            raise ValueError(
                f"values must be a scalar or hold one value per polygon ({count}), got shape {numbers.shape}"
            )
    if dtype is None:
        dtype = smallest_dtype(numbers)
    if dtype.kind == "f":
        return np.ascontiguousarray(numbers, dtype=dtype)  # stored rounded to the float type, as NumPy does
    _check_integers_fit(numbers, dtype)
    return np.ascontiguousarray(numbers, dtype=dtype)


def smallest_dtype(numbers: np.ndarray) -> np.dtype:
    """The smallest default label type that holds 0 (the background) and every value."""
    if numbers.dtype.kind == "f" and not np.all(np.isfinite(numbers) & (numbers == np.round(numbers))):
        return np.dtype(np.float64)
    low = min(0, numbers.min()) if len(numbers) else 0
    high = max(0, numbers.max()) if len(numbers) else 0
    for candidate in _DEFAULT_INTEGER_DTYPES:
        info = np.iinfo(candidate)
        if info.min <= low and high <= info.max:
            return candidate
    return np.dtype(np.float64)


def _check_integers_fit(numbers: np.ndarray, dtype: np.dtype) -> None:
    """Integer labels must be stored exactly: no wrap-around, no truncation."""
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        bad = (numbers < info.min) | (numbers > info.max)
        if numbers.dtype.kind == "f":
            bad |= ~np.isfinite(numbers) | (numbers != np.round(numbers))
    if np.any(bad):
        index = int(np.argmax(bad))
        raise ValueError(
            f"values[{index}] = {numbers[index].item()!r} does not fit {dtype} exactly "
            f"(integers in [{info.min}, {info.max}]); pass a wider dtype"
        )
