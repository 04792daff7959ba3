"""`python -m polymask.opencl`: list the OpenCL devices and check one builds the kernels.

Exits 0 when a device can build and run polymask's kernels (it prints which,
and a tiny mask checked against the C++ core), 1 otherwise with the reason.
scripts/install-opencl.sh uses it to decide whether the system's runtime is
needed.
"""
import sys

import numpy as np

import polymask
from polymask import opencl


def main() -> int:
    for info in opencl.devices():
        print(f"{info.key:14} {info.name} | {info.platform} | {info.compute_units} compute units | "
              f"{info.global_memory_bytes / 2**30:.1f} GiB | fp64: {'yes' if info.fp64 else 'no'}")
    reason = opencl.unavailable_reason()
    if reason is not None:
        print(f"OpenCL not usable: {reason}", file=sys.stderr)
        return 1
    vertices, shape = [(1, 1), (9, 2.5), (4.5, 8)], (10, 11)
    device_mask = opencl.mask(vertices, shape)
    if not np.array_equal(device_mask, polymask.mask(vertices, shape)):
        print("OpenCL not usable: the device's mask differs from the C++ core's", file=sys.stderr)
        return 1
    print(f"OK: {opencl.engine()!r} builds and runs the kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
