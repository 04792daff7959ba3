"""How error messages show the value they received: short, and whatever the value.

A message names what it received, but only a few levels and items of it:
``repr()`` of a list nested 1,000 deep raises RecursionError itself, and a
million-item list would drown the message.  No polymask imports here, so
every module can use it.
"""
from __future__ import annotations

import reprlib

_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxlevel = 3
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 4
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 40


def short_repr(value: object) -> str:
    """`value`'s repr cut to a few levels and items (at most 60 characters); never raises."""
    try:
        text = _SHORT_REPR.repr(value)
    except Exception:  # a __repr__ that fails: the type still says what was received
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 60 else text[:57] + "..."


def describe(value: object) -> str:
    """`short_repr(value)` followed by its type, for 'got ...' in error messages."""
    return f"{short_repr(value)} (type {type(value).__name__})"
