"""The process's shared engines and the profiler.

One :class:`~polymask.opencl.processing.MaskEngine` per device and
precision lives in the one cache (``common.CACHE``): :func:`mask` uses it,
:func:`release` frees the device buffers of all of them.  :func:`profile`
times one mask on its own engine, from OpenCL events.
"""
from __future__ import annotations

import operator
import os
import statistics

import numpy as np

from polymask._describe import short_repr
from polymask._validation import as_shape
from polymask.opencl.common import CACHE, DEVICE_ENV, PYOPENCL_ENV, check_not_forked
from polymask.opencl.discovery import select_device
from polymask.opencl.processing import MaskEngine
from polymask.opencl.programs import DEFAULT_KERNEL, chosen_kernel


def engine(device=None, precision: str = "auto") -> MaskEngine:
    """The process's shared engine for (device, precision), made on first use."""
    check_not_forked()
    # A warm call asks no runtime: the engine for these arguments (and the
    # environment variables that choose a device) is remembered.
    key = (device, precision, os.environ.get(DEVICE_ENV), os.environ.get(PYOPENCL_ENV)) \
        if device is None or isinstance(device, str) else None
    found = _ENGINES.get(key) if key is not None else None
    if found is None:
        chosen = select_device(device)
        found = CACHE.get("engine", (chosen.int_ptr, precision), lambda: MaskEngine(chosen, precision=precision))
        if key is not None:
            _ENGINES[key] = found
    return found


#: engine()'s memo: (device argument, precision, $POLYMASK_DEVICE, $PYOPENCL_CTX) -> the shared engine.
_ENGINES: dict = {}


def release() -> None:
    """Free the device buffers of every shared engine (programs and contexts stay)."""
    for _, shared in CACHE.entries("engine"):
        shared.release()


def mask(vertices, shape, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto", device=None, out=None,
         packed: bool = False):
    """The mask on an OpenCL device through the shared engine (see MaskEngine.mask)."""
    return engine(device, precision).mask(vertices, shape, kernel=kernel, out=out, packed=packed)


def unpack(packed, shape) -> np.ndarray:
    """The bool mask of `shape` from a result of ``mask(..., packed=True)`` (one bit a pixel).

    The packed layout is ``np.packbits(mask, axis=1)``'s: each row is
    ceil(cols / 8) bytes, the first pixel in the highest bit of its byte.
    A pyopencl.array.Array is copied to the host first.
    """
    rows, cols = as_shape(shape)
    if hasattr(packed, "get") and not isinstance(packed, np.ndarray):
        packed = packed.get()
    packed = np.asarray(packed)
    expected = (rows, -(-cols // 8))
    if packed.dtype != np.uint8 or packed.shape != expected:
        raise ValueError(f"a packed {rows}x{cols} mask is a uint8 array of shape {expected}, got "
                         f"{packed.dtype} of shape {packed.shape}")
    return np.unpackbits(packed, axis=1, count=cols).view(np.bool_)


def profile(vertices, shape, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto", repeats: int = 5,
            device=None) -> dict:
    """Kernel and transfer time of one mask, medians over `repeats` calls, from OpenCL events.

    One untimed call first builds the program and allocates the buffers.
    transfer_s is the polygon's upload plus the mask's download.  Returns
    kernel_s, transfer_s, upload_s, download_s (seconds), and the device,
    kernel, precision, shape and repeats.  `repeats` may be any integer
    type (NumPy's too).
    """
    try:
        if isinstance(repeats, (bool, np.bool_)):
            raise TypeError
        repeats = operator.index(repeats)
    except TypeError:
        raise ValueError(f"repeats must be a positive integer, got {short_repr(repeats)} "
                         f"(type {type(repeats).__name__})") from None
    if repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {short_repr(repeats)}")
    profiled = MaskEngine(device, precision=precision, profiling=True)
    profiled.mask(vertices, shape, kernel=kernel)  # warm-up: build and allocate
    samples = []
    for _ in range(repeats):
        profiled.mask(vertices, shape, kernel=kernel)
        samples.append(profiled.timings())
    report = {name: statistics.median(sample[name] for sample in samples) for name in samples[0]}
    report.update(device=profiled.device.name.strip(), platform=profiled.device.platform.name.strip(),
                  kernel=chosen_kernel(kernel, profiled.device_type), precision=profiled.precision,
                  shape=tuple(as_shape(shape)), repeats=repeats)
    return report
