"""The process's shared engines and the profiler.

One :class:`~polymask.opencl.processing.MaskEngine` per device and
precision lives in the one cache (``common.CACHE``): :func:`mask` uses it,
:func:`release` frees the device buffers of all of them.  :func:`profile`
times one mask on its own engine, from OpenCL events.
"""
from __future__ import annotations

import operator
import statistics

import numpy as np

from polymask._describe import short_repr
from polymask._validation import as_shape
from polymask.opencl.common import CACHE, check_not_forked
from polymask.opencl.discovery import select_device
from polymask.opencl.processing import MaskEngine


def engine(device=None, precision: str = "auto") -> MaskEngine:
    """The process's shared engine for (device, precision), made on first use."""
    check_not_forked()
    chosen = select_device(device)
    return CACHE.get("engine", (chosen.int_ptr, precision), lambda: MaskEngine(chosen, precision=precision))


def release() -> None:
    """Free the device buffers of every shared engine (programs and contexts stay)."""
    for _, shared in CACHE.entries("engine"):
        shared.release()


def mask(vertices, shape, *, kernel: str = "pixel", precision: str = "auto", device=None, out=None):
    """The mask on an OpenCL device through the shared engine (see MaskEngine.mask)."""
    return engine(device, precision).mask(vertices, shape, kernel=kernel, out=out)


def profile(vertices, shape, *, kernel: str = "pixel", precision: str = "auto", repeats: int = 5,
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
                  kernel=kernel, precision=profiled.precision, shape=tuple(as_shape(shape)),
                  repeats=repeats)
    return report
