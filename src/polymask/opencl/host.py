"""Host vertices, host results: MaskEngine's calls that take NumPy in and give NumPy out.

:class:`HostResults` is the part of :class:`polymask.opencl.MaskEngine` that
takes vertices on the host: it snapshots them (sending them only when they
changed since the last call), starts the kernel, and copies the mask back
with the call's one wait, into page-locked memory for large results
(``pinned.py``).  How it waits depends on the device (``_download``);
every wait that can be long polls from Python, so that Ctrl-C is heard
while the kernel runs.  It uses the engine's lock, launchers and buffers (processing.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

import numpy as np
from numpy.typing import NDArray

from polymask import _inputs
from polymask._arguments import as_shape
from polymask._outputs import result_array
from polymask.opencl._state import check_not_forked
from polymask.opencl.buffers import is_device_array, wait_in_python
from polymask.opencl.common import OpenCLError, cl, device_label
from polymask.opencl.engine_state import EngineState
from polymask.opencl.launch import (
    BLOCKING_WAIT_EDGE_TESTS,
    as_packed,
    check_packing,
    edge_tests,
    kernel_arguments,
    result_shape,
)
from polymask.opencl.programs import DEFAULT_KERNEL, chosen_kernel
from polymask.typing import PolygonLike, ShapeLike

if TYPE_CHECKING:
    from pyopencl.array import Array


def _one_ring(vertices: PolygonLike) -> NDArray[np.float64]:
    """`vertices` through the library's funnel (polymask/_inputs.py), as the one ring the kernels fill."""
    rings = _inputs.polygon(vertices)
    if rings.ring_ends is not None and len(rings.ring_ends) > 1:
        raise ValueError(f"the OpenCL kernels fill one ring, got {len(rings.ring_ends)} rings; "
                         "use polymask.mask for holes and several parts")
    return rings.vertices


class HostResults(EngineState):
    """MaskEngine's host path (mixed into the engine; see processing.py)."""

    def _holds(self, h_vertices: NDArray[Any]) -> bool:
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

    def enqueue(self, vertices: PolygonLike, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL,
                packed: bool = False) -> cl.Event:
        """Send the polygon and start the kernel; return its event without waiting.

        The vertices are copied first, so the caller may change its array as
        soon as this returns.  The mask stays in the engine's device buffer
        until :meth:`result`.

        Parameters
        ----------
        vertices : polygon
            As :func:`polymask.opencl.mask` takes it (host vertices only).
        shape : (rows, cols)
            The image shape.
        kernel : {"auto", "rows", "scanline", "pixel"}, optional
            As :func:`polymask.opencl.mask` takes it.
        packed : bool, optional
            Write one bit a pixel (uint8), for :func:`polymask.opencl.unpack`.

        Returns
        -------
        pyopencl.Event
            The kernel's event.

        Raises
        ------
        TypeError, ValueError
            For a polygon, shape, kernel or `out` that :func:`polymask.opencl.mask` refuses.
        OpenCLError
            If the device fails (OpenCLMemoryError when a buffer does not fit).

        Examples
        --------
        >>> import polymask
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     _ = engine.enqueue([(1, 1), (6, 1), (3, 5)], (8, 8)); on_device = engine.result()
        ...     print(bool((on_device == polymask.mask([(1, 1), (6, 1), (3, 5)], (8, 8))).all()))
        ... else:
        ...     print(True)
        True
        """
        return self._enqueue(_one_ring(vertices), as_shape(shape), kernel, as_packed(packed))

    def _enqueue(self, coordinates: NDArray[np.float64], shape: tuple[int, int], kernel: str,
                 packed: bool = False) -> cl.Event:
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
                d_vertices = self._buffer("_d_vertices", h_vertices.nbytes, cl.mem_flags.READ_ONLY, "polygon")
                d_mask = self._buffer("_d_mask", rows * cols, cl.mem_flags.READ_WRITE, "mask")
                self._in_flight = True
                if len(h_vertices) and not self._holds(h_vertices):
                    self._h_vertices = h_vertices
                    try:
                        self._events["upload"] = cl.enqueue_copy(self.queue, d_vertices, h_vertices,
                                                                 is_blocking=False)
                    except cl.Error as error:
                        raise OpenCLError(f"uploading {len(h_vertices)} vertices to device "
                                          f"{device_label(self.device)} failed: {error}") from None
                    self._resident = (d_vertices, h_vertices)
                # The queue runs in order: the kernel starts after the upload without being told.
                key, arguments = kernel_arguments(kernel, d_vertices, len(h_vertices), d_mask, shape, packed)
                event = launcher.launch(kernel, key, arguments, shape)
            except BaseException:
                self._abandon()
                raise
            self._events["kernel"] = event
            self._call = (shape, kernel, packed, len(h_vertices))
            return event

    def result(self, out: NDArray[Any] | None = None) -> NDArray[Any]:
        """Wait for the last :meth:`enqueue` and copy its mask back.

        Parameters
        ----------
        out : numpy.ndarray, optional
            A C-contiguous bool or uint8 array of the mask's shape to fill.

        Returns
        -------
        numpy.ndarray
            The mask (`out` itself when given).

        Raises
        ------
        RuntimeError
            When no :meth:`enqueue` came before.

        Examples
        --------
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     _ = engine.enqueue([(1, 1), (6, 1), (3, 5)], (8, 8))   # the host may work meanwhile
        ...     print(int(engine.result().sum()))
        ... else:
        ...     print(13)
        13
        """
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

    def _host_result(self, out: NDArray[Any] | None, shape: tuple[int, int], packed: bool) -> NDArray[Any]:
        """Where the result goes: `out`, else page-locked memory from the pool, else a new array."""
        if packed:
            if out is not None:
                raise ValueError("out= takes an unpacked mask; with packed=True the engine returns a new array")
            found = self.pinned.array(result_shape(shape, True), np.uint8)
            if found is None:
                found = result_array(None, result_shape(shape, True), np.uint8, what="packed mask")
            return found
        if out is None:
            found = self.pinned.array(shape, np.bool_)
            if found is not None:
                return found
        return result_array(out, shape)

    def _download(self, result: NDArray[Any]) -> NDArray[Any]:
        """Copy the last kernel's mask into `result` with the call's one wait, and return `result`."""
        with self._lock:
            call, d_mask = self._call, self._d_mask
            if call is None or d_mask is None:  # never: result() checks, mask() and fill() have just enqueued
                raise RuntimeError("result() needs a mask: call enqueue(vertices, shape) first")
            shape, kernel, _, n_vertices = call
            host = result  # a C-contiguous bool or uint8 array: the copy takes its bytes as they are
            # The queue runs in order, so the copy follows the kernel.  A small
            # call waits in the runtime, the cheapest wait for it.  A large one
            # polls, so that Ctrl-C is heard while the kernel runs: without
            # sleeping on a GPU (each sleep overshoots a short kernel), in short
            # sleeps on a CPU device, whose kernel needs the cores
            # (buffers.wait_in_python; the figures are in csrc/bench/STEPS.md).
            blocking = edge_tests(kernel, shape, n_vertices) < BLOCKING_WAIT_EDGE_TESTS
            try:
                download = cl.enqueue_copy(self.queue, host, d_mask, is_blocking=blocking)
            except cl.Error as error:
                self._abandon()
                raise OpenCLError(f"copying a {shape} mask back from device "
                                  f"{device_label(self.device)} failed: {error}") from None
            except BaseException:
                self._abandon()
                raise
            self._events["download"] = download
            if not blocking:
                self._h_result = host  # the copy may still write here if the wait below is interrupted
                try:
                    wait_in_python(download, spin=self.spin_wait)
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

    @overload
    def mask(self, vertices: Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL, out: None = None,
             packed: bool = False) -> Array: ...
    @overload
    def mask(self, vertices: PolygonLike, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL,
             out: NDArray[Any] | None = None, packed: bool = False) -> NDArray[Any]: ...
    @overload
    def mask(self, vertices: PolygonLike | Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL,
             out: NDArray[Any] | None = None, packed: bool = False) -> NDArray[Any] | Array: ...
    def mask(self, vertices: PolygonLike | Array, shape: ShapeLike, *, kernel: str = DEFAULT_KERNEL,
             out: NDArray[Any] | None = None, packed: bool = False) -> NDArray[Any] | Array:
        """The mask of a polygon on a `shape` image, on this engine's device.

        Host vertices give a NumPy array; a ``pyopencl.array.Array`` of
        vertices gives a device array that stays on the device (compute
        follows data).

        Parameters
        ----------
        vertices : polygon or pyopencl.array.Array
            As :func:`polymask.opencl.mask` takes it.
        shape : (rows, cols)
            The image shape.
        kernel : {"auto", "rows", "scanline", "pixel"}, optional
            As :func:`polymask.opencl.mask` takes it.
        out : numpy.ndarray, optional
            As :func:`polymask.opencl.mask` takes it.
        packed : bool, optional
            Write one bit a pixel (uint8), for :func:`polymask.opencl.unpack`.

        Returns
        -------
        numpy.ndarray or pyopencl.array.Array
            The bool mask; with ``packed=True`` uint8, one bit a pixel, for
            :func:`polymask.opencl.unpack`.

        Raises
        ------
        TypeError, ValueError
            For a polygon, shape, kernel or `out` that :func:`polymask.opencl.mask` refuses.
        OpenCLError
            If the device fails (OpenCLMemoryError when a buffer does not fit).

        Examples
        --------
        >>> import polymask
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     on_device = engine.mask([(1, 1), (6, 1), (3, 5)], (8, 8))
        ...     print(bool((on_device == polymask.mask([(1, 1), (6, 1), (3, 5)], (8, 8))).all()))
        ... else:
        ...     print(True)
        True
        """
        packed = as_packed(packed)
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

    def fill(self, coordinates: NDArray[np.float64], shape: tuple[int, int], out: NDArray[Any] | None = None, *,
             kernel: str = DEFAULT_KERNEL) -> NDArray[Any]:
        """The course's entry: :meth:`mask` of arguments already checked, checked no more.

        Parameters
        ----------
        coordinates : numpy.ndarray
            (N, 2) float64 vertices, C-contiguous and finite.
        shape : tuple of int
            The image shape, both at least 1.
        out : numpy.ndarray, optional
            A C-contiguous bool array of `shape` to fill.
        kernel : str, optional
            As :meth:`mask` takes it.

        Returns
        -------
        numpy.ndarray
            The bool mask.

        Raises
        ------
        OpenCLError
            If the device fails.

        Examples
        --------
        >>> import numpy as np
        >>> from polymask import opencl
        >>> if opencl.available():
        ...     engine = opencl.MaskEngine()
        ...     print(int(engine.fill(np.array([(1.0, 1.0), (6.0, 1.0), (3.0, 5.0)]), (8, 8)).sum()))
        ... else:
        ...     print(13)
        13
        """
        result = self._host_result(out, shape, False)
        with self._lock:
            self._enqueue(coordinates, shape, kernel)
            return self._download(result)
