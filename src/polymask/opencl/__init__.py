"""Polygon masks on an OpenCL device: a GPU, an accelerator, or a CPU through PoCL.

:func:`mask` gives the same mask as :func:`polymask.mask`, bit for bit in
double precision, computed by an OpenCL kernel on a device.  Use it when the
masks are large and a GPU is at hand, when the vertices already live on the
device (a ``pyopencl.array.Array`` gives a mask that stays there), or to
compare the course's kernels.  On a CPU alone, :func:`polymask.mask` (the
threaded scanline core) is usually as fast and needs nothing more.

``pip install "polymask[opencl]"`` brings PyOpenCL and PoCL, a CPU runtime;
a GPU needs its vendor's OpenCL driver.  :func:`available` says whether a
device here can build the kernels, :func:`unavailable_reason` why not, and
``python -m polymask.opencl`` lists the devices.

Example (it runs on any device, PoCL's CPU device included)::

    import numpy as np
    import polymask
    from polymask import opencl

    triangle = np.array([(1.0, 1.0), (30.0, 3.0), (20.0, 29.0)])
    if opencl.available():
        device_mask = opencl.mask(triangle, (32, 32))        # the shared engine of the default device
        assert (device_mask == polymask.mask(triangle, (32, 32))).all()

        engine = opencl.MaskEngine(precision="double")       # an engine of one's own
        packed = engine.mask(triangle, (32, 32), packed=True)  # one bit a pixel: 8x fewer bytes back
        assert (opencl.unpack(packed, (32, 32)) == device_mask).all()

        timing = opencl.profile(triangle, (32, 32))          # kernel and transfer seconds
        print(opencl.describe_default_device(), timing["kernel_s"])

The main calls:

* :func:`mask` -- one polygon's mask, through the process's shared engine
  (:func:`engine`) for the device and precision; :func:`release` frees the
  shared engines' buffers.
* :class:`MaskEngine` -- an engine of one's own: the program is built once,
  buffers stay on the device between calls, and ``enqueue()`` /
  ``result()`` let the host work while the kernel runs.
* :func:`unpack` -- the bool mask from a ``packed=True`` result.
* :func:`profile` -- kernel and transfer times of one mask, from OpenCL events.
* :func:`devices`, :func:`select_device`, :func:`describe_default_device` --
  what is here and which device a call uses.

Choosing a device: pass ``device=`` to :func:`mask`, :func:`engine` or
:class:`MaskEngine` -- ``"gpu"``, ``"cpu"`` or ``"accelerator"`` (the best
of that type), ``"gpu:1"`` (the second GPU), ``"0:1"`` (platform 0, device 1,
as PyOpenCL counts them), part of a device or platform name, a
:class:`DeviceInfo` or a ``pyopencl.Device``.  Without it, the environment
decides: ``POLYMASK_DEVICE`` (the same forms), then PyOpenCL's
``PYOPENCL_CTX``, then the best device that builds the kernels (GPU, then
accelerator, then CPU; fp64 first).  ``POLYMASK_OPENCL=0`` turns OpenCL off.

Precision is double where the device has fp64; ``precision="single"`` runs
on devices without it, within the bound of :data:`SINGLE_PRECISION_NOTE`.

Errors: a kernel that does not build raises :class:`OpenCLBuildError` with
the device and the build log; other failures raise :class:`OpenCLError`
naming the device (:class:`OpenCLMemoryError`, also a MemoryError, when a
buffer cannot be allocated); a missing runtime raises
:class:`OpenCLUnavailable` (an ImportError) saying how to install one.

The guide, :doc:`/guide/opencl`, covers the kernels, transfers, memory and
speed in more depth.
"""
# For contributors, the package's layout, top to bottom:
#
# * common.py -- the one ``pyopencl`` import, the errors, the environment variables;
#   _state.py -- the process's state: the one locked cache (devices, contexts,
#   programs, shared engines) and the fork guard.
# * programs.py -- kernels as package resources (kernels/pixel.cl, scanline.cl and
#   rows.cl, which include the C++ core's polymask/crossing.h), build options,
#   programs built once; launch.py -- how each kernel is launched.
# * discovery.py -- the devices (devices()) and the choice of one (select_device():
#   argument, $POLYMASK_DEVICE, $PYOPENCL_CTX, then the best device that builds the
#   kernels); availability.py -- whether that device works here, and at which precision.
# * processing.py -- MaskEngine, the resident engine, assembled from host.py (host
#   vertices and results) and resident.py (device-resident vertices); buffers.py
#   allocates and waits, pinned.py holds page-locked memory for large results,
#   engine_state.py declares the engine's attributes for type checkers.
# * shared.py -- the shared engines (engine(), mask(), release()), unpack() and profile().
#
# This facade re-exports the user API and nothing else; the course and the tests
# import anything more from the module that defines it.

from __future__ import annotations

from polymask.opencl.availability import (
    PRECISIONS,
    SINGLE_PRECISION_NOTE,
    available,
    describe_default_device,
    require,
    single_precision_tolerance,
    unavailable_reason,
)
from polymask.opencl.common import OpenCLBuildError, OpenCLError, OpenCLMemoryError, OpenCLUnavailable
from polymask.opencl.discovery import DeviceInfo, build_program, devices, select_device
from polymask.opencl.processing import MaskEngine
from polymask.opencl.programs import DEFAULT_KERNEL, KERNELS, build_options, kernel_dir, kernel_source
from polymask.opencl.shared import engine, mask, profile, release, unpack

#: The user API, as the reference documents it.
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
