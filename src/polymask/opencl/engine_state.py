"""The attributes and helpers MaskEngine's parts share, declared for type checkers.

:class:`polymask.opencl.MaskEngine` (processing.py) is assembled from
HostResults (host.py) and DeviceResults (resident.py); each mixin uses state
and helpers that only the engine's ``__init__`` and methods create.  This base
declares them, so a checker can follow a mixin on its own; at run time it
adds nothing (the declarations exist only while type checking).
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyopencl as cl
    from numpy.typing import NDArray
    from pyopencl.array import Array

    from polymask.opencl.launch import Launcher
    from polymask.opencl.pinned import PinnedPool
    from polymask.typing import ShapeLike


class EngineState:
    """What MaskEngine's mixins read and call on the engine (see processing.py)."""

    if TYPE_CHECKING:
        device: cl.Device
        context: cl.Context
        queue: cl.CommandQueue
        pinned: PinnedPool
        dtype: np.dtype[Any]
        use_double: bool
        precision: str
        profiling: bool
        keep_bytes: int
        max_alloc_bytes: int
        device_type: int
        spin_wait: bool
        builds: int
        allocations: int
        _launchers: dict[str, Launcher]
        # The device buffers: None until _buffer() sets them by name.
        _d_vertices: cl.Buffer | None
        _d_mask: cl.Buffer | None
        _sizes: dict[int, int]
        _h_vertices: NDArray[Any] | None
        _resident: tuple[cl.Buffer, NDArray[Any]] | None
        _h_result: NDArray[Any] | None
        _in_flight: bool
        # (shape, kernel, packed, n_vertices) of the last enqueue, None once its result is taken.
        _call: tuple[tuple[int, int], str, bool, int] | None
        _events: dict[str, cl.Event]
        _lock: threading.RLock

    # The engine's helpers: MaskEngine (or DeviceResults) defines each, ahead
    # of this class in the method order, so these bodies never run.

    def _launcher(self, kernel: str) -> Launcher:
        raise NotImplementedError

    def _buffer(self, name: str, nbytes: int, flags: int, what: str) -> cl.Buffer:
        raise NotImplementedError

    def _new_buffer(self, flags: int, nbytes: int, what: str) -> cl.Buffer:
        raise NotImplementedError

    def _check_size(self, shape: tuple[int, int], packed: bool = False) -> None:
        raise NotImplementedError

    def _settle(self) -> None:
        raise NotImplementedError

    def _abandon(self) -> None:
        raise NotImplementedError

    def _drop_buffers(self, keep_bytes: int) -> None:
        raise NotImplementedError

    def mask_on_device(self, d_vertices: Array, shape: ShapeLike, *, kernel: str = "auto",
                       packed: bool = False) -> Array:
        raise NotImplementedError
