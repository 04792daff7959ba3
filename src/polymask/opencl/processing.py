"""The resident engine: programs, buffers and events on one OpenCL device.

:class:`MaskEngine` builds each program once, keeps the polygon and the
output buffer on the device across calls (they grow when needed, and a
buffer above the engine's ``keep_bytes`` is freed after its result is
copied back), enqueues without waiting, and copies back on request.
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

from polymask import _inputs
from polymask._outputs import result_array
from polymask._validation import as_shape
from polymask.opencl.buffers import allocated_buffer, byte_count, event_seconds, is_device_array, wait_in_python
from polymask.opencl.common import OpenCLError, check_not_forked, cl, device_label
from polymask.opencl.discovery import resolve_precision, select_device
from polymask.opencl.programs import build_count, context_for, kernel_entry, program


def _one_ring(vertices) -> np.ndarray:
    """`vertices` through the library's funnel (polymask/_inputs.py), as the one ring the kernels fill."""
    rings = _inputs.polygon(vertices)
    if rings.ring_ends is not None and len(rings.ring_ends) > 1:
        raise ValueError(f"the OpenCL kernels fill one ring, got {len(rings.ring_ends)} rings; "
                         "use polymask.mask for holes and several parts")
    return rings.vertices


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class MaskEngine:
    """Masks on one OpenCL device, with the program and buffers kept between calls.

    >>> engine = MaskEngine("cpu")                       # doctest: +SKIP
    >>> engine.mask([(1, 1), (9, 2), (5, 8)], (10, 10))  # doctest: +SKIP

    The program is built once per device, kernel and precision (shared by
    every engine in the process).  The polygon and the mask live in device
    buffers that grow when needed and are reused otherwise, so repeated
    masks of one size pay neither allocation nor compilation.  A buffer
    larger than `keep_bytes` (default :data:`KEEP_BYTES`) is freed as soon
    as its result is back, so one huge mask does not pin device memory for
    the life of the process; :meth:`release` frees everything now.
    `enqueue` returns at once with the kernel's event; `result` waits and
    copies the mask back.  An engine is not meant to be shared by threads
    without a lock: it serialises its own calls with one.
    """

    #: Work-group shapes: (16, 4) pixels, 64 rows.  Any image size works:
    #: the NDRange is rounded up and the kernels skip the extra work-items.
    PIXEL_GROUP = (16, 4)
    SCANLINE_GROUP = 64
    #: Buffers up to this size stay on the device between calls; larger ones
    #: are freed after each result (re-allocating costs far less than the
    #: mask it holds).  64 MiB keeps an 8192 x 8192 mask resident.
    KEEP_BYTES = 64 * 2**20

    def __init__(self, device=None, *, precision: str = "auto", profiling: bool = False,
                 keep_bytes: int | None = None):
        self.keep_bytes = self.KEEP_BYTES if keep_bytes is None else byte_count(keep_bytes)
        self.device = select_device(device)
        self.use_double = resolve_precision(precision, self.device)
        self.precision = "double" if self.use_double else "single"
        self.dtype = np.dtype(np.float64 if self.use_double else np.float32)
        self.profiling = bool(profiling)
        self.context = context_for(self.device)
        properties = cl.command_queue_properties.PROFILING_ENABLE if self.profiling else 0
        try:
            self.queue = cl.CommandQueue(self.context, self.device, properties=properties)
        except cl.Error as error:
            raise OpenCLError(f"creating a command queue on device {device_label(self.device)} "
                              f"failed: {error}") from None
        #: Compilations and device-buffer allocations this engine caused (for tests and curiosity).
        self.builds = 0
        self.allocations = 0
        self._kernels = {}
        self._d_vertices = None
        self._d_mask = None
        self._h_vertices = None  # kept alive until its non-blocking upload is done
        self._shape = None
        self._events = {}
        self._lock = threading.RLock()

    def __repr__(self):
        return f"MaskEngine(device={self.device.name.strip()!r}, precision={self.precision!r})"

    # -- pieces --

    def _kernel(self, kernel: str):
        """The cl.Kernel object for `kernel`, built once (per process) and kept by this engine."""
        found = self._kernels.get(kernel)
        if found is None:
            before = build_count()
            built = program(self.device, kernel, self.use_double)
            self.builds += build_count() - before
            found = cl.Kernel(built, kernel_entry(kernel)[1])
            self._kernels[kernel] = found
        return found

    def _buffer(self, current, nbytes: int, flags, what: str):
        """`current` if it holds `nbytes`, else a new, larger device buffer (the caller has settled)."""
        nbytes = max(nbytes, 16)  # OpenCL forbids empty buffers
        if current is not None and current.size >= nbytes:
            return current
        if nbytes > self.device.max_mem_alloc_size:
            raise OpenCLError(
                f"the {what} needs {nbytes:,} bytes, but device {device_label(self.device)} allows at most "
                f"{self.device.max_mem_alloc_size:,} bytes per buffer; use a smaller image or polymask.mask")
        del current  # the old buffer goes before the new one comes: peak memory is the larger, not both
        buffer = self._new_buffer(flags, nbytes, what)
        self.allocations += 1
        return buffer

    def _new_buffer(self, flags, nbytes: int, what: str):
        return allocated_buffer(self.context, self.queue, self.device, flags, nbytes, what)

    def _launch(self, kernel: str, d_vertices, n_vertices: int, d_mask, shape, wait_for):
        rows, cols = shape
        program_kernel = self._kernel(kernel)
        limit = program_kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
        if kernel == "pixel":
            group_cols = min(self.PIXEL_GROUP[0], limit)
            local = (group_cols, max(1, min(self.PIXEL_GROUP[1], limit // group_cols)))
            global_size = (_round_up(cols, local[0]), _round_up(rows, local[1]))
        else:
            local = (min(self.SCANLINE_GROUP, limit),)
            global_size = (_round_up(rows, local[0]),)
        program_kernel.set_args(d_vertices, np.int32(n_vertices), d_mask, np.int32(rows), np.int32(cols))
        try:
            return cl.enqueue_nd_range_kernel(self.queue, program_kernel, global_size, local, wait_for=wait_for)
        except cl.Error as error:
            raise OpenCLError(f"running kernel {kernel!r} ({global_size} work-items in groups of {local}) on "
                              f"device {device_label(self.device)} failed: {error}") from None

    def _check_size(self, shape):
        rows, cols = shape
        if rows * cols > self.device.max_mem_alloc_size:
            raise OpenCLError(
                f"a {rows}x{cols} mask needs {rows * cols:,} bytes, but device {device_label(self.device)} "
                f"allows at most {self.device.max_mem_alloc_size:,} bytes per buffer; "
                "use a smaller image or polymask.mask")

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

    def _abandon(self) -> None:
        """After an error: wait for what is in flight, then drop the call's state and big buffers."""
        self._settle()
        self._h_vertices = None
        self._shape = None
        self._events = {}
        self._drop_buffers(self.keep_bytes)

    def _drop_buffers(self, keep_bytes: int) -> None:
        """Free the device buffers larger than `keep_bytes` (all of them for -1); the queue is settled."""
        if self._d_mask is not None and self._d_mask.size > keep_bytes:
            self._d_mask = None
        if self._d_vertices is not None and self._d_vertices.size > keep_bytes:
            self._d_vertices = None

    def release(self) -> None:
        """Wait for this engine's commands, then free its device buffers (the programs stay built)."""
        with self._lock:
            self._settle()
            self._h_vertices = None
            self._shape = None
            self._drop_buffers(-1)

    def resident_bytes(self) -> int:
        """Bytes of device memory this engine's buffers hold now."""
        with self._lock:
            return sum(buffer.size for buffer in (self._d_mask, self._d_vertices) if buffer is not None)

    # -- host vertices, resident output --

    def enqueue(self, vertices, shape, *, kernel: str = "pixel"):
        """Upload the polygon and start the kernel; return its event without waiting.

        The vertices are copied first, so the caller may change its array as
        soon as this returns.  The mask stays in the engine's device buffer
        until `result()`.
        """
        return self._enqueue(_one_ring(vertices), as_shape(shape), kernel)

    def _enqueue(self, coordinates: np.ndarray, shape: tuple[int, int], kernel: str):
        check_not_forked()  # enqueue() of checked vertices and shape from here on
        kernel_entry(kernel)
        self._check_size(shape)
        # A snapshot, always: the upload does not wait, and the caller's array is theirs to change.
        with np.errstate(over="ignore"):  # float32 rounds huge coordinates to inf, like the device would
            h_vertices = np.array(coordinates, dtype=self.dtype, order="C", copy=True)
        with self._lock:
            self._settle()  # the previous call's commands may still use the buffers replaced below
            self._events = {}
            self._shape = None
            try:
                self._d_vertices = self._buffer(self._d_vertices, h_vertices.nbytes, cl.mem_flags.READ_ONLY,
                                                "polygon")
                self._d_mask = self._buffer(self._d_mask, shape[0] * shape[1], cl.mem_flags.READ_WRITE, "mask")
                wait_for = None
                if len(h_vertices):
                    self._h_vertices = h_vertices
                    try:
                        upload = cl.enqueue_copy(self.queue, self._d_vertices, h_vertices, is_blocking=False)
                    except cl.Error as error:
                        raise OpenCLError(f"uploading {len(h_vertices)} vertices to device "
                                          f"{device_label(self.device)} failed: {error}") from None
                    self._events["upload"] = upload
                    wait_for = [upload]
                event = self._launch(kernel, self._d_vertices, len(h_vertices), self._d_mask, shape, wait_for)
            except BaseException:
                self._abandon()
                raise
            self._events["kernel"] = event
            self._shape = shape
            return event

    def result(self, out=None) -> np.ndarray:
        """Wait for the last `enqueue` and copy its mask back (into `out` if given)."""
        with self._lock:
            if self._shape is None:
                raise RuntimeError("result() needs a mask: call enqueue(vertices, shape) first")
            try:
                result = result_array(out, self._shape)
            except MemoryError:
                self._abandon()  # the kernel is still running on our buffer: wait before anything goes
                raise
            return self._download(result, result.view(np.uint8))

    def _download(self, result: np.ndarray, buffer: np.ndarray) -> np.ndarray:
        with self._lock:  # wait for the last kernel, copy its mask into `buffer` (`result` as uint8)
            try:
                wait_in_python(self._events["kernel"])
            except KeyboardInterrupt:
                # Ctrl-C returns at once.  The kernel cannot be cancelled and
                # still uses the buffers, so nothing is freed: they stay with
                # the engine, and the next enqueue or release waits first.
                self._shape = None
                raise
            try:
                download = cl.enqueue_copy(self.queue, buffer, self._d_mask,
                                           wait_for=[self._events["kernel"]], is_blocking=True)
            except cl.Error as error:
                self._abandon()
                raise OpenCLError(f"copying a {self._shape} mask back from device "
                                  f"{device_label(self.device)} failed: {error}") from None
            except BaseException:
                self._abandon()
                raise
            self._events["download"] = download
            self._h_vertices = None
            self._drop_buffers(self.keep_bytes)  # the size policy: big masks do not stay resident
            return result

    def mask(self, vertices, shape, *, kernel: str = "pixel", out=None):
        """The mask of `vertices` on a `shape` image.

        Host vertices give a NumPy bool array (copied back).  A
        pyopencl.array.Array of vertices gives a pyopencl.array.Array of
        bool that stays on the device (compute follows data).
        """
        if is_device_array(vertices):
            if out is not None:
                raise ValueError("out= is for host results; device-resident vertices give a device array")
            return self.mask_on_device(vertices, shape, kernel=kernel)
        coordinates, shape = _one_ring(vertices), as_shape(shape)
        # The host result first: if it cannot be allocated, nothing has been enqueued yet.
        result = result_array(out, shape)
        return self.fill(coordinates, shape, result, kernel=kernel)

    def fill(self, coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None = None, *,
             kernel: str = "pixel") -> np.ndarray:
        """mask() of checked arguments (as polymask.course.stages.Stage.fill hands them), checked no more."""
        result = result_array(None, shape) if out is None else out
        with self._lock:
            self._enqueue(coordinates, shape, kernel)
            return self._download(result, result.view(np.uint8))

    # -- device-resident vertices and result --

    def mask_on_device(self, d_vertices, shape, *, kernel: str = "pixel"):
        """The mask as a new pyopencl.array.Array of bool, computed from device-resident vertices.

        `d_vertices` is an (N, 2) pyopencl.array.Array of float32 or float64
        in this engine's context.  Nothing is copied to or from the host.
        Device data is not checked for finite values (that would need a
        copy back); the kernels give some mask for them, not an error.
        """
        import pyopencl.array as cl_array

        shape = as_shape(shape)
        kernel_entry(kernel)
        if not is_device_array(d_vertices):
            raise TypeError(f"d_vertices must be a pyopencl.array.Array, got {type(d_vertices).__name__}")
        if d_vertices.ndim != 2 or d_vertices.shape[1] != 2:
            raise ValueError(f"vertices must have shape (N, 2) of (x, y) pairs, got a device array of "
                             f"shape {d_vertices.shape}")
        if d_vertices.dtype not in (np.float32, np.float64):
            raise TypeError(f"device vertices must be float32 or float64, got dtype {d_vertices.dtype}")
        if d_vertices.context != self.context:
            raise ValueError(f"the vertices live in another OpenCL context (device "
                             f"{d_vertices.queue.device.name.strip() if d_vertices.queue else '?'!r}); this "
                             f"engine runs on device {device_label(self.device)}")
        if not d_vertices.flags.c_contiguous:
            raise ValueError("device vertices must be C-contiguous; pass d_vertices.copy()")
        self._check_size(shape)
        with self._lock:
            self._settle()
            try:
                wait_for = list(d_vertices.events)
                if d_vertices.dtype != self.dtype or d_vertices.offset:
                    # A conversion (or an offset view's copy) on the device: still no host round trip.
                    d_vertices = d_vertices.astype(self.dtype, queue=self.queue)
                    wait_for = list(d_vertices.events)
                n_vertices = d_vertices.shape[0]
                if n_vertices:
                    vertex_buffer = d_vertices.base_data
                else:
                    self._d_vertices = self._buffer(self._d_vertices, 16, cl.mem_flags.READ_ONLY, "polygon")
                    vertex_buffer = self._d_vertices
                # The result's buffer is allocated for real now (see _new_buffer), then handed to the caller.
                d_mask = cl_array.Array(self.queue, shape, np.bool_,
                                        data=self._new_buffer(cl.mem_flags.READ_WRITE, shape[0] * shape[1],
                                                              "mask"))
                event = self._launch(kernel, vertex_buffer, n_vertices, d_mask.base_data, shape, wait_for or None)
            except BaseException:
                self._abandon()
                raise
            d_mask.add_event(event)
            self._events = {"kernel": event}
            return d_mask

    # -- profiling --

    def timings(self) -> dict:
        """Seconds of the last call, from OpenCL events: kernel, upload, download, transfer (= both)."""
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
