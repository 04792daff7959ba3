"""What every OpenCL module here shares: the one pyopencl import, the errors,
the environment variables and the install hint.

The process's state (the one cache, the fork guard) is in ``_state.py``.
"""
from __future__ import annotations

import os

try:
    import pyopencl as cl
except ImportError as _error:  # reported by unavailable_reason(), never raised at import
    cl = None  # type: ignore[assignment]  # every user asks unavailable_reason() before touching cl
    PYOPENCL_IMPORT_ERROR = f"{type(_error).__name__}: {_error}"
else:
    PYOPENCL_IMPORT_ERROR = ""

# `cl` is listed so that the other modules may import it from here (mypy --strict
# re-exports only what __all__ names).
__all__ = [
    "DEVICE_ENV", "INSTALL_HINT", "OPENCL_ENV", "PYOPENCL_ENV", "PYOPENCL_IMPORT_ERROR",
    "OpenCLBuildError", "OpenCLError", "OpenCLMemoryError", "OpenCLUnavailable", "cl",
    "device_label", "require_pyopencl", "turned_off",
]

#: Set to 0 to turn OpenCL off (the stage then reports itself unavailable).
OPENCL_ENV = "POLYMASK_OPENCL"
#: Device choice for polymask, in the forms select_device() accepts.
DEVICE_ENV = "POLYMASK_DEVICE"
#: PyOpenCL's own device choice, honoured after POLYMASK_DEVICE.
PYOPENCL_ENV = "PYOPENCL_CTX"

#: How to get a runtime, quoted by every "OpenCL is not available" message.
INSTALL_HINT = (
    "install PyOpenCL and an OpenCL runtime: `pip install 'polymask[opencl]'` brings PyOpenCL and "
    "PoCL, a CPU runtime (pocl-binary-distribution); where that PoCL cannot build kernels for this "
    "CPU, install the system's (Debian/Ubuntu: `apt-get install pocl-opencl-icd`, which "
    "scripts/install-opencl.sh does for you), or a GPU vendor's OpenCL driver"
)


class OpenCLUnavailable(ImportError):
    """No usable OpenCL here: PyOpenCL, a platform or a working device is missing, or it is off.

    An ImportError, so code that treats a missing optional extra as an
    ImportError handles it too.

    Examples
    --------
    >>> from polymask import opencl
    >>> issubclass(opencl.OpenCLUnavailable, ImportError)
    True
    """


class OpenCLError(RuntimeError):
    """An OpenCL operation failed; the message names the device.

    Examples
    --------
    >>> from polymask import opencl
    >>> issubclass(opencl.OpenCLError, RuntimeError)
    True
    """


class OpenCLBuildError(OpenCLError):
    """A kernel did not build; the message names the device and holds the build log.

    Examples
    --------
    >>> from polymask import opencl
    >>> issubclass(opencl.OpenCLBuildError, opencl.OpenCLError)
    True
    """


class OpenCLMemoryError(OpenCLError, MemoryError):
    """The device could not allocate a buffer: an OpenCLError that is also a MemoryError.

    Examples
    --------
    >>> from polymask import opencl
    >>> issubclass(opencl.OpenCLMemoryError, MemoryError)
    True
    """


def device_label(device: cl.Device) -> str:
    """The device, its platform and the platform's version, for error messages."""
    return f"{device.name.strip()!r} on {device.platform.name.strip()!r} ({device.platform.version.strip()})"


def turned_off() -> bool:
    """True when POLYMASK_OPENCL=0 turns OpenCL off."""
    return os.environ.get(OPENCL_ENV, "").strip() == "0"


def require_pyopencl() -> None:
    """OpenCLUnavailable unless PyOpenCL imports and OpenCL is not turned off."""
    if cl is None:
        raise OpenCLUnavailable(f"PyOpenCL cannot be imported ({PYOPENCL_IMPORT_ERROR}); {INSTALL_HINT}")
    if turned_off():
        raise OpenCLUnavailable(f"OpenCL is turned off by {OPENCL_ENV}=0; unset it to use an OpenCL device")
