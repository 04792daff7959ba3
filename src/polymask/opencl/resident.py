"""Device-resident vertices give a device-resident mask: compute follows data.

:class:`DeviceResults` is the part of :class:`polymask.opencl.MaskEngine`
that takes vertices already on the device (a ``pyopencl.array.Array``) and
returns the mask as a new ``pyopencl.array.Array``, with nothing copied to
or from the host.  It uses the engine's lock, launchers and buffers.
"""
from __future__ import annotations

import numpy as np

from polymask._validation import as_shape
from polymask.opencl.buffers import check_device_vertices
from polymask.opencl.common import cl
from polymask.opencl.launch import check_packing, forget, kernel_arguments, result_shape
from polymask.opencl.programs import DEFAULT_KERNEL, chosen_kernel


class DeviceResults:
    """MaskEngine's device-resident path (mixed into the engine; see processing.py)."""

    def mask_on_device(self, d_vertices, shape, *, kernel: str = DEFAULT_KERNEL, packed: bool = False):
        """The mask as a new pyopencl.array.Array of bool, computed from device-resident vertices.

        `d_vertices` is an (N, 2) pyopencl.array.Array of float32 or float64
        in this engine's context.  Nothing is copied to or from the host.
        Device data is not checked for finite values (that would need a
        copy back); the kernels give some mask for them, not an error.
        With ``packed=True`` the array is uint8, one bit a pixel.
        """
        import pyopencl.array as cl_array

        shape, packed = as_shape(shape), bool(packed)
        kernel = chosen_kernel(kernel, self.device_type, packed)
        check_packing(kernel, packed)
        check_device_vertices(d_vertices, self.context, self.device)
        self._check_size(shape, packed)
        out_shape = result_shape(shape, packed)
        with self._lock:
            if self._in_flight:
                self._settle()
            try:
                launcher = self._launcher(kernel)
                wait_for = list(d_vertices.events)
                if d_vertices.dtype != self.dtype or d_vertices.offset:
                    # A conversion (or an offset view's copy) on the device: still no host round trip.
                    d_vertices = d_vertices.astype(self.dtype, queue=self.queue)
                    wait_for = list(d_vertices.events)
                n_vertices = d_vertices.shape[0]
                if n_vertices:
                    vertex_buffer = d_vertices.base_data
                else:
                    vertex_buffer = self._buffer("_d_vertices", 16, cl.mem_flags.READ_ONLY, "polygon")
                # The result's buffer is allocated for real now (see _new_buffer), then handed to the caller.
                d_mask = cl_array.Array(self.queue, out_shape, np.uint8 if packed else np.bool_,
                                        data=self._new_buffer(cl.mem_flags.READ_WRITE, out_shape[0] * out_shape[1],
                                                              "mask"))
                key, arguments = kernel_arguments(kernel, vertex_buffer, n_vertices, d_mask.base_data, shape, packed)
                event = launcher.launch(kernel, key, arguments, shape, wait_for or None)
                forget([launcher])  # the result is the caller's: the launcher must not keep it alive
            except BaseException:
                self._abandon()
                raise
            d_mask.add_event(event)
            self._events = {"kernel": event}
            self._in_flight = True  # the caller waits through the array's events; the next call settles first
            return d_mask

