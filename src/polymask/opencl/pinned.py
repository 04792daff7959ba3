"""Page-locked host memory for results: downloads at the bus's speed, kept between calls.

A copy from a GPU into ordinary (pageable) memory goes through the
driver's own staging buffer, a few GB/s; into page-locked memory it is one
DMA at the bus's speed (an H100 measured 3.0-3.3 GB/s against 55 GB/s).
OpenCL has no call that locks existing memory, but a buffer made with
``CL_MEM_ALLOC_HOST_PTR`` and mapped once is page-locked host memory on
the GPU drivers we know (NVIDIA's OpenCL guide recommends exactly this).

:class:`PinnedPool` hands such memory out as ordinary NumPy arrays.  Each
array's base is a small lease object: when the caller's array and all its
views are gone, the lease dies and its block goes back to the pool for the
next result, so a warm engine allocates nothing per call and the caller
gets an array that needs no further copy.  Free blocks beyond
``keep_bytes`` are given back to the runtime at once.

Small results do not use the pool: below :data:`PINNED_MIN_BYTES` a plain
``np.empty`` costs less than the lease.  Above it, ordinary memory costs
more than its copy's event shows, since the driver copies through its own
staging buffer and the fresh pages fault in on the host (the figures are in
csrc/bench/STEPS.md).
"""
from __future__ import annotations

import math
import threading
import weakref
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from polymask.opencl.common import cl

#: Results smaller than this come from np.empty (the pool's bookkeeping costs more than it saves).
PINNED_MIN_BYTES = 64 << 10


def page_locked(context: cl.Context, queue: cl.CommandQueue, nbytes: int) -> tuple[cl.Buffer, NDArray[np.uint8]]:
    """(buffer, host): an ALLOC_HOST_PTR buffer of `nbytes` and its host memory, mapped for good."""
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, nbytes)
    # pyopencl's stubs take neither an OR of map_flags (an int) nor a scalar type as the dtype.
    host, _ = cl.enqueue_map_buffer(queue, buffer, cl.map_flags.READ | cl.map_flags.WRITE,  # type: ignore[arg-type]
                                    0, (nbytes,), np.uint8, is_blocking=True)  # type: ignore[type-var,misc]
    return buffer, host


class _Block:
    """One mapped ALLOC_HOST_PTR buffer: the OpenCL buffer and its host view."""

    __slots__ = ("buffer", "host", "nbytes")

    def __init__(self, buffer: cl.Buffer, host: NDArray[np.uint8]) -> None:
        self.buffer = buffer
        self.host = host
        self.nbytes = host.nbytes


class _Lease:
    """The base of one result array: shares the block's memory, returns it to the pool when it dies."""

    __slots__ = ("__array_interface__", "block", "__weakref__")

    def __init__(self, block: _Block, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.block = block  # keeps the mapped memory alive as long as any view of the result lives
        self.__array_interface__ = {
            "shape": shape, "typestr": dtype.str, "version": 3,
            "data": (block.host.__array_interface__["data"][0], False),
        }


class PinnedPool:
    """Page-locked host arrays for one engine's results (see the module docstring)."""

    def __init__(self, context: cl.Context, queue: cl.CommandQueue, keep_bytes: int) -> None:
        self.context = context
        self.queue = queue
        self.keep_bytes = keep_bytes
        #: Blocks this pool has mapped (for tests and curiosity).
        self.allocations = 0
        self._free: list[_Block] = []
        # Re-entrant: a result in a reference cycle can be collected, and its block
        # given back, by a garbage collection that runs inside this pool's own code.
        self._lock = threading.RLock()

    def array(self, shape: tuple[int, ...], dtype: DTypeLike) -> NDArray[Any] | None:
        """A C-contiguous array of `shape` and `dtype` in page-locked memory, or None to use np.empty."""
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes < PINNED_MIN_BYTES:
            return None
        block = self._take(nbytes) or self._map(nbytes)
        if block is None:
            return None
        lease = _Lease(block, tuple(shape), dtype)
        weakref.finalize(lease, self._give_back, block).atexit = False
        return np.asarray(lease)

    def _take(self, nbytes: int) -> _Block | None:
        """A free block that holds `nbytes` and wastes at most half of itself."""
        with self._lock:
            fitting = [block for block in self._free if nbytes <= block.nbytes <= 2 * nbytes]
            if not fitting:
                return None
            block = min(fitting, key=lambda candidate: candidate.nbytes)
            self._free.remove(block)
            return block

    def _map(self, nbytes: int) -> _Block | None:
        try:
            buffer, host = page_locked(self.context, self.queue, nbytes)
        except (cl.Error, MemoryError):
            # Page-locked memory is an optimisation: without it the result is an
            # ordinary array, copied at the pageable speed.
            return None
        self.allocations += 1
        return _Block(buffer, host)

    def _give_back(self, block: _Block) -> None:
        """Called when a result's last view dies: keep the block for the next result, within keep_bytes."""
        with self._lock:
            self._free.append(block)
            self._free.sort(key=lambda kept: kept.nbytes, reverse=True)
            total = 0
            kept = []
            for candidate in self._free:  # the largest first: they are the dearest to map again
                if total + candidate.nbytes <= self.keep_bytes:
                    kept.append(candidate)
                    total += candidate.nbytes
            self._free = kept  # the rest are unmapped by their garbage collection

    def free_bytes(self) -> int:
        """Bytes of page-locked memory held for future results."""
        with self._lock:
            return sum(block.nbytes for block in self._free)

    def clear(self) -> None:
        """Give every free block back to the runtime (blocks still in use return to nobody)."""
        with self._lock:
            self._free = []
