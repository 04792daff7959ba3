"""Kernels as package resources, build options, and the built-program cache.

``kernels/pixel.cl`` (one work-item per pixel, lesson 7),
``kernels/scanline.cl`` (one work-item per row, the scanline lesson on a
device) and ``kernels/rows.cl`` (one work-group per row, the fast path)
ship inside the package and are found by :func:`kernel_dir`.  All include the C++ core's predicate header
``polymask/crossing.h``, installed beside them, so the device compiles the
very lines the C++ core compiles.  Each program is built once per device,
kernel and precision and kept in the one cache (``_state.CACHE``).
"""
from __future__ import annotations

import importlib.resources
from pathlib import Path

from polymask._describe import short_repr
from polymask.opencl._state import CACHE, check_not_forked
from polymask.opencl.common import (
    OpenCLBuildError,
    OpenCLError,
    cl,
    device_label,
)

#: Kernel id -> (file under kernels/, kernel function name).
KERNELS = {
    "pixel": ("pixel.cl", "pm_mask_pixel"),
    "scanline": ("scanline.cl", "pm_mask_scanline"),
    "rows": ("rows.cl", "pm_mask_rows"),
}
#: kernel="auto", the default, picks by device type, as measured: "rows" (a work-group per row)
#: on GPUs and accelerators; "scanline" (a work-item per row) on CPU devices, where PoCL runs it
#: several times faster than "rows" (work-groups there are loops, and their barriers cost).
DEFAULT_KERNEL = "auto"
#: Kernels that can write one bit a pixel (packed=True).
PACKING_KERNELS = ("rows",)


def kernel_dir() -> Path:
    """The installed kernels/ folder: the .cl files, precision.h and polymask/crossing.h.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    FileNotFoundError
        If a kernel file is missing (a broken install).

    Examples
    --------
    >>> from polymask import opencl
    >>> (opencl.kernel_dir() / "rows.cl").is_file()
    True
    """
    folder = Path(str(importlib.resources.files("polymask").joinpath("kernels")))
    missing = [name for name in (*(filename for filename, _ in KERNELS.values()), "precision.h", "polymask/crossing.h")
               if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"polymask's OpenCL kernel files are missing from {folder}: {', '.join(missing)}; "
            "they are installed by CMake (src/polymask/CMakeLists.txt), so reinstall polymask")
    return folder


def kernel_source(kernel: str) -> str:
    """The OpenCL C source of `kernel` ("pixel", "scanline" or "rows").

    Parameters
    ----------
    kernel : {"pixel", "scanline", "rows"}
        The kernel's name.

    Returns
    -------
    str
        The source of its .cl file.

    Raises
    ------
    ValueError
        If `kernel` names no kernel (the message lists them).

    Examples
    --------
    >>> from polymask import opencl
    >>> "__kernel" in opencl.kernel_source("rows")
    True
    """
    filename, _ = kernel_entry(kernel)
    return (kernel_dir() / filename).read_text()


def kernel_entry(kernel: str) -> tuple[str, str]:
    """(file name, kernel function name) of `kernel`; ValueError naming the choices otherwise."""
    try:
        return KERNELS[kernel]
    except (KeyError, TypeError):
        raise ValueError(f"kernel must be one of {', '.join(map(repr, (DEFAULT_KERNEL, *KERNELS)))}, "
                         f"got {short_repr(kernel)}") from None


def chosen_kernel(kernel: str, device_type: int, packed: bool = False) -> str:
    """`kernel` itself, checked; for "auto" the one for a device of `device_type` ("rows" when packing)."""
    if kernel == DEFAULT_KERNEL:
        return "rows" if packed or not device_type & cl.device_type.CPU else "scanline"
    kernel_entry(kernel)
    return kernel


def build_options(use_double: bool) -> list[str]:
    """Options for clBuildProgram: the include path, the precision, and no shortcuts.

    Contraction is turned off in the kernels (#pragma OPENCL FP_CONTRACT OFF);
    here we only ask for a correctly rounded float division and never pass
    -cl-mad-enable or -cl-fast-relaxed-math.

    Parameters
    ----------
    use_double : bool
        Build the kernels in double precision (bit-exact) or in float32.

    Returns
    -------
    list of str
        The options.

    Raises
    ------
    FileNotFoundError
        If the kernel files are missing (a broken install).

    Examples
    --------
    >>> from polymask import opencl
    >>> opencl.build_options(True)[2:]
    ['-DPM_USE_DOUBLE=1', '-cl-fp32-correctly-rounded-divide-sqrt']
    """
    return ["-I", str(kernel_dir()), f"-DPM_USE_DOUBLE={1 if use_double else 0}",
            "-cl-fp32-correctly-rounded-divide-sqrt"]


def context_for(device: cl.Device) -> cl.Context:
    """One context per device, shared by every engine on it (programs are per context)."""
    check_not_forked()

    def make() -> cl.Context:
        try:
            return cl.Context([device])
        except cl.Error as error:
            raise OpenCLError(f"creating a context on device {device_label(device)} failed: {error}") from None

    return CACHE.get("context", device.int_ptr, make)


def build(context: cl.Context, device: cl.Device, source: str, options: list[str], label: str) -> cl.Program:
    program = cl.Program(context, source)
    try:
        program.build(options=options, devices=[device])  # returns `program` itself
        return program
    except cl.Error as error:
        log = ""
        try:
            # pyopencl leaves Program.get_build_info unannotated (it forwards *args to the built program).
            log = program.get_build_info(device, cl.program_build_info.LOG).strip()  # type: ignore[no-untyped-call]
        except Exception:  # a failed query must not hide the build error: PyOpenCL's message holds the log too
            pass
        summary = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise OpenCLBuildError(
            f"building {label} for device {device_label(device)} failed (options: {' '.join(options)}): "
            f"{summary}\nbuild log:\n{log or str(error)}") from None


def program(device: cl.Device, kernel: str, use_double: bool) -> cl.Program:
    """The built program of `kernel` for `device`: compiled once per process, then cached."""
    def make() -> cl.Program:
        filename, _ = kernel_entry(kernel)
        built = build(context_for(device), device, kernel_source(kernel), build_options(use_double),
                       f"kernels/{filename}")
        CACHE.build_count += 1  # under the cache's lock: get() holds it while making
        return built

    return CACHE.get("program", (device.int_ptr, kernel, use_double), make)


def build_count() -> int:
    """How many kernel programs this process has compiled (each is built once per device and precision)."""
    return CACHE.build_count
