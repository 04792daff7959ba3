"""OpenCL devices: what is here, and which one a call uses.

:func:`devices` lists what is here (type, compute units, memory, fp64).
:func:`select_device` picks one: an explicit argument (a ``pyopencl.Device``
or a string such as ``"cpu"``, ``"gpu"``, ``"gpu:1"``, ``"0:1"``), else
``$POLYMASK_DEVICE``, else ``$PYOPENCL_CTX``, else the best device that can
build the kernels (GPU, accelerator, CPU; fp64 first).  ``POLYMASK_OPENCL=0``
turns OpenCL off.  Whether the chosen device works, and at which precision,
is ``availability.py``'s.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from polymask.opencl import programs
from polymask.opencl._state import CACHE
from polymask.opencl.common import (
    DEVICE_ENV,
    INSTALL_HINT,
    PYOPENCL_ENV,
    OpenCLBuildError,
    OpenCLError,
    OpenCLUnavailable,
    cl,
    require_pyopencl,
    turned_off,
)


@dataclass(frozen=True)
class DeviceInfo:
    """One OpenCL device, as :func:`devices` lists it.

    Parameters
    ----------
    key : str
        What :func:`select_device` accepts for exactly this device: "cpu:0", "gpu:1", ...
    name : str
        The device's name.
    platform : str
        Its platform's name.
    type : str
        "gpu", "cpu", "accelerator" or "other".
    compute_units : int
        Its compute units.
    global_memory_bytes : int
        Its global memory.
    max_alloc_bytes : int
        Largest single buffer the device allows: bounds the mask size.
    fp64 : bool
        True when the device does double precision (then the mask is bit-exact).
    device : pyopencl.Device or None
        The device itself (None in an unpickled copy whose device this
        process does not have).

    Examples
    --------
    >>> from polymask import opencl
    >>> kinds = ("gpu", "cpu", "accelerator", "other")
    >>> all(info.type in kinds for info in opencl.devices())
    True
    """

    #: What select_device() accepts for exactly this device: "cpu:0", "gpu:1", ...
    key: str
    name: str
    platform: str
    #: "gpu", "cpu", "accelerator" or "other".
    type: str
    compute_units: int
    global_memory_bytes: int
    #: Largest single buffer the device allows: bounds the mask size.
    max_alloc_bytes: int
    #: True when the device does double precision (then the mask is bit-exact).
    fp64: bool
    #: The pyopencl.Device (None in an unpickled copy whose device this process does not have).
    device: cl.Device | None = field(repr=False, compare=False)

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], DeviceInfo], tuple[dict[str, Any]]]:
        # A pyopencl.Device does not pickle: the description travels, and the
        # receiving process looks up its own device of the same key and name.
        described = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "device"}
        return (_unpickled_device_info, (described,))


# Any: the values are the dataclass's own fields (str, int, bool), passed back as keywords.
def _unpickled_device_info(described: dict[str, Any]) -> DeviceInfo:
    here = next((info.device for info in devices()
                 if info.key == described["key"] and info.name == described["name"]), None)
    return DeviceInfo(**described, device=here)


_TYPE_NAMES = ("gpu", "accelerator", "cpu")


def device_type_name(device: cl.Device) -> str:
    """"gpu", "accelerator", "cpu" or "other"."""
    for name in _TYPE_NAMES:
        if device.type & getattr(cl.device_type, name.upper()):
            return name
    return "other"


def has_fp64(device: cl.Device) -> bool:
    """True when `device` does double precision (then its masks are bit-exact)."""
    return bool(device.double_fp_config) or "cl_khr_fp64" in device.extensions.split()


def devices() -> list[DeviceInfo]:
    """Every OpenCL device here, platform by platform; [] when there is none (or OpenCL is off).

    Returns
    -------
    list of DeviceInfo
        One entry per device.

    Examples
    --------
    >>> from polymask import opencl
    >>> keys = [info.key for info in opencl.devices()]       # such as ['cpu:0', 'gpu:0']
    >>> all(opencl.select_device(key) is not None for key in keys)
    True
    """
    if cl is None or turned_off():
        return []
    return list(CACHE.get("devices", None, _discover))


def _discover() -> list[DeviceInfo]:
    found: list[DeviceInfo] = []
    per_type: dict[str, int] = {}
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # the ICD loader's "no platform" (PLATFORM_NOT_FOUND_KHR)
        platforms = []
    for platform in platforms:
        try:
            platform_devices = platform.get_devices()
        except cl.Error:  # a platform with no devices
            platform_devices = []
        for device in platform_devices:
            kind = device_type_name(device)
            index = per_type.get(kind, 0)
            per_type[kind] = index + 1
            found.append(DeviceInfo(
                key=f"{kind}:{index}", name=device.name.strip(), platform=platform.name.strip(),
                type=kind, compute_units=int(device.max_compute_units),
                global_memory_bytes=int(device.global_mem_size),
                max_alloc_bytes=int(device.max_mem_alloc_size), fp64=has_fp64(device), device=device))
    return found


def _preference(info: DeviceInfo) -> tuple[int, bool, int]:
    rank = _TYPE_NAMES.index(info.type) if info.type in _TYPE_NAMES else len(_TYPE_NAMES)
    return (rank, not info.fp64, -info.compute_units)


def _device_of(info: DeviceInfo) -> cl.Device:
    """The device of `info`; ValueError for an unpickled copy whose device this process does not have."""
    if info.device is None:
        raise ValueError(f"the DeviceInfo {info.key} {info.name!r} ({info.platform}) came from another "
                         f"process, which has a device this one lacks; {_listing()}")
    return info.device


def _first_that_builds(candidates: list[DeviceInfo], wanted: str) -> cl.Device:
    """The most preferred candidate that builds the pixel kernel (a broken runtime is skipped)."""
    failures = []
    for info in sorted(candidates, key=_preference):
        try:
            programs.program(_device_of(info), "pixel", info.fp64)
        except OpenCLBuildError as error:
            failures.append(f"  {info.key} {info.name!r} ({info.platform}): {_first_error_line(str(error))}")
            continue
        return _device_of(info)
    detail = "\n".join(failures) if failures else "  (none)"
    raise OpenCLError(f"no OpenCL device {wanted} can build polymask's kernels:\n{detail}\n{INSTALL_HINT}")


def _first_error_line(log: str) -> str:
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()
    return log.strip().splitlines()[0] if log.strip() else ""


def _best_device() -> cl.Device:
    """GPU before accelerator before CPU, fp64 first, most compute units first; must build the kernels."""
    return CACHE.get("best", None, lambda: _first_that_builds(devices(), "here"))


def _listing() -> str:
    found = devices()
    if not found:
        return "there are none"
    return "devices here: " + "; ".join(f"{info.key} = {info.name!r} ({info.platform})" for info in found)


_TYPE_SPEC = re.compile(r"^(gpu|cpu|accelerator|acc)(?::(\d+))?$")
_INDEX_SPEC = re.compile(r"^(\d+)(?::(\d+))?$")


def _device_from_string(spec: str, source: str) -> cl.Device:
    text = spec.strip().lower()
    found = devices()
    expected = ("expected 'gpu', 'cpu' or 'accelerator' (optionally ':N' for the N-th of that type), "
                "'PLATFORM:DEVICE' numbers as in PYOPENCL_CTX, or part of a device or platform name")
    match = _TYPE_SPEC.match(text)
    if match:
        kind = "accelerator" if match.group(1) == "acc" else match.group(1)
        of_type = [info for info in found if info.type == kind]
        if match.group(2) is None:
            if not of_type:
                raise ValueError(f"{source} = {spec!r}: no {kind} device here; {_listing()}")
            return _first_that_builds(of_type, f"of type {kind}")
        index = int(match.group(2))
        if index >= len(of_type):
            raise ValueError(f"{source} = {spec!r}: there are {len(of_type)} {kind} devices, "
                             f"so the index must be below {len(of_type)}; {_listing()}")
        return _device_of(of_type[index])
    match = _INDEX_SPEC.match(text)
    if match:
        # PYOPENCL_CTX's numbering: platforms as the ICD loader lists them.
        platform_index, device_index = int(match.group(1)), int(match.group(2) or 0)
        by_platform: dict[int, list[DeviceInfo]] = {}
        for info in found:
            by_platform.setdefault(_device_of(info).platform.int_ptr, []).append(info)
        try:
            platforms = cl.get_platforms()
        except cl.Error:
            platforms = []
        if (platform_index >= len(platforms)
                or device_index >= len(by_platform.get(platforms[platform_index].int_ptr, []))):
            raise ValueError(f"{source} = {spec!r}: no platform {platform_index} with a device "
                             f"{device_index}; {_listing()}")
        return _device_of(by_platform[platforms[platform_index].int_ptr][device_index])
    named = [info for info in found if text and (text in info.name.lower() or text in info.platform.lower())]
    if named:
        return _first_that_builds(named, f"matching {spec!r}")
    raise ValueError(f"{source} = {spec!r} names no OpenCL device; {expected}; {_listing()}")


def select_device(device: str | DeviceInfo | cl.Device | None = None) -> cl.Device:
    """The pyopencl.Device to use.

    `device` may be a pyopencl.Device, a DeviceInfo, or a string: "gpu",
    "cpu", "accelerator" (the best of that type), "gpu:1" (the second GPU,
    counted across platforms as devices() lists them), "0:1" (platform 0,
    device 1, as in PYOPENCL_CTX), or part of a device or platform name.
    None means $POLYMASK_DEVICE, then $PYOPENCL_CTX, then the best device
    here that builds the kernels (GPU, accelerator, CPU; fp64 first).

    Parameters
    ----------
    device : str, DeviceInfo or pyopencl.Device, optional
        The device as above.

    Returns
    -------
    pyopencl.Device
        The chosen device.

    Raises
    ------
    OpenCLUnavailable
        If PyOpenCL or every device is missing.
    TypeError
        If `device` is of none of the types above.
    ValueError
        If a string names no device here (the message lists them).

    Examples
    --------
    >>> from polymask import opencl
    >>> if opencl.available():
    ...     chosen = opencl.select_device(opencl.devices()[0])
    """
    require_pyopencl()
    if device is None:
        for variable in (DEVICE_ENV, PYOPENCL_ENV):
            spec = os.environ.get(variable, "").strip()
            if spec:
                return _device_from_string(spec, f"${variable}")
        if not devices():
            raise OpenCLUnavailable(f"no OpenCL platform with a device was found; {INSTALL_HINT}")
        return _best_device()
    if isinstance(device, cl.Device):
        return device
    if isinstance(device, DeviceInfo):
        return _device_of(device)
    if isinstance(device, str):
        return _device_from_string(device, "device")
    raise TypeError(f"device must be None, a pyopencl.Device, a DeviceInfo or a string such as 'cpu' "
                    f"or 'gpu:1', got {device!r} (type {type(device).__name__})")


def build_program(source: str, device: str | DeviceInfo | cl.Device | None = None, options: Sequence[str] = (),
                  label: str = "<source>") -> cl.Program:
    """Build OpenCL C `source` for `device`; OpenCLBuildError with the build log on failure.

    Parameters
    ----------
    source : str
        The OpenCL C source.
    device : str, DeviceInfo or pyopencl.Device, optional
        As :func:`select_device` takes it.
    options : sequence of str, optional
        Build options, such as :func:`build_options` gives.
    label : str, optional
        What build errors call the source.

    Returns
    -------
    pyopencl.Program
        The built program.

    Raises
    ------
    OpenCLUnavailable
        If OpenCL cannot be used here.
    OpenCLBuildError
        If the source does not build (the message holds the build log).

    Examples
    --------
    >>> from polymask import opencl
    >>> source = "__kernel void twice(__global float *a) { a[0] *= 2; }"
    >>> if opencl.available():
    ...     program = opencl.build_program(source)
    """
    require_pyopencl()
    chosen = select_device(device)
    return programs.build(programs.context_for(chosen), chosen, source, list(options), label)


