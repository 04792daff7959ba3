"""``backend=``: which implementation fills a mask, for comparisons.

The default, ``backend="auto"``, is the library's own fill (polymask/_fill.py,
the C++ core's scanline); nothing in the environment changes it.  Other
backends are the teaching stages of polymask's course: the library does not
import the course, it finds it the way Python finds plugins, through the
entry point group ``polymask.backends`` (pyproject.toml), loaded the first
time a call names a backend other than "auto".  Each provider is a function
that returns a mapping from backend id to an object with ``fill`` (the
stage's entry for arguments the library has checked) and ``reason`` (why it
cannot run here, or "").
"""
from __future__ import annotations

import threading
from typing import Any, Callable, NamedTuple

from polymask._describe import short_repr

#: The entry point group where backend providers register.
ENTRY_POINT_GROUP = "polymask.backends"


class Availability(NamedTuple):
    """Whether a backend runs here, and why not when it does not."""

    #: True when the backend can run here.
    available: bool
    #: Why not, when not available ("" when it is).
    reason: str


def _entry_points() -> list[Any]:
    # Imported here: importlib.metadata costs tens of milliseconds, and only backend= needs it.
    from importlib import metadata

    found = metadata.entry_points()
    if hasattr(found, "select"):  # Python 3.10+
        return list(found.select(group=ENTRY_POINT_GROUP))
    return list(found.get(ENTRY_POINT_GROUP, ()))  # Python 3.9: a dict of groups


_lock = threading.Lock()
_providers: list[Callable[[], dict[str, Any]]] | None = None
#: Entry point name -> why its provider could not be loaded (the course left out of an install).
_unloadable: dict[str, str] = {}


def _load_providers() -> list[Callable[[], dict[str, Any]]]:
    """The providers, loaded once per process; one that fails to load is noted in _unloadable."""
    global _providers
    with _lock:
        if _providers is None:
            loaded = []
            for entry_point in _entry_points():
                try:
                    loaded.append(entry_point.load())
                except ImportError as error:
                    _unloadable[entry_point.name] = (f"its provider {entry_point.value} could not be imported "
                                                     f"({type(error).__name__}: {error}); reinstall polymask")
            _providers = loaded
        return _providers


def backends() -> dict[str, Any]:
    """Every registered backend id mapped to its provider's object.

    The providers are loaded once per process; each is asked on every call,
    so a provider's table is always current.
    """
    table: dict[str, Any] = {}
    for provider in _load_providers():
        table.update(provider())
    return table


def missing_providers() -> dict[str, str]:
    """Registered providers that could not be loaded, by entry point name ("course"), each with why."""
    _load_providers()
    return dict(_unloadable)


def fill_function(backend: object) -> Callable[..., Any] | None:
    """The fill of the backend `backend` names; None for "auto" (the library's own fill).

    TypeError for a backend that is not a string, ValueError naming the
    choices for an unknown one, RuntimeError saying why for one that cannot
    run here (its provider among them: the course missing from the install).
    """
    if type(backend) is str and backend == "auto":
        return None
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string, got {short_repr(backend)}")
    table = backends()
    if backend not in table:
        missing = missing_providers()
        if missing:
            why = "; ".join(f"the backends of {name!r} are missing: {reason}" for name, reason in missing.items())
            raise RuntimeError(f"backend {backend!r} is not available here: {why}; "
                               f"available: auto{''.join(', ' + name for name in table)}")
        raise ValueError(f"unknown backend {backend!r}; choose one of: auto, {', '.join(table)}")
    reason = table[backend].reason
    if reason:
        raise RuntimeError(f"backend {backend!r} is not available here: {reason}")
    fill: Callable[..., Any] = table[backend].fill
    return fill
