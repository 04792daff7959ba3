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

from polymask import _inputs
from polymask._outputs import result_array
from polymask._validation import as_shape
from polymask.opencl.buffers import (
    allocated_buffer,
    byte_count,
    check_fits,
    event_seconds,
    is_device_array,
    wait_in_python,
)
from polymask.opencl.common import OpenCLError, check_not_forked, cl, device_label
from polymask.opencl.discovery import resolve_precision, select_device
from polymask.opencl.launch import (
    BLOCKING_WAIT_EDGE_TESTS,
    Launcher,
    check_packing,
    edge_tests,
    forget,
    kernel_arguments,
    result_shape,
)
from polymask.opencl.pinned import PinnedPool
from polymask.opencl.programs import DEFAULT_KERNEL, build_count, chosen_kernel, context_for, kernel_entry, program
from polymask.opencl.resident import DeviceResults


def _one_ring(vertices) -> np.ndarray:
    """`vertices` through the library's funnel (polymask/_inputs.py), as the one ring the kernels fill."""
    rings = _inputs.polygon(vertices)
    if rings.ring_ends is not None and len(rings.ring_ends) > 1:
        raise ValueError(f"the OpenCL kernels fill one ring, got {len(rings.ring_ends)} rings; "
                         "use polymask.mask for holes and several parts")
    return rings.vertices


class MaskEngine(DeviceResults):
    """Masks on one OpenCL device, with the program and buffers kept between calls.

    >>> engine = MaskEngine("cpu")                       # doctest: +SKIP
    >>> engine.mask([(1, 1), (9, 2), (5, 8)], (10, 10))  # doctest: +SKIP

    The program is built once per device, kernel and precision (shared by
    every engine in the process).  The polygon and the mask live in device
    buffers that grow when needed and are reused otherwise, so repeated
    masks of one size pay neither allocation nor compilation.  A buffer
    larger than `keep_bytes` is freed as soon as its result is back, so one
    huge mask does not pin memory for the life of the process; the default
    is :data:`KEEP_BYTES` on a CPU device (whose buffers are host memory)
    and :data:`GPU_KEEP_BYTES` on others.  Results of 1 MiB and more come
    back in page-locked host memory, reused once the caller drops them.
    :meth:`release` frees everything now.  `enqueue` returns the kernel's
    event at once; `result` waits and copies the mask back.  Calls from
    several threads are serialised by the engine's lock.
    """

    #: Kept on a CPU device: 64 MiB keeps an 8192 x 8192 mask resident.
    KEEP_BYTES = 64 * 2**20
    #: Kept on a GPU or accelerator (at most an eighth of its memory): a 16384 x 16384 mask stays.
    GPU_KEEP_BYTES = 2**30

    def __init__(self, device=None, *, precision: str = "auto", profiling: bool = False,
                 keep_bytes: int | None = None):
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
            self.queue = cl.CommandQueue(self.context, self.device, properties=properties)
        except cl.Error as error:
            raise OpenCLError(f"creating a command queue on device {device_label(self.device)} "
                              f"failed: {error}") from None
        self.pinned = PinnedPool(self.context, self.queue, self.keep_bytes)
        # Asked once: each query is a call into the runtime, and a warm call makes none.
        self.max_alloc_bytes = self.device.max_mem_alloc_size
        self.device_type = self.device.type
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

    def __repr__(self):
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

    def _buffer(self, name: str, nbytes: int, flags, what: str):
        """The buffer in attribute `name` if it holds `nbytes`, else a new, larger one there (settled first)."""
        nbytes = max(nbytes, 16)  # OpenCL forbids empty buffers
        current = getattr(self, name)
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

    def _new_buffer(self, flags, nbytes: int, what: str):
        return allocated_buffer(self.context, self.queue, self.device, flags, nbytes, what)

    def _check_size(self, shape, packed: bool = False):
        rows, cols = result_shape(shape, packed)
        if rows * cols > self.max_alloc_bytes:
            check_fits(self.device, rows * cols, f"a {shape[0]}x{shape[1]} mask")

    def _holds(self, h_vertices: np.ndarray) -> bool:
        """Whether the vertex buffer already holds exactly these vertices, bit for bit.

        Comparing the bits on the host costs far less than sending them, and
        a warm call with the same polygon then sends nothing.  A profiling
        engine always sends them, so that its timings include the upload.
        """
        if self.profiling or self._resident is None or self._resident[0] is not self._d_vertices:
            return False
        held = self._resident[1]
        if held.nbytes != h_vertices.nbytes:
            return False
        if held.nbytes <= 1 << 16:  # bytes() of a small polygon is quicker than NumPy's comparison
            return held.tobytes() == h_vertices.tobytes()
        return bool(np.array_equal(held.view(np.uint8), h_vertices.view(np.uint8)))

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
        """Wait for this engine's commands, then free its device buffers and spare page-locked memory."""
        with self._lock:
            self._settle()
            self._h_vertices = None
            self._call = None
            self._drop_buffers(-1)
            self.pinned.clear()
            if self._device_pool is not None:
                self._device_pool.free_held()

    def resident_bytes(self) -> int:
        """Bytes of device memory this engine's buffers hold now."""
        with self._lock:
            return sum(self._sizes[id(buffer)] for buffer in (self._d_mask, self._d_vertices) if buffer is not None)

    # -- host vertices, resident output --

    def enqueue(self, vertices, shape, *, kernel: str = DEFAULT_KERNEL, packed: bool = False):
        """Upload the polygon and start the kernel; return its event without waiting.

        The vertices are copied first, so the caller may change its array as
        soon as this returns.  The mask stays in the engine's device buffer
        until `result()`.
        """
        return self._enqueue(_one_ring(vertices), as_shape(shape), kernel, bool(packed))

    def _enqueue(self, coordinates: np.ndarray, shape: tuple[int, int], kernel: str, packed: bool = False):
        check_not_forked()  # enqueue() of checked vertices and shape from here on
        kernel = chosen_kernel(kernel, self.device_type, packed)
        check_packing(kernel, packed)
        self._check_size(shape, packed)
        # A snapshot, always: the upload does not wait, and the caller's array is theirs to change.
        if self.use_double:
            h_vertices = np.array(coordinates, dtype=self.dtype, order="C", copy=True)
        else:
            with np.errstate(over="ignore"):  # float32 rounds huge coordinates to inf, like the device would
                h_vertices = np.array(coordinates, dtype=self.dtype, order="C", copy=True)
        rows, cols = result_shape(shape, packed)
        with self._lock:
            if self._in_flight:
                self._settle()  # the previous call's commands may still use the buffers replaced below
            self._events = {}
            self._call = None
            try:
                launcher = self._launcher(kernel)
                self._buffer("_d_vertices", h_vertices.nbytes, cl.mem_flags.READ_ONLY, "polygon")
                self._buffer("_d_mask", rows * cols, cl.mem_flags.READ_WRITE, "mask")
                self._in_flight = True
                if len(h_vertices) and not self._holds(h_vertices):
                    self._h_vertices = h_vertices
                    try:
                        self._events["upload"] = cl.enqueue_copy(self.queue, self._d_vertices, h_vertices,
                                                                 is_blocking=False)
                    except cl.Error as error:
                        raise OpenCLError(f"uploading {len(h_vertices)} vertices to device "
                                          f"{device_label(self.device)} failed: {error}") from None
                    self._resident = (self._d_vertices, h_vertices)
                # The queue runs in order: the kernel starts after the upload without being told.
                key, arguments = kernel_arguments(kernel, self._d_vertices, len(h_vertices), self._d_mask, shape,
                                                  packed)
                event = launcher.launch(kernel, key, arguments, shape)
            except BaseException:
                self._abandon()
                raise
            self._events["kernel"] = event
            self._call = (shape, kernel, packed, len(h_vertices))
            return event

    def result(self, out=None) -> np.ndarray:
        """Wait for the last `enqueue` and copy its mask back (into `out` if given)."""
        with self._lock:
            if self._call is None:
                raise RuntimeError("result() needs a mask: call enqueue(vertices, shape) first")
            shape, _, packed, _ = self._call
            try:
                result = self._host_result(out, shape, packed)
            except MemoryError:
                self._abandon()  # the kernel is still running on our buffer: wait before anything goes
                raise
            return self._download(result)

    def _host_result(self, out, shape: tuple[int, int], packed: bool) -> np.ndarray:
        """Where the result goes: `out`, else page-locked memory from the pool, else a new array."""
        if packed:
            if out is not None:
                raise ValueError("out= takes an unpacked mask; with packed=True the engine returns a new array")
            found = self.pinned.array(result_shape(shape, True), np.uint8)
            return np.empty(result_shape(shape, True), np.uint8) if found is None else found
        if out is None:
            found = self.pinned.array(shape, np.bool_)
            if found is not None:
                return found
        return result_array(out, shape)

    def _download(self, result: np.ndarray) -> np.ndarray:
        """Copy the last kernel's mask into `result` with the call's one wait, and return `result`."""
        with self._lock:
            shape, kernel, _, n_vertices = self._call
            host = result  # a C-contiguous bool or uint8 array: the copy takes its bytes as they are
            small = edge_tests(kernel, shape, n_vertices) < BLOCKING_WAIT_EDGE_TESTS
            try:
                # The queue runs in order, so the copy follows the kernel.  A small
                # call waits in the runtime (cheapest); a large one polls, so that
                # Ctrl-C is heard while the kernel runs.
                download = cl.enqueue_copy(self.queue, host, self._d_mask, is_blocking=small)
            except cl.Error as error:
                self._abandon()
                raise OpenCLError(f"copying a {shape} mask back from device "
                                  f"{device_label(self.device)} failed: {error}") from None
            except BaseException:
                self._abandon()
                raise
            self._events["download"] = download
            if not small:
                self._h_result = host  # the copy may still write here if the wait below is interrupted
                try:
                    wait_in_python(download)
                except KeyboardInterrupt:
                    # Ctrl-C returns at once.  The kernel and the copy cannot be
                    # cancelled and still use the buffers, so nothing is freed:
                    # they stay with the engine, and the next call or release waits.
                    self._call = None
                    raise
            download.wait()  # done already; this makes PyOpenCL let go of `result`, which is the caller's now
            self._in_flight = False
            self._h_result = None
            self._h_vertices = None
            self._call = None
            self._drop_buffers(self.keep_bytes)  # the size policy: big masks do not stay resident
            return result

    def mask(self, vertices, shape, *, kernel: str = DEFAULT_KERNEL, out=None, packed: bool = False):
        """The mask of `vertices` on a `shape` image.

        Host vertices give a NumPy bool array (copied back).  A
        pyopencl.array.Array of vertices gives a pyopencl.array.Array of
        bool that stays on the device (compute follows data).  With
        ``packed=True`` (kernel "rows") the result holds one bit a pixel, in
        ``np.packbits(mask, axis=1)``'s layout: :func:`polymask.opencl.unpack`
        turns it back into the mask.
        """
        packed = bool(packed)
        if is_device_array(vertices):
            if out is not None:
                raise ValueError("out= is for host results; device-resident vertices give a device array")
            return self.mask_on_device(vertices, shape, kernel=kernel, packed=packed)
        coordinates, shape = _one_ring(vertices), as_shape(shape)
        check_packing(chosen_kernel(kernel, self.device_type, packed), packed)
        # The host result first: if it cannot be allocated, nothing has been enqueued yet.
        result = self._host_result(out, shape, packed)
        with self._lock:
            self._enqueue(coordinates, shape, kernel, packed)
            return self._download(result)

    def fill(self, coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None = None, *,
             kernel: str = DEFAULT_KERNEL) -> np.ndarray:
        """mask() of checked arguments (as polymask.course.stages.Stage.fill hands them), checked no more."""
        result = self._host_result(out, shape, False)
        with self._lock:
            self._enqueue(coordinates, shape, kernel)
            return self._download(result)

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
