"""Device-resident vertices give a device-resident mask: compute follows data.

:class:`DeviceResults` is the part of :class:`polymask.opencl.MaskEngine`
that takes vertices already on the device (a ``pyopencl.array.Array``) and
returns the mask as a new ``pyopencl.array.Array``, with nothing copied to
or from the host.  It uses the engine's lock, launchers and buffers.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import DTypeLike

from polymask._arguments import as_shape
from polymask.opencl.buffers import check_device_vertices
from polymask.opencl.common import OpenCLMemoryError, cl, device_label
from polymask.opencl.engine_state import EngineState
from polymask.opencl.launch import as_packed, check_packing, forget, kernel_arguments, result_shape
from polymask.opencl.programs import DEFAULT_KERNEL, chosen_kernel
from polymask.typing import ShapeLike

if TYPE_CHECKING:
    from pyopencl.array import Array
    from pyopencl.tools import MemoryPool
    from pyopencl.typing import KernelArg


class DeviceResults(EngineState):
    """MaskEngine's device-resident path (mixed into the engine; see processing.py)."""

    _device_pool: MemoryPool | None = None  # the pool of results on a GPU, made on first use

    def mask_on_device(self, d_vertices: Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL,
                       packed: bool = False) -> Array:
        """The mask as a new pyopencl.array.Array of bool, computed from device-resident vertices.

        `d_vertices` is an (N, 2) pyopencl.array.Array of float32 or float64
        in this engine's context.  Nothing is copied to or from the host.
        Device data is not checked for finite values (that would need a
        copy back); the kernels give some mask for them, not an error.

        Parameters
        ----------
        d_vertices : pyopencl.array.Array
            (N, 2) float32 or float64 vertices in this engine's context.
        shape : (rows, cols)
            The image shape.
        kernel : {"auto", "rows", "scanline", "pixel"}, optional
            As :func:`polymask.opencl.mask` takes it.
        packed : bool, optional
            Write one bit a pixel (uint8), for :func:`polymask.opencl.unpack`.

        Returns
        -------
        pyopencl.array.Array
            The mask, bool (uint8 when `packed`), on the device.

        Raises
        ------
        TypeError, ValueError
            If `d_vertices` is not such an array of this context, or `shape`
            or `kernel` is refused.
        OpenCLError
            If the device fails (OpenCLMemoryError when a buffer does not fit).

        Examples
        --------
        >>> import numpy as np
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     import pyopencl.array
        ...     engine = opencl.MaskEngine()
        ...     d_vertices = pyopencl.array.to_device(engine.queue, np.array([(1.0, 1.0), (6.0, 1.0), (3.0, 5.0)]))
        ...     print(int(engine.mask_on_device(d_vertices, (8, 8)).get().sum()))
        ... else:
        ...     print(13)
        13
        """
        checked_shape, packed = as_shape(shape), as_packed(packed)
        kernel = chosen_kernel(kernel, self.device_type, packed)
        check_packing(kernel, packed)
        check_device_vertices(d_vertices, self.context, self.device)
        self._check_size(checked_shape, packed)
        out_shape = result_shape(checked_shape, packed)
        with self._lock:
            # No wait for earlier calls: this path replaces no buffer they use (kernel
            # arguments are taken at enqueue), so masks can be queued back to back.
            try:
                launcher = self._launcher(kernel)
                wait_for = list(d_vertices.events)
                if d_vertices.dtype != self.dtype or d_vertices.offset:
                    # A conversion (or an offset view's copy) on the device: still no host round trip.
                    d_vertices = d_vertices.astype(self.dtype, queue=self.queue)
                    wait_for = list(d_vertices.events)
                n_vertices = d_vertices.shape[0]
                if n_vertices:
                    vertex_buffer: KernelArg | cl.MemoryObjectHolder = d_vertices.base_data
                else:
                    vertex_buffer = self._buffer("_d_vertices", 16, cl.mem_flags.READ_ONLY, "polygon")
                d_mask = self._device_result(out_shape, np.uint8 if packed else np.bool_)
                key, arguments = kernel_arguments(kernel, vertex_buffer, n_vertices, d_mask.base_data, checked_shape,
                                                  packed)
                event = launcher.launch(kernel, key, arguments, checked_shape, wait_for or None)
                forget([launcher])  # the result is the caller's: the launcher must not keep it alive
            except BaseException:
                self._abandon()
                raise
            d_mask.add_event(event)
            self._events = {"kernel": event}
            self._in_flight = True  # the caller waits through the array's events; a host call settles first
            return d_mask

    def _device_result(self, shape: tuple[int, int], dtype: DTypeLike) -> Array:
        """A new device array for a result: from a memory pool on a GPU, allocated for real on a CPU device.

        On a GPU, allocating and freeing a large buffer per call costs more
        than the mask itself (csrc/bench/STEPS.md), so results come from PyOpenCL's
        memory pool: a result's memory goes back to the pool when the caller
        drops the array, and the pool keeps at most ``keep_bytes`` unused.
        A CPU device keeps the careful allocation of _new_buffer: PoCL dies
        when a lazily allocated buffer cannot be had.
        """
        import pyopencl.array as cl_array

        nbytes = shape[0] * shape[1]
        if self.device_type & cl.device_type.CPU:
            return cl_array.Array(self.queue, shape, dtype, data=self._new_buffer(cl.mem_flags.READ_WRITE, nbytes,
                                                                                    "mask"))
        import pyopencl.tools as cl_tools

        if self._device_pool is None:
            self._device_pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(self.queue))
        if self._device_pool.managed_bytes - self._device_pool.active_bytes + nbytes > self.keep_bytes:
            self._device_pool.free_held()
        try:
            return cl_array.Array(self.queue, shape, dtype, allocator=self._device_pool)
        except cl.Error as error:
            raise OpenCLMemoryError(f"allocating {nbytes:,} bytes for the mask on device "
                                    f"{device_label(self.device)} failed: {error}") from None

