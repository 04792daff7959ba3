"""The process's shared engines and the profiler.

One :class:`~polymask.opencl.processing.MaskEngine` per device and
precision lives in the one cache (``_state.CACHE``): :func:`mask` uses it,
:func:`release` frees the device buffers of all of them.  :func:`profile`
times one mask on its own engine, from OpenCL events.
"""
from __future__ import annotations

import operator
import os
import statistics
from typing import TYPE_CHECKING, Any, TypedDict, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from polymask._arguments import as_shape
from polymask._describe import short_repr
from polymask.opencl._state import CACHE, check_not_forked
from polymask.opencl.buffers import is_device_array
from polymask.opencl.common import DEVICE_ENV, PYOPENCL_ENV
from polymask.opencl.discovery import DeviceInfo, select_device
from polymask.opencl.processing import MaskEngine
from polymask.opencl.programs import DEFAULT_KERNEL, chosen_kernel
from polymask.typing import MaskArray, PolygonLike, ShapeLike

if TYPE_CHECKING:
    import pyopencl as cl
    from pyopencl.array import Array


def engine(device: str | DeviceInfo | cl.Device | None = None, precision: str = "auto") -> MaskEngine:
    """The process's shared engine for a device and precision, made on first use.

    Parameters
    ----------
    device : str, pyopencl.Device, DeviceInfo or None
        Which device (see :func:`select_device`); None for ``$POLYMASK_DEVICE``,
        then ``$PYOPENCL_CTX``, then the best device here.
    precision : {"auto", "double", "single"}
        "auto" is double where the device has fp64.

    Returns
    -------
    MaskEngine
        The same engine for the same arguments, for the life of the process.

    Raises
    ------
    OpenCLUnavailable
        When OpenCL cannot be used here; the message says how to install a runtime.

    Examples
    --------
    >>> from polymask import opencl
    >>> opencl.engine() is opencl.engine()
    True
    """
    check_not_forked()
    # A warm call asks no runtime: the engine for these arguments (and the
    # environment variables that choose a device) is remembered.
    key = (device, precision, os.environ.get(DEVICE_ENV), os.environ.get(PYOPENCL_ENV)) \
        if device is None or isinstance(device, str) else None
    found: MaskEngine | None = CACHE.engines_by_argument.get(key) if key is not None else None
    if found is None:
        chosen = select_device(device)
        found = CACHE.get("engine", (chosen.int_ptr, precision), lambda: MaskEngine(chosen, precision=precision))
        if key is not None:
            CACHE.engines_by_argument[key] = found
    return found


def release() -> None:
    """Free the buffers of every shared engine: device memory and spare page-locked memory.

    The programs and contexts stay, so the next call builds nothing.

    Examples
    --------
    >>> from polymask import opencl
    >>> opencl.release()
    """
    for _, shared in CACHE.entries("engine"):
        cast(MaskEngine, shared).release()  # the "engine" section holds only what engine() made


@overload
def mask(vertices: Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto",
         device: str | DeviceInfo | cl.Device | None = None, out: None = None, packed: bool = False) -> Array: ...
@overload
def mask(vertices: PolygonLike, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto",
         device: str | DeviceInfo | cl.Device | None = None, out: NDArray[Any] | None = None,
         packed: bool = False) -> NDArray[Any]: ...
@overload
def mask(vertices: PolygonLike | Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto",
         device: str | DeviceInfo | cl.Device | None = None, out: NDArray[Any] | None = None,
         packed: bool = False) -> NDArray[Any] | Array: ...
def mask(vertices: PolygonLike | Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto",
         device: str | DeviceInfo | cl.Device | None = None, out: NDArray[Any] | None = None,
         packed: bool = False) -> NDArray[Any] | Array:
    """The mask of a polygon on an OpenCL device, through the process's shared engine.

    The same mask as :func:`polymask.mask`, bit for bit, in double precision.

    Parameters
    ----------
    vertices : array_like or pyopencl.array.Array
        One ring of (x, y) vertices in any form :func:`polymask.mask` takes, or an
        (N, 2) float32/float64 ``pyopencl.array.Array`` already on the device.
    shape : tuple of int
        (rows, cols) of the image.
    kernel : {"auto", "rows", "scanline", "pixel"}
        "auto" runs "rows" (a work-group per row) on a GPU or accelerator and
        "scanline" (a work-item per row) on a CPU device; "pixel" is lesson 7's
        work-item per pixel.
    precision : {"auto", "double", "single"}
        "single" runs on devices without fp64, within the bound of
        :data:`SINGLE_PRECISION_NOTE`.
    device : str, pyopencl.Device, DeviceInfo or None
        As :func:`engine` takes it.
    out : numpy.ndarray, optional
        A C-contiguous bool or uint8 array of `shape` to fill in place (host vertices only).
    packed : bool
        One bit a pixel: a uint8 array of shape (rows, ceil(cols / 8)) in
        ``np.packbits(mask, axis=1)``'s layout, for :func:`unpack`.

    Returns
    -------
    numpy.ndarray or pyopencl.array.Array
        The bool mask (uint8 when `packed`): a NumPy array for host vertices, in
        page-locked memory from 64 KiB up; a device array for device vertices.

    Raises
    ------
    ValueError, TypeError
        Bad vertices, shape, kernel or `out`, in :func:`polymask.mask`'s words.
    OpenCLError
        A failure on the device, naming it (:class:`OpenCLMemoryError` when a
        buffer cannot be had, also a MemoryError).
    OpenCLUnavailable
        When OpenCL cannot be used here.

    Examples
    --------
    >>> import numpy as np, polymask
    >>> from polymask import opencl
    >>> triangle = np.array([(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)])
    >>> bool((opencl.mask(triangle, (32, 32)) == polymask.mask(triangle, (32, 32))).all())
    True
    >>> opencl.mask(triangle, (32, 32), packed=True).shape   # one bit a pixel
    (32, 4)
    """
    return engine(device, precision).mask(vertices, shape, kernel=kernel, out=out, packed=packed)


def unpack(packed: ArrayLike | Array, shape: ShapeLike) -> MaskArray:
    """The bool mask from a result of ``mask(..., packed=True)``, which holds one bit a pixel.

    Parameters
    ----------
    packed : numpy.ndarray or pyopencl.array.Array
        uint8, shape (rows, ceil(cols / 8)): ``np.packbits(mask, axis=1)``'s layout,
        the first pixel of each byte in its highest bit. A device array is copied
        to the host first.
    shape : tuple of int
        (rows, cols) of the mask.

    Returns
    -------
    numpy.ndarray
        The bool mask of `shape`.

    Raises
    ------
    ValueError
        When `packed` is not a uint8 array of the packed shape.

    Examples
    --------
    >>> import numpy as np
    >>> from polymask import opencl
    >>> opencl.unpack(np.packbits([[True, False, True]], axis=1), (1, 3))
    array([[ True, False,  True]])
    """
    rows, cols = as_shape(shape)
    bits = np.asarray(packed.get() if is_device_array(packed) else packed)
    expected = (rows, -(-cols // 8))
    if bits.dtype != np.uint8 or bits.shape != expected:
        raise ValueError(f"a packed {rows}x{cols} mask is a uint8 array of shape {expected}, got "
                         f"{bits.dtype} of shape {bits.shape}")
    return np.unpackbits(bits, axis=1, count=cols).view(np.bool_)


class Profile(TypedDict):
    """What :func:`profile` returns: median seconds, and what was timed."""

    kernel_s: float
    upload_s: float
    download_s: float
    transfer_s: float
    device: str
    platform: str
    kernel: str
    precision: str
    shape: tuple[int, ...]
    repeats: int


def profile(vertices: PolygonLike, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, precision: str = "auto",
            repeats: int = 5, device: str | DeviceInfo | cl.Device | None = None) -> Profile:
    """Kernel and transfer time of one mask, medians over `repeats` calls, from OpenCL events.

    One untimed call first builds the program and allocates the buffers; every
    timed call sends the polygon and copies the mask back.

    Parameters
    ----------
    vertices : polygon
        As :func:`mask` takes it.
    shape : (rows, cols)
        As :func:`mask` takes it.
    kernel : str, optional
        As :func:`mask` takes it.
    precision : {"auto", "double", "single"}, optional
        As :func:`mask` takes it.
    repeats : int, optional
        Timed calls (any integer type, NumPy's too); default 5.
    device : str, DeviceInfo or pyopencl.Device, optional
        As :func:`mask` takes it.

    Returns
    -------
    dict
        Keys kernel_s, upload_s, download_s and transfer_s (upload plus download) in
        seconds; device, platform, kernel (the one "auto" chose), precision,
        shape and repeats.

    Raises
    ------
    ValueError
        When `repeats` is not a positive integer, or as :func:`mask` raises.

    Examples
    --------
    >>> from polymask import opencl
    >>> timing = opencl.profile([(1, 1), (30, 3), (20, 29)], (32, 32), repeats=3)
    >>> sorted(key for key in timing if key.endswith("_s"))
    ['download_s', 'kernel_s', 'transfer_s', 'upload_s']
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
    medians = {name: statistics.median(sample[name] for sample in samples) for name in samples[0]}
    return Profile(kernel_s=medians["kernel_s"], upload_s=medians["upload_s"], download_s=medians["download_s"],
                   transfer_s=medians["transfer_s"], device=profiled.device.name.strip(),
                   platform=profiled.device.platform.name.strip(), kernel=chosen_kernel(kernel, profiled.device_type),
                   precision=profiled.precision, shape=tuple(as_shape(shape)), repeats=repeats)
