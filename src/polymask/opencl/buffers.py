"""Device buffers and events: allocating safely, waiting interruptibly, reading profiles.

Owns what :class:`polymask.opencl.MaskEngine` needs from OpenCL below the
level of programs and kernels: a buffer whose allocation has really
happened (or a clean error instead of a crashed runtime), a wait on an
event that Ctrl-C can interrupt, and an event's profiled duration.
"""
from __future__ import annotations

import operator
import sys
import time
from typing import TYPE_CHECKING, SupportsIndex

import numpy as np

from polymask._describe import short_repr
from polymask.opencl.common import OpenCLError, OpenCLMemoryError, cl, device_label

#: Room the runtime needs beside a CPU device's buffer (its own bookkeeping, the launch).
HOST_MARGIN_BYTES = 64 * 2**20

if TYPE_CHECKING:
    from pyopencl.array import Array
    from typing_extensions import TypeIs


def allocated_buffer(context: cl.Context, queue: cl.CommandQueue, device: cl.Device, flags: int, nbytes: int,
                     what: str) -> cl.Buffer:
    """A device buffer of `nbytes` on `device` whose allocation has really happened (or a clean error).

    Runtimes may reserve memory only when a buffer is first used, and
    PoCL's CPU device dies (SIGSEGV) when that late allocation fails.  So
    the buffer is touched once and waited for, and on a CPU device, whose
    buffers are host memory, NumPy first checks that the host can reserve
    that much (and a margin): a MemoryError here instead of a crash in the
    runtime.  (Handing PoCL NumPy's memory with USE_HOST_PTR would avoid the
    check but makes every call slower: csrc/bench/STEPS.md.)
    """
    try:
        if device.type & cl.device_type.CPU:
            np.empty(nbytes + HOST_MARGIN_BYTES, dtype=np.uint8)  # reserved, never touched, freed at once
        buffer = cl.Buffer(context, flags, nbytes)
        # pyopencl's stubs miss that the pattern may be a NumPy scalar (its bytes are the pattern).
        cl.enqueue_fill_buffer(queue, buffer, np.uint8(0), 0, nbytes).wait()  # type: ignore[arg-type]
        return buffer
    except (cl.Error, MemoryError) as error:
        raise OpenCLMemoryError(f"allocating {nbytes:,} bytes for the {what} on device "
                                f"{device_label(device)} failed: {error or type(error).__name__}") from None


def check_fits(device: cl.Device, nbytes: int, what: str) -> None:
    """OpenCLError when `what` needs more bytes than `device` allows in one buffer."""
    if nbytes > device.max_mem_alloc_size:
        raise OpenCLError(
            f"{what} needs {nbytes:,} bytes, but device {device_label(device)} allows at most "
            f"{device.max_mem_alloc_size:,} bytes per buffer; use a smaller image or polymask.mask")


def byte_count(value: SupportsIndex) -> int:
    """`value` as a number of bytes >= 0 (NumPy integers too); TypeError / ValueError otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"keep_bytes must be an integer number of bytes, got {short_repr(value)}")
    try:
        count = operator.index(value)
    except TypeError:
        raise TypeError(f"keep_bytes must be an integer number of bytes, got {short_repr(value)} "
                        f"(type {type(value).__name__})") from None
    if count < 0:
        raise ValueError(f"keep_bytes must be at least 0, got {count}")
    return count


def is_device_array(value: object) -> TypeIs[Array]:
    """Whether `value` is a pyopencl.array.Array (without importing pyopencl.array)."""
    if cl is None:
        return False
    # Only a caller who imported pyopencl.array can hold one: no need to import it here.
    array_module = sys.modules.get("pyopencl.array")
    return array_module is not None and isinstance(value, array_module.Array)


def event_seconds(event: cl.Event) -> float:
    """The profiled duration of a finished `event` (its queue was made with profiling on)."""
    return (event.profile.end - event.profile.start) * 1e-9


#: How long wait_in_python(spin=True) polls without sleeping before it sleeps between polls.
SPIN_SECONDS = 0.02


def wait_in_python(event: cl.Event, spin: bool = False) -> None:
    """Wait for `event` from Python, so Ctrl-C raises KeyboardInterrupt within milliseconds.

    A blocking wait inside the driver would hold Python's signal handlers
    until the kernel ends (seconds for a large per-pixel mask).  The kernel
    itself cannot be cancelled: after Ctrl-C it still runs to its end on
    the device, but nothing is returned.

    With `spin` (a GPU, whose work does not need this CPU) the first
    :data:`SPIN_SECONDS` poll without sleeping: a sleep lasts 60 us or more,
    longer than a small GPU call.  Otherwise (a CPU device, whose kernel
    needs the cores) each poll sleeps 0.1 ms.
    """
    if spin:
        deadline = time.perf_counter() + SPIN_SECONDS
        while event.command_execution_status > 0:  # QUEUED, SUBMITTED, RUNNING; 0 done, < 0 failed
            if time.perf_counter() > deadline:
                break
    while event.command_execution_status > 0:
        time.sleep(0.0001)


def check_device_vertices(d_vertices: object, context: cl.Context, device: cl.Device) -> None:
    """TypeError / ValueError unless `d_vertices` is an (N, 2) float array on the device, in `context`."""
    if not is_device_array(d_vertices):
        raise TypeError(f"d_vertices must be a pyopencl.array.Array, got {type(d_vertices).__name__}")
    if d_vertices.ndim != 2 or d_vertices.shape[1] != 2:
        raise ValueError(f"vertices must have shape (N, 2) of (x, y) pairs, got a device array of "
                         f"shape {d_vertices.shape}")
    if d_vertices.dtype not in (np.float32, np.float64):
        raise TypeError(f"device vertices must be float32 or float64, got dtype {d_vertices.dtype}")
    if d_vertices.context != context:
        raise ValueError(f"the vertices live in another OpenCL context (device "
                         f"{d_vertices.queue.device.name.strip() if d_vertices.queue else '?'!r}); this "
                         f"engine runs on device {device_label(device)}")
    if not d_vertices.flags.c_contiguous:
        raise ValueError("device vertices must be C-contiguous; pass d_vertices.copy()")
