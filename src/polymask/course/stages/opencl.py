"""Lesson 7, PyOpenCL, one work-item per pixel -- data-parallel kernels.

What it teaches: the per-pixel rule has no dependencies between pixels, so
a device can run one work-item per pixel.  The host side of OpenCL is a
fixed sequence, spread over the modules of polymask/opencl/:

1. platform and device (``polymask.opencl.devices()``, ``select_device``:
   discovery.py);
2. a context (programs.py) and a command queue on the device (the engine in
   processing.py);
3. a program built at run time from a .cl file (kernels/pixel.cl), which
   #includes the C++ core's own predicate header, crossing.h (programs.py);
4. buffers: the polygon copied host -> device (``h_vertices`` -> ``d_vertices``),
   the mask allocated on the device (buffers.py, processing.py);
5. the NDRange: (cols, rows) work-items in work-groups of 16x4, rounded up
   (processing.py);
6. the mask copied device -> host, and events that time each step
   (processing.py; ``polymask.opencl.profile`` in shared.py reads them).

common.py holds what they share: the one ``pyopencl`` import, the errors
and the one cache.

In double precision the device computes the same x_cross as every other
stage, so the mask is the same, bit for bit.  What changed from the prange
stage: not the algorithm, the hardware; and the transfer to and from the
device now costs time of its own (``polymask.opencl.profile`` shows it).

This module only calls the shared engine, which builds the program once
and keeps its buffers on the device between calls.  ``mask`` checks its
arguments (a learner calls it directly); ``fill`` is the registry's entry
for arguments ``polymask.mask`` has already checked.
"""
from __future__ import annotations

import numpy as np

from polymask import opencl as _opencl

# No usable device: ImportError with the reason and how to install a
# runtime, which the stage registry reports as "not available".
_opencl.require()


def mask(vertices, shape):
    """The mask of `vertices` on an image of `shape`, by the per-pixel OpenCL kernel in double."""
    return _opencl.mask(vertices, shape, kernel="pixel", precision="double")


def fill(coordinates: np.ndarray, shape: tuple[int, int], out: np.ndarray | None = None) -> np.ndarray:
    """mask() of checked arguments into `out` (None: a new array); see polymask.course.stages.Stage.fill."""
    return _opencl.engine(precision="double").fill(coordinates, shape, out, kernel="pixel")
