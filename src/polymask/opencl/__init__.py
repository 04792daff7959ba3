"""polymask on OpenCL devices: a small façade over its modules.

* ``polymask.opencl.common`` -- the one ``pyopencl`` import, the errors,
  the environment variables and the one locked cache (devices, contexts,
  programs, shared engines).
* ``polymask.opencl.programs`` -- kernels as package resources
  (``kernels/pixel.cl``, ``kernels/scanline.cl`` and ``kernels/rows.cl``,
  which include the C++ core's ``polymask/crossing.h``), build options,
  programs built once; ``polymask.opencl.launch`` -- how each is launched.
* ``polymask.opencl.discovery`` -- discovery (:func:`devices`), choice
  (:func:`select_device`: argument, ``$POLYMASK_DEVICE``, ``$PYOPENCL_CTX``,
  then the best device that builds the kernels; ``POLYMASK_OPENCL=0`` turns
  OpenCL off), precision (double where the device has fp64, see
  :data:`SINGLE_PRECISION_NOTE` otherwise), and availability.
* ``polymask.opencl.processing`` -- :class:`MaskEngine`, the resident
  engine (programs, buffers, events; it waits for what it enqueued before
  anything is freed, and frees big buffers after their result), with
  ``polymask.opencl.pinned``'s page-locked memory for large results.
* ``polymask.opencl.shared`` -- the shared engines (:func:`engine`,
  :func:`mask`, :func:`release`), :func:`unpack` for bit-packed results,
  and :func:`profile`.

:func:`mask` runs the ``"rows"`` kernel unless told otherwise: one
work-group per row, the scanline algorithm in the shape a GPU wants.  The
course's kernels, ``"pixel"`` (lesson 7) and ``"scanline"``, give the same
mask, bit for bit.

Errors: build failures raise :class:`OpenCLBuildError` with the device and
the build log; other OpenCL failures raise :class:`OpenCLError` naming the
device (:class:`OpenCLMemoryError`, also a MemoryError, when a buffer cannot
be allocated); a missing runtime raises :class:`OpenCLUnavailable` (an
ImportError) saying how to install one.
"""
from __future__ import annotations

from polymask.opencl.common import (
    DEVICE_ENV,  # noqa: F401
    INSTALL_HINT,  # noqa: F401
    OPENCL_ENV,  # noqa: F401
    PYOPENCL_ENV,  # noqa: F401
    OpenCLBuildError,
    OpenCLError,
    OpenCLMemoryError,
    OpenCLUnavailable,
)
from polymask.opencl.discovery import (
    PRECISIONS,
    SINGLE_PRECISION_NOTE,
    DeviceInfo,
    _has_fp64,  # noqa: F401  (tests compare auto precision with it)
    available,
    build_program,
    describe_default_device,
    devices,
    require,
    resolve_precision,  # noqa: F401
    select_device,
    single_precision_tolerance,
    unavailable_reason,
)
from polymask.opencl.processing import MaskEngine
from polymask.opencl.programs import (  # noqa: F401  (build_count: for the tests)
    DEFAULT_KERNEL,
    KERNELS,
    build_count,
    build_options,
    kernel_dir,
    kernel_source,
)
from polymask.opencl.shared import engine, mask, profile, release, unpack

#: The user API, as the reference documents it.  The environment variables' names
#: (DEVICE_ENV, OPENCL_ENV, PYOPENCL_ENV), INSTALL_HINT, build_count and
#: resolve_precision stay importable from here for the course and the tests.
__all__ = [
    "DEFAULT_KERNEL", "KERNELS", "PRECISIONS", "SINGLE_PRECISION_NOTE",
    "DeviceInfo", "MaskEngine", "OpenCLBuildError", "OpenCLError", "OpenCLMemoryError", "OpenCLUnavailable",
    "available", "build_options", "build_program", "describe_default_device", "devices", "engine",
    "kernel_dir", "kernel_source", "mask", "profile", "release", "require", "select_device",
    "single_precision_tolerance", "unavailable_reason", "unpack",
]

# The user API's functions and classes say they belong to ``polymask.opencl``,
# where users import them from (help(), pickle), not to the module that defines them.
for _name in __all__:
    _public = globals()[_name]
    if (isinstance(_public, type) or callable(_public)) and getattr(_public, "__module__", "").startswith(__name__):
        _public.__module__ = __name__
del _name, _public
