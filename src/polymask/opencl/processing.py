"""The resident engine: programs, buffers and events on one OpenCL device.

:class:`MaskEngine` builds each program once, keeps the polygon and the
output buffer on the device across calls (they grow when needed, and a
buffer above the engine's ``keep_bytes`` is freed after its result is
copied back), enqueues without waiting, and copies back on request, into
page-locked host memory for large results (``pinned.py``) with one wait
per call.  ``launch.py`` holds the kernels' launch shapes.
Vertices given as a ``pyopencl.array.Array`` give a result that stays on
the device: compute follows data.  With ``profiling=True`` the engine reads
kernel and transfer times from OpenCL events (``polymask.opencl.shared``
holds the process's shared engines and the profiler; ``buffers`` allocates
device buffers safely and waits on events).

Every error path waits for the commands already enqueued before anything
they use is freed: a kernel must never outlive the buffer it writes.
"""
from __future__ import annotations

import threading

import numpy as np

from polymask.opencl.availability import resolve_precision
from polymask.opencl.buffers import (
    allocated_buffer,
    byte_count,
    check_fits,
    event_seconds,
)
from polymask.opencl.common import OpenCLError, cl, device_label
from polymask.opencl.discovery import DeviceInfo, select_device
from polymask.opencl.host import HostResults
from polymask.opencl.launch import (
    Launcher,
    forget,
    result_shape,
)
from polymask.opencl.pinned import PinnedPool
from polymask.opencl.programs import build_count, context_for, kernel_entry, program
from polymask.opencl.resident import DeviceResults


class MaskEngine(HostResults, DeviceResults):
    """Masks on one OpenCL device, with the program and buffers kept between calls.

    The program is built once per device, kernel and precision (shared by
    every engine in the process).  The polygon and the mask live in device
    buffers that grow when needed and are reused otherwise; a polygon that
    has not changed since the last call is not sent again.  Results of 64 KiB
    and more come back in page-locked host memory, reused once the caller
    drops them.  Calls from several threads are serialised by the engine's
    lock.  :func:`polymask.opencl.engine` gives the process's shared engine.

    Parameters
    ----------
    device : str, pyopencl.Device, DeviceInfo or None
        Which device (see :func:`select_device`); None for the default.
    precision : {"auto", "double", "single"}
        "auto" is double where the device has fp64.
    profiling : bool
        Time each call from OpenCL events (:meth:`timings`); a profiling
        engine sends the polygon on every call, so that uploads are timed.
    keep_bytes : int, optional
        Buffers larger than this are freed as soon as their result is back,
        so one huge mask does not pin memory for the life of the process:
        by default :data:`KEEP_BYTES` on a CPU device (whose buffers are host
        memory) and :data:`GPU_KEEP_BYTES` (at most an eighth of the device's
        memory) on others.

    Raises
    ------
    OpenCLUnavailable
        When OpenCL cannot be used here.
    OpenCLError
        When the device refuses a context or queue, or lacks fp64 for precision="double".

    Examples
    --------
    >>> import polymask
    >>> from polymask import opencl
    >>> engine = opencl.MaskEngine(precision="double")
    >>> result = engine.mask([(1, 1), (9, 2), (5, 8)], (10, 10))
    >>> bool((result == polymask.mask([(1, 1), (9, 2), (5, 8)], (10, 10))).all())
    True
    """

    #: Kept on a CPU device: 64 MiB keeps an 8192 x 8192 mask resident.
    KEEP_BYTES = 64 * 2**20
    #: Kept on a GPU or accelerator (at most an eighth of its memory): a 16384 x 16384 mask stays.
    GPU_KEEP_BYTES = 2**30

    def __init__(self, device: str | DeviceInfo | cl.Device | None = None, *, precision: str = "auto",
                 profiling: bool = False, keep_bytes: int | None = None) -> None:
        self.device = select_device(device)
        if keep_bytes is not None:
            self.keep_bytes = byte_count(keep_bytes)
        elif self.device.type & cl.device_type.CPU:
            self.keep_bytes = self.KEEP_BYTES
        else:
            self.keep_bytes = min(self.GPU_KEEP_BYTES, self.device.global_mem_size // 8)
        self.use_double = resolve_precision(precision, self.device)
        self.precision = "double" if self.use_double else "single"
        self.dtype = np.dtype(np.float64 if self.use_double else np.float32)
        self.profiling = bool(profiling)
        self.context = context_for(self.device)
        properties = cl.command_queue_properties.PROFILING_ENABLE if self.profiling else 0
        try:
            # 0 (no properties) is what pyopencl takes for none; its stubs want the flag type.
            self.queue = cl.CommandQueue(self.context, self.device, properties=properties)  # type: ignore[arg-type]
        except cl.Error as error:
            raise OpenCLError(f"creating a command queue on device {device_label(self.device)} "
                              f"failed: {error}") from None
        self.pinned = PinnedPool(self.context, self.queue, self.keep_bytes)
        # Asked once: each query is a call into the runtime, and a warm call makes none.
        self.max_alloc_bytes = self.device.max_mem_alloc_size
        self.device_type = self.device.type
        #: Poll for large results without sleeping (buffers.wait_in_python): on GPUs and accelerators.
        self.spin_wait = not self.device_type & cl.device_type.CPU
        #: Compilations and device-buffer allocations this engine caused (for tests and curiosity).
        self.builds = 0
        self.allocations = 0
        self._launchers: dict[str, Launcher] = {}
        self._d_vertices = None
        self._d_mask = None
        self._sizes: dict[int, int] = {}  # id -> bytes of the buffers above (asking the runtime costs a call)
        self._h_vertices = None  # kept alive until its non-blocking upload is done
        self._resident = None  # (vertex buffer, the vertices it holds): an unchanged polygon is not sent again
        self._h_result = None  # kept alive while a download into it may still run
        self._in_flight = False  # commands enqueued that no wait has seen finish
        self._call = None  # (shape, kernel, packed, n_vertices) of the last enqueue, until its result
        self._events = {}
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"MaskEngine(device={self.device.name.strip()!r}, precision={self.precision!r})"

    # -- pieces --

    def _launcher(self, kernel: str) -> Launcher:
        """The launcher of `kernel`, built once (per process) and kept by this engine."""
        found = self._launchers.get(kernel)
        if found is None:
            before = build_count()
            built = program(self.device, kernel, self.use_double)
            self.builds += build_count() - before
            found = Launcher(built, kernel_entry(kernel)[1], self.device, self.queue)
            self._launchers[kernel] = found
        return found

    def _buffer(self, name: str, nbytes: int, flags: int, what: str) -> cl.Buffer:
        """The buffer in attribute `name` if it holds `nbytes`, else a new, larger one there (settled first)."""
        nbytes = max(nbytes, 16)  # OpenCL forbids empty buffers
        current: cl.Buffer | None = getattr(self, name)  # _d_vertices or _d_mask
        if current is not None and self._sizes.get(id(current), 0) >= nbytes:
            return current
        check_fits(self.device, nbytes, f"the {what}")
        if current is not None:  # the old buffer goes before the new one comes: peak memory is the larger
            del self._sizes[id(current)]
            setattr(self, name, None)
            self._resident = None
            forget(self._launchers.values())  # their argument keys hold it
            del current
        buffer = self._new_buffer(flags, nbytes, what)
        self._sizes[id(buffer)] = nbytes
        setattr(self, name, buffer)
        self.allocations += 1
        return buffer

    def _new_buffer(self, flags: int, nbytes: int, what: str) -> cl.Buffer:
        return allocated_buffer(self.context, self.queue, self.device, flags, nbytes, what)

    def _check_size(self, shape: tuple[int, int], packed: bool = False) -> None:
        rows, cols = result_shape(shape, packed)
        if rows * cols > self.max_alloc_bytes:
            check_fits(self.device, rows * cols, f"a {shape[0]}x{shape[1]} mask")

    def _settle(self) -> None:
        """Wait for every command this engine enqueued.

        OpenCL cannot cancel a command once enqueued, so waiting is how every
        path -- errors and Ctrl-C included -- makes sure no kernel or copy
        still uses a buffer (device or host) that is about to be freed.
        """
        try:
            self.queue.finish()
        except cl.Error:  # a command that failed has still finished; the caller's error says why
            pass
        self._in_flight = False
        self._h_result = None

    def _abandon(self) -> None:
        """After an error: wait for what is in flight, then drop the call's state and big buffers."""
        self._settle()
        self._h_vertices = None
        self._resident = None  # an upload may have failed half-way
        self._call = None
        self._events = {}
        self._drop_buffers(self.keep_bytes)

    def _drop_buffers(self, keep_bytes: int) -> None:
        """Free the device buffers larger than `keep_bytes` (all of them for -1); the queue is settled."""
        if self._d_mask is not None and self._sizes[id(self._d_mask)] > keep_bytes:
            del self._sizes[id(self._d_mask)]
            self._d_mask = None
            forget(self._launchers.values())  # their argument keys hold the buffer
        if self._d_vertices is not None and self._sizes[id(self._d_vertices)] > keep_bytes:
            del self._sizes[id(self._d_vertices)]
            self._d_vertices = None
            self._resident = None
            forget(self._launchers.values())

    def release(self) -> None:
        """Wait for this engine's commands, then free its device buffers and spare page-locked memory.

        The programs stay built; the next call allocates again.

        Examples
        --------
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     _ = engine.mask([(1, 1), (6, 1), (3, 5)], (8, 8))
        ...     engine.release()
        ...     print(engine.resident_bytes())
        ... else:
        ...     print(0)
        0
        """
        with self._lock:
            self._settle()
            self._h_vertices = None
            self._call = None
            self._drop_buffers(-1)
            self.pinned.clear()
            if self._device_pool is not None:
                self._device_pool.free_held()

    def resident_bytes(self) -> int:
        """Bytes of device memory this engine's buffers hold now.

        Returns
        -------
        int
            The bytes of the mask and vertex buffers on the device.

        Examples
        --------
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     _ = engine.mask([(1, 1), (6, 1), (3, 5)], (8, 8))
        ...     print(engine.resident_bytes() > 0)
        ... else:
        ...     print(True)
        True
        """
        with self._lock:
            return sum(self._sizes[id(buffer)] for buffer in (self._d_mask, self._d_vertices) if buffer is not None)

    # -- profiling --

    def timings(self) -> dict[str, float]:
        """Seconds of the last call, from OpenCL events.

        Returns
        -------
        dict
            Keys kernel_s, upload_s, download_s and transfer_s (upload plus download).

        Raises
        ------
        RuntimeError
            For an engine made without ``profiling=True``, or before any call.

        Examples
        --------
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine(profiling=True)
        ...     _ = engine.mask([(1, 1), (6, 1), (3, 5)], (8, 8))
        ...     print(sorted(engine.timings()))
        ... else:
        ...     print(['download_s', 'kernel_s', 'transfer_s', 'upload_s'])
        ['download_s', 'kernel_s', 'transfer_s', 'upload_s']
        """
        if not self.profiling:
            raise RuntimeError("timings() needs an engine made with profiling=True")
        if "kernel" not in self._events:
            raise RuntimeError("timings() needs a finished call: call mask() first")
        for event in self._events.values():
            event.wait()
        upload = event_seconds(self._events["upload"]) if "upload" in self._events else 0.0
        download = event_seconds(self._events["download"]) if "download" in self._events else 0.0
        return {"kernel_s": event_seconds(self._events["kernel"]), "upload_s": upload, "download_s": download,
                "transfer_s": upload + download}
