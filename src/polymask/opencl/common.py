"""What every OpenCL module here shares: the one pyopencl import, the errors,
the environment variables, and the one cache.

The cache is a single object with a single lock: devices found, the best
device, one context per device, built programs, and the shared engines all
live in it, so no two threads build the same program twice and no reader
sees a half-written entry.  silx keeps its context cache the same way
(``silx/opencl/common.py``); ours holds every per-process OpenCL object.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar, overload

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
    "CACHE", "DEVICE_ENV", "INSTALL_HINT", "OPENCL_ENV", "PYOPENCL_ENV", "PYOPENCL_IMPORT_ERROR", "Cache",
    "OpenCLBuildError", "OpenCLError", "OpenCLMemoryError", "OpenCLUnavailable", "check_not_forked", "cl",
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


_MISSING = object()
_Entry = TypeVar("_Entry")


class Cache:
    """The process's OpenCL objects, by (section, key), behind one re-entrant lock.

    Sections: "devices" (the list devices() found), "best" (the default
    device), "context" (per device), "program" (per device, kernel and
    precision), "engine" (per device and precision).  `get` makes a missing
    entry while holding the lock, so each is made once; the lock is
    re-entrant because making one entry needs others (a program needs its
    device's context).  An entry is only ever made by one kind of `make`
    (the section and key say which), so `get` returns what that `make` returns.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._entries: dict[tuple[str, Hashable], object] = {}
        #: Programs compiled by this process (each once per device, kernel and precision).
        self.build_count = 0

    @overload
    def get(self, section: str, key: Hashable, make: Callable[[], _Entry]) -> _Entry: ...
    @overload
    def get(self, section: str, key: Hashable, make: None = None) -> object | None: ...
    def get(self, section: str, key: Hashable, make: Callable[[], object] | None = None) -> object | None:
        """The entry, made by `make()` if missing (None when missing and no `make`)."""
        with self.lock:
            found = self._entries.get((section, key), _MISSING)
            if found is _MISSING:
                if make is None:
                    return None
                found = make()
                self._entries[(section, key)] = found
            return found

    def entries(self, section: str) -> list[tuple[Hashable, object]]:
        """Every (key, value) of one section, a snapshot."""
        with self.lock:
            return [(key, value) for (name, key), value in self._entries.items() if name == section]


#: The one cache of this process.
CACHE = Cache()


# OpenCL runtimes do not survive fork(): a child forked after a context
# existed inherits handles to driver threads and device state that stayed in
# the parent (PoCL's pthread device hangs there).  The child gets a clear
# error instead of a hang.
_forked_after_use = False


def _after_fork_in_child() -> None:
    global _forked_after_use
    if CACHE.entries("context"):
        _forked_after_use = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def check_not_forked() -> None:
    """OpenCLError in a child forked after this process had used OpenCL."""
    if _forked_after_use:
        raise OpenCLError(
            "this process was forked from one that had already used OpenCL, and OpenCL runtimes do "
            "not survive fork(); use the 'spawn' or 'forkserver' start method "
            "(multiprocessing.get_context('spawn')), or use OpenCL only after forking")
