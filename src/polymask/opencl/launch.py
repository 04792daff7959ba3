"""How each kernel is launched: work-group shapes, the NDRange, its arguments, and how to wait.

* ``pixel`` -- work-groups of (16, 4) pixels over the whole image.
* ``scanline`` -- one work-item per row, in groups of 64 rows.
* ``rows`` -- one work-group per row.  The group is sized to the row: one
  work-item per 16 pixels (each writes them with one 16-byte store), a
  power of two between 32 and 256 (the kernel's bit set of parities holds
  256), and never above what the device allows for the kernel.

Any image size works: NDRanges are rounded up and the extra work-items do
nothing.  A :class:`Launcher` keeps what does not change between calls (the
kernel object, its work-group limit, the last arguments), so a warm call
asks the runtime nothing it already knows.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from polymask._describe import short_repr
from polymask.opencl.common import OpenCLError, cl, device_label
from polymask.opencl.programs import PACKING_KERNELS

if TYPE_CHECKING:
    from pyopencl.typing import KernelArg

# Kernel arguments are typed KernelArg | cl.MemoryObjectHolder: a buffer argument is a cl.Buffer or the
# MemoryObjectHolder that a pyopencl.array.Array's base_data is (a pooled allocation), and set_args takes both.

PIXEL_GROUP = (16, 4)
SCANLINE_GROUP = 64
ROWS_GROUP_MIN, ROWS_GROUP_MAX = 32, 256

#: Below this many edge tests a call waits inside the runtime (one blocking
#: copy, the cheapest wait there is).  Above it, it polls from Python so that
#: Ctrl-C is heard within milliseconds: 2**22 edge tests take well under
#: 0.1 s on any device we have seen.
BLOCKING_WAIT_EDGE_TESTS = 1 << 22


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def rows_group(cols: int, limit: int) -> int:
    """Work-items per row for the rows kernel: one per 16 pixels, a power of two in [32, 256], within `limit`."""
    wanted = 1 << max(0, (-(-cols // 16) - 1).bit_length())
    return max(1, min(max(wanted, ROWS_GROUP_MIN), ROWS_GROUP_MAX, limit))


def geometry(kernel: str, shape: tuple[int, int], limit: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(global size, local size) of `kernel` for a `shape` mask, groups within `limit` work-items."""
    rows, cols = shape
    if kernel == "pixel":
        group_cols = min(PIXEL_GROUP[0], limit)
        local: tuple[int, ...] = (group_cols, max(1, min(PIXEL_GROUP[1], limit // group_cols)))
        return (_round_up(max(cols, 1), local[0]), _round_up(max(rows, 1), local[1])), local
    if kernel == "scanline":
        local = (min(SCANLINE_GROUP, limit),)
        return (_round_up(max(rows, 1), local[0]),), local
    group = rows_group(cols, limit)
    return (max(rows, 1) * group,), (group,)


def edge_tests(kernel: str, shape: tuple[int, int], n_vertices: int) -> int:
    """About how many edge tests (and pixel writes) one call of `kernel` does."""
    rows, cols = shape
    if kernel == "pixel":
        return rows * cols * max(n_vertices, 1)
    return rows * (n_vertices + cols)


class Launcher:
    """Launches one kernel of one built program on one queue, remembering what stays the same."""

    def __init__(self, program: cl.Program, function: str, device: cl.Device, queue: cl.CommandQueue) -> None:
        self.name = function
        self.kernel = cl.Kernel(program, function)
        self.device = device
        self.queue = queue
        self.limit = self.kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
        self._key: tuple[object, ...] | None = None

    def launch(self, kernel: str, key: tuple[object, ...],
               arguments: Callable[[], tuple[KernelArg | cl.MemoryObjectHolder, ...]], shape: tuple[int, int],
               wait_for: Sequence[cl.Event] | None = None) -> cl.Event:
        """Enqueue the kernel over a `shape` mask; returns its event without waiting.

        `key` is a tuple of plain values that identifies the arguments;
        `arguments()` makes them, and is called only when `key` changed.
        """
        if key != self._key:
            # pyopencl's KernelArg alias omits MemoryObjectHolder (pooled buffers), which set_args takes.
            self.kernel.set_args(*arguments())  # type: ignore[arg-type]
            self._key = key
        global_size, local = geometry(kernel, shape, self.limit)
        try:
            return cl.enqueue_nd_range_kernel(self.queue, self.kernel, global_size, local, wait_for=wait_for)
        except cl.Error as error:
            raise OpenCLError(f"running kernel {kernel!r} ({global_size} work-items in groups of {local}) on "
                              f"device {device_label(self.device)} failed: {error}") from None


def forget(launchers: Iterable[Launcher]) -> None:
    """Drop the arguments `launchers` remember (and the buffers their keys hold)."""
    for launcher in launchers:
        launcher._key = None


def kernel_arguments(
        kernel: str, d_vertices: KernelArg | cl.MemoryObjectHolder, n_vertices: int,
        d_mask: KernelArg | cl.MemoryObjectHolder, shape: tuple[int, int], packed: bool,
) -> tuple[tuple[object, ...], Callable[[], tuple[KernelArg | cl.MemoryObjectHolder, ...]]]:
    """(key, make): the key identifies the kernel's arguments, make() builds them in its signature's order.

    The key holds the buffers themselves, so that none of them can be freed
    and its handle reused while a launcher remembers it (Launcher.forget).
    """
    key = (d_vertices, n_vertices, d_mask, shape[0], shape[1], packed)

    def make() -> tuple[KernelArg | cl.MemoryObjectHolder, ...]:
        common = (d_vertices, np.int32(n_vertices), d_mask, np.int32(shape[0]), np.int32(shape[1]))
        return (*common, np.int32(1 if packed else 0)) if kernel == "rows" else common  # only rows.cl packs

    return key, make


def result_shape(shape: tuple[int, int], packed: bool) -> tuple[int, int]:
    """The result's shape: the mask's, or np.packbits(mask, axis=1)'s with one bit a pixel."""
    return (shape[0], -(-shape[1] // 8)) if packed else shape


def as_packed(packed: object) -> bool:
    """`packed` as a bool; TypeError unless it is True or False (NumPy's too)."""
    if not isinstance(packed, (bool, np.bool_)):
        raise TypeError(f"packed must be True or False, got {short_repr(packed)} (type {type(packed).__name__})")
    return bool(packed)


def check_packing(kernel: str, packed: bool) -> None:
    """ValueError when `packed` is asked of a kernel that writes one byte a pixel."""
    if packed and kernel not in PACKING_KERNELS:
        raise ValueError(f"packed=True needs kernel {' or '.join(map(repr, PACKING_KERNELS))}, got kernel {kernel!r}")
