"""The process's OpenCL state, all of it: one cache behind one lock, and the fork guard.

The cache holds the devices found, the best device, one context per
device, the programs built, and the shared engines, so no two threads
build the same program twice and no reader sees a half-written entry.
silx keeps its context cache the same way (``silx/opencl/common.py``);
ours holds every per-process OpenCL object.  No other module of
``polymask.opencl`` keeps state of its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, overload

from polymask.opencl.common import OpenCLError

__all__ = ["CACHE", "Cache", "check_not_forked"]

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
        #: engine()'s memo, read without the lock so that a warm call asks no runtime:
        #: (device argument, precision, $POLYMASK_DEVICE, $PYOPENCL_CTX) -> a shared engine.
        self.engines_by_argument: dict[tuple[str | None, str, str | None, str | None], Any] = {}

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
            "(multiprocessing.get_context('spawn')), or use OpenCL only after forking"
        )
